package sim

import (
	"math"
	"slices"
)

// recorder collects what happened in one run: a value per matched player
// (waits) and per match (skill gap, team balance, ping, quality), counts
// per hour, the queue at regular moments. Values are float32: a day of a
// million players keeps a few megabytes.
type recorder struct {
	hours  int
	sample int64 // ns between queue samples
	nextAt int64 // the next queue sample

	waiting int   // players waiting now
	queue   []int // players waiting at each sample

	tickets, matches                      int
	arrived, returned, matchedP           int
	abandoned, expired, refusedP, leftEnd int

	hourArrived, hourMatched, hourAbandoned, hourExpired []int

	waits    []float32 // seconds, per matched player
	waitHour []uint16  // the hour each of waits ended in (until finish)
	// hourP50 and hourP90 are the waits of each hour (from finish).
	hourP50, hourP90 []float64

	gaps, balances, pings []float32
	qualities             []float32
	parts                 map[string][]float32
	refusals              map[string]int

	// est calibrates the server's wait estimates (estimates.go).
	est *estimator
	// sets, when not nil, holds every match as the set of its tickets
	// (matchSet), to count the matches a replay shares with reality.
	sets map[string]bool
}

// maxRefusalReasons bounds the distinct reasons a report lists; the rest
// are counted under "other reasons".
const maxRefusalReasons = 20

func newRecorder(end int64, sample int64) *recorder {
	hours := int(math.Ceil(float64(end) / 3600e9))
	return &recorder{
		hours: hours, sample: sample,
		hourArrived: make([]int, hours), hourMatched: make([]int, hours),
		hourAbandoned: make([]int, hours), hourExpired: make([]int, hours),
		parts: map[string][]float32{}, refusals: map[string]int{},
		est: newEstimator(),
	}
}

func (r *recorder) hour(ns int64) int { return min(int(ns/3600e9), r.hours-1) }

// sampleUntil records the queue at every sample moment up to at (the
// queue as it was before at's events).
func (r *recorder) sampleUntil(at int64) {
	for r.nextAt < at {
		r.queue = append(r.queue, r.waiting)
		r.nextAt += r.sample
	}
}

func (r *recorder) arrive(pt *party) {
	r.tickets++
	r.arrived += int(pt.size)
	if pt.visit > 0 {
		r.returned += int(pt.size)
	}
	r.hourArrived[r.hour(pt.arrived)] += int(pt.size)
}

func (r *recorder) admitted(pt *party) {
	r.waiting += int(pt.size)
	r.est.arrive(pt, pt.arrived)
}

func (r *recorder) refused(pt *party, err error) {
	r.refusedP += int(pt.size)
	reason := err.Error()
	if _, ok := r.refusals[reason]; !ok && len(r.refusals) >= maxRefusalReasons {
		reason = "other reasons"
	}
	r.refusals[reason] += int(pt.size)
}

func (r *recorder) leave(pt *party, now int64) {
	r.waiting -= int(pt.size)
	r.est.end(pt, now, false)
	h := r.hour(now)
	if pt.expires {
		r.expired += int(pt.size)
		r.hourExpired[h] += int(pt.size)
		return
	}
	r.abandoned += int(pt.size)
	r.hourAbandoned[h] += int(pt.size)
}

// finish closes the books: the waits of each hour are summarised, then
// every series is sorted in place once (the report reads only quantiles and
// counts from here on).
func (r *recorder) finish(int64) {
	r.leftEnd = r.waiting
	byHour := make([][]float32, r.hours)
	for i, w := range r.waits {
		byHour[r.waitHour[i]] = append(byHour[r.waitHour[i]], w)
	}
	r.waitHour = nil
	r.hourP50, r.hourP90 = make([]float64, r.hours), make([]float64, r.hours)
	for h, ws := range byHour {
		slices.Sort(ws)
		r.hourP50[h], r.hourP90[h] = quantile(ws, 0.5), quantile(ws, 0.9)
	}
	for _, v := range [][]float32{r.waits, r.gaps, r.balances, r.pings, r.qualities} {
		slices.Sort(v)
	}
	for _, v := range r.parts {
		slices.Sort(v)
	}
}

// match records one match at now.
func (r *recorder) match(f *formed, now int64) {
	r.matches++
	h := r.hour(now)
	lo, hi := math.Inf(1), math.Inf(-1)
	tlo, thi := math.Inf(1), math.Inf(-1)
	skill := true
	players := 0
	for _, team := range f.teams {
		sum, n := 0.0, 0
		for _, pt := range team {
			r.waiting -= int(pt.size)
			r.est.end(pt, now, true)
			w := float32(float64(now-pt.arrived) / 1e9)
			for range pt.size {
				r.waits = append(r.waits, w)
				r.waitHour = append(r.waitHour, uint16(h))
			}
			players += int(pt.size)
			skill = skill && pt.hasSkill
			lo, hi = min(lo, pt.skillMin), max(hi, pt.skillMax)
			sum += pt.skillSum
			n += int(pt.size)
		}
		if n > 0 {
			tlo, thi = min(tlo, sum/float64(n)), max(thi, sum/float64(n))
		}
	}
	r.matchedP += players
	r.hourMatched[h] += players
	if skill {
		r.gaps = append(r.gaps, float32(hi-lo))
		if len(f.teams) > 1 {
			r.balances = append(r.balances, float32(thi-tlo))
		}
	}
	if ping, ok := hostPing(f); ok {
		r.pings = append(r.pings, float32(ping))
	}
	if r.sets != nil {
		r.sets[matchSet(f.teams)] = true
	}
	if f.quality != nil {
		r.qualities = append(r.qualities, float32(f.quality.Score))
		for _, p := range f.quality.Parts {
			r.parts[p.Name] = append(r.parts[p.Name], float32(p.Score))
		}
	}
}

// hostPing is the match's mean player latency (ms) to its hosting region:
// the one the engine chose, or else the region every party has a latency
// for with the lowest worst latency (ties by name). False when the
// parties share no region.
func hostPing(f *formed) (float64, bool) {
	region := f.region
	if region == "" {
		first := f.teams[0][0].t.Latencies
		if len(first) == 0 {
			return 0, false
		}
		// The first party's regions in name order, without allocating for
		// the usual handful.
		var buf [8]string
		names := buf[:0]
		for name := range first {
			names = append(names, name)
		}
		slices.Sort(names)
		best := int32(math.MaxInt32)
		for _, name := range names {
			worst, ok := int32(0), true
			for _, team := range f.teams {
				for _, pt := range team {
					ms, has := pt.t.Latencies[name]
					ok = ok && has
					worst = max(worst, ms)
				}
			}
			if ok && worst < best {
				region, best = name, worst
			}
		}
		if region == "" {
			return 0, false
		}
	}
	sum, n := 0.0, 0
	for _, team := range f.teams {
		for _, pt := range team {
			ms, ok := pt.t.Latencies[region]
			if !ok {
				return 0, false
			}
			sum += float64(ms) * float64(pt.size)
			n += int(pt.size)
		}
	}
	return sum / float64(n), n > 0
}
