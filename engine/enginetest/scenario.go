// Package enginetest runs the matchmaking engine over a small scenario in
// virtual time: a ruleset and tickets that arrive (and perhaps cancel) at
// given seconds. It reports the matches formed, with their teams, region,
// roles and quality, and for every ticket still waiting at the end, why it
// waits. It is the "test factory" of Pragma's matchmaking design, for Cupid's
// users: write down the situation that puzzles you and see what the real
// engine does with it. "cupid ruleset try FILE" wraps it.
//
// A scenario is a JSON document (or the same structs built in Go):
//
//	{
//	  "name": "duel",
//	  "ruleset": {"alliance": {"min_number": 2, "max_number": 2,
//	              "player_min_number": 1, "player_max_number": 1},
//	              "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}]},
//	  "tickets": [
//	    {"id": "ann", "at": 0, "attributes": {"mmr": 1500}},
//	    {"id": "bob", "at": 3, "attributes": {"mmr": 1580}},
//	    {"id": "cid", "at": 4, "party": 2, "attributes": {"mmr": 2400}}
//	  ]
//	}
//
// Time runs the way the server runs it: the engine steps when tickets
// arrive and at the moments its NextWake names, never on a timer.
//
// A ticket may name its game version with client_version, the reserved key
// of AccelByte's match rulesets: as a field of the scenario ticket, among its
// options (the ticket's attributes, where the server reads it) or among its
// players' attributes. The server puts the version in the queue key, so
// tickets of different versions wait in different pools and never meet; the
// scenario does the same, one pool per version.
package enginetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/ruleset"
)

// Scenario is a ruleset and the tickets that arrive over virtual time.
type Scenario struct {
	// Name titles the report.
	Name string `json:"name,omitempty"`
	// Ruleset is the ruleset document, as a server would load it.
	Ruleset json.RawMessage `json:"ruleset"`
	// Tickets arrive at their At second.
	Tickets []Ticket `json:"tickets"`
	// Until ends the run this many seconds after time 0; without it the
	// run ends when nothing can happen any more (no arrival left and no
	// relaxation to wait for), or at MaxSeconds.
	Until float64 `json:"until,omitempty"`
	// Seed feeds the engine's randomness.
	Seed int64 `json:"seed,omitempty"`
}

// MaxSeconds bounds a run without Until: a scenario whose rules relax for
// hours still ends.
const MaxSeconds = 3600

// Ticket is one matchmaking request of a scenario.
type Ticket struct {
	// ID names the ticket; players default to ID (solo) or ID.1, ID.2 …
	ID string `json:"id"`
	// At is the arrival second.
	At float64 `json:"at"`
	// Waited is how long the ticket had already waited when it arrived
	// (a ticket reloaded after a restart keeps its age).
	Waited float64 `json:"waited,omitempty"`
	// Party makes the ticket a party of that many players sharing
	// Attributes (ignored when Players is given).
	Party int `json:"party,omitempty"`
	// Attributes are each player's attributes: numbers, booleans, strings
	// or lists of strings.
	Attributes map[string]any `json:"attributes,omitempty"`
	// Players lists the players one by one, when they differ.
	Players []Player `json:"players,omitempty"`
	// Options are ticket-wide attributes (the match options of
	// AccelByte's match rulesets, client_version, new_session_only …).
	Options map[string]any `json:"options,omitempty"`
	// Latencies maps a region to the ticket's latency in ms.
	Latencies map[string]int32 `json:"latencies,omitempty"`
	// ClientVersion is the reserved key client_version, given as a field:
	// the same as setting it in Options.
	ClientVersion string `json:"client_version,omitempty"`
	// Cancel, when set, cancels the ticket at that second if it still
	// waits.
	Cancel float64 `json:"cancel,omitempty"`
}

