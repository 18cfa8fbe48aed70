package ticketsvc

import (
	"context"
	"fmt"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/memstore"
)

// TestReturnedTicketStillExpires: in one step, enough matches commit that
// the pool compacts its expiry heap, and the step's last match is refused
// because one of its tickets was cancelled meanwhile; the other ticket goes
// back to waiting and must still expire on time. (A compaction in the
// middle of the step, while that ticket was out of the engine, dropped its
// expiry: it would have waited forever.)
func TestReturnedTicketStillExpires(t *testing.T) {
	store := memstore.New()
	h := start(t, store, []Queue{{Name: "flood", TTL: time.Minute, Ruleset: []byte(`{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1, "max": 10000000}]}`)}})
	ctx := context.Background()

	// Hold the pool in its first commit while everything else arrives.
	arrived, releaseFirst := store.Block("CommitMatches")
	h.create(t, ticket("flood", 0, "s1"))
	h.create(t, ticket("flood", 0, "s2"))
	<-arrived
	const pairs = 1300
	var nts []NewTicket
	for i := 1; i <= pairs; i++ {
		for _, side := range []string{"a", "b"} {
			nts = append(nts, NewTicket{Ticket: ticket("flood", float64(100*i), fmt.Sprintf("%s%d", side, i))})
		}
	}
	for i, c := range h.CreateTickets(ctx, nts) {
		if c.Err != nil {
			t.Fatalf("ticket %d: %v", i, c.Err)
		}
	}
	h.clock.Advance(time.Second) // x1 and x2 are the youngest: their match is the step's last
	x1 := h.create(t, ticket("flood", 9e6, "x1"))
	x2 := h.create(t, ticket("flood", 9e6, "x2"))

	// A new hold lets the first commit go and catches the step that forms
	// every pair; x2 is cancelled behind the pool's back before it commits.
	arrived, release := store.Block("CommitMatches")
	releaseFirst()
	<-arrived
	if _, _, err := lifecycle.Finish(ctx, store, cupid.Fence{}, x2.ID, cupid.StateCancelled, "", h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	release()
	h.wait(0)
	if s := h.state(t, x1.ID).State; s != cupid.StateWaiting {
		t.Fatalf("x1 is %s after its match was refused, want waiting", s)
	}
	h.wait(2 * time.Minute)
	if s := h.state(t, x1.ID).State; s != cupid.StateExpired {
		t.Fatalf("x1 is %s two minutes after its time to live of one, want expired", s)
	}
}
