// Package waitest estimates how much longer a waiting ticket will wait, with
// an interval, from the waits of the tickets that came before it in the same
// queue key.
//
// The history holds two kinds of tickets: those that were matched (their
// wait is known) and those that left unmatched — cancelled, expired,
// replaced — whose wait is only known to be at least what they waited.
// Dropping the second kind would make queues that lose players look faster
// than they are, so the estimate is a Kaplan–Meier survival curve, which
// counts a ticket that left as still waiting up to the moment it left.
//
// A ticket that has already waited Age is compared only with the tickets
// that waited at least as long: the curve is conditioned on Age, and the
// estimate is of the time still to come. The median is the expected wait;
// the interval holds Coverage of the waits between its quantiles (for 0.8:
// the 10th and the 90th). Where too few matched tickets waited that long,
// the upper end is not known and the estimate says so rather than guess.
//
// The package is pure: the history and the age come in as arguments.
package waitest

import (
	"cmp"
	cupid "github.com/cupid-match/cupid"
	"slices"
	"time"
)

// Sample is one ticket's stay in a queue key.
type Sample struct {
	Wait time.Duration
	// Matched is false for a ticket that left unmatched: its wait is a
	// lower bound.
	Matched bool
}

// Estimate is the remaining wait of a ticket (the root package's type, so
// tickets' views and events can carry it).
type Estimate = cupid.WaitEstimate

// MinSamples is how many comparable tickets an estimate needs by default.
const MinSamples = 20

// Remaining estimates the remaining wait of a ticket that has waited age,
// from the history samples, with an interval of the given coverage (0.8
// when outside (0, 1)). It reports false when fewer than need tickets of
// the history waited at least age, or when fewer than half of them were
// matched within the history (no median).
func Remaining(samples []Sample, age time.Duration, coverage float64, need int) (Estimate, bool) {
	// The tickets that waited at least age, by how much longer they
	// stayed.
	var rest []Sample
	for _, s := range samples {
		if s.Wait >= age {
			rest = append(rest, Sample{Wait: s.Wait - age, Matched: s.Matched})
		}
	}
	slices.SortFunc(rest, Compare)
	return remaining(rest, 0, coverage, need)
}

// Compare orders samples as the estimate reads them: by wait, and at equal
// waits a match before a departure (the usual Kaplan–Meier convention: one
// who left at t was still at risk at t). Samples that compare equal are
// the same.
func Compare(a, b Sample) int {
	if a.Wait != b.Wait {
		return cmp.Compare(a.Wait, b.Wait)
	}
	switch {
	case a.Matched == b.Matched:
		return 0
	case a.Matched:
		return -1
	}
	return 1
}

// RemainingSorted is Remaining over samples already sorted by Compare,
// which it neither copies nor changes: the same estimate, without the
// sort and without allocating, for a caller that keeps its history sorted.
func RemainingSorted(sorted []Sample, age time.Duration, coverage float64, need int) (Estimate, bool) {
	first, _ := slices.BinarySearchFunc(sorted, age, func(s Sample, age time.Duration) int { return cmp.Compare(s.Wait, age) })
	return remaining(sorted[first:], age, coverage, need)
}

// remaining is the estimate from rest, the tickets that waited at least
// age, sorted by Compare; each stayed its Wait minus age longer.
func remaining(rest []Sample, age time.Duration, coverage float64, need int) (Estimate, bool) {
	if coverage <= 0 || coverage >= 1 {
		coverage = 0.8
	}
	need = max(need, 1)
	e := Estimate{Coverage: coverage, Samples: len(rest)}
	if len(rest) < need {
		return e, false
	}
	// The curve, as the share matched by each time a match happened (one
	// minus the survival), is walked once, and three quantiles are read
	// off it: the first time by which a share q was matched, with the
	// share matched at the step before. A tiny tolerance: the shares are
	// products of fractions, and a quantile met exactly must count.
	//
	// The interval starts at the (1-coverage)/2 quantile and ends where
	// coverage more has been matched after the share matched before its
	// start. When many tickets are matched at once (a wait of zero) its
	// start holds more than the tail: the interval is then one-sided,
	// [0, the coverage quantile], rather than wider than it says. Its end
	// is not before its start, and the median not before it either, so
	// all three are found walking forward.
	const tolerance = 1e-12
	lowQ := (1 - coverage) / 2
	var (
		lowFound, midFound, highFound bool
		highQ                         float64
		prev                          float64 // the share at the step before
	)
	surv := 1.0
	atRisk := len(rest)
	for i := 0; i < len(rest) && !(midFound && highFound); {
		t := rest[i].Wait
		matched, total := 0, 0
		for i < len(rest) && rest[i].Wait == t {
			if rest[i].Matched {
				matched++
			}
			total++
			i++
		}
		atRisk0 := atRisk
		atRisk -= total
		if matched == 0 {
			continue
		}
		surv *= 1 - float64(matched)/float64(atRisk0)
		share := 1 - surv
		if !lowFound && share >= lowQ-tolerance {
			lowFound = true
			e.Low = t - age
			highQ = prev + coverage
		}
		if !midFound && share >= 0.5-tolerance {
			midFound = true
			e.Expected = t - age
		}
		if lowFound && !highFound && share >= highQ-tolerance {
			highFound = true
			e.High, e.HighKnown = t-age, true
		}
		prev = share
	}
	if !midFound {
		return Estimate{Coverage: coverage, Samples: len(rest)}, false
	}
	return e, true
}
