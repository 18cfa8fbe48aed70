package engine

import (
	"cmp"
	"math"
	"slices"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
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
// code, except for an anchor whose ticket query ranks (ruleset ticket_query
// with optional clauses, query.go): that anchor alone gathers its whole
// neighbourhood — or, without sort rules, until the candidates of its
// query's best possible score hold what it wants (gather) — and orders it by
// its query's score, and its match is not settled; the other anchors keep
// the usual path and cost.

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
// aggregate of the attribute (at key, for a rule with a map key), or its
// distance from the anchor's; descending rules negate it so that every key
// sorts ascending. A value that is not a number sorts last.
func (p *Pool) sortKey(s int32, k int, key string, anchor float64) float64 {
	sr := &p.r.c.Sorts[k]
	v := p.sortValue(s, sr, key)
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

// sortValue is ticket s's value for rule sr: the party's aggregate of the
// attribute, or for a rule with a map key of the map's value at key; NaN
// when a map rule finds no such key (or the anchor had no map).
func (p *Pool) sortValue(s int32, sr *ruleset.Sort, key string) float64 {
	sc := &p.sc.sorted
	if sr.MapKey == "" {
		sc.vals = p.ticketValues(sc.vals[:0], s, sr.Attribute, sr.PartyAggregate)
		return sc.vals[0]
	}
	if key == "" {
		return math.NaN()
	}
	h := p.entries[s].h
	sc.vals = sc.vals[:0]
	for i := range h.players {
		if v, ok := lookup(h.attributes, &h.players[i], sr.Attribute); ok && v.Kind == cupid.KindNumbers {
			if n, ok := v.Map[key]; ok {
				sc.vals = append(sc.vals, n)
			}
		}
	}
	if len(sc.vals) == 0 {
		return math.NaN()
	}
	return aggregate(sc.vals, sr.PartyAggregate)
}

// anchorKey is the key of the anchor's map attribute that a map rule reads:
// the one its players value most (MapKeyMax) or least, ties to the first
// key by name; "" when the anchor holds no map there.
func (p *Pool) anchorKey(a int32, sr *ruleset.Sort) string {
	h := p.entries[a].h
	best, bestV := "", 0.0
	for i := range h.players {
		v, ok := lookup(h.attributes, &h.players[i], sr.Attribute)
		if !ok || v.Kind != cupid.KindNumbers {
			continue
		}
		for k, n := range v.Map {
			better := best == "" || (sr.MapKey == ruleset.MapKeyMax && n > bestV) || (sr.MapKey == ruleset.MapKeyMin && n < bestV) ||
				(n == bestV && k < best)
			if better {
				best, bestV = k, n
			}
		}
	}
	return best
}

// sortCands orders the gathered candidates of anchor a: by its query's
// score, highest first, when rank is the anchor's ranking query; then by the
// sort rules, the first rule first and each next one breaking the ties of
// those before; candidates still tied keep their order, oldest first.
//
// The query's score orders before the sort rules because it is the one the
// ticket's own client asked for, and because a score is a sum of a few
// boosts where sort keys are measures (a skill, a distance) that seldom tie:
// the other way round, the query would almost never change the order.
func (p *Pool) sortCands(a int32, cands []cand, rank *ruleset.Query) {
	sorts := p.r.c.Sorts
	off := 0
	if rank != nil {
		off = 1
	}
	m, n := len(sorts)+off, len(cands)
	if n < 2 {
		return
	}
	sc := &p.sc.sorted
	anchors := make([]float64, len(sorts))
	keys := make([]string, len(sorts))
	for k := range sorts {
		sr := &sorts[k]
		if sr.MapKey != "" {
			keys[k] = p.anchorKey(a, sr)
		}
		if sr.Distance {
			anchors[k] = p.sortValue(a, sr, keys[k])
		}
	}
	sc.keys = sized(sc.keys, n*m)
	sc.perm = sc.perm[:0]
	for i, c := range cands {
		if rank != nil {
			h := p.entries[c.slot].h
			sc.keys[i*m] = -rank.Score(h.attributes, h.players)
		}
		for k := range sorts {
			sc.keys[i*m+off+k] = p.sortKey(c.slot, k, keys[k], anchors[k])
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
