package waitest

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// reference is the estimate as this package first computed it: the curve
// built whole into a list of steps, each quantile searched from its start.
// RemainingSorted and Remaining walk the curve once; they must agree with
// it exactly.
func reference(samples []Sample, age time.Duration, coverage float64, need int) (Estimate, bool) {
	if coverage <= 0 || coverage >= 1 {
		coverage = 0.8
	}
	need = max(need, 1)
	var rest []Sample
	for _, s := range samples {
		if s.Wait >= age {
			rest = append(rest, Sample{Wait: s.Wait - age, Matched: s.Matched})
		}
	}
	e := Estimate{Coverage: coverage, Samples: len(rest)}
	if len(rest) < need {
		return e, false
	}
	slices.SortFunc(rest, func(a, b Sample) int {
		if a.Wait != b.Wait {
			return cmp.Compare(a.Wait, b.Wait)
		}
		if a.Matched == b.Matched {
			return 0
		}
		if a.Matched {
			return -1
		}
		return 1
	})
	type step struct {
		t     time.Duration
		share float64
	}
	var steps []step
	surv, atRisk := 1.0, len(rest)
	for i := 0; i < len(rest); {
		t := rest[i].Wait
		matched, total := 0, 0
		for i < len(rest) && rest[i].Wait == t {
			if rest[i].Matched {
				matched++
			}
			total++
			i++
		}
		if matched > 0 {
			surv *= 1 - float64(matched)/float64(atRisk)
			steps = append(steps, step{t, 1 - surv})
		}
		atRisk -= total
	}
	quantile := func(q float64) (t time.Duration, before float64, ok bool) {
		for i, s := range steps {
			if s.share >= q-1e-12 {
				if i > 0 {
					before = steps[i-1].share
				}
				return s.t, before, true
			}
		}
		return 0, 0, false
	}
	expected, _, ok := quantile(0.5)
	if !ok {
		return e, false
	}
	low, before, _ := quantile((1 - coverage) / 2)
	e.Low, e.Expected = low, expected
	e.High, _, e.HighKnown = quantile(before + coverage)
	return e, true
}

// Histories of every shape the service sees — many equal waits (matched at
// once), departures tied with matches, few matches, none — at ages inside
// and past the history: all three ways agree on every estimate.
func TestRemainingSortedAgreesWithTheCurve(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 3000 {
		n := rng.IntN(300)
		distinct := 1 + rng.IntN(40) // few distinct waits: many ties
		leftShare := rng.Float64()
		samples := make([]Sample, n)
		for i := range samples {
			samples[i] = Sample{
				Wait:    time.Duration(rng.IntN(distinct)) * 250 * time.Millisecond,
				Matched: rng.Float64() >= leftShare,
			}
		}
		sorted := slices.Clone(samples)
		slices.SortFunc(sorted, Compare)
		before := slices.Clone(sorted)
		coverage := []float64{0.8, 0.5, 0.95, 0, 0.1}[rng.IntN(5)]
		need := []int{1, MinSamples, 5}[rng.IntN(3)]
		age := time.Duration(rng.IntN(distinct+2)) * 250 * time.Millisecond
		if rng.IntN(4) == 0 {
			age += 100 * time.Millisecond // between the waits
		}
		want, wantOK := reference(samples, age, coverage, need)
		got, gotOK := Remaining(samples, age, coverage, need)
		if got != want || gotOK != wantOK {
			t.Fatalf("round %d: Remaining = %+v %v, the curve says %+v %v", round, got, gotOK, want, wantOK)
		}
		got, gotOK = RemainingSorted(sorted, age, coverage, need)
		if got != want || gotOK != wantOK {
			t.Fatalf("round %d: RemainingSorted = %+v %v, the curve says %+v %v", round, got, gotOK, want, wantOK)
		}
		if !slices.Equal(sorted, before) {
			t.Fatalf("round %d: RemainingSorted changed its history", round)
		}
	}
}

func TestRemainingSortedAllocatesNothing(t *testing.T) {
	sorted := seconds(true, span(1, 4000)...)
	if n := testing.AllocsPerRun(20, func() { RemainingSorted(sorted, 3*time.Second, 0.8, MinSamples) }); n != 0 {
		t.Fatalf("%v allocations per estimate", n)
	}
}
