package matching

import (
	"fmt"
	"math/rand/v2"
)

// Unmatched is the partner recorded for a vertex that no edge covers.
const Unmatched = -1

// Matching records each vertex's partner: m[v] is the vertex matched to v,
// or Unmatched. A valid matching is symmetric (m[m[v]] == v) and pairs only
// adjacent vertices; Verify checks both.
type Matching []int

// Size returns the number of matched pairs.
func (m Matching) Size() int {
	n := 0
	for v, w := range m {
		if w != Unmatched && v < w {
			n++
		}
	}
	return n
}

// Pairs lists the matched pairs with U < V, in increasing order of U, the
// order callers want for stable output.
func (m Matching) Pairs() []Edge {
	pairs := make([]Edge, 0, m.Size())
	for v, w := range m {
		if w != Unmatched && v < w {
			pairs = append(pairs, Edge{U: v, V: w})
		}
	}
	return pairs
}

// Options tunes Maximum. The zero value asks for a maximum matching with a
// fixed, deterministic tie-breaking.
type Options struct {
	// Start lists pairs to begin with, before the greedy pass: a pair is
	// taken when it is an edge and both ends are still free. Augmenting
	// paths may later re-route some of them, but most survive, so a caller
	// with a plan (such as a round-robin schedule) gets a maximum matching
	// close to it.
	Start []Edge
	// Priority, when not nil, holds one number per vertex. Among all
	// maximum matchings the result covers the best set of vertices by
	// priority: it maximises the number of covered vertices of the highest
	// priority, then of the next, and so on. Nil means all vertices are
	// equal.
	Priority []int
	// Rand breaks ties (greedy order, choice among equal partners, search
	// order). Nil uses a fixed seed, so results are still reproducible.
	Rand *rand.Rand
}

// Maximum returns a maximum cardinality matching of g.
//
// It starts from opt.Start, completes it greedily (lowest degree first, each
// vertex taking its lowest-degree free neighbour), then searches an
// augmenting path from each vertex left free. After a search fails, its
// whole alternating tree is dropped from later searches: no augmenting path
// can use those vertices any more (Edmonds' Hungarian-tree argument), which
// keeps failing searches on sparse graphs cheap. With opt.Priority set, a
// final pass exchanges covered vertices for higher-priority uncovered ones
// along even alternating paths (see priority.go).
//
// Maximum panics if opt.Priority is set with a length other than
// g.Order().
func Maximum(g Graph, opt Options) Matching {
	n := g.Order()
	if opt.Priority != nil && len(opt.Priority) != n {
		panic(fmt.Sprintf("matching: len(Priority) = %d, want %d", len(opt.Priority), n))
	}
	rng := opt.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(0x6d61746368, 0x696e67))
	}
	s := newSearch(g)
	for _, e := range opt.Start {
		u, v := e.U, e.V
		if u < 0 || u >= n || v < 0 || v >= n || u == v {
			continue
		}
		if s.mate[u] == none && s.mate[v] == none && g.Adjacent(u, v) {
			s.mate[u], s.mate[v] = int32(v), int32(u)
		}
	}
	greedy(g, s.mate, rng)

	// Search from every free vertex once, in random order. A root that
	// fails stays free for good: augmenting elsewhere never creates a path
	// from it.
	roots := make([]int32, 0)
	for v := range n {
		if s.mate[v] == none {
			roots = append(roots, int32(v))
		}
	}
	rng.Shuffle(len(roots), func(i, j int) { roots[i], roots[j] = roots[j], roots[i] })
	free := len(roots)
	for _, r := range roots {
		if free < 2 {
			break // an augmenting path needs two free ends
		}
		if s.mate[r] != none || s.dead[r] {
			continue
		}
		if s.augmentFrom(r) {
			free -= 2
			continue
		}
		for _, v := range s.touched {
			s.dead[v] = true
		}
	}
	s.reset()
	clear(s.dead)

	if opt.Priority != nil {
		prioritise(s, opt.Priority, rng)
	}
	m := make(Matching, n)
	for v, w := range s.mate {
		m[v] = int(w)
	}
	return m
}
