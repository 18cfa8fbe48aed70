// Package rollout holds the decisions of trying a ruleset on live traffic:
// which side of a canary a player is on, and whether a canary's guards call
// for a roll-back. It keeps the recent matches of each side in bounded rings
// and turns them into figures over a window.
//
// It is pure: time comes in as an argument, and nothing here starts a
// goroutine or does I/O, so a guard's decision can be replayed in a table
// test. The ticket service runs shadows and canaries (package
// service/ticketsvc/canary) and asks this package what to do.
package rollout

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"time"
)

// Canary is the queue key side of tickets sent to a canary's candidate
// ruleset (cupid.QueueKey.Side). Live tickets have the empty side, so
// canary and live tickets are in different pools and never meet.
const Canary = "canary"

// Buckets is how finely a canary's share is cut: a share is a whole number
// of basis points (0.01 %).
const Buckets = 10_000

// Bucket is a player's place in [0, Buckets): FNV-1a over the salt (the
// queue's name) and the player id. It depends on nothing else, so a player
// lands in the same bucket every time he queues, on every node.
func Bucket(salt, player string) int {
	h := fnv.New64a()
	h.Write([]byte(salt))
	h.Write([]byte{0})
	h.Write([]byte(player))
	return int(h.Sum64() % Buckets)
}

// InCanary reports whether a ticket whose first player is player goes to a
// canary that takes share (0 to 1) of the queue's new tickets. A party
// follows its first player, so a player queuing alone or first in his party
// always lands on the same side.
func InCanary(salt, player string, share float64) bool {
	return Bucket(salt, player) < int(math.Round(share*Buckets))
}

// Guard is when a canary is rolled back: its tickets' wait p90 worse than
// the live side's by more than WaitMargin (a fraction: 0.25 is 25 % longer)
// or its matches' mean quality lower by more than QualityMargin (in score
// points, 0 to 1), over the last Window, once each side has MinSamples
// matched tickets in it. A margin of zero or less turns that guard off.
type Guard struct {
	WaitMargin    float64       `json:"wait_margin"`
	QualityMargin float64       `json:"quality_margin"`
	Window        time.Duration `json:"window"`
	MinSamples    int           `json:"min_samples"`
}

// DefaultGuard is what a canary started without guards uses.
var DefaultGuard = Guard{WaitMargin: 0.25, QualityMargin: 0.05, Window: 10 * time.Minute, MinSamples: 50}

// Check says what is wrong with a guard, naming the field; nil when it can
// be used.
func (g Guard) Check() (field, problem string) {
	switch {
	case !finite(g.WaitMargin) || g.WaitMargin < 0:
		return "wait_margin", fmt.Sprintf("must be a fraction of 0 or more (0.25 = 25 %% longer), got %v", g.WaitMargin)
	case !finite(g.QualityMargin) || g.QualityMargin < 0 || g.QualityMargin > 1:
		return "quality_margin", fmt.Sprintf("must be between 0 and 1 (score points), got %v", g.QualityMargin)
	case g.Window < time.Second || g.Window > MaxWindow:
		return "window", fmt.Sprintf("must be between 1s and %s, got %s", MaxWindow, g.Window)
	case g.MinSamples < 1 || g.MinSamples > Kept:
		return "min_samples", fmt.Sprintf("must be between 1 and %d, got %d", Kept, g.MinSamples)
	case g.WaitMargin == 0 && g.QualityMargin == 0:
		return "wait_margin", "a canary needs a guard: set wait_margin or quality_margin"
	}
	return "", ""
}

// MaxWindow bounds a guard's window: the rings keep the last Kept samples,
// and an hour of them is what the statistics keep too.
const MaxWindow = time.Hour

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Figures are one side's matches over a window.
type Figures struct {
	// Samples counts matched tickets (each has a wait); Matches counts
	// matches (each has a quality).
	Samples int     `json:"samples"`
	Matches int     `json:"matches"`
	WaitP50 float64 `json:"wait_p50_seconds"`
	WaitP90 float64 `json:"wait_p90_seconds"`
	WaitP99 float64 `json:"wait_p99_seconds"`
	// MeanQuality is the mean of the matches' scores.
	MeanQuality float64 `json:"mean_quality"`
}

