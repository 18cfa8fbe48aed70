package matching

import (
	"math/rand/v2"
	"slices"
)

// Trios.
//
// An event with an odd number of people leaves someone out of every
// maximum matching. Seating that person with a pair, as a trio whose three
// members are pairwise adjacent, seats one more person without giving up a
// pair. Which trios are possible? A triangle T = {x, a, b} can be added to
// a matching of the rest without losing a pair exactly when
// ν(G − T) = ν(G) − 1, that is, when some maximum matching leaves x free
// and matches a with b. (It cannot do better: T holds an edge, so
// ν(G − T) ≤ ν(G) − 1.)
//
// Trio looks for such a triangle in three steps of growing cost:
//
//  1. In the matching given: a free vertex x with a matched pair a–b both
//     adjacent to it. In a dense lobby this almost always succeeds at once.
//  2. For each vertex y that some maximum matching leaves free (the even
//     vertices of the alternating trees grown from the free vertices, by
//     the Gallai–Edmonds theorem), the matching with y freed by flipping
//     the even path to it, checked as in step 1.
//  3. For the same y, every edge a–b of y's neighbourhood: with a and b
//     taken out (and y), the matching minus their pairs has ν − 2 pairs;
//     one augmenting path, which can only start at the former partners of
//     a or b, makes it ν − 1, and then a–b completes a maximum matching
//     that leaves y free.
//
// Step 3 decides the question exactly, so with enough budget Trio finds a
// trio whenever one exists (the tests compare it with exhaustive search).
// The budget bounds the work of steps 2 and 3 in large lobbies, where
// step 1 nearly always succeeds; on a graph with more edges than the
// budget they are skipped.

// TrioOptions tunes Trio.
type TrioOptions struct {
	// Priority, when not nil, orders the free vertices tried for the
	// trio's third seat: highest first.
	Priority []int
	// Rand breaks ties among equal priorities; nil uses a fixed seed.
	Rand *rand.Rand
	// QuickOnly limits the search to step 1, for a matching that is not
	// maximum (when rooms are short, only some pairs are seated).
	QuickOnly bool
	// Budget bounds steps 2 and 3 in neighbours looked at; zero means
	// DefaultTrioBudget.
	Budget int
}

// DefaultTrioBudget lets steps 2 and 3 run to the end on lobbies of a few
// hundred people, and stops them within milliseconds on large ones (where
// step 1 nearly always succeeds).
const DefaultTrioBudget = 4_000_000

// TrioResult is a trio found by Trio.
type TrioResult struct {
	// Matching is a maximum matching (when the input was) that matches A
	// with B and leaves X free.
	Matching Matching
	// X joins the pair A–B; all three are pairwise adjacent.
	X, A, B int
}

