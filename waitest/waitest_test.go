package waitest

import (
	"testing"
	"time"
)

// seconds makes samples of the given waits in seconds, all matched or all
// not.
func seconds(matched bool, waits ...int) []Sample {
	out := make([]Sample, len(waits))
	for i, w := range waits {
		out[i] = Sample{Wait: time.Duration(w) * time.Second, Matched: matched}
	}
	return out
}

func span(from, to int) []int {
	var out []int
	for w := from; w <= to; w++ {
		out = append(out, w)
	}
	return out
}

func TestRemaining(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		name      string
		samples   []Sample
		age       time.Duration
		ok        bool
		low, exp  time.Duration
		high      time.Duration
		highKnown bool
		n         int
	}{
		{"all matched, new ticket", seconds(true, span(1, 100)...), 0, true, 10 * s, 50 * s, 89 * s, true, 100},
		{"all matched, waited 50 s", seconds(true, span(1, 100)...), 50 * s, true, 5 * s, 25 * s, 45 * s, true, 51},
		// Half the tickets left at 5 s unmatched: they are no evidence
		// about later waits, so the estimate is that of the matched.
		{"departures are censored", append(seconds(true, span(10, 109)...), seconds(false, make([]int, 100)...)...), 0, true, 19 * s, 59 * s, 98 * s, true, 200},
		// 40 of 100 matched at once: the 10th percentile is 0 s and
		// holds 40 %, so the interval is [0, the 80th percentile].
		{"one-sided", append(seconds(true, repeat(0, 40)...), seconds(true, span(1, 60)...)...), 0, true, 0, 10 * s, 40 * s, true, 100},
		{"too few", seconds(true, span(1, 10)...), 0, false, 0, 0, 0, false, 10},
		{"too few that waited so long", seconds(true, span(1, 100)...), 95 * s, false, 0, 0, 0, false, 6},
		// 30 matched quickly, 70 still there at 60 s when they left:
		// the median is not reached.
		{"mostly left", append(seconds(true, span(1, 30)...), seconds(false, repeat(60, 70)...)...), 0, false, 0, 0, 0, false, 100},
		// 60 matched, 40 left at 60 s: the median is known, the top of
		// the interval is not.
		{"open-ended", append(seconds(true, span(1, 60)...), seconds(false, repeat(60, 40)...)...), 0, true, 10 * s, 50 * s, 0, false, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, ok := Remaining(c.samples, c.age, 0.8, MinSamples)
			if ok != c.ok || e.Samples != c.n {
				t.Fatalf("ok %v with %d samples, want %v with %d", ok, e.Samples, c.ok, c.n)
			}
			if !ok {
				return
			}
			if e.Low != c.low || e.Expected != c.exp || e.HighKnown != c.highKnown || (c.highKnown && e.High != c.high) || e.Coverage != 0.8 {
				t.Fatalf("got %+v, want %v / %v / %v (known %v)", e, c.low, c.exp, c.high, c.highKnown)
			}
		})
	}
}

func repeat(w, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = w
	}
	return out
}

// The samples are not changed, and their order does not matter.
func TestRemainingLeavesTheHistoryAlone(t *testing.T) {
	h := seconds(true, 30, 10, 20, 40, 50)
	first, _ := Remaining(h, 0, 0.8, 1)
	if h[0].Wait != 30*time.Second {
		t.Fatal("the history was reordered")
	}
	rev := []Sample{h[4], h[3], h[2], h[1], h[0]}
	if second, _ := Remaining(rev, 0, 0.8, 1); second != first {
		t.Fatalf("%+v and %+v", first, second)
	}
}