// Verdict is a guard's decision at one moment.
type Verdict struct {
	// Rollback is true when a guard tripped; Reason says which and by how
	// much. Without it, Reason says why the canary goes on (too few
	// samples, or within its margins).
	Rollback bool
	Reason   string
}

// Evaluate applies a guard to the live and canary figures over its window.
// Nothing is decided until both sides have g.MinSamples matched tickets: a
// thin sample says nothing either way.
func Evaluate(g Guard, live, canary Figures) Verdict {
	if live.Samples < g.MinSamples || canary.Samples < g.MinSamples {
		return Verdict{Reason: fmt.Sprintf("waiting for samples: %d live and %d canary matched tickets in the last %s, %d needed on each side",
			live.Samples, canary.Samples, g.Window, g.MinSamples)}
	}
	if g.WaitMargin > 0 {
		limit := live.WaitP90 * (1 + g.WaitMargin)
		if canary.WaitP90 > limit+1e-9 {
			return Verdict{Rollback: true, Reason: fmt.Sprintf("wait p90 %.1fs on the canary against %.1fs live: more than %.0f %% longer (limit %.1fs) over the last %s, %d and %d matched tickets",
				canary.WaitP90, live.WaitP90, g.WaitMargin*100, limit, g.Window, canary.Samples, live.Samples)}
		}
	}
	if g.QualityMargin > 0 && canary.Matches > 0 && live.Matches > 0 {
		if live.MeanQuality-canary.MeanQuality > g.QualityMargin+1e-9 { // at the margin is within it
			return Verdict{Rollback: true, Reason: fmt.Sprintf("mean quality %.3f on the canary against %.3f live: lower by more than %.3f over the last %s, %d and %d matches",
				canary.MeanQuality, live.MeanQuality, g.QualityMargin, g.Window, canary.Matches, live.Matches)}
		}
	}
	return Verdict{Reason: fmt.Sprintf("within the guards: wait p90 %.1fs canary / %.1fs live, mean quality %.3f canary / %.3f live over the last %s",
		canary.WaitP90, live.WaitP90, canary.MeanQuality, live.MeanQuality, g.Window)}
}

// Kept bounds each ring: the last Kept matched tickets' waits and the last
// Kept matches' qualities.
const Kept = 4096

// Ring keeps one side's recent matches. The zero Ring is empty and ready.
// It is not safe for concurrent use; its owner locks.
type Ring struct {
	waits    [Kept]sample
	waitNext int
	quals    [Kept]sample
	qualNext int
	records  uint64
}

type sample struct {
	at int64 // Unix nanoseconds; 0 is an empty slot
	v  float64
}

// Match records a match at now: its quality and its tickets' waits.
func (r *Ring) Match(now time.Time, quality float64, waits []time.Duration) {
	at := now.UnixNano()
	r.records++
	for _, w := range waits {
		if w < 0 {
			continue // unknown
		}
		r.waits[r.waitNext] = sample{at: at, v: w.Seconds()}
		r.waitNext = (r.waitNext + 1) % Kept
	}
	r.quals[r.qualNext] = sample{at: at, v: quality}
	r.qualNext = (r.qualNext + 1) % Kept
}

// Figures summarises the samples recorded after from.
func (r *Ring) Figures(from time.Time) Figures {
	cut := from.UnixNano()
	var waits []float64
	for _, s := range r.waits {
		if s.at != 0 && s.at > cut {
			waits = append(waits, s.v)
		}
	}
	var f Figures
	sum := 0.0
	for _, s := range r.quals {
		if s.at != 0 && s.at > cut {
			f.Matches++
			sum += s.v
		}
	}
	if f.Matches > 0 {
		f.MeanQuality = sum / float64(f.Matches)
	}
	slices.Sort(waits)
	f.Samples = len(waits)
	if len(waits) > 0 {
		f.WaitP50, f.WaitP90, f.WaitP99 = Percentile(waits, 0.5), Percentile(waits, 0.9), Percentile(waits, 0.99)
	}
	return f
}

// Percentile is the nearest-rank percentile of sorted values (the one the
// queue statistics use), 0 for none.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}
