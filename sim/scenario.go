package sim

// A scenario is the "test factory" of Pragma's matchmaking design, for
// Cupid's users: a ruleset and a handful of tickets that arrive (and
// perhaps cancel) at given seconds. RunScenario plays it through the real
// engine on the simulator's own virtual-time loop (simulate) and reports
// the matches formed, with their teams, region, roles and quality, and for
// every ticket still waiting at the end, why it waits. "cupid ruleset try"
// and the dashboard's try page wrap it; the engine's golden scenarios are in
// engine/enginetest/testdata.
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
// Time runs the way the server runs it: a pool steps when tickets arrive or
// leave and at the moments its NextWake names, never on a timer.
//
// A ticket may name its game version with client_version, the reserved key
// of AccelByte's match rulesets: as a field of the scenario ticket, among its
// options (the ticket's attributes, where the server reads it) or among its
// players' attributes. The server puts the version in the queue key, so
// tickets of different versions wait in different pools and never meet; the
// scenario does the same, one pool per version.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
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
	Tickets []ScenarioTicket `json:"tickets"`
	// Until ends the run this many seconds after time 0; without it the
	// run ends when nothing can happen any more (no arrival left and no
	// relaxation to wait for), or at MaxScenarioSeconds.
	Until float64 `json:"until,omitempty"`
	// Seed feeds the engine's randomness.
	Seed int64 `json:"seed,omitempty"`
}

// MaxScenarioSeconds bounds a run without Until: a scenario whose rules
// relax for hours still ends.
const MaxScenarioSeconds = 3600

// maxScenarioTime bounds every time of a scenario (at, waited, cancel,
// until), in seconds: about three years, far inside the nanoseconds the
// virtual clock counts in.
const maxScenarioTime = 1e8

// ScenarioTicket is one matchmaking request of a scenario.
type ScenarioTicket struct {
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
	Players []ScenarioPlayer `json:"players,omitempty"`
	// Options are ticket-wide attributes (the match options of
	// AccelByte's match rulesets, client_version, new_session_only …).
	Options map[string]any `json:"options,omitempty"`
	// Latencies maps a region to the ticket's latency in ms.
	Latencies map[string]int32 `json:"latencies,omitempty"`
	// ClientVersion is the reserved key client_version, given as a field:
	// the same as setting it in Options.
	ClientVersion string `json:"client_version,omitempty"`
	// Cancel, when set, cancels the ticket at that second (not before At)
	// if it still waits.
	Cancel float64 `json:"cancel,omitempty"`
}

