package pairing

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// lobbyOf returns an event with n people in the lobby, each of whom has met
// 20–50 random others (records on both sides), and its snapshot.
func lobbyOf(b *testing.B, n int) (*Event, Snapshot) {
	return lobbyWith(b, n, Config{Rooms: n / 2, Round: 5 * time.Minute, Countdown: time.Minute, MinLobby: 2})
}

// lobbyWith is lobbyOf with other settings; a two-sided event's people
// alternate between the sides.
func lobbyWith(b *testing.B, n int, cfg Config) (*Event, Snapshot) {
	e, err := New(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("player-%05d", i)
		group := ""
		if cfg.Mode == ModeTwoSided {
			group = cfg.Sides[i%2]
		}
		if _, err := e.JoinGroup(t0, keys[i], group); err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(2, 3))
	for i, k := range keys {
		for range (20 + rng.IntN(31)) / 2 { // each meeting lands in two records
			j := rng.IntN(n)
			if j != i {
				e.people[k].met[keys[j]] = e.people[keys[j]].id
				e.people[keys[j]].met[k] = e.people[k].id
			}
		}
	}
	for _, k := range keys {
		if _, err := e.EnterLobby(t0, k); err != nil {
			b.Fatal(err)
		}
	}
	return e, e.Snapshot()
}

// BenchmarkChoosePairs times computing a round — building the graph of
// allowed pairs from the records, the plan, the maximum matching with
// priorities, the rooms. "steady" is a lobby seated in an earlier round;
// "first" seats everyone afresh each time, with the plan's local search
// (run for lobbies of up to 512), which is what a round costs when the
// lobby changes.
func BenchmarkChoosePairs(b *testing.B) {
	for _, n := range []int{80, 10_000} {
		for _, first := range []bool{false, true} {
			name := fmt.Sprintf("n=%d/steady", n)
			if first {
				name = fmt.Sprintf("n=%d/first", n)
			}
			b.Run(name, func(b *testing.B) {
				e, _ := lobbyOf(b, n)
				e.choosePairs(e.lobbyGraph()) // seat everyone once
				for b.Loop() {
					if first {
						e.plan = plan{}
					}
					pairs, _ := e.choosePairs(e.lobbyGraph())
					if len(pairs) < n/2-1 {
						b.Fatalf("%d pairs", len(pairs))
					}
				}
			})
		}
	}
}

// BenchmarkAdvance times a whole round start as the server sees it: Advance
// at the end of the countdown, with the first seating of everyone, marking
// records, rooms and notifications. Restoring the event between runs (and
// collecting its garbage) is not timed.
func BenchmarkAdvance(b *testing.B) {
	for _, n := range []int{80, 10_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			_, snap := lobbyOf(b, n)
			at := snap.Deadline
			for b.Loop() {
				b.StopTimer()
				e, err := Restore(snap)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				b.StartTimer()
				if notes := e.Advance(at); len(notes) < n {
					b.Fatalf("%d notifications", len(notes))
				}
			}
		})
	}
}

// BenchmarkAdvanceModes times the 10,000-person round of BenchmarkAdvance
// in a two-sided event (pairs only across the sides) and, with one person
// more, with trios on (the odd one out seated as a third).
func BenchmarkAdvanceModes(b *testing.B) {
	for _, c := range []struct {
		name string
		n    int
		cfg  Config
	}{
		{"two_sided", 10_000, Config{Mode: ModeTwoSided, Sides: []string{"stay", "move"}}},
		{"trios", 10_001, Config{Trios: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg := c.cfg
			cfg.Rooms, cfg.Round, cfg.Countdown, cfg.MinLobby = c.n/2, 5*time.Minute, time.Minute, 2
			_, snap := lobbyWith(b, c.n, cfg)
			for b.Loop() {
				b.StopTimer()
				e, err := Restore(snap)
				if err != nil {
					b.Fatal(err)
				}
				runtime.GC()
				b.StartTimer()
				e.Advance(snap.Deadline)
				b.StopTimer()
				if s := e.Snapshot(); len(s.Lobby) > 1 || (c.cfg.Trios && len(s.Lobby) != 0) {
					b.Fatalf("%d left in the lobby", len(s.Lobby))
				}
				b.StartTimer()
			}
		})
	}
}