// Player is one member of a party ticket.
type Player struct {
	ID         string         `json:"id"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// Parse reads a scenario document strictly: unknown fields are errors, so a
// typo does not silently change the scenario.
func Parse(data []byte) (Scenario, error) {
	var s Scenario
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Scenario{}, fmt.Errorf("scenario: %w", err)
	}
	if len(s.Ruleset) == 0 {
		return Scenario{}, fmt.Errorf("scenario: ruleset is required")
	}
	return s, nil
}

// Origin is the virtual clock's time 0.
var Origin = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func secondsAt(s float64) time.Time {
	return Origin.Add(time.Duration(math.Round(s * float64(time.Second))))
}

func sinceOrigin(t time.Time) float64 { return t.Sub(Origin).Seconds() }

// queue is the queue key scenarios run under.
var queue = cupid.QueueKey{Queue: "scenario"}

// toTicket builds the cupid ticket of a scenario ticket.
func (t Ticket) toTicket(i int) (*cupid.Ticket, error) {
	path := fmt.Sprintf("tickets[%d]", i)
	if t.ID == "" {
		return nil, fmt.Errorf("%s.id: required", path)
	}
	ct := &cupid.Ticket{
		ID: t.ID, Key: queue, State: cupid.StateWaiting, Latencies: t.Latencies,
		CreatedAt: secondsAt(t.At - t.Waited),
	}
	attrs, err := values(t.Attributes, path+".attributes")
	if err != nil {
		return nil, err
	}
	switch {
	case len(t.Players) > 0:
		for k, p := range t.Players {
			pa, err := values(p.Attributes, fmt.Sprintf("%s.players[%d].attributes", path, k))
			if err != nil {
				return nil, err
			}
			merged := map[string]cupid.Value{}
			for n, v := range attrs {
				merged[n] = v
			}
			for n, v := range pa {
				merged[n] = v
			}
			id := p.ID
			if id == "" {
				id = fmt.Sprintf("%s.%d", t.ID, k+1)
			}
			ct.Players = append(ct.Players, cupid.Player{ID: id, Attributes: cupid.NewAttributes(merged)})
		}
	case t.Party > 1:
		for k := 0; k < t.Party; k++ {
			ct.Players = append(ct.Players, cupid.Player{ID: fmt.Sprintf("%s.%d", t.ID, k+1), Attributes: cupid.NewAttributes(attrs)})
		}
	default:
		ct.Players = []cupid.Player{{ID: t.ID, Attributes: cupid.NewAttributes(attrs)}}
	}
	opts, err := values(t.Options, path+".options")
	if err != nil {
		return nil, err
	}
	ct.Attributes = cupid.NewAttributes(opts)
	if ct.Key.Version, err = t.version(path, ct); err != nil {
		return nil, err
	}
	return ct, nil
}

// version finds the ticket's client_version and makes the reserved key say
// it on the ticket, as the server would have it: the field, else the option
// (the ticket-wide attribute the server reads), else the players' own
// attributes when they agree. No version is the empty one.
func (t Ticket) version(path string, ct *cupid.Ticket) (string, error) {
	const key = ruleset.KeyClientVersion
	v := t.ClientVersion
	if o, ok := ct.Attributes.Get(key); ok {
		if o.Kind != cupid.KindString {
			return "", fmt.Errorf("%s.options.%s: must be a string", path, key)
		}
		if v != "" && v != o.String {
			return "", fmt.Errorf("%s.%s: %q, but options.%s is %q", path, key, v, key, o.String)
		}
		return o.String, nil
	}
	if v != "" {
		ct.Attributes.Set(key, cupid.String(v))
		return v, nil
	}
	first := -1
	for i, pl := range ct.Players {
		pv, ok := pl.Attributes.Get(key)
		if !ok || pv.Kind != cupid.KindString {
			// Left to the engine, which names what is wrong.
			continue
		}
		if first < 0 {
			first, v = i, pv.String
			continue
		}
		if pv.String != v {
			where := fmt.Sprintf("%s.players[%d].attributes.%s", path, i, key)
			return "", fmt.Errorf("%s: %q, but players[%d] has %q: one ticket plays one version", where, pv.String, first, v)
		}
	}
	return v, nil
}

// values converts JSON attribute values: numbers, booleans, strings, lists
// of strings.
func values(m map[string]any, path string) (map[string]cupid.Value, error) {
	if len(m) == 0 {
		return map[string]cupid.Value{}, nil
	}
	out := make(map[string]cupid.Value, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case float64:
			out[k] = cupid.Number(x)
		case int:
			out[k] = cupid.Number(float64(x))
		case string:
			out[k] = cupid.String(x)
		case bool:
			out[k] = cupid.Bool(x)
		case []string:
			out[k] = cupid.Strings(x...)
		case []any:
			list := make([]string, len(x))
			for i, e := range x {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("%s.%s[%d]: lists may hold only strings", path, k, i)
				}
				list[i] = s
			}
			out[k] = cupid.Strings(list...)
		default:
			return nil, fmt.Errorf("%s.%s: must be a number, a boolean, a string or a list of strings", path, k)
		}
	}
	return out, nil
}

// Run plays a scenario through the engine and reports what happened. An
// error means the scenario itself is wrong (a bad ruleset, a ticket the
// engine refuses); the report says which.
func Run(s Scenario) (Report, error) {
	rs, err := ruleset.Load(s.Ruleset)
	if err != nil {
		return Report{}, fmt.Errorf("ruleset: %w", err)
	}
	// One pool per queue key, as the server keeps them: the versionless
	// key first (it also proves the engine takes the ruleset), then one per
	// client_version in order of appearance.
	var pools []*engine.Pool
	byKey := map[cupid.QueueKey]*engine.Pool{}
	poolFor := func(key cupid.QueueKey) (*engine.Pool, error) {
		if p, ok := byKey[key]; ok {
			return p, nil
		}
		p, err := engine.New(key, rs, engine.Options{Seed: s.Seed})
		if err != nil {
			return nil, err
		}
		pools = append(pools, p)
		byKey[key] = p
		return p, nil
	}
	if _, err := poolFor(queue); err != nil {
		return Report{}, err
	}
	tickets := make([]*cupid.Ticket, len(s.Tickets))
	for i, t := range s.Tickets {
		if tickets[i], err = t.toTicket(i); err != nil {
			return Report{}, err
		}
		if _, err := poolFor(tickets[i].Key); err != nil {
			return Report{}, err
		}
	}
	// Arrivals and cancellations in time order (stable: file order breaks
	// ties).
	type event struct {
		at     float64
		i      int
		cancel bool
	}
	var events []event
	for i, t := range s.Tickets {
		events = append(events, event{at: t.At, i: i})
		if t.Cancel > 0 {
			events = append(events, event{at: t.Cancel, i: i, cancel: true})
		}
	}
	sort.SliceStable(events, func(a, b int) bool { return events[a].at < events[b].at })

	rep := Report{Name: s.Name}
	limit := s.Until
	if limit <= 0 {
		limit = MaxSeconds
	}
	now := 0.0
	next := 0
	due := make([]bool, len(pools))
	for steps := 0; steps < 1_000_000; steps++ {
		// The next moment: an event, or a pool's wake-up.
		at, ok := math.Inf(1), false
		if next < len(events) {
			at, ok = events[next].at, true
		}
		wakes := make([]float64, len(pools))
		for k, p := range pools {
			wakes[k] = math.Inf(1)
			if w, wok := p.NextWake(secondsAt(now)); wok {
				wakes[k] = sinceOrigin(w)
				if wakes[k] < at {
					at, ok = wakes[k], true
				}
			}
		}
		if !ok || at > limit {
			break
		}
		now = max(now, at)
		// A pool steps when something happened to it or it woke, as each
		// pool of the server runs on its own.
		for k := range pools {
			due[k] = wakes[k] <= now
		}
		for next < len(events) && events[next].at <= now {
			ev := events[next]
			next++
			t := tickets[ev.i]
			p := byKey[t.Key]
			due[slices.Index(pools, p)] = true
			if ev.cancel {
				if p.Remove(t.ID) {
					rep.Cancelled = append(rep.Cancelled, t.ID)
				}
				continue
			}
			if err := p.Add(t); err != nil {
				rep.Refused = append(rep.Refused, Refusal{ID: t.ID, At: ev.at, Error: err.Error()})
			}
		}
		for k, p := range pools {
			if !due[k] {
				continue
			}
			for _, prop := range p.Step(secondsAt(now)) {
				rep.Matches = append(rep.Matches, matchReport(prop, p.Key().Version, now))
			}
		}
	}
	if s.Until > 0 {
		now = max(now, s.Until)
	}
	rep.End = now
	// Every waiting ticket, oldest first, explained by its own pool.
	type waiting struct {
		t *cupid.Ticket
		p *engine.Pool
	}
	var all []waiting
	for _, p := range pools {
		for _, t := range p.Tickets() {
			all = append(all, waiting{t, p})
		}
		rep.Stats = addStats(rep.Stats, p.Stats())
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].t.CreatedAt.Before(all[j].t.CreatedAt) })
	for _, w := range all {
		x, _ := w.p.Explain(w.t.ID, secondsAt(now))
		rep.Waiting = append(rep.Waiting, waitingReport(x, w.t.Key.Version, now))
	}
	return rep, nil
}

// addStats adds the counters of two pools, field by field.
func addStats(a, b engine.Stats) engine.Stats {
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(b)
	for i := range va.NumField() {
		f := va.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(f.Int() + vb.Field(i).Int())
		case reflect.Uint64:
			f.SetUint(f.Uint() + vb.Field(i).Uint())
		case reflect.Float64:
			f.SetFloat(f.Float() + vb.Field(i).Float())
		}
	}
	return a
}

func matchReport(p engine.Proposal, version string, now float64) MatchReport {
	m := MatchReport{At: now, Version: version, Region: p.Match.Region, Roles: p.Match.Roles, Anchor: p.AnchorID, Level: p.Level,
		Quality: p.Match.Quality.Score, Parts: p.Match.Quality.Parts, Waits: map[string]float64{}}
	for _, tm := range p.Match.Teams {
		m.Teams = append(m.Teams, tm.TicketIDs)
	}
	for _, t := range p.Tickets() {
		m.Waits[t.ID] = round(t.Wait(secondsAt(now)).Seconds())
	}
	return m
}

func waitingReport(x engine.Explanation, version string, now float64) WaitingReport {
	w := WaitingReport{ID: x.TicketID, Version: version, Waited: round(x.Wait.Seconds()), Summary: x.Summary, Blocks: x.Blocks,
		Compatible: x.Compatible, PlayersAvailable: x.PlayersAvailable, PlayersNeeded: x.PlayersNeeded, Relaxes: x.Relaxes}
	if !x.NextRelaxation.IsZero() {
		w.NextRelaxation = round(sinceOrigin(x.NextRelaxation))
		w.NextAdds, w.NextForms = x.NextAdds, x.NextForms
	}
	if !x.FirstAdmit.IsZero() {
		w.FirstAdmit = round(sinceOrigin(x.FirstAdmit))
		w.FirstAdmitForms = x.FirstAdmitForms
	}
	return w
}

func round(f float64) float64 { return math.Round(f*1000) / 1000 }
