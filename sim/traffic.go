package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/cupid-match/cupid"
)

// A traffic file is real traffic recorded from a server's store, to replay
// through another ruleset: "what if we had run this ruleset last week". It
// is JSON Lines: a header, then one ticket a line in creation order.
//
//	{"cupid_traffic":2,"queue":"squad5v5","from":"2025-01-06T00:00:00Z","to":"2025-01-13T00:00:00Z"}
//	{"id":"0193…","at":12.5,"players":[{"id":"ann","attributes":{"mmr":1500}}],"latencies":{"eu-west":30},"state":"matched","match":"0195…"}
//	{"kind":"match","id":"0195…","at":20.25,"teams":[["0193…"],["0196…"]],"region":"eu-west","quality":{"score":0.91}}
//	{"id":"0194…","at":13.1,"players":[…],"state":"cancelled","left":95.2}
//
// at is the ticket's creation, in seconds after from. left, for a ticket
// that ended without a match (cancelled by its owner or the server, or
// expired), is how long after at it left the queue: the replay has it leave
// then if it still waits. A matched ticket's patience is unknown; the
// replay lets it wait until the ticket time to live.
//
// A match line (version 2) is what really happened to matched tickets: the
// match a ticket ended in (its match field), when it formed (at, seconds
// after from), its teams of tickets, its region and the engine's quality
// score at the time. It comes after the first of its tickets in the window.
// The replay plays these as a run of their own, "actual", and counts the
// matches of each ruleset that are the same as a real one.

// TrafficHeader is a traffic file's first line.
type TrafficHeader struct {
	Version int       `json:"cupid_traffic"`
	Queue   string    `json:"queue"`
	From    time.Time `json:"from"`
	To      time.Time `json:"to"`
}

// TrafficTicket is one recorded ticket.
type TrafficTicket struct {
	ID         string           `json:"id"`
	At         float64          `json:"at"`
	Version    string           `json:"version,omitempty"`
	Custom     string           `json:"custom,omitempty"`
	Players    []TrafficPlayer  `json:"players"`
	Latencies  map[string]int32 `json:"latencies,omitempty"`
	Attributes map[string]any   `json:"attributes,omitempty"`
	State      string           `json:"state"`
	Left       *float64         `json:"left,omitempty"`
	// Match is the match a matched ticket ended in (a match line).
	Match string `json:"match,omitempty"`
	// Reason is why the server ended a ticket it did not match.
	Reason string `json:"reason,omitempty"`
	// Queue is the ticket's queue in an export, which holds every
	// queue's tickets (export.go); a traffic file's header names it.
	Queue string `json:"queue,omitempty"`
}

// TrafficMatch is a match line: a match that really formed, with what the
// engine said of it then.
type TrafficMatch struct {
	Kind    string         `json:"kind"` // always "match"
	ID      string         `json:"id"`
	At      float64        `json:"at"`
	Teams   [][]string     `json:"teams"`
	Region  string         `json:"region,omitempty"`
	Quality *cupid.Quality `json:"quality,omitempty"`
	// Queue, State and Ended are an export's (export.go): the match's
	// queue, how it ended (released or ended) and when, in seconds after
	// the same origin as at.
	Queue string   `json:"queue,omitempty"`
	State string   `json:"state,omitempty"`
	Ended *float64 `json:"ended,omitempty"`
}

