package opponentsvc

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/opponent"
	"github.com/cupid-match/cupid/service/encountersvc"
)

// TestHistoryKeepsBlockedApartAndDefendersFresh: a finder that reads the
// encounter history never offers a defender blocked either way, records
// each confirmed attack, and keeps a defender out of the same attacker's
// offers for its window.
func TestHistoryKeepsBlockedApartAndDefendersFresh(t *testing.T) {
	ctx := context.Background()
	clk := testclock.At(t0)
	st := memstore.New()
	enc, err := encountersvc.New(encountersvc.Options{Store: st, Docs: st, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	f := holdFinder()
	f.Opponent.Shield = 0 // only the history keeps a defender away
	s, err := New(Options{Docs: newMemDocs(), Finders: []Finder{f}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clk.Now,
		History: enc, HistoryFinders: map[string]HistoryRules{"arena": {NotSameDefenderWithin: time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	s.manual = true
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, id := range []string{"d0", "d1", "d2"} {
		mustUpdate(t, s, "arena", defender(id, 1500, "gold", "wolves"))
	}
	if _, err := enc.Put(ctx, "a", encounter.KindBlock, "d0", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Put(ctx, "d1", encounter.KindBlock, "a", 0); err != nil {
		t.Fatal(err)
	}
	attack := func() string {
		t.Helper()
		res, err := reserveFor(s, "a")
		if err != nil {
			t.Fatal(err)
		}
		if res.Type != opponent.ResultSuccess {
			return string(res.Type)
		}
		if _, err := s.ConfirmAttack(ctx, "arena", res.Reservation.ID, "a"); err != nil {
			t.Fatal(err)
		}
		return res.PlayerID
	}
	if got := attack(); got != "d2" {
		t.Fatalf("the first attack found %s, want d2 (d0 blocked by a, a blocked by d1)", got)
	}
	if got := attack(); got != string(opponent.ResultNoneFound) {
		t.Fatalf("the second attack within the hour found %s, want NONE_FOUND", got)
	}
	// The passed-over blocked defender's hold was undone: another
	// attacker gets him.
	if res, err := reserveFor(s, "x"); err != nil || res.Type != opponent.ResultSuccess {
		t.Fatalf("another attacker: %+v, %v", res, err)
	}
	clk.Advance(2 * time.Hour)
	if got := attack(); got != "d2" {
		t.Fatalf("two hours later the attack found %s, want d2 again", got)
	}
	h, err := enc.History(ctx, "d2", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0].Other != "a" || h[0].Side != encounter.SideDefender || h[0].Place != "arena" {
		t.Errorf("d2's history: %+v", h)
	}
	if r, _ := enc.Revenge(ctx, "d2", time.Hour, 10); len(r) != 1 || r[0] != "a" {
		t.Errorf("d2's revenge targets: %v", r)
	}
}
