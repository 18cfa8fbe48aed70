package pairingsvc

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/service/encountersvc"
	"github.com/cupid-match/cupid/sqlite"
)

// historyRig is a pairing service and an encounter history on one real
// in-memory store, on a test clock.
type historyRig struct {
	clock *testclock.Clock
	hist  *encountersvc.Service
	svc   *Service
}

func newHistoryRig(t *testing.T) *historyRig {
	t.Helper()
	st := memstore.New()
	c := testclock.At(t0)
	hist, err := encountersvc.New(encountersvc.Options{Store: st, Docs: st, Logger: testLogger(), Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(Options{Docs: st, Logger: testLogger(), Now: c.Now, Encounters: hist})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return &historyRig{clock: c, hist: hist, svc: svc}
}

// night runs one event of people until nobody can be paired any more (or
// rounds run out), and returns every pair seated, as "a|b" sorted.
func (r *historyRig) night(t *testing.T, id, series string, people []string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	cfg := pairing.Config{Rooms: len(people), Round: time.Minute, MinLobby: len(people) + 1, Series: series}
	if _, err := r.svc.CreateEvent(ctx, NewEvent{ID: id, Config: cfg, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for _, p := range people {
		if _, _, err := r.svc.Join(ctx, id, p); err != nil {
			t.Fatal(err)
		}
	}
	pairs := map[string]bool{}
	for range len(people) {
		for _, p := range people {
			enter(t, r.svc, id, p)
		}
		v, err := r.svc.StartRound(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Pairs) == 0 {
			break
		}
		for _, pr := range v.Pairs {
			pairs[pairKey(pr.A, pr.B)] = true
		}
		if _, err := r.svc.EndRound(ctx, id); err != nil {
			t.Fatal(err)
		}
		r.clock.Advance(time.Minute)
	}
	return pairs
}

// enter puts p in the lobby unless he is there already (people go back
// to it when a round ends).
func enter(t *testing.T, s *Service, id, p string) {
	t.Helper()
	_, st, err := s.EnterLobby(context.Background(), id, p)
	if ce, ok := err.(*cupid.Error); ok && ce.Code == cupid.CodeConflict && st.State == "" {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
}

func pairKey(a, b string) string {
	if a > b {
		a, b = b, a
	}
	return a + "|" + b
}

func TestRoundsAreRecordedAsEncounters(t *testing.T) {
	r := newHistoryRig(t)
	pairs := r.night(t, "ev1", "", []string{"ann", "bob", "cat", "dan"})
	if len(pairs) != 6 {
		t.Fatalf("four people met in %d pairs, want all 6: %v", len(pairs), pairs)
	}
	h, err := r.hist.History(context.Background(), "ann", 0)
	if err != nil {
		t.Fatal(err)
	}
	var met []string
	for _, e := range h {
		if e.Mode != encounter.ModePairing || e.Place != "ev1" {
			t.Fatalf("encounter %+v: want mode pairing at the event", e)
		}
		met = append(met, e.Other)
	}
	slices.Sort(met)
	if !slices.Equal(met, []string{"bob", "cat", "dan"}) {
		t.Fatalf("ann's history holds %v, want bob, cat, dan", met)
	}
}

func TestSeriesNeverRepeatsAPair(t *testing.T) {
	r := newHistoryRig(t)
	people := []string{"ann", "bob", "cat", "dan", "eve", "fay"}
	// The first night ends after two rounds (of a possible five).
	ctx := context.Background()
	first := map[string]bool{}
	cfg := pairing.Config{Rooms: 3, Round: time.Minute, MinLobby: 7, Series: "fridays"}
	if _, err := r.svc.CreateEvent(ctx, NewEvent{ID: "week1", Config: cfg, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for _, p := range people {
		if _, _, err := r.svc.Join(ctx, "week1", p); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		for _, p := range people {
			enter(t, r.svc, "week1", p)
		}
		v, err := r.svc.StartRound(ctx, "week1")
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range v.Pairs {
			first[pairKey(pr.A, pr.B)] = true
		}
		if _, err := r.svc.EndRound(ctx, "week1"); err != nil {
			t.Fatal(err)
		}
		r.clock.Advance(time.Minute)
	}
	if len(first) != 6 {
		t.Fatalf("two rounds of six seated %d pairs, want 6", len(first))
	}
	// The next night of the series pairs only the 9 pairs left; a night
	// outside the series may pair anyone again.
	second := r.night(t, "week2", "fridays", people)
	for p := range second {
		if first[p] {
			t.Fatalf("pair %s met again in the series", p)
		}
	}
	if len(second) != 9 {
		t.Fatalf("the second night seated %d new pairs, want the 9 left", len(second))
	}
	if other := r.night(t, "standalone", "", people); len(other) != 15 {
		t.Fatalf("an event outside the series seated %d pairs, want all 15", len(other))
	}
}

func TestBlockedPairNeverSeated(t *testing.T) {
	r := newHistoryRig(t)
	ctx := context.Background()
	if _, err := r.hist.Put(ctx, "bob", encounter.KindBlock, "ann", 0); err != nil {
		t.Fatal(err)
	}
	pairs := r.night(t, "ev", "", []string{"ann", "bob", "cat", "dan"})
	if pairs[pairKey("ann", "bob")] {
		t.Fatal("ann and bob were seated although bob blocked ann")
	}
	if len(pairs) != 5 {
		t.Fatalf("seated %d pairs, want the 5 allowed: %v", len(pairs), pairs)
	}
	// A block made during the event holds from the next lobby entry on.
	if _, err := r.hist.Put(ctx, "cat", encounter.KindBlock, "dan", 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.svc.ClearRecord(ctx, "ev", "cat"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.svc.ClearRecord(ctx, "ev", "dan"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"cat", "dan"} { // back from a break
		if _, _, err := r.svc.LeaveLobby(ctx, "ev", p); err != nil {
			t.Fatal(err)
		}
		enter(t, r.svc, "ev", p)
	}
	v, err := r.svc.StartRound(ctx, "ev")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Pairs) != 0 {
		t.Fatalf("cat and dan were seated after cat blocked dan: %+v", v.Pairs)
	}
}

// BenchmarkJoinAndEnter times a participant's Join and EnterLobby on a
// real SQLite store, without and with the encounter history (which reads
// his block list and, in a series, his history at each call).
func BenchmarkJoinAndEnter(b *testing.B) {
	for _, withHistory := range []bool{false, true} {
		b.Run(fmt.Sprintf("history=%v", withHistory), func(b *testing.B) {
			st, err := sqlite.Open(filepath.Join(b.TempDir(), "cupid.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			c := testclock.At(t0)
			o := Options{Docs: st, Logger: testLogger(), Now: c.Now}
			if withHistory {
				hist, err := encountersvc.New(encountersvc.Options{Store: st, Docs: st, Logger: testLogger(), Now: c.Now})
				if err != nil {
					b.Fatal(err)
				}
				o.Encounters = hist
			}
			svc, err := New(o)
			if err != nil {
				b.Fatal(err)
			}
			if err := svc.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer svc.Close()
			ctx := context.Background()
			cfg := pairing.Config{Rooms: 1, Round: time.Minute, MinLobby: pairing.MaxPeople, Series: "fridays"}
			if _, err := svc.CreateEvent(ctx, NewEvent{ID: "ev", Config: cfg, Seed: 1}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				p := fmt.Sprintf("p%d", i)
				if _, _, err := svc.Join(ctx, "ev", p); err != nil {
					b.Fatal(err)
				}
				if _, _, err := svc.EnterLobby(ctx, "ev", p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