// Trio looks for a third person to seat with one pair of the matching m of
// g (see the comment above). It returns false when there is none, or when
// the budget ran out first. m is not changed.
func Trio(g Graph, m Matching, opt TrioOptions) (TrioResult, bool) {
	n := g.Order()
	rng := opt.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(0x7472696f, 0x73))
	}
	var free []int
	for v, w := range m {
		if w == Unmatched {
			free = append(free, v)
		}
	}
	rng.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	if opt.Priority != nil {
		slices.SortStableFunc(free, func(a, b int) int { return opt.Priority[b] - opt.Priority[a] })
	}
	mate := make([]int32, n)
	for v, w := range m {
		mate[v] = int32(w)
	}
	// Step 1.
	for _, x := range free {
		if a, b, ok := quickTrio(g, mate, x); ok {
			return trioResult(mate, x, a, b), true
		}
	}
	if opt.QuickOnly || len(free) == 0 {
		return TrioResult{}, false
	}
	budget := opt.Budget
	if budget <= 0 {
		budget = DefaultTrioBudget
	}
	// One alternating tree can cover the whole graph; on a graph with more
	// edges than the budget even the first would overrun it.
	edges := 0
	for v := range n {
		edges += g.Degree(v)
	}
	if edges/2 > budget {
		return TrioResult{}, false
	}
	s := newSearch(g)
	copy(s.mate, mate)
	saved := make([]int32, n)
	tried := make([]bool, n)
	for _, u := range free {
		// The even vertices of u's tree; u first.
		s.reset()
		s.makeEven(int32(u), true)
		s.work = 0
		s.grow() // m is maximum, so this only labels
		budget -= s.work + len(s.touched)
		evens := []int32{int32(u)}
		for _, y := range s.touched {
			if s.label[y] == even && y != int32(u) && !tried[y] {
				evens = append(evens, y)
			}
		}
		for _, y := range evens {
			if budget <= 0 {
				return TrioResult{}, false
			}
			tried[y] = true
			// Free y by flipping the even path from u (u itself is free).
			copy(saved, s.mate)
			if y != int32(u) {
				z := s.mate[y]
				s.mate[y] = none
				s.flip(z)
			}
			budget -= g.Degree(int(y))
			if a, b, ok := quickTrio(g, s.mate, int(y)); ok {
				r := trioResult(s.mate, int(y), a, b)
				return r, true
			}
			cand := slices.Clone(s.mate)
			copy(s.mate, saved)
			if r, ok := exactTrio(g, cand, int(y), &budget); ok {
				return r, true
			}
		}
	}
	return TrioResult{}, false
}

// quickTrio looks for a matched pair a–b with both ends adjacent to the
// free vertex x.
func quickTrio(g Graph, mate []int32, x int) (a, b int, ok bool) {
	for a := range g.Neighbors(x) {
		if b := mate[a]; b != none && g.Adjacent(x, int(b)) {
			return a, int(b), true
		}
	}
	return 0, 0, false
}

func trioResult(mate []int32, x, a, b int) TrioResult {
	m := make(Matching, len(mate))
	for v, w := range mate {
		m[v] = int(w)
	}
	return TrioResult{Matching: m, X: x, A: a, B: b}
}

// exactTrio is step 3 for the free vertex y of the maximum matching mate:
// it tries every edge a–b of y's neighbourhood.
func exactTrio(g Graph, mate []int32, y int, budget *int) (TrioResult, bool) {
	nb := slices.Collect(g.Neighbors(y))
	*budget -= len(nb)
	for i, a := range nb {
		for _, b := range nb[i+1:] {
			if *budget <= 0 {
				return TrioResult{}, false
			}
			if !g.Adjacent(a, b) {
				continue
			}
			if mate[a] == int32(b) {
				return trioResult(mate, y, a, b), true
			}
			m, ok, work := withPair(g, mate, y, a, b)
			*budget -= g.Order() + work
			if ok {
				return trioResult(m, y, a, b), true
			}
		}
	}
	return TrioResult{}, false
}

// withPair returns a maximum matching of g (mate being one) that leaves y
// free and matches a with b, if there is one: mate without a's and b's
// pairs, one augmenting path in g − {y, a, b}, and a–b.
func withPair(g Graph, mate []int32, y, a, b int) ([]int32, bool, int) {
	s := newSearch(g)
	copy(s.mate, mate)
	var roots []int32
	for _, v := range []int{a, b} {
		if w := s.mate[v]; w != none {
			s.mate[w] = none
			s.mate[v] = none
			roots = append(roots, w)
		}
	}
	s.dead[y], s.dead[a], s.dead[b] = true, true, true
	found := len(roots) < 2 // a or b was free: mate was not maximum without them
	for _, r := range roots {
		if found {
			break
		}
		if s.mate[r] != none {
			continue
		}
		if s.augmentFrom(r) {
			found = true
		}
	}
	s.reset()
	if !found {
		return nil, false, s.work
	}
	s.mate[a], s.mate[b] = int32(b), int32(a)
	return s.mate, true, s.work
}
