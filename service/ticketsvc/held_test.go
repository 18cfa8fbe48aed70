package ticketsvc

import (
	"context"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
)

// heldIntake holds back the tickets of the players it names, as the ratings
// service does for low-priority players in a queue that makes them wait.
type heldIntake struct {
	players map[string]bool
	wait    time.Duration
	now     func() time.Time
}

func (h heldIntake) PrepareTicket(_ context.Context, t *cupid.Ticket) error {
	for _, p := range t.Players {
		if h.players[p.ID] {
			t.HeldUntil = h.now().Add(h.wait)
		}
	}
	return nil
}

// TestHeldTicketWaitsItsHoldOut: a held ticket is not matched before its
// hold ends, though a partner waits; it says why; it keeps its age; a
// restart keeps the hold; once the hold ends it matches.
func TestHeldTicketWaitsItsHoldOut(t *testing.T) {
	store := memstore.New()
	h := &harness{store: store, clock: testclock.At(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	open := func() {
		svc, err := New(Options{Store: store, Documents: store, Queues: queues(0), Now: h.clock.Now,
			Intake: heldIntake{players: map[string]bool{"leaver": true}, wait: 30 * time.Second, now: h.clock.Now}})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(svc.Close)
		h.Service = svc
	}
	open()
	held := h.create(t, ticket("duel", 1500, "leaver"))
	if !held.HeldUntil.Equal(held.CreatedAt.Add(30 * time.Second)) {
		t.Fatalf("held until %v, created %v", held.HeldUntil, held.CreatedAt)
	}
	partner := h.create(t, ticket("duel", 1500, "patient"))
	h.wait(10 * time.Second)
	if got := h.state(t, held.ID); got.State != cupid.StateWaiting {
		t.Fatalf("matched during its hold: %+v", got)
	}
	v, err := h.GetTicket(context.Background(), held.ID)
	if err != nil || v.Why == nil || !strings.Contains(v.Why.Summary, "Held back until") {
		t.Fatalf("why: %+v %v", v, err)
	}
	h.Close()
	open() // the hold is stored with the ticket
	h.wait(10 * time.Second)
	if got := h.state(t, held.ID); got.State != cupid.StateWaiting {
		t.Fatalf("matched during its hold after a restart: %+v", got)
	}
	h.wait(11 * time.Second)
	got := h.state(t, held.ID)
	if got.State != cupid.StateMatched || !got.CreatedAt.Equal(held.CreatedAt) {
		t.Fatalf("after the hold: %+v", got)
	}
	if p := h.state(t, partner.ID); p.MatchID != got.MatchID {
		t.Fatalf("partner in %q, held ticket in %q", p.MatchID, got.MatchID)
	}
}
