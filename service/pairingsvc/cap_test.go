package pairingsvc

import (
	"context"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/pairing"
)

// TestExposureCap runs the cap through the service: bad settings are
// refused naming the field and change nothing; a capped participant sits
// the round out and is told why; the cap's count survives a restart; and
// an event stopped only by the cap starts again by itself when its window
// lets people back.
func TestExposureCap(t *testing.T) {
	ctx := context.Background()
	docs := newMemDocs()
	clk := testclock.At(t0)
	h := start(t, docs, clk, Limits{})

	_, err := h.s.CreateEvent(ctx, NewEvent{ID: "bad", Config: pairing.Config{Rooms: 1, Round: time.Minute, MinLobby: 2, MaxDates: pairing.MaxDatesCap + 1}})
	wantCode(t, err, cupid.CodeInvalid, "settings.max_dates")
	_, err = h.s.CreateEvent(ctx, NewEvent{ID: "bad", Config: pairing.Config{Rooms: 1, Round: time.Minute, MinLobby: 2, DatesWindow: time.Hour}})
	wantCode(t, err, cupid.CodeInvalid, "settings.dates_window_seconds")
	if _, err := h.s.GetEvent(ctx, "bad"); err == nil {
		t.Fatal("a refused event was created")
	}

	// Four people, two rooms, rounds of a minute: at most one date in
	// any three minutes.
	h.event(t, "e", pairing.Config{Rooms: 2, Round: time.Minute, Countdown: time.Second, MinLobby: 4})
	_, err = h.s.UpdateSettings(ctx, "e", func(c pairing.Config) (pairing.Config, error) {
		c.MaxDates, c.DatesWindow = 1, -time.Second
		return c, nil
	})
	wantCode(t, err, cupid.CodeInvalid, "settings.dates_window_seconds")
	if v := h.get(t, "e"); v.Config.MaxDates != 0 {
		t.Fatalf("a refused change was kept: %+v", v.Config)
	}
	if _, err := h.s.UpdateSettings(ctx, "e", func(c pairing.Config) (pairing.Config, error) {
		c.MaxDates, c.DatesWindow = 1, 3*time.Minute
		return c, nil
	}); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, h.s, "e", "a")
	h.arrive(t, "e", "a", "b", "c", "d")
	clk.Advance(time.Second) // the countdown ends: round 1 at t0+1s
	if v := h.get(t, "e"); len(v.Pairs) != 2 {
		t.Fatalf("round 1: %d pairs, want 2", len(v.Pairs))
	}
	if n := w.until(t, pairing.KindPaired); n.Round != 1 {
		t.Fatalf("a's first date %+v", n)
	}
	h.s.Close() // a restart in the middle of the evening

	h = start(t, docs, clk, Limits{})
	w = startWatch(t, h.s, "e", "a")
	clk.Advance(time.Minute) // round 1 ends at t0+1m+1s, a countdown starts
	h.get(t, "e")
	clk.Advance(time.Second) // the countdown ends: nobody may be seated
	v := h.get(t, "e")
	if len(v.Pairs) != 0 || v.Phase != pairing.PhaseIdle || !v.Stale {
		t.Fatalf("everyone capped: want no pair, idle, nobody can pair; got %+v", v)
	}
	if n := w.until(t, pairing.KindSatOut); !n.Capped {
		t.Fatalf("a sat out without being told of the cap: %+v", n)
	}

	// At t0+3m+1s the window lets them back: a countdown starts without
	// a call that changes anything, and round 2 follows.
	clk.Advance(2*time.Minute - time.Second)
	if v := h.get(t, "e"); v.Phase != pairing.PhaseCountdown || v.Stale {
		t.Fatalf("when the window ends: phase %s, stale %v; want a countdown", v.Phase, v.Stale)
	}
	clk.Advance(time.Second)
	if v := h.get(t, "e"); len(v.Pairs) != 2 || v.Round != 2 {
		t.Fatalf("after the window: %d pairs in round %d, want 2 in round 2", len(v.Pairs), v.Round)
	}
}
