package opponentsvc

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// holdFinder takes reservations held for a minute, with hour-long shields,
// over one wide MMR window so every query can reach every defender.
func holdFinder() Finder {
	f := arenaFinder()
	f.Opponent.Reservations = opponent.Reservations{Enabled: true, Hold: opponent.Duration(time.Minute)}
	f.Opponent.Shield = opponent.Duration(time.Hour)
	f.Opponent.MaxCandidates = 200
	return f
}

func reserveFor(s *Service, attacker string) (opponent.Result, error) {
	q := attacker2(attacker)
	q.Reserve = true
	return s.FindOpponent(context.Background(), "arena", q)
}

// attacker2 reaches every defender of holdFinder (retries widen the window
// over all 30 buckets).
func attacker2(id string) opponent.Query {
	q := attacker(id, 1500, "gold", "none")
	q.Retries = 3
	return q
}

// TestConcurrentQueriesNeverShareAHeldDefender: 40 goroutines race to
// reserve 25 defenders; each defender is held by exactly one attacker.
func TestConcurrentQueriesNeverShareAHeldDefender(t *testing.T) {
	s, _ := newService(t, newMemDocs(), holdFinder())
	const defenders = 25
	for i := range defenders {
		mustUpdate(t, s, "arena", defender(fmt.Sprintf("d%02d", i), float64(1000+i*40), "gold", "wolves"))
	}
	var mu sync.Mutex
	holder := map[string]string{}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for g := range 40 {
		wg.Go(func() {
			for k := range 3 {
				attacker := fmt.Sprintf("a%02d-%d", g, k)
				res, err := reserveFor(s, attacker)
				if err != nil {
					errs <- err
					return
				}
				if res.Type != opponent.ResultSuccess {
					continue
				}
				mu.Lock()
				if other, dup := holder[res.PlayerID]; dup {
					errs <- fmt.Errorf("%s offered to %s and %s", res.PlayerID, other, attacker)
				}
				holder[res.PlayerID] = attacker
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(holder) != defenders {
		t.Fatalf("%d defenders held, want all %d", len(holder), defenders)
	}
	if st := stats(t, s, "arena"); st.Held != defenders || st.Reserved != defenders {
		t.Fatalf("stats = held %d, reserved %d", st.Held, st.Reserved)
	}
}

func TestReservationsShieldsAndOnlineSurviveARestart(t *testing.T) {
	docs := newMemDocs()
	s, clk := newService(t, docs, holdFinder())
	mustUpdate(t, s, "arena", defender("held", 1500, "gold", "wolves"))
	mustUpdate(t, s, "arena", defender("hit", 1600, "gold", "wolves"))
	mustUpdate(t, s, "arena", defender("playing", 1400, "gold", "wolves"))
	if _, err := s.SetPlayerOnline(context.Background(), "arena", "playing", true); err != nil {
		t.Fatal(err)
	}
	held, err := reserveFor(s, "bob")
	if err != nil || held.PlayerID != "held" {
		t.Fatalf("first reservation = %+v, %v", held, err)
	}
	hit, err := reserveFor(s, "cat")
	if err != nil || hit.PlayerID != "hit" {
		t.Fatalf("second reservation = %+v, %v", hit, err)
	}
	if _, err := s.ConfirmAttack(context.Background(), "arena", hit.Reservation.ID, "cat"); err != nil {
		t.Fatal(err)
	}
	if n := docs.count(StateKindPrefix + "arena"); n != 3 {
		t.Fatalf("%d stored states, want 3 (held, shielded, online)", n)
	}
	// The server dies (no Close): the states were stored as they changed.
	clk.Advance(10 * time.Second)

	r, clk2 := newService(t, docs, holdFinder())
	clk2.Advance(10 * time.Second)
	// The scan is off in this finder, so the players come back by update;
	// their states were loaded before.
	for _, m := range []opponent.Model{defender("held", 1500, "gold", "wolves"), defender("hit", 1600, "gold", "wolves"), defender("playing", 1400, "gold", "wolves")} {
		mustUpdate(t, r, "arena", m)
	}
	if res := mustFind(t, r, "arena", attacker2("dan")); res.Type != opponent.ResultNoneFound {
		t.Fatalf("after the restart a held, shielded or online player was offered: %+v", res)
	}
	st := stats(t, r, "arena")
	if st.Held != 1 || st.Shielded != 1 || st.Online != 1 {
		t.Fatalf("after the restart: held %d, shielded %d, online %d", st.Held, st.Shielded, st.Online)
	}
	// The reservation made before the restart can be confirmed after it.
	c, err := r.ConfirmAttack(context.Background(), "arena", held.Reservation.ID, "bob")
	if err != nil || c.Reservation.Defender != "held" {
		t.Fatalf("Confirm after the restart = %+v, %v", c, err)
	}
	// Shields lapse; the sweep deletes their documents.
	clk2.Advance(2 * time.Hour)
	r.sweep(context.Background(), r.finders["arena"])
	if n := docs.count(StateKindPrefix + "arena"); n != 1 {
		t.Fatalf("%d stored states after the shields lapsed, want 1 (online)", n)
	}
	if _, err := r.SetPlayerOnline(context.Background(), "arena", "playing", false); err != nil {
		t.Fatal(err)
	}
	if n := docs.count(StateKindPrefix + "arena"); n != 0 {
		t.Fatalf("%d stored states when everybody is free", n)
	}
	if res := mustFind(t, r, "arena", attacker2("dan")); res.Type != opponent.ResultSuccess {
		t.Fatalf("nobody offered once all are free: %+v", res)
	}
}

func TestUnstoredReservationIsUndone(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, holdFinder())
	mustUpdate(t, s, "arena", defender("ann", 1500, "gold", "wolves"))
	docs.mu.Lock()
	docs.failWrites = true
	docs.mu.Unlock()
	_, err := reserveFor(s, "bob")
	wantErr(t, err, cupid.CodeUnavailable, "")
	docs.mu.Lock()
	docs.failWrites = false
	docs.mu.Unlock()
	if res, err := reserveFor(s, "cid"); err != nil || res.PlayerID != "ann" {
		t.Fatalf("after a failed hold ann is not free: %+v, %v", res, err)
	}
}

func TestReservationErrorsThroughTheService(t *testing.T) {
	s, clk := newService(t, newMemDocs(), holdFinder(), Finder{Name: "plain", Opponent: arenaFinder().Opponent})
	mustUpdate(t, s, "arena", defender("ann", 1500, "gold", "wolves"))
	res, err := reserveFor(s, "bob")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = s.ConfirmAttack(ctx, "arena", "rsv_unknown", "")
	wantErr(t, err, cupid.CodeNotFound, "reservation_id")
	_, err = s.ConfirmAttack(ctx, "arena", res.Reservation.ID, "eve")
	wantErr(t, err, cupid.CodeDenied, "attacker_id")
	_, err = s.ConfirmAttack(ctx, "plain", res.Reservation.ID, "")
	wantErr(t, err, cupid.CodeConflict, "finder")
	q := attacker2("bob")
	q.Reserve = true
	_, err = s.FindOpponent(ctx, "plain", q)
	wantErr(t, err, cupid.CodeConflict, "reserve")
	clk.Advance(time.Minute)
	_, err = s.ReleaseReservation(ctx, "arena", res.Reservation.ID, "bob")
	wantErr(t, err, cupid.CodeConflict, "reservation_id")
	_, err = s.SetPlayerOnline(ctx, "arena", "fake:x:1", true)
	wantErr(t, err, cupid.CodeInvalid, "player_id")
}

func TestReservationsNeedTheirOwnTable(t *testing.T) {
	a, b := holdFinder(), holdFinder()
	b.Name, b.Opponent.Reservations = "arena-2", opponent.Reservations{}
	b.PlayerTable = "arena"
	_, err := New(Options{Docs: newMemDocs(), Finders: []Finder{a, b}})
	wantErr(t, err, cupid.CodeInvalid, "finders[0].reservations.enabled")
}
