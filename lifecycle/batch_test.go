package lifecycle

import (
	"fmt"
	"slices"
	"testing"

	cupid "github.com/cupid-match/cupid"
)

func newTicket(id, queue, rid string, players ...string) *cupid.Ticket {
	t := &cupid.Ticket{ID: id, Key: cupid.QueueKey{Queue: queue}, RequestID: rid, CreatedAt: t0}
	for _, p := range players {
		t.Players = append(t.Players, cupid.Player{ID: p})
	}
	return t
}

// TestPlanCreate: each rule of a create batch, decided in order.
func TestPlanCreate(t *testing.T) {
	stored := newTicket("old", "duel", "r-old", "ann")
	stored.State = cupid.StateWaiting
	lookup := func() *Lookup {
		lk := NewLookup()
		lk.Live[LivePair{"duel", "ann"}] = "old"
		lk.ByRequest["r-old"] = "old"
		lk.Tickets["old"] = stored
		return lk
	}
	cases := []struct {
		name  string
		batch []cupid.NewTicket
		want  []string // per ticket: "new", "existed old", "replaced old", or an error code
		evs   []string
	}{
		{"a repeated request is the stored ticket", []cupid.NewTicket{{Ticket: newTicket("n1", "duel", "r-old", "ann")}},
			[]string{"existed old"}, nil},
		{"a live player refuses", []cupid.NewTicket{{Ticket: newTicket("n1", "duel", "", "ann")}},
			[]string{string(cupid.CodeAlreadyExists)}, nil},
		{"a player twice refuses", []cupid.NewTicket{{Ticket: newTicket("n1", "duel", "", "bob", "bob")}},
			[]string{string(cupid.CodeInvalid)}, nil},
		{"replace cancels the stored ticket", []cupid.NewTicket{{Ticket: newTicket("n1", "duel", "", "ann"), Replace: true}},
			[]string{"replaced old"}, []string{"old cancelled", "n1 created"}},
		{"a later ticket replaces an earlier one of the batch", []cupid.NewTicket{
			{Ticket: newTicket("n1", "solo", "", "bob")}, {Ticket: newTicket("n2", "solo", "", "bob"), Replace: true}},
			[]string{"new", "replaced n1"}, []string{"n1 created", "n1 cancelled", "n2 created"}},
		{"another queue is free", []cupid.NewTicket{{Ticket: newTicket("n1", "solo", "", "ann")}},
			[]string{"new"}, []string{"n1 created"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := PlanCreate(c.batch, Fresh(c.batch), lookup(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got, evs []string
			for _, r := range p.Results() {
				switch {
				case r.Err != nil:
					got = append(got, string(cupid.ErrorCode(r.Err)))
				case r.Existed:
					got = append(got, "existed "+r.Ticket.ID)
				case len(r.Replaced) > 0:
					got = append(got, "replaced "+r.Replaced[0].ID)
					if r.Replaced[0].State != cupid.StateCancelled || r.Replaced[0].Reason != ReplacedReason(r.Ticket.ID) {
						t.Errorf("replaced ticket %+v", r.Replaced[0])
					}
				default:
					got = append(got, "new")
				}
			}
			for _, e := range p.Events {
				evs = append(evs, e.TicketID+" "+string(e.Kind))
			}
			if !slices.Equal(got, c.want) || !slices.Equal(evs, c.evs) {
				t.Errorf("got %v %v, want %v %v", got, evs, c.want, c.evs)
			}
			if stored.State != cupid.StateWaiting {
				t.Fatal("the lookup's ticket was changed")
			}
		})
	}
	lk := lookup()
	lk.Taken["n1"] = true
	if _, err := PlanCreate([]cupid.NewTicket{{Ticket: newTicket("n1", "solo", "", "cat")}}, nil, lk, nil); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Errorf("a taken id: %v", err)
	}
}

// TestPlanCommit: matches decided in order; a match sharing a ticket with
// an earlier one is refused; other queues' tickets are cancelled once,
// named by the smallest player then queue.
func TestPlanCommit(t *testing.T) {
	ms := []*cupid.Match{
		{ID: "m1", Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: t0, Teams: []cupid.Team{{TicketIDs: []string{"a"}}, {TicketIDs: []string{"b"}}}},
		{ID: "m2", Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: t0, Teams: []cupid.Team{{TicketIDs: []string{"b"}}, {TicketIDs: []string{"c"}}}},
		{ID: "m3", Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: t0, Teams: []cupid.Team{{TicketIDs: []string{"d"}}, {TicketIDs: []string{"gone"}}}},
		{ID: "m4", Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: t0, Teams: []cupid.Team{{TicketIDs: []string{"e"}}, {TicketIDs: []string{"x"}}}},
	}
	ids, err := CheckMatches(ms)
	if err != nil {
		t.Fatal(err)
	}
	others := []Other{
		{Mine: "a", Player: "zed", Queue: "duel", Ticket: "x"},
		{Mine: "b", Player: "bob", Queue: "duel", Ticket: "x"},
		{Mine: "b", Player: "bob", Queue: "duel", Ticket: "y"},
	}
	p := PlanCommit(ms, ids, func(id string) bool { return id != "gone" }, others, nil)
	var got []string
	for i, o := range p.Out {
		got = append(got, fmt.Sprint(ms[i].ID, " ", o.OK, " ", o.NotWaiting))
	}
	if want := []string{"m1 true []", "m2 false [b]", "m3 false [gone]", "m4 false [x]"}; !slices.Equal(got, want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	if want := []Cancel{{0, "x", MatchedElsewhereReason("bob", "duel", "m1")}, {0, "y", MatchedElsewhereReason("bob", "duel", "m1")}}; !slices.Equal(p.Cancels, want) {
		t.Errorf("cancels %v, want %v", p.Cancels, want)
	}
	if len(p.Events) != 4 || p.Events[0].Kind != cupid.EventMatched || p.Events[2].Kind != cupid.EventCancelled {
		t.Errorf("events %+v", p.Events)
	}
	if f := p.Formed(ms); len(f) != 1 || f[0].MatchID != "m1" {
		t.Errorf("formed %+v", f)
	}
	if _, err := CheckMatches([]*cupid.Match{{ID: "m", Teams: []cupid.Team{{TicketIDs: []string{"a", "a"}}}}}); cupid.ErrorCode(err) != cupid.CodeInvalid {
		t.Errorf("a ticket twice: %v", err)
	}
}
