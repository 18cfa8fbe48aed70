package pairingsvc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/sqlite"
)

// lobbySnapshot returns an event of n people in the lobby at the end of its
// countdown, each of whom has met 20–50 random others (on both records), as
// pairing's own benchmarks set it up.
func lobbySnapshot(b *testing.B, n int) pairing.Snapshot {
	cfg := pairing.Config{Rooms: n / 2, Round: 5 * time.Minute, Countdown: time.Minute, MinLobby: 2}
	ev, err := pairing.New(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		k := fmt.Sprintf("player-%05d", i)
		if _, err := ev.Join(t0, k); err != nil {
			b.Fatal(err)
		}
		if _, err := ev.EnterLobby(t0, k); err != nil {
			b.Fatal(err)
		}
	}
	snap := ev.Snapshot()
	met := make([]map[string]bool, n)
	for i := range met {
		met[i] = map[string]bool{}
	}
	rng := rand.New(rand.NewPCG(2, 3))
	for i := range n {
		for range (20 + rng.IntN(31)) / 2 {
			if j := rng.IntN(n); j != i {
				met[i][snap.People[j].Key] = true
				met[j][snap.People[i].Key] = true
			}
		}
	}
	for i := range snap.People {
		for k := range met[i] {
			snap.People[i].Met = append(snap.People[i].Met, k)
		}
		slices.Sort(snap.People[i].Met)
	}
	return snap
}

// BenchmarkServiceRound times a round as the service runs it when the
// countdown ends: the round computed by the pairing package, the event's
// snapshot encoded and written to the store, and the notifications handed
// to an organiser's watch — everything between the timer firing and the
// first client being told, except the network. "mem" is an in-memory store;
// "sqlite" the embedded store on disk (one fsync per round).
func BenchmarkServiceRound(b *testing.B) {
	for _, n := range []int{80, 10_000} {
		snap := lobbySnapshot(b, n)
		for _, store := range []string{"mem", "sqlite"} {
			b.Run(fmt.Sprintf("n=%d/%s", n, store), func(b *testing.B) {
				var docs cupid.DocumentStore = newMemDocs()
				if store == "sqlite" {
					st, err := sqlite.Open(filepath.Join(b.TempDir(), "cupid.db"))
					if err != nil {
						b.Fatal(err)
					}
					defer st.Close()
					docs = st
				}
				clk := testclock.At(snap.Deadline)
				s, err := New(Options{Docs: docs, Now: clk.Now, Logger: testLogger()})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				for b.Loop() {
					b.StopTimer()
					ev, err := pairing.Restore(snap)
					if err != nil {
						b.Fatal(err)
					}
					e := newEvent(s, document{Version: documentVersion, ID: "bench", CreatedAt: t0, Seed: 1, Event: snap}, ev)
					sub := &subscriber{ch: make(chan []Notification, 1), quit: make(chan struct{})}
					e.all[sub] = struct{}{}
					runtime.GC()
					b.StartTimer()
					e.process(nil)
					b.StopTimer()
					if len(sub.ch) != 1 || len(<-sub.ch) < n {
						b.Fatal("the round was not published")
					}
					b.StartTimer()
				}
			})
		}
	}
}

// BenchmarkThousandEvents runs 1,000 events side by side on the embedded
// store, on the real clock: each event is created, two people join and
// enter its lobby, a 1 ms countdown runs and a round starts. One op is all
// of it for all 1,000 events; events/s is the rate at which whole events
// (six stored changes each) went through.
func BenchmarkThousandEvents(b *testing.B) {
	const n = 1000
	cfg := pairing.Config{Rooms: 1, Round: time.Hour, Countdown: time.Millisecond, MinLobby: 2}
	var events int
	var took time.Duration
	for b.Loop() {
		b.StopTimer()
		st, err := sqlite.Open(filepath.Join(b.TempDir(), "cupid.db"))
		if err != nil {
			b.Fatal(err)
		}
		s, err := New(Options{Docs: st, Logger: testLogger()})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.StartTimer()
		start := time.Now()
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := fmt.Sprintf("ev-%04d", i)
				if _, err := s.CreateEvent(ctx, NewEvent{ID: id, Config: cfg}); err != nil {
					b.Error(err)
					return
				}
				started := make(chan struct{})
				watched := make(chan error, 1)
				go func() {
					watched <- s.Watch(ctx, id, "", func(n Notification) error {
						if n.Kind == KindWatching {
							close(started)
						}
						if n.Kind == pairing.KindRoundStarted {
							return errDone
						}
						return nil
					})
				}()
				<-started
				for _, k := range []string{"a", "b"} {
					if _, _, err := s.Join(ctx, id, k); err != nil {
						b.Error(err)
					}
					if _, _, err := s.EnterLobby(ctx, id, k); err != nil {
						b.Error(err)
					}
				}
				if err := <-watched; err != errDone {
					b.Errorf("%s: watch ended with %v before a round", id, err)
				}
			}()
		}
		wg.Wait()
		events += n
		took += time.Since(start)
		b.StopTimer()
		s.Close()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(events)/took.Seconds(), "events/s")
}

var errDone = fmt.Errorf("done")
