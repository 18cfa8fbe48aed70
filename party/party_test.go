package party

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var limits = Limits{MaxMembers: 4, MaxInvites: 2, MaxInvitesPerPlayer: 3, InviteTTL: time.Minute}.WithDefaults()

// world: zed is in another party, and busy holds as many invites as a
// player may.
var world = World{
	PartyOf: func(p string) string {
		if p == "zed" {
			return "other-party"
		}
		return ""
	},
	Invites: func(p string) int {
		if p == "busy" {
			return 3
		}
		return 0
	},
}

// must returns a transition's party, failing t on an error.
func must(t *testing.T) func(Result, error) *Party {
	return func(r Result, err error) *Party {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r.Party
	}
}

// states builds the parties every action is tried on.
func states(t *testing.T) []struct {
	name string
	p    *Party
} {
	solo := must(t)(Create("p1", "CODE1", Member{ID: "ann"}, t0, limits, world))
	invited := must(t)(solo.Invite("ann", "bob", t0, limits, world))
	trio := must(t)(invited.Answer(Member{ID: "bob", Latencies: map[string]int32{"eu": 40, "us": 90}}, true, t0, limits, world))
	trio = must(t)(trio.JoinByCode(Member{ID: "cid", Latencies: map[string]int32{"eu": 60}}, "CODE1", t0, limits, world))
	ready := trio
	for _, m := range []string{"ann", "bob", "cid"} {
		ready = must(t)(ready.SetReady(m, true, t0))
	}
	queued := ready.Queued("squad", "t1", 10, t0).Party
	matched := queued.TicketEvent(cupid.Event{Seq: 11, TicketID: "t1", Kind: cupid.EventMatched, Match: &cupid.Match{ID: "m1"}}).Party
	withInvite := must(t)(trio.Invite("bob", "dan", t0, limits, world))
	return []struct {
		name string
		p    *Party
	}{
		{"solo", solo}, {"invited", invited}, {"trio", trio}, {"ready", ready},
		{"queued", queued}, {"matched", matched}, {"trio+invite", withInvite},
	}
}

type action struct {
	name string
	do   func(p *Party) (Result, error)
}

var later = t0.Add(2 * time.Minute)

