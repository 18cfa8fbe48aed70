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
	e, err := New(Config{Rooms: n / 2, Round: 5 * time.Minute, Countdown: time.Minute, MinLobby: 2}, 1)
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("player-%05d", i)
		if _, err := e.Join(t0, keys[i]); err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(2, 3))
	for i, k := range keys {
		for range (20 + rng.IntN(31)) / 2 { // each meeting lands in two records
			j := rng.IntN(n)
			if j != i {
				e.people[k].met[keys[j]] = e.people[keys[j]]
				e.people[keys[j]].met[k] = e.people[k]
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
