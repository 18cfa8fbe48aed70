package rollout

import (
	"cmp"
	"slices"
	"time"
)

// Saved is a ring's samples over a window as a canary's document keeps
// them, so that its guards' window survives a restart and a move of its
// queue to another node. Times are milliseconds after Base, values are
// rounded to milliseconds (waits) and thousandths (qualities): a full ring
// saves to about 100 KB of JSON.
type Saved struct {
	Base    time.Time `json:"base"`
	WaitAt  []int64   `json:"wait_at_ms,omitempty"`
	Waits   []float64 `json:"waits,omitempty"`
	QualAt  []int64   `json:"quality_at_ms,omitempty"`
	Quals   []float64 `json:"qualities,omitempty"`
	Records uint64    `json:"-"`
}

// Records counts the samples a ring was ever given: a ring whose count has
// not moved since it was saved needs no saving.
func (r *Ring) Records() uint64 { return r.records }

// Save returns the samples recorded after from, oldest first, with from as
// the base of their times.
func (r *Ring) Save(from time.Time) Saved {
	s := Saved{Base: from.UTC(), Records: r.records}
	cut := from.UnixNano()
	for _, x := range inOrder(r.waits[:], r.waitNext) {
		if x.at != 0 && x.at > cut {
			s.WaitAt = append(s.WaitAt, (x.at-cut)/int64(time.Millisecond))
			s.Waits = append(s.Waits, round(x.v, 1000))
		}
	}
	for _, x := range inOrder(r.quals[:], r.qualNext) {
		if x.at != 0 && x.at > cut {
			s.QualAt = append(s.QualAt, (x.at-cut)/int64(time.Millisecond))
			s.Quals = append(s.Quals, round(x.v, 1000))
		}
	}
	return s
}

// Restore adds saved samples to the ring: those older than every sample it
// holds (the ring's own are the newer truth), in time order, the newest
// Kept of each kind kept. Samples that do not line up (a damaged
// document) are ignored.
func (r *Ring) Restore(s Saved) {
	base := s.Base.UnixNano()
	restore := func(ring *[Kept]sample, next *int, at []int64, vs []float64) {
		if len(at) != len(vs) {
			return
		}
		own := inOrder(ring[:], *next)
		oldest := int64(0)
		for _, x := range own {
			if x.at != 0 && (oldest == 0 || x.at < oldest) {
				oldest = x.at
			}
		}
		var all []sample
		for i := range at {
			t := base + at[i]*int64(time.Millisecond)
			if at[i] >= 0 && t != 0 && (oldest == 0 || t < oldest) && finite(vs[i]) {
				all = append(all, sample{at: t, v: vs[i]})
			}
		}
		for _, x := range own {
			if x.at != 0 {
				all = append(all, x)
			}
		}
		slices.SortStableFunc(all, func(a, b sample) int { return cmp.Compare(a.at, b.at) })
		all = all[max(len(all)-Kept, 0):]
		*ring = [Kept]sample{}
		copy(ring[:], all)
		*next = len(all) % Kept
	}
	restore(&r.waits, &r.waitNext, s.WaitAt, s.Waits)
	restore(&r.quals, &r.qualNext, s.QualAt, s.Quals)
}

// inOrder is a ring's slots from the oldest written to the newest.
func inOrder(slots []sample, next int) []sample {
	return append(slices.Clone(slots[next:]), slots[:next]...)
}

func round(v, per float64) float64 {
	if !finite(v) {
		return 0
	}
	return float64(int64(v*per+0.5*sign(v))) / per
}

func sign(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}