var actions = []action{
	{"ann invites dan", func(p *Party) (Result, error) { return p.Invite("ann", "dan", t0, limits, world) }},
	{"bob invites dan", func(p *Party) (Result, error) { return p.Invite("bob", "dan", t0, limits, world) }},
	{"ann invites bob", func(p *Party) (Result, error) { return p.Invite("ann", "bob", t0, limits, world) }},
	{"ann invites busy", func(p *Party) (Result, error) { return p.Invite("ann", "busy", t0, limits, world) }},
	{"ann invites nobody", func(p *Party) (Result, error) { return p.Invite("ann", "", t0, limits, world) }},
	{"eve invites dan", func(p *Party) (Result, error) { return p.Invite("eve", "dan", t0, limits, world) }},
	{"bob accepts", func(p *Party) (Result, error) { return p.Answer(Member{ID: "bob"}, true, t0, limits, world) }},
	{"bob declines", func(p *Party) (Result, error) { return p.Answer(Member{ID: "bob"}, false, t0, limits, world) }},
	{"bob accepts late", func(p *Party) (Result, error) { return p.Answer(Member{ID: "bob"}, true, later, limits, world) }},
	{"dan accepts", func(p *Party) (Result, error) { return p.Answer(Member{ID: "dan"}, true, t0, limits, world) }},
	{"eve joins by code", func(p *Party) (Result, error) { return p.JoinByCode(Member{ID: "eve"}, "CODE1", t0, limits, world) }},
	{"eve guesses a code", func(p *Party) (Result, error) { return p.JoinByCode(Member{ID: "eve"}, "NOPE", t0, limits, world) }},
	{"zed joins by code", func(p *Party) (Result, error) { return p.JoinByCode(Member{ID: "zed"}, "CODE1", t0, limits, world) }},
	{"eve joins with NaN", func(p *Party) (Result, error) {
		return p.JoinByCode(Member{ID: "eve", Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(nan())})}, "CODE1", t0, limits, world)
	}},
	{"expire", func(p *Party) (Result, error) { return p.Expire(later), nil }},
	{"ann leaves", func(p *Party) (Result, error) { return p.Leave("ann", t0) }},
	{"bob leaves", func(p *Party) (Result, error) { return p.Leave("bob", t0) }},
	{"ann removes cid", func(p *Party) (Result, error) { return p.Remove("ann", "cid", t0) }},
	{"bob removes cid", func(p *Party) (Result, error) { return p.Remove("bob", "cid", t0) }},
	{"ann hands over to bob", func(p *Party) (Result, error) { return p.HandOver("ann", "bob", t0) }},
	{"ann hands over to eve", func(p *Party) (Result, error) { return p.HandOver("ann", "eve", t0) }},
	{"bob is ready", func(p *Party) (Result, error) { return p.SetReady("bob", true, t0) }},
	{"bob is not ready", func(p *Party) (Result, error) { return p.SetReady("bob", false, t0) }},
	{"bob sets his latencies", func(p *Party) (Result, error) {
		return p.SetMember(Member{ID: "bob", Latencies: map[string]int32{"eu": 20}}, t0)
	}},
	{"bob sets a bad latency", func(p *Party) (Result, error) {
		return p.SetMember(Member{ID: "bob", Latencies: map[string]int32{"eu": -1}}, t0)
	}},
	{"ann queues squad", queue("ann", QueueRules{MaxParty: 5})},
	{"ann queues all-ready", queue("ann", QueueRules{MaxParty: 5, AllReady: true})},
	{"ann queues duo", queue("ann", QueueRules{MaxParty: 2})},
	{"bob queues", queue("bob", QueueRules{})},
	{"ann cancels the queue", func(p *Party) (Result, error) { return p.CancelQueue("ann", t0) }},
	{"ticket matched", ticketEvent(cupid.Event{Seq: 11, TicketID: "t1", Kind: cupid.EventMatched, Match: &cupid.Match{ID: "m1"}})},
	{"ticket assigned", ticketEvent(cupid.Event{Seq: 12, TicketID: "t1", Kind: cupid.EventAssigned, Assignment: &cupid.Assignment{Server: "10.0.0.1:7777"}})},
	{"ticket expired", ticketEvent(cupid.Event{Seq: 12, TicketID: "t1", Kind: cupid.EventExpired})},
	{"another ticket cancelled", ticketEvent(cupid.Event{Seq: 12, TicketID: "t0", Kind: cupid.EventCancelled})},
}

func nan() float64 {
	z := 0.0
	return z / z
}

// queue checks the ticket and, when it may be made, records it as t1.
func queue(by string, q QueueRules) func(p *Party) (Result, error) {
	return func(p *Party) (Result, error) {
		tk, err := p.Ticket(by, "squad", q)
		if err != nil {
			return Result{}, err
		}
		r := p.Queued("squad", "t1", 10, t0)
		r.Events[0].Reason = describeTicket(tk)
		return r, nil
	}
}

func ticketEvent(ev cupid.Event) func(p *Party) (Result, error) {
	return func(p *Party) (Result, error) { return p.TicketEvent(ev), nil }
}

func describeTicket(t *cupid.Ticket) string {
	var ps []string
	for _, p := range t.Players {
		ps = append(ps, p.ID)
	}
	return fmt.Sprintf("ticket of %s, latencies %v", strings.Join(ps, "+"), t.Latencies)
}

// describe renders a party for the golden file.
func describe(p *Party) string {
	if p.Gone() {
		return "gone"
	}
	var ms []string
	for _, m := range p.Members {
		s := m.ID
		if m.Ready {
			s += "*"
		}
		ms = append(ms, s)
	}
	var inv []string
	for _, i := range p.Invites {
		inv = append(inv, i.Player)
	}
	return fmt.Sprintf("leader %s, members %s, invites [%s], %s %s %s", p.Leader, strings.Join(ms, " "), strings.Join(inv, " "), p.Phase, p.TicketID, p.MatchID)
}

