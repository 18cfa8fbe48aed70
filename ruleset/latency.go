package ruleset

import (
	"sort"
	"time"
)

// MaxLatencyMs bounds region_latency_max_ms. Ten seconds of round trip is
// already unplayable; the bound keeps the expansion arithmetic small.
const MaxLatencyMs = 10_000

// Latency is the region expansion of AccelByte's match rulesets, compiled. A
// ticket starts by accepting the regions it reaches within InitialMs; every
// RateMs of waiting it accepts StepMs more, up to MaxMs. Regions above MaxMs
// are never accepted, so a ticket with no region at or below MaxMs never
// matches.
type Latency struct {
	// Enabled is false when the ruleset sets no region_latency_max_ms; then
	// latency does not restrict matching at all.
	Enabled   bool
	InitialMs int
	StepMs    int
	RateMs    int
	MaxMs     int
	// SpreadMs bounds the difference between the players' latencies to
	// the hosting region (region_latency_spread_ms); 0: no bound.
	SpreadMs int
	// Steps, when set (region_latency_flexing), is the range over time and
	// replaces the even expansion of StepMs every RateMs.
	Steps Schedule
	// FastestOnly is region_choice "fastest": a ticket accepts only the
	// region of its lowest latency.
	FastestOnly bool
	// BidirectionalUntil is the wait from which a pivot ticket skips the
	// bidirectional check (disable_bidirectional_latency_after_ms); zero
	// means the check always applies.
	BidirectionalUntil time.Duration
}

// The values of region_choice.
const (
	RegionAcceptable = "acceptable"
	RegionFastest    = "fastest"
)

func compileLatency(rs *Ruleset) Latency {
	l := Latency{
		Enabled:   rs.RegionLatencyMaxMs > 0,
		InitialMs: rs.RegionLatencyInitialRangeMs,
		StepMs:    rs.RegionExpansionRangeMs,
		RateMs:    rs.RegionExpansionRateMs,
		MaxMs:     rs.RegionLatencyMaxMs,
		SpreadMs:  rs.RegionLatencySpreadMs,

		FastestOnly: rs.RegionChoice == RegionFastest,
	}
	if len(rs.RegionLatencyFlexing) > 0 {
		l.Steps = flexSchedule(float64(rs.RegionLatencyInitialRangeMs), rs.RegionLatencyFlexing)
	}
	if rs.DisableBidirectionalLatencyAfterMs > 0 {
		l.BidirectionalUntil = time.Duration(rs.DisableBidirectionalLatencyAfterMs) * time.Millisecond
	}
	return l
}

// RangeAt is the highest latency, in milliseconds, a ticket accepts after
// waiting wait: the initial range plus one expansion per full rate period,
// capped at the maximum. A region is accepted when its latency is at or
// below the range.
//
// A ruleset that sets only region_latency_max_ms (no initial range, no
// expansion) would accept nothing under that formula; it is read as "the
// maximum applies from the start", which is what its author means.
func (l Latency) RangeAt(wait time.Duration) int {
	if len(l.Steps) > 0 {
		return min(int(l.Steps.At(wait)), l.MaxMs)
	}
	if l.InitialMs <= 0 && (l.StepMs <= 0 || l.RateMs <= 0) {
		return l.MaxMs
	}
	r := l.InitialMs
	if l.StepMs > 0 && l.RateMs > 0 && wait > 0 {
		steps := int64(wait / (time.Duration(l.RateMs) * time.Millisecond))
		// Stop counting once the cap is reached, which also keeps the
		// multiplication from overflowing for absurd waits.
		need := int64(max(l.MaxMs-l.InitialMs, 0)/l.StepMs) + 1
		steps = min(steps, need)
		r += int(steps) * l.StepMs
	}
	return min(r, l.MaxMs)
}

// nextChange is the first wait after wait at which the range grows, or the
// bidirectional check switches off.
func (l Latency) nextChange(wait time.Duration) (time.Duration, bool) {
	if !l.Enabled {
		return 0, false
	}
	var next time.Duration
	found := false
	if l.StepMs > 0 && l.RateMs > 0 && l.RangeAt(wait) < l.MaxMs {
		rate := time.Duration(l.RateMs) * time.Millisecond
		next, found = (max(wait, 0)/rate+1)*rate, true
	}
	if len(l.Steps) > 0 {
		next, found = l.Steps.Next(wait)
	}
	if l.BidirectionalUntil > wait && (!found || l.BidirectionalUntil < next) {
		next, found = l.BidirectionalUntil, true
	}
	return next, found
}

// Accepts reports whether a ticket that has waited wait accepts a region it
// reaches in ms milliseconds. With latency rules off, every region is
// accepted.
func (l Latency) Accepts(ms int, wait time.Duration) bool {
	if !l.Enabled {
		return true
	}
	return ms >= 0 && ms <= l.RangeAt(wait)
}

// RegionsAt lists, sorted, the regions a ticket with these latencies
// accepts after waiting wait. With latency rules off it lists every region.
func (l Latency) RegionsAt(latencies map[string]int32, wait time.Duration) []string {
	var out []string
	for region, ms := range latencies {
		if l.Accepts(int(ms), wait) {
			out = append(out, region)
		}
	}
	sort.Strings(out)
	return out
}

// CanEverMatch reports whether some region will be accepted given enough
// wait. A ticket for which it is false can be refused or expired at once
// instead of waiting for nothing. A ticket with no latencies at all can
// match only when latency rules are off.
func (l Latency) CanEverMatch(latencies map[string]int32) bool {
	if !l.Enabled {
		return true
	}
	for _, ms := range latencies {
		if ms >= 0 && int(ms) <= l.MaxMs {
			return true
		}
	}
	return false
}

// Bidirectional reports whether a pivot ticket that has waited wait still
// requires candidates to have expanded to the pivot's region too.
func (l Latency) Bidirectional(wait time.Duration) bool {
	return l.BidirectionalUntil == 0 || wait < l.BidirectionalUntil
}
