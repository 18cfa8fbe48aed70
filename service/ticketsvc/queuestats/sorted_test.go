package queuestats

import (
	"math/rand/v2"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/waitest"
)

// The sorted samples an estimate reads are kept as samples come, overwrite
// the oldest in their rings and leave the window: after any sequence of
// matches, departures, estimates and a clock that moves on by seconds or
// by more than the window (and once back), every estimate is the one made
// from the key's samples collected afresh.
func TestEstimateKeepsItsSamplesSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	key := cupid.QueueKey{Queue: "duel"}
	r := New()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for step := range 20000 {
		switch x := rng.IntN(100); {
		case x < 45:
			waits := []time.Duration{time.Duration(rng.IntN(40)) * 500 * time.Millisecond, -1}
			r.Matched(key, &cupid.Match{}, waits[:1+rng.IntN(2)], now)
		case x < 60:
			r.Left(key, time.Duration(rng.IntN(40))*500*time.Millisecond, now)
		case x < 70:
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
		case x < 71:
			now = now.Add(Window / time.Duration(1+rng.IntN(3)))
		case x < 72 && step == 10000:
			now = now.Add(-time.Minute) // a clock set back
		default:
			age := time.Duration(rng.IntN(30)) * 700 * time.Millisecond
			got, gotOK := r.Estimate(key, age, now)
			r.mu.Lock()
			want, wantOK := waitest.Remaining(r.keys[key].samples(now.Add(-Window).Unix()), age, EstimateCoverage, waitest.MinSamples)
			r.mu.Unlock()
			if got != want || gotOK != wantOK {
				t.Fatalf("step %d: estimate %+v %v, from the samples afresh %+v %v", step, got, gotOK, want, wantOK)
			}
		}
	}
}

// BenchmarkEstimateBusyKey is one watched ticket's estimate in a key whose
// rings are full, with a match between estimates (as at 1,000 watched
// tickets a second).
func BenchmarkEstimateBusyKey(b *testing.B) {
	key := cupid.QueueKey{Queue: "duel"}
	r := New()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2 * keptWaits {
		r.Matched(key, &cupid.Match{}, []time.Duration{time.Duration(rng.IntN(5000)) * time.Millisecond}, now)
		r.Left(key, time.Duration(rng.IntN(5000))*time.Millisecond, now)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			r.Matched(key, &cupid.Match{}, []time.Duration{time.Duration(rng.IntN(5000)) * time.Millisecond}, now)
		}
		r.Estimate(key, time.Millisecond, now)
	}
}