// TestTransitions tries every action on every state and compares what
// happened with testdata/transitions.golden (go test ./party -update
// rewrites it): the state × action table of the party's rules.
func TestTransitions(t *testing.T) {
	var b strings.Builder
	for _, s := range states(t) {
		fmt.Fprintf(&b, "## %s: %s\n", s.name, describe(s.p))
		before := describe(s.p)
		for _, a := range actions {
			r, err := a.do(s.p)
			if describe(s.p) != before {
				t.Fatalf("%s / %s changed its input party", s.name, a.name)
			}
			if err != nil {
				var e *cupid.Error
				if !errors.As(err, &e) {
					t.Fatalf("%s / %s: not a cupid.Error: %v", s.name, a.name, err)
				}
				fmt.Fprintf(&b, "%-26s refused %s %s: %s\n", a.name, e.Code, e.Field, e.Message)
				continue
			}
			var evs []string
			for i, ev := range r.Events {
				if ev.Seq != s.p.Seq+int64(i)+1 {
					t.Fatalf("%s / %s: event %d has seq %d, want %d", s.name, a.name, i, ev.Seq, s.p.Seq+int64(i)+1)
				}
				e := string(ev.Kind) + "(" + ev.Player
				if ev.Reason != "" {
					e += " " + ev.Reason
				}
				evs = append(evs, e+")")
			}
			line := fmt.Sprintf("%-26s %s -> %s", a.name, strings.Join(evs, " "), describe(r.Party))
			if r.CancelTicket != "" {
				line += fmt.Sprintf("; cancel %s (%s)", r.CancelTicket, r.Reason)
			}
			b.WriteString(line + "\n")
		}
	}
	golden := filepath.Join("testdata", "transitions.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Errorf("transitions differ from %s (run with -update and review the diff):\n%s", golden, b.String())
	}
}

func TestCreate(t *testing.T) {
	cases := []struct {
		name  string
		m     Member
		field string
	}{
		{"no player", Member{}, "player"},
		{"in another party", Member{ID: "zed"}, "player"},
		{"a long id", Member{ID: strings.Repeat("x", 200)}, "player"},
		{"too many regions", Member{ID: "ann", Latencies: regions(cupid.MaxRegions + 1)}, "latencies"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Create("p", "C", c.m, t0, limits, world)
			var e *cupid.Error
			if !errors.As(err, &e) || e.Field != c.field {
				t.Fatalf("err %v, want one naming %s", err, c.field)
			}
		})
	}
}

func regions(n int) map[string]int32 {
	out := map[string]int32{}
	for i := range n {
		out[fmt.Sprintf("r%d", i)] = 10
	}
	return out
}

// The party's size is bounded by the largest party a queue takes, counting
// pending invites, so no invite can be accepted into a full party.
func TestFull(t *testing.T) {
	l := Limits{MaxMembers: 2}.WithDefaults()
	p := must(t)(Create("p", "C", Member{ID: "ann"}, t0, l, world))
	p = must(t)(p.Invite("ann", "bob", t0, l, world))
	if _, err := p.Invite("ann", "cid", t0, l, world); cupid.ErrorCode(err) != cupid.CodeExhausted {
		t.Fatalf("a third invite into a party of two: %v", err)
	}
	if _, err := p.JoinByCode(Member{ID: "cid"}, "C", t0, l, world); err != nil {
		t.Fatalf("cid joins by code while bob's invite waits: %v", err)
	}
	q := must(t)(p.JoinByCode(Member{ID: "cid"}, "C", t0, l, world))
	if _, err := q.Answer(Member{ID: "bob"}, true, t0, l, world); cupid.ErrorCode(err) != cupid.CodeExhausted {
		t.Fatalf("bob accepts into a full party: %v", err)
	}
}
