package ratingsvc

import (
	"context"
	"fmt"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/ruleset"
)

// divisionRuleset is docs/ratings.md's recipe: skill close, the same
// division at first, the neighbouring one after 30 s, two away after 90 s.
const divisionRuleset = `{
 "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
 "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100000, "is_for_balancing": true},
                   {"attribute": "division", "criteria": "distance", "reference": 0}],
 "flexing_rule": [{"duration": 30, "attribute": "division", "criteria": "distance", "reference": 1},
                  {"duration": 90, "attribute": "division", "criteria": "distance", "reference": 2}]}`

// TestDivisionRecipe: tickets whose division the server filled (from
// PrepareTicket) are kept within their division by the engine, and meet
// the neighbouring divisions as they wait — a matching rule on a
// server-filled attribute, with no engine change.
func TestDivisionRecipe(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue) // divisions bronze < 5 ≤ silver < 15 ≤ gold, margin 1
	// Win until promoted: gold to the top division, silver to the middle.
	div := func(id string) int { return f.rating(t, id).Division }
	for i := 0; div("gold") < 2 && i < 100; i++ {
		f.play(t, "duel", []int{1, 2}, []string{"gold"}, []string{fmt.Sprintf("x%d", i)})
	}
	for i := 0; div("silver") < 1 && i < 100; i++ {
		f.play(t, "duel", []int{1, 2}, []string{"silver"}, []string{fmt.Sprintf("y%d", i)})
	}
	if div("gold") != 2 || div("silver") != 1 || div("bronze") != 0 {
		t.Fatalf("divisions: gold %d, silver %d, a new player %d", div("gold"), div("silver"), div("bronze"))
	}
	rs, err := ruleset.Load([]byte(divisionRuleset))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	pool, err := engine.New(cupid.QueueKey{Queue: "duel"}, rs, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"gold", "bronze"} {
		tk := &cupid.Ticket{ID: "t-" + id, Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: id}}, CreatedAt: t0, State: cupid.StateWaiting}
		if err := f.svc.PrepareTicket(context.Background(), tk); err != nil {
			t.Fatal(err)
		}
		if err := pool.Add(tk); err != nil {
			t.Fatal(err)
		}
	}
	if ps := pool.Step(t0.Add(89 * time.Second)); len(ps) != 0 {
		t.Fatalf("gold and bronze met after 89 s: %+v", ps)
	}
	tk := &cupid.Ticket{ID: "t-silver", Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "silver"}}, CreatedAt: t0.Add(89 * time.Second), State: cupid.StateWaiting}
	if err := f.svc.PrepareTicket(context.Background(), tk); err != nil {
		t.Fatal(err)
	}
	if err := pool.Add(tk); err != nil {
		t.Fatal(err)
	}
	// Silver has just arrived; gold has waited 89 s, past the first step:
	// a neighbouring division is allowed, and the anchor's wait judges.
	ps := pool.Step(t0.Add(89 * time.Second))
	if len(ps) != 1 {
		t.Fatalf("%d matches after silver arrived, want gold with silver", len(ps))
	}
	got := ps[0].TicketIDs()
	if !(contains(got, "t-gold") && contains(got, "t-silver")) {
		t.Fatalf("matched %v, want gold with silver", got)
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