// ScenarioPlayer is one member of a party ticket.
type ScenarioPlayer struct {
	ID         string         `json:"id"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// ParseScenario reads a scenario document strictly: unknown fields are
// errors, so a typo does not silently change the scenario.
func ParseScenario(data []byte) (Scenario, error) {
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

// nanos is a scenario's second on the virtual clock, in nanoseconds since
// Origin.
func nanos(s float64) int64 { return int64(math.Round(s * float64(time.Second))) }

// seconds is a moment of the virtual clock as a scenario's second.
func seconds(ns int64) float64 { return float64(ns) / float64(time.Second) }

// scenarioQueue is the queue key scenarios run under.
var scenarioQueue = cupid.QueueKey{Queue: "scenario"}

// checkTime refuses a time a scenario cannot run: negative, or beyond
// maxScenarioTime.
func checkTime(field string, s float64) error {
	if s < 0 || s > maxScenarioTime {
		return fmt.Errorf("%s: between 0 and %g seconds, got %v", field, float64(maxScenarioTime), s)
	}
	return nil
}

// toTicket builds the cupid ticket of a scenario ticket.
func (t ScenarioTicket) toTicket(i int) (*cupid.Ticket, error) {
	path := fmt.Sprintf("tickets[%d]", i)
	if t.ID == "" {
		return nil, fmt.Errorf("%s.id: required", path)
	}
	for _, c := range []struct {
		field string
		s     float64
	}{{"at", t.At}, {"waited", t.Waited}, {"cancel", t.Cancel}} {
		if err := checkTime(path+"."+c.field, c.s); err != nil {
			return nil, err
		}
	}
	if t.Cancel > 0 && t.Cancel < t.At {
		return nil, fmt.Errorf("%s.cancel: %v is before the ticket arrives (at %v)", path, t.Cancel, t.At)
	}
	ct := &cupid.Ticket{
		ID: t.ID, Key: scenarioQueue, State: cupid.StateWaiting, Latencies: t.Latencies,
		CreatedAt: Origin.Add(time.Duration(nanos(t.At - t.Waited))),
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
func (t ScenarioTicket) version(path string, ct *cupid.Ticket) (string, error) {
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

// RunScenario plays a scenario through the engine and reports what
// happened. An error means the scenario itself is wrong (a bad ruleset, a
// ticket that cannot be built); the error says which. A ticket the engine
// refuses is not an error: the report lists it.
func RunScenario(s Scenario) (ScenarioReport, error) {
	rs, err := ruleset.Load(s.Ruleset)
	if err != nil {
		return ScenarioReport{}, fmt.Errorf("ruleset: %w", err)
	}
	if err := checkTime("until", s.Until); err != nil {
		return ScenarioReport{}, err
	}
	src := &scenarioSource{endNS: nanos(MaxScenarioSeconds) + 1}
	if s.Until > 0 {
		// The moment Until itself still runs.
		src.endNS = nanos(s.Until) + 1
	}
	// One pool per queue key, as the server keeps them: the versionless
	// key first (it also proves the engine takes the ruleset), then one per
	// client_version in order of appearance.
	var pools []*engine.Pool
	keyed := newKeyed(func(key cupid.QueueKey) (pool, error) {
		p, err := newEnginePool(key, rs, uint64(s.Seed))
		if err != nil {
			return nil, err
		}
		pools = append(pools, p.(*enginePool).p)
		return p, nil
	})
	if _, err := keyed.poolOf(scenarioQueue); err != nil {
		return ScenarioReport{}, err
	}
	for i, t := range s.Tickets {
		ct, err := t.toTicket(i)
		if err != nil {
			return ScenarioReport{}, err
		}
		if _, err := keyed.poolOf(ct.Key); err != nil {
			return ScenarioReport{}, err
		}
		src.add(ct, nanos(t.At), nanos(t.Cancel))
	}
	src.sort()

	log := &scenarioLog{rep: ScenarioReport{Name: s.Name}}
	if err := simulate(src, keyed, log); err != nil {
		return ScenarioReport{}, err
	}
	rep := log.rep
	end := log.last
	if s.Until > 0 {
		end = max(end, nanos(s.Until))
	}
	rep.End = seconds(end)
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
	at := Origin.Add(time.Duration(end))
	for _, w := range all {
		x, _ := w.p.Explain(w.t.ID, at)
		rep.Waiting = append(rep.Waiting, waitingReport(x, w.t.Key.Version))
	}
	return rep, nil
}

// scenarioSource plays a scenario's tickets, each once, in order of
// arrival (file order breaks ties); a cancellation is the ticket's
// departure.
type scenarioSource struct {
	tickets []*party
	endNS   int64
}

func (s *scenarioSource) count() int                    { return len(s.tickets) }
func (s *scenarioSource) arrivalAt(i int) int64         { return s.tickets[i].arrived }
func (s *scenarioSource) build(i int) *party            { return s.tickets[i] }
func (s *scenarioSource) comeback(*party, int64) *party { return nil }
func (s *scenarioSource) end() int64                    { return s.endNS }

func (s *scenarioSource) add(t *cupid.Ticket, at, cancel int64) {
	leaves := int64(math.MaxInt64)
	if cancel > 0 {
		leaves = cancel
	}
	s.tickets = append(s.tickets, &party{t: t, arrived: at, leaves: leaves, j: int32(len(s.tickets)), size: int32(len(t.Players))})
}

func (s *scenarioSource) sort() {
	sort.SliceStable(s.tickets, func(a, b int) bool { return s.tickets[a].arrived < s.tickets[b].arrived })
}

// scenarioLog is the observer of a scenario: every match, refusal and
// cancellation, in the order they happen.
type scenarioLog struct {
	rep  ScenarioReport
	last int64
}

func (l *scenarioLog) arrive(*party)     {}
func (l *scenarioLog) admitted(*party)   {}
func (l *scenarioLog) sampleUntil(int64) {}
func (l *scenarioLog) finish(last int64) { l.last = last }

func (l *scenarioLog) refused(pt *party, err error) {
	l.rep.Refused = append(l.rep.Refused, ScenarioRefusal{ID: pt.t.ID, At: seconds(pt.arrived), Error: err.Error()})
}

func (l *scenarioLog) leave(pt *party, now int64) {
	l.rep.Cancelled = append(l.rep.Cancelled, pt.t.ID)
}

func (l *scenarioLog) match(f *formed, now int64) {
	l.rep.Matches = append(l.rep.Matches, matchReport(f.prop, now))
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

func matchReport(p *engine.Proposal, now int64) ScenarioMatch {
	at := Origin.Add(time.Duration(now))
	pm := p.Match()
	m := ScenarioMatch{At: seconds(now), Version: pm.Key.Version, Region: p.Region, Roles: p.Roles, Anchor: p.AnchorID, Level: p.Level,
		Quality: p.Quality.Score, Parts: p.Quality.Parts, Waits: map[string]float64{}}
	for _, tm := range pm.Teams {
		m.Teams = append(m.Teams, tm.TicketIDs)
	}
	for _, t := range p.Tickets() {
		m.Waits[t.ID] = round(t.Wait(at).Seconds())
	}
	return m
}

func waitingReport(x engine.Explanation, version string) ScenarioWait {
	w := ScenarioWait{ID: x.TicketID, Version: version, Waited: round(x.Wait.Seconds()), Summary: x.Summary, Blocks: x.Blocks,
		Compatible: x.Compatible, PlayersAvailable: x.PlayersAvailable, PlayersNeeded: x.PlayersNeeded, Relaxes: x.Relaxes}
	if !x.NextRelaxation.IsZero() {
		w.NextRelaxation = round(seconds(x.NextRelaxation.Sub(Origin).Nanoseconds()))
		w.NextAdds, w.NextForms = x.NextAdds, x.NextForms
	}
	if !x.FirstAdmit.IsZero() {
		w.FirstAdmit = round(seconds(x.FirstAdmit.Sub(Origin).Nanoseconds()))
		w.FirstAdmitForms = x.FirstAdmitForms
	}
	return w
}

func round(f float64) float64 { return math.Round(f*1000) / 1000 }
