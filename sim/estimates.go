package sim

import (
	"math"
	"slices"
	"time"

	"github.com/cupid-match/cupid/waitest"
)

// The calibration of the server's wait estimates (package waitest): as each
// ticket arrives, the simulator estimates its wait the way the server's
// GetTicket does — from the tickets of the hour before, matched and left —
// and, when it is matched, checks the wait that followed against the
// estimate's interval. A ticket that leaves unmatched is checked only when
// it stayed past the top of its interval.

const (
	// estimateHistory bounds the tickets the estimator remembers, as the
	// server's statistics keep a bounded ring a queue key.
	estimateHistory = 4096
	// estimateWindow is how far back the history reaches (the server's
	// statistics window).
	estimateWindow = int64(time.Hour)
	// estimateEvery is how often the estimate for a new ticket is made
	// again: in between, arrivals share it (the history barely moves in
	// a few seconds, and a day's run stays fast).
	estimateEvery = int64(30 * time.Second)
)

// Calibration says how well the wait estimates held over a run.
type Calibration struct {
	// Coverage is the share of waits the interval claims to hold.
	Coverage float64 `json:"coverage"`
	// Estimated counts players who got an estimate on arrival; Checked,
	// those of them whose wait is known against the interval: the
	// matched, and those who left unmatched after its top.
	Estimated int `json:"estimated"`
	Checked   int `json:"checked"`
	// Unchecked counts those who left unmatched before the top of their
	// interval: their wait to a match is not known.
	Unchecked int `json:"unchecked"`
	// Within is the share of checked waits inside the interval; Below and
	// Above, outside it on either side. WithinAtLeast counts every
	// unchecked one as outside: the true share of waits the interval
	// held is between the two (the unchecked are the players who gave up,
	// whose matches would have come late more often than most).
	Within        float64 `json:"within"`
	WithinAtLeast float64 `json:"within_at_least"`
	Below         float64 `json:"below"`
	Above         float64 `json:"above"`
	// MedianError is the median of |wait - expected| in seconds.
	MedianError float64 `json:"median_error_seconds"`
}

// estimator is a run's history and tally.
type estimator struct {
	history []stay // a ring, oldest overwritten
	next    int
	at      int64 // when cur was made
	cur     waitest.Estimate
	curOK   bool
	made    bool

	estimated, checked   int
	unchecked            int
	within, below, above int
	errors               []float32
}

// stay is a ticket's wait as the history keeps it.
type stay struct {
	end int64 // when it was matched or left
	waitest.Sample
}

func newEstimator() *estimator { return &estimator{} }

// arrive makes (or reuses) the estimate for a ticket arriving now.
func (e *estimator) arrive(pt *party, now int64) {
	if !e.made || now-e.at >= estimateEvery {
		var samples []waitest.Sample
		for _, s := range e.history {
			if s.end >= now-estimateWindow {
				samples = append(samples, s.Sample)
			}
		}
		e.cur, e.curOK = waitest.Remaining(samples, 0, 0.8, waitest.MinSamples)
		e.at, e.made = now, true
	}
	pt.est, pt.hasEst = e.cur, e.curOK
	if e.curOK {
		e.estimated += int(pt.size)
	}
}

// end records a ticket that was matched (its wait checked against its
// estimate) or left.
func (e *estimator) end(pt *party, now int64, matched bool) {
	wait := time.Duration(now - pt.arrived)
	s := stay{end: now, Sample: waitest.Sample{Wait: wait, Matched: matched}}
	if len(e.history) < estimateHistory {
		e.history = append(e.history, s)
	} else {
		e.history[e.next] = s
		e.next = (e.next + 1) % estimateHistory
	}
	if !pt.hasEst {
		return
	}
	g := pt.est
	pt.hasEst = false
	n := int(pt.size)
	if !matched {
		// A ticket that left unmatched after the top of its interval
		// waited longer than the interval said: that much is known.
		// One that left sooner has no known wait and is not checked
		// (leaving it out of both would flatter the estimate: the
		// tickets that leave are those whose matches were slow).
		if g.HighKnown && wait > g.High {
			e.checked += n
			e.above += n
		} else {
			e.unchecked += n
		}
		return
	}
	e.checked += n
	switch {
	case wait < g.Low:
		e.below += n
	case g.HighKnown && wait > g.High:
		e.above += n
	default:
		e.within += n
	}
	for range n {
		e.errors = append(e.errors, float32(math.Abs((wait - g.Expected).Seconds())))
	}
}

// result sums the run up; nil when no ticket got an estimate.
func (e *estimator) result() *Calibration {
	if e.estimated == 0 {
		return nil
	}
	c := &Calibration{Coverage: 0.8, Estimated: e.estimated, Checked: e.checked, Unchecked: e.unchecked}
	if e.checked > 0 {
		n := float64(e.checked)
		c.Within, c.Below, c.Above = round3(float64(e.within)/n), round3(float64(e.below)/n), round3(float64(e.above)/n)
		c.WithinAtLeast = round3(float64(e.within) / float64(e.checked+e.unchecked))
		slices.Sort(e.errors)
		c.MedianError = round3(quantile(e.errors, 0.5))
	}
	return c
}
