package matching

import (
	"math/rand/v2"
	"slices"
)

// prioritise turns the maximum matching in s.mate into one whose covered
// set is best by priority.
//
// Why it is exact: the vertex sets covered by matchings are the independent
// sets of the matching matroid, and its bases are exactly the covered sets
// of maximum matchings. For a matroid, the greedy rule — go through the
// elements from best to worst and keep each one that is still independent
// with those kept so far — yields a basis that is lexicographically best by
// weight.
//
// The pass runs that rule with the current maximum matching M as the
// witness. Classes of equal priority are taken from highest to lowest; the
// covered vertices of a class are kept at once (they are independent with
// everything kept before, since M covers them all). A free vertex v of the
// class can be kept too exactly when M has an even alternating path from v
// to a covered vertex x of strictly lower priority: flipping the path covers
// v, uncovers x and leaves every other vertex as it was. (If some maximum
// matching M' covers all kept vertices and v, the component of M Δ M' that
// starts at v is such a path: it cannot end at a vertex free in M, since M
// is maximum, so it ends at a vertex M covers and M' does not, which is not
// kept.) An uncovered x joins its own, lower, class and gets its turn
// later.
//
// The vertices that are even in the alternating tree grown from v are
// exactly those reachable from v by an even alternating path, so the search
// is the ordinary blossom search with a hook that stops at the first even
// vertex of lower priority.
func prioritise(s *search, prio []int, rng *rand.Rand) {
	n := len(s.mate)
	values := slices.Clone(prio)
	slices.Sort(values)
	values = slices.Compact(values)
	if len(values) < 2 {
		return // all equal: every maximum matching is equally good
	}
	// class[v] numbers priorities from the highest (0) down.
	class := make([]int32, n)
	top := len(values) - 1
	for v, p := range prio {
		i, _ := slices.BinarySearch(values, p)
		class[v] = int32(top - i)
	}
	covered := make([]int, len(values))
	freeIn := make([][]int32, len(values))
	for v := range n {
		if s.mate[v] == none {
			freeIn[class[v]] = append(freeIn[class[v]], int32(v))
		} else {
			covered[class[v]]++
		}
	}
	// lowest is the lowest-priority class with a covered vertex; flips only
	// ever uncover vertices there or above, so it only moves up.
	lowest := len(values) - 1
	for lowest >= 0 && covered[lowest] == 0 {
		lowest--
	}

	var current int32
	s.want = func(x int32) bool { return class[x] > current }
	defer func() { s.want = nil; s.reset() }()
	for c := range freeIn {
		if lowest <= c {
			return // nothing of lower priority left to uncover
		}
		bucket := freeIn[c]
		rng.Shuffle(len(bucket), func(i, j int) { bucket[i], bucket[j] = bucket[j], bucket[i] })
		current = int32(c)
		for _, v := range bucket {
			if lowest <= c {
				return
			}
			if s.mate[v] != none {
				continue
			}
			s.reset()
			s.makeEven(v, true)
			switch s.grow() {
			case wanted:
				x := s.hit
				y := s.mate[x]
				s.mate[x] = none
				s.flip(y)
				covered[c]++
				covered[class[x]]--
				freeIn[class[x]] = append(freeIn[class[x]], x)
				for lowest >= 0 && covered[lowest] == 0 {
					lowest--
				}
			case augmented:
				// Only possible if the matching was not maximum, which
				// Maximum rules out; keep the books right regardless.
				covered[c]++
				covered[class[s.hit]]++
			}
		}
	}
}