// TrafficPlayer is one player of a recorded ticket.
type TrafficPlayer struct {
	ID         string         `json:"id"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

// Traffic is a parsed traffic file.
type Traffic struct {
	Header  TrafficHeader
	Tickets []TrafficTicket
	// Matches are the real matches of the tickets (version 2 files).
	Matches []TrafficMatch
}

// trafficVersion is the version Record writes; ParseTraffic reads it and
// every one before it.
const trafficVersion = 2

// HasActual reports whether the traffic says what really happened to its
// matched tickets: a version 2 file, read from a store that keeps matches.
func (tr *Traffic) HasActual() bool { return tr.Header.Version >= 2 }

// TicketPager reads a queue's tickets created in a window, a page at a
// time, oldest first; the sqlite and postgres stores implement it
// (TicketsCreated).
type TicketPager interface {
	TicketsCreated(ctx context.Context, queue string, from, to, afterAt time.Time, afterID string, limit int) ([]*cupid.Ticket, error)
}

// MatchReader reads a committed match by id; every store implements it
// (cupid.Store's Match). Record writes the real matches of a window's
// tickets from it.
type MatchReader interface {
	Match(ctx context.Context, id string) (*cupid.Match, error)
}

// recordPage is how many tickets Record reads at once.
const recordPage = 1000

// Record writes the traffic file of a queue's tickets created in
// [from, to) and returns how many tickets it wrote. When the store is also
// a MatchReader, each real match of those tickets follows the first of its
// tickets as a match line.
func Record(ctx context.Context, store TicketPager, queue string, from, to time.Time, w io.Writer) (int, error) {
	bw := bufio.NewWriter(w)
	n := 0
	line := func(v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		bw.Write(data)
		return bw.WriteByte('\n')
	}
	err := read(ctx, store, queue, from, to, func(h TrafficHeader) error { return line(h) },
		func(t TrafficTicket) error { n++; return line(t) },
		func(m TrafficMatch) error { return line(m) })
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// Read reads a queue's traffic of [from, to) from a store, as Record
// writes it, without a file between: cupid sim replay --store.
func Read(ctx context.Context, store TicketPager, queue string, from, to time.Time) (*Traffic, error) {
	tr := &Traffic{}
	err := read(ctx, store, queue, from, to, func(h TrafficHeader) error { tr.Header = h; return nil },
		func(t TrafficTicket) error { tr.Tickets = append(tr.Tickets, t); return nil },
		func(m TrafficMatch) error { tr.Matches = append(tr.Matches, m); return nil })
	if err != nil {
		return nil, err
	}
	return tr, nil
}

// read pages through the window's tickets in creation order and hands on
// the header, each ticket and, after the first ticket of each real match,
// that match.
func read(ctx context.Context, store TicketPager, queue string, from, to time.Time,
	header func(TrafficHeader) error, ticket func(TrafficTicket) error, match func(TrafficMatch) error) error {
	if err := checkWindow(queue, from, to); err != nil {
		return err
	}
	matches, _ := store.(MatchReader)
	h := TrafficHeader{Version: 1, Queue: queue, From: from.UTC(), To: to.UTC()}
	if matches != nil {
		h.Version = trafficVersion
	}
	if err := header(h); err != nil {
		return err
	}
	// seen holds the matches written so far: one id per match of the
	// window, a few megabytes for a week of a busy queue.
	seen := map[string]bool{}
	var afterAt time.Time
	afterID := ""
	for {
		page, err := store.TicketsCreated(ctx, queue, from, to, afterAt, afterID, recordPage)
		if err != nil {
			return err
		}
		for _, t := range page {
			tt := trafficOf(t, from)
			if matches == nil {
				tt.Match = ""
			}
			if err := ticket(tt); err != nil {
				return err
			}
			if tt.Match == "" || seen[tt.Match] {
				continue
			}
			seen[tt.Match] = true
			m, err := matches.Match(ctx, tt.Match)
			if err != nil {
				return fmt.Errorf("ticket %s: its match: %w", t.ID, err)
			}
			if err := match(matchOf(m, from)); err != nil {
				return err
			}
		}
		if len(page) < recordPage {
			return nil
		}
		afterAt, afterID = page[len(page)-1].CreatedAt, page[len(page)-1].ID
	}
}

// checkWindow refuses a window no traffic can be read for.
func checkWindow(queue string, from, to time.Time) error {
	if queue == "" {
		return cupid.Invalid("queue", "required")
	}
	if !to.After(from) {
		return cupid.Invalid("to", "must be after from (%s ≤ %s)", to.Format(time.RFC3339), from.Format(time.RFC3339))
	}
	return nil
}

// matchOf is the match line of a stored match.
func matchOf(m *cupid.Match, from time.Time) TrafficMatch {
	// A session backfilled with a ticket of the window may have formed
	// before it: its line says the window's start.
	tm := TrafficMatch{Kind: "match", ID: m.ID, At: max(0, ms(m.CreatedAt.Sub(from))), Region: m.Region}
	if m.Quality.Score != 0 || len(m.Quality.Parts) > 0 {
		q := m.Quality
		tm.Quality = &q
	}
	for _, team := range m.Teams {
		tm.Teams = append(tm.Teams, slices.Clone(team.TicketIDs))
	}
	return tm
}

func trafficOf(t *cupid.Ticket, from time.Time) TrafficTicket {
	tt := TrafficTicket{ID: t.ID, At: ms(t.CreatedAt.Sub(from)), Version: t.Key.Version, Custom: t.Key.Custom,
		Latencies: t.Latencies, Attributes: plain(t.Attributes), State: string(t.State), Reason: t.Reason}
	if t.State == cupid.StateMatched {
		tt.Match = t.MatchID
	}
	for _, p := range t.Players {
		tt.Players = append(tt.Players, TrafficPlayer{ID: p.ID, Attributes: plain(p.Attributes)})
	}
	if t.State == cupid.StateCancelled || t.State == cupid.StateExpired {
		left := max(0, ms(t.UpdatedAt.Sub(t.CreatedAt)))
		tt.Left = &left
	}
	return tt
}

// ms is a duration in seconds, to the millisecond.
func ms(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }

// plain turns attributes into JSON's own values.
func plain(a cupid.Attributes) map[string]any {
	if len(a) == 0 {
		return nil
	}
	m := make(map[string]any, len(a))
	for _, at := range a {
		switch v := at.Value; v.Kind {
		case cupid.KindNumber:
			m[at.Name] = v.Number
		case cupid.KindString:
			m[at.Name] = v.String
		case cupid.KindStrings:
			m[at.Name] = v.Strings
		case cupid.KindBool:
			m[at.Name] = v.Bool
		}
	}
	return m
}

// ParseTraffic reads a traffic file; errors name the line and field.
func ParseTraffic(r io.Reader) (*Traffic, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var tr Traffic
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if line == 1 {
			if err := dec.Decode(&tr.Header); err != nil {
				return nil, fmt.Errorf("line 1: the header: %w", err)
			}
			if tr.Header.Version < 1 || tr.Header.Version > trafficVersion {
				return nil, fmt.Errorf("line 1: cupid_traffic: must be 1 or %d (a traffic file of this version of Cupid), not %d", trafficVersion, tr.Header.Version)
			}
			continue
		}
		if bytes.HasPrefix(text, []byte(`{"kind":"match"`)) {
			var m TrafficMatch
			if err := dec.Decode(&m); err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			if err := m.check(); err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			tr.Matches = append(tr.Matches, m)
			continue
		}
		var t TrafficTicket
		if err := dec.Decode(&t); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if n := len(tr.Tickets); n > 0 && t.At < tr.Tickets[n-1].At {
			return nil, fmt.Errorf("line %d: at: tickets must be in creation order (%v after %v)", line, t.At, tr.Tickets[n-1].At)
		}
		tr.Tickets = append(tr.Tickets, t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if line == 0 {
		return nil, fmt.Errorf("the traffic file is empty")
	}
	return &tr, nil
}

func (t *TrafficTicket) check() error {
	switch {
	case t.ID == "":
		return cupid.Invalid("id", "required")
	case !(t.At >= 0) || !cupid.Finite(t.At):
		return cupid.Invalid("at", "must be a number of seconds ≥ 0")
	case len(t.Players) == 0:
		return cupid.Invalid("players", "required: at least one player")
	case t.Left != nil && (!(*t.Left >= 0) || !cupid.Finite(*t.Left)):
		return cupid.Invalid("left", "must be a number of seconds ≥ 0")
	}
	return nil
}

func (m *TrafficMatch) check() error {
	switch {
	case m.ID == "":
		return cupid.Invalid("id", "required")
	case !(m.At >= 0) || !cupid.Finite(m.At):
		return cupid.Invalid("at", "must be a number of seconds ≥ 0")
	case len(m.Teams) == 0:
		return cupid.Invalid("teams", "required: at least one team")
	}
	return nil
}

// ticket builds the cupid ticket of a recorded one.
func (t *TrafficTicket) ticket(queue string) (*cupid.Ticket, error) {
	ct := &cupid.Ticket{ID: t.ID, Key: cupid.QueueKey{Queue: queue, Version: t.Version, Custom: t.Custom},
		Latencies: t.Latencies, State: cupid.StateWaiting}
	var err error
	if ct.Attributes, err = attributes(t.Attributes, "attributes"); err != nil {
		return nil, err
	}
	for i, p := range t.Players {
		a, err := attributes(p.Attributes, fmt.Sprintf("players[%d].attributes", i))
		if err != nil {
			return nil, err
		}
		ct.Players = append(ct.Players, cupid.Player{ID: p.ID, Attributes: a})
	}
	return ct, nil
}

func attributes(m map[string]any, path string) (cupid.Attributes, error) {
	out := make(map[string]cupid.Value, len(m))
	for _, name := range cupid.SortedKeys(m) {
		switch x := m[name].(type) {
		case float64:
			out[name] = cupid.Number(x)
		case string:
			out[name] = cupid.String(x)
		case bool:
			out[name] = cupid.Bool(x)
		case []any:
			list := make([]string, len(x))
			for i, e := range x {
				s, ok := e.(string)
				if !ok {
					return nil, cupid.Invalid(fmt.Sprintf("%s.%s[%d]", path, name, i), "lists hold only strings")
				}
				list[i] = s
			}
			out[name] = cupid.Strings(list...)
		default:
			return nil, cupid.Invalid(path+"."+name, "must be a number, a string, a boolean or a list of strings")
		}
	}
	return cupid.NewAttributes(out), nil
}

// trafficSource replays recorded tickets. The run lasts until the last
// ticket's time to live has passed.
type trafficSource struct {
	tr    *Traffic
	ttl   int64
	skill string
	endNS int64
}

func newTrafficSource(tr *Traffic, ttl time.Duration, skill string) *trafficSource {
	s := &trafficSource{tr: tr, ttl: int64(ttl), skill: skill}
	if n := len(tr.Tickets); n > 0 {
		s.endNS = s.arrivalAt(n-1) + s.ttl + 1
	}
	if span := tr.Header.To.Sub(tr.Header.From); int64(span) > s.endNS {
		s.endNS = int64(span)
	}
	return s
}

func (s *trafficSource) count() int            { return len(s.tr.Tickets) }
func (s *trafficSource) arrivalAt(i int) int64 { return int64(math.Round(s.tr.Tickets[i].At * 1e9)) }
func (s *trafficSource) end() int64            { return s.endNS }
func (s *trafficSource) comeback(*party, int64) *party {
	// Recorded traffic holds the players' returns as tickets of their own.
	return nil
}

func (s *trafficSource) build(i int) *party {
	rt := &s.tr.Tickets[i]
	t, err := rt.ticket(s.tr.Header.Queue)
	at := s.arrivalAt(i)
	if err != nil {
		// A ticket that cannot be built is refused as a server would
		// refuse it; ParseTraffic already checked the shape.
		t = &cupid.Ticket{ID: rt.ID, Key: cupid.QueueKey{Queue: s.tr.Header.Queue}}
	}
	t.CreatedAt = Origin.Add(time.Duration(at))
	t.ExpiresAt = t.CreatedAt.Add(time.Duration(s.ttl))
	pt := &party{t: t, j: -1, arrived: at, size: int32(len(t.Players)), leaves: at + s.ttl, expires: true}
	if rt.Left != nil && int64(*rt.Left*1e9) < s.ttl {
		pt.leaves, pt.expires = at+int64(*rt.Left*1e9), rt.State == string(cupid.StateExpired)
	}
	pt.skillOf(s.skill)
	return pt
}

// RunTraffic replays recorded traffic through every ruleset of cfg (and
// the baselines).
func RunTraffic(name string, tr *Traffic, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	// Every ticket must be buildable; say which is not before running.
	for i := range tr.Tickets {
		if _, err := tr.Tickets[i].ticket(tr.Header.Queue); err != nil {
			return nil, fmt.Errorf("ticket %d (%s): %w", i+1, tr.Tickets[i].ID, err)
		}
	}
	if !slices.IsSortedFunc(tr.Tickets, func(a, b TrafficTicket) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return 0
	}) {
		return nil, cupid.Invalid("tickets", "must be in creation order")
	}
	src := newTrafficSource(tr, cfg.TTL, cfg.SkillAttribute)
	hours := math.Round(float64(src.end())/3600e9*1000) / 1000
	what := fmt.Sprintf("traffic of queue %q, %d tickets from %s", tr.Header.Queue, len(tr.Tickets), tr.Header.From.Format(time.RFC3339))
	var actual *actualRun
	if tr.HasActual() && cfg.Actual {
		actual = playActual(tr, newTrafficSource(tr, cfg.TTL, cfg.SkillAttribute), int64(cfg.Sample))
		what += ", beside what really happened"
	}
	return play(name, what, hours, func() source { return newTrafficSource(tr, cfg.TTL, cfg.SkillAttribute) }, cfg, actual)
}
