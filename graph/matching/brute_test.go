package matching

import (
	"math/rand/v2"
	"slices"
)

// This file holds the slow, obviously correct reference the tests compare
// against: exhaustive enumeration of every matching of a small graph.

// adjMatrix is a small graph as a boolean matrix, the form the brute force
// wants.
type adjMatrix [][]bool

func matrixOf(g Graph) adjMatrix {
	n := g.Order()
	a := make(adjMatrix, n)
	for u := range n {
		a[u] = make([]bool, n)
		for v := range n {
			a[u][v] = g.Adjacent(u, v)
		}
	}
	return a
}

// classCounts counts the covered vertices of each priority, from the
// highest priority down: the vector that a priority-optimal covered set
// maximises lexicographically.
func classCounts(covered []bool, prio []int) []int {
	values := slices.Clone(prio)
	slices.Sort(values)
	values = slices.Compact(values)
	counts := make([]int, len(values))
	for v, c := range covered {
		if c {
			i, _ := slices.BinarySearch(values, prio[v])
			counts[len(values)-1-i]++
		}
	}
	return counts
}

// bruteBest enumerates all matchings and returns the maximum size and the
// best class-count vector among maximum matchings (nil prio: all equal).
func bruteBest(a adjMatrix, prio []int) (size int, best []int) {
	n := len(a)
	if prio == nil {
		prio = make([]int, n)
	}
	values := slices.Clone(prio)
	slices.Sort(values)
	values = slices.Compact(values)
	class := make([]int, n)
	for v, p := range prio {
		i, _ := slices.BinarySearch(values, p)
		class[v] = len(values) - 1 - i
	}
	used := make([]bool, n)
	counts := make([]int, len(values))
	bestSize := -1
	var walk func(v, pairs, left int)
	walk = func(v, pairs, left int) {
		if pairs+left/2 < bestSize {
			return // cannot reach a maximum matching from here
		}
		for v < n && used[v] {
			v++
		}
		if v == n {
			if pairs > bestSize || slices.Compare(counts, best) > 0 {
				bestSize, best = pairs, slices.Clone(counts)
			}
			return
		}
		used[v] = true
		for w := v + 1; w < n; w++ {
			if !used[w] && a[v][w] {
				used[w] = true
				counts[class[v]]++
				counts[class[w]]++
				walk(v+1, pairs+1, left-2)
				counts[class[v]]--
				counts[class[w]]--
				used[w] = false
			}
		}
		walk(v+1, pairs, left-1) // v left free
		used[v] = false
	}
	walk(0, 0, n)
	return bestSize, best
}

// graphFromMask builds the graph on n vertices whose edges are the set bits
// of mask, pairs taken in the order (0,1), (0,2), …, (n-2,n-1).
func graphFromMask(n int, mask uint64) *Sparse {
	var edges []Edge
	bit := 0
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if mask&(1<<bit) != 0 {
				edges = append(edges, Edge{u, v})
			}
			bit++
		}
	}
	return NewSparse(n, edges)
}

// randomEdges draws each pair with probability p.
func randomEdges(rng *rand.Rand, n int, p float64) []Edge {
	var edges []Edge
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < p {
				edges = append(edges, Edge{u, v})
			}
		}
	}
	return edges
}

// randomMaximal returns a maximal matching built in random order: a poor
// starting point that forces the blossom search to do real work.
func randomMaximal(rng *rand.Rand, g Graph) []Edge {
	n := g.Order()
	taken := make([]bool, n)
	var pairs []Edge
	for _, u := range rng.Perm(n) {
		if taken[u] {
			continue
		}
		var cands []int
		for v := range g.Neighbors(u) {
			if !taken[v] {
				cands = append(cands, v)
			}
		}
		if len(cands) == 0 {
			continue
		}
		v := cands[rng.IntN(len(cands))]
		taken[u], taken[v] = true, true
		pairs = append(pairs, Edge{u, v})
	}
	return pairs
}

func coveredOf(m Matching) []bool {
	c := make([]bool, len(m))
	for v, w := range m {
		c[v] = w != Unmatched
	}
	return c
}
