package rollout

import (
	"math"
	"slices"
	"time"
)

// Series keeps the last Kept values of one measure (a match's skill gap, its
// ping) with the moment each was taken. The zero Series is empty and
// ready; its owner locks.
type Series struct {
	vals [Kept]sample
	next int
}

// Add records v at now.
func (s *Series) Add(now time.Time, v float64) {
	s.vals[s.next] = sample{at: now.UnixNano(), v: v}
	s.next = (s.next + 1) % Kept
}

// Summary describes the values of a Series over a window.
type Summary struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
}

// Summary summarises the values recorded after from.
func (s *Series) Summary(from time.Time) Summary {
	cut := from.UnixNano()
	var vs []float64
	sum := 0.0
	for _, x := range s.vals {
		if x.at != 0 && x.at > cut {
			vs = append(vs, x.v)
			sum += x.v
		}
	}
	if len(vs) == 0 {
		return Summary{}
	}
	slices.Sort(vs)
	return Summary{Count: len(vs), Mean: sum / float64(len(vs)),
		P50: Percentile(vs, 0.5), P90: Percentile(vs, 0.9), P99: Percentile(vs, 0.99)}
}

// SkillGap is a match's strongest player's skill minus its weakest's, as
// the simulator measures it; false when a player has no skill.
func SkillGap(skills []float64, ok bool) (float64, bool) {
	if !ok || len(skills) == 0 {
		return 0, false
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range skills {
		lo, hi = min(lo, v), max(hi, v)
	}
	return hi - lo, true
}
