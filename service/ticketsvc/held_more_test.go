package ticketsvc

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
)

// startHeld starts a service whose intake holds back the named players'
// tickets for 30 s.
func startHeld(t *testing.T, players ...string) *harness {
	t.Helper()
	store := memstore.New()
	h := &harness{store: store, clock: testclock.At(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	held := heldIntake{players: map[string]bool{}, wait: 30 * time.Second, now: h.clock.Now}
	for _, p := range players {
		held.players[p] = true
	}
	svc, err := New(Options{Store: store, Documents: store, Queues: queues(0), Now: h.clock.Now, Intake: held,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	h.Service = svc
	return h
}

// TestHeldTicketCancelledDuringItsHold: a held ticket cancelled during its
// hold never reaches the engine; its would-be partner keeps waiting.
func TestHeldTicketCancelledDuringItsHold(t *testing.T) {
	h := startHeld(t, "leaver")
	held := h.create(t, ticket("duel", 1500, "leaver"))
	partner := h.create(t, ticket("duel", 1500, "patient"))
	h.wait(10 * time.Second)
	if _, err := h.CancelTicket(context.Background(), held.ID); err != nil {
		t.Fatal(err)
	}
	h.wait(30 * time.Second) // the hold is over
	if got := h.state(t, partner.ID); got.State != cupid.StateWaiting {
		t.Fatalf("partner %s in %q: matched with a cancelled ticket?", got.State, got.MatchID)
	}
	if n := waiting(t, h, "duel"); n != 1 {
		t.Fatalf("%d tickets pooled, want the partner alone", n)
	}
}

// TestHeldTicketTheNewRulesetCannotMatch: a ruleset replaced during a hold
// that cannot match the held ticket cancels it, with the reason, when its
// hold ends; it is not kept for ever.
func TestHeldTicketTheNewRulesetCannotMatch(t *testing.T) {
	h := startHeld(t, "leaver")
	party := h.create(t, ticket("big", 1, "leaver", "x", "y"))
	const pairs = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2}}`
	if _, err := h.Rulesets().Put(context.Background(), "big", []byte(pairs), 0, "api"); err != nil {
		t.Fatal(err)
	}
	h.wait(10 * time.Second)
	if s := h.state(t, party.ID).State; s != cupid.StateWaiting {
		t.Fatalf("during its hold the party is %s, want waiting", s)
	}
	h.wait(20 * time.Second)
	got := h.state(t, party.ID)
	if got.State != cupid.StateCancelled || !strings.Contains(got.Reason, "ruleset cannot match it") {
		t.Fatalf("after its hold: %s %q, want cancelled because the ruleset cannot match it", got.State, got.Reason)
	}
	if n := waiting(t, h, "big"); n != 0 {
		t.Fatalf("%d tickets still pooled", n)
	}
}
