package engine

import (
	"cmp"
	"math"
	"slices"
)

// Sort rules (ruleset sort_rule, FlexMatch's absoluteSort and distanceSort)
// change the order in which an anchor's search takes its candidates: by an
// attribute's value, or by its distance from the anchor's value, instead of
// oldest first. The search itself is unchanged — it still takes, at every
// turn, the first candidate in its order that fits — so a sorted ruleset
// fills its match from the front of the sorted order.
//
// An order is only worth something over the whole neighbourhood, so an
// anchor under a sort rule gathers every candidate it may look at (its
// window, its class, at most ScanLimit waiting tickets) in one walk rather
// than stopping at Options.Candidates times the players it needs. Settling,
// which hands younger members' places to older tickets, would undo the
// order and does not run. A ruleset without sort rules never reaches this
// code.

// sortScratch holds the buffers of sortCands, reused across anchors.
type sortScratch struct {
	keys []float64 // len(sorts) keys per candidate
	perm []int32
	out  []cand
	vals []float64
}

// sorted reports whether the ruleset orders candidates by sort rules.
func (r *rules) sorted() bool { return len(r.c.Sorts) > 0 }

// sortKey is the value a sort rule orders ticket s by: the party's
// aggregate of the attribute, or its distance from the anchor's; descending
// rules negate it so that every key sorts ascending. A value that is not a
// number sorts last.
func (p *Pool) sortKey(s int32, k int, anchor float64) float64 {
	sr := &p.r.c.Sorts[k]
	sc := &p.sc.sorted
	sc.vals = p.ticketValues(sc.vals[:0], s, sr.Attribute, sr.PartyAggregate)
	v := sc.vals[0]
	if sr.Distance {
		v = math.Abs(v - anchor)
	}
	if math.IsNaN(v) {
		return math.Inf(1)
	}
	if sr.Descending {
		v = -v
	}
	return v
}

// sortCands orders the gathered candidates of anchor a by the sort rules,
// the first rule first and each next one breaking the ties of those before;
// candidates still tied keep their order, oldest first.
func (p *Pool) sortCands(a int32, cands []cand) {
	sorts := p.r.c.Sorts
	m, n := len(sorts), len(cands)
	if n < 2 {
		return
	}
	sc := &p.sc.sorted
	anchors := make([]float64, m)
	for k, sr := range sorts {
		if sr.Distance {
			sc.vals = p.ticketValues(sc.vals[:0], a, sr.Attribute, sr.PartyAggregate)
			anchors[k] = sc.vals[0]
		}
	}
	sc.keys = sized(sc.keys, n*m)
	sc.perm = sc.perm[:0]
	for i, c := range cands {
		for k := range sorts {
			sc.keys[i*m+k] = p.sortKey(c.slot, k, anchors[k])
		}
		sc.perm = append(sc.perm, int32(i))
	}
	slices.SortStableFunc(sc.perm, func(x, y int32) int {
		kx, ky := sc.keys[int(x)*m:int(x)*m+m], sc.keys[int(y)*m:int(y)*m+m]
		for k := range kx {
			if c := cmp.Compare(kx[k], ky[k]); c != 0 {
				return c
			}
		}
		return 0
	})
	sc.out = append(sc.out[:0], cands...)
	for i, j := range sc.perm {
		cands[i] = sc.out[j]
	}
}
