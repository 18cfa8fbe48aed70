package engine

import (
	"math"
	"sort"
	"time"
)

// NextWake returns when the pool next has something to do without a new
// ticket: the earliest moment a waiting ticket reaches a relaxation step
// (a flexing step, a latency expansion, a filter switching off), since only
// then can a match form that cannot form now. It returns now when tickets
// added or returned since the last Step are still to be tried, and false when
// nothing will ever change by waiting alone — no relaxation left, or too few
// players in the pool for even the most relaxed match. The server sleeps until
// then or until a ticket arrives; there is no polling interval.
func (p *Pool) NextWake(now time.Time) (time.Time, bool) {
	// With a session open to backfill, even one player can be placed.
	if p.live == 0 || (p.players < p.r.minPlayers && len(p.bf.open) == 0) {
		return time.Time{}, false
	}
	if p.allDirty || len(p.dirty) > 0 || p.bf.dirty > 0 {
		return now, true
	}
	p.sortOrder()
	n := now.UnixNano()
	best := int64(math.MaxInt64)
	for _, st := range p.r.steps {
		// The first waiting ticket created after now−st reaches st next.
		i := sort.Search(len(p.order), func(i int) bool { return p.entries[p.order[i]].created > n-int64(st) })
		for ; i < len(p.order); i++ {
			e := &p.entries[p.order[i]]
			if e.alive {
				best = min(best, e.created+int64(st))
				break
			}
		}
	}
	if best == math.MaxInt64 {
		return time.Time{}, false
	}
	return time.Unix(0, best).In(now.Location()), true
}
