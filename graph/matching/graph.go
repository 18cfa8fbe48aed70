package matching

import (
	"fmt"
	"iter"
	"slices"
)

// Graph is the read-only view of an undirected simple graph that the
// algorithms need. Vertices are 0..Order()-1. Implementations must be
// consistent: Adjacent(u, v) == Adjacent(v, u), no vertex is its own
// neighbour, Degree(u) is the number of values Neighbors(u) yields, and
// Neighbors yields each neighbour once. It is an interface so that dense
// graphs can be described implicitly instead of by millions of edges.
type Graph interface {
	// Order returns the number of vertices.
	Order() int
	// Degree returns the number of neighbours of u; the greedy pass uses it
	// to match the most constrained vertices first.
	Degree(u int) int
	// Adjacent reports whether u and v are joined by an edge; the greedy
	// pass uses it to find a partner in a dense graph without listing all
	// neighbours.
	Adjacent(u, v int) bool
	// Neighbors yields the neighbours of u; the blossom search uses it.
	Neighbors(u int) iter.Seq[int]
}

// Edge is an unordered pair of vertices.
type Edge struct {
	U, V int
}

// csr holds per-vertex sorted, duplicate-free lists of vertices in
// compressed sparse row form: the list of u is list[start[u]:start[u+1]].
// Both Sparse (neighbours) and Complement (missing pairs) are built on it.
type csr struct {
	start []int32
	list  []int32
}

// newCSR builds the symmetric lists of n vertices from edges. Self-loops are
// dropped and duplicates merged; a vertex outside 0..n-1 panics, because it
// is a programming error in the caller, as an index out of range is.
//
// The lists come out sorted without a comparison sort: the directed pairs
// are first bucketed by target, then, walking targets in order, bucketed
// by source (a two-pass radix sort), so each source's list receives its
// targets in increasing order. That is O(n + edges).
func newCSR(what string, n int, edges []Edge) csr {
	if n < 0 || int64(n) > 1<<31-1 {
		panic(fmt.Sprintf("matching: %s: order %d out of range", what, n))
	}
	count := make([]int32, n+1)
	for _, e := range edges {
		if e.U < 0 || e.U >= n || e.V < 0 || e.V >= n {
			panic(fmt.Sprintf("matching: %s: edge {%d %d} outside 0..%d", what, e.U, e.V, n-1))
		}
		if e.U == e.V {
			continue
		}
		count[e.U+1]++
		count[e.V+1]++
	}
	for i := 1; i <= n; i++ {
		count[i] += count[i-1]
	}
	m := count[n]
	// Pass 1: sources grouped by target. Every vertex has as many pairs
	// as target as it has as source, so count serves both passes.
	byTarget := make([]int32, m)
	fill := slices.Clone(count[:n])
	for _, e := range edges {
		if e.U == e.V {
			continue
		}
		byTarget[fill[e.V]] = int32(e.U)
		fill[e.V]++
		byTarget[fill[e.U]] = int32(e.V)
		fill[e.U]++
	}
	// Pass 2: walk targets in order, appending each to its source's list.
	list := make([]int32, m)
	copy(fill, count[:n])
	for t := range n {
		for _, s := range byTarget[count[t]:count[t+1]] {
			list[fill[s]] = int32(t)
			fill[s]++
		}
	}
	// Squeeze out duplicates in place, moving the starts.
	start := make([]int32, n+1)
	w := int32(0)
	for u := range n {
		start[u] = w
		seg := list[count[u]:count[u+1]]
		for i, v := range seg {
			if i > 0 && seg[i-1] == v {
				continue
			}
			list[w] = v
			w++
		}
	}
	start[n] = w
	return csr{start: start, list: list[:w:w]}
}

func (c *csr) of(u int) []int32 { return c.list[c.start[u]:c.start[u+1]] }

func (c *csr) has(u, v int) bool {
	_, ok := slices.BinarySearch(c.of(u), int32(v))
	return ok
}

// Sparse is a graph given by its edges, stored as sorted adjacency lists. It
// suits graphs with few edges per vertex.
type Sparse struct {
	adj csr
}

// NewSparse returns the graph on n vertices with the given edges. Self-loops
// are ignored and repeated edges count once. It panics if an edge names a
// vertex outside 0..n-1.
func NewSparse(n int, edges []Edge) *Sparse {
	return &Sparse{adj: newCSR("NewSparse", n, edges)}
}

// Order returns the number of vertices.
func (g *Sparse) Order() int { return len(g.adj.start) - 1 }

// Degree returns the number of neighbours of u.
func (g *Sparse) Degree(u int) int { return len(g.adj.of(u)) }

// Adjacent reports whether u and v are joined, by binary search.
func (g *Sparse) Adjacent(u, v int) bool { return g.adj.has(u, v) }

// Neighbors yields the neighbours of u in increasing order.
func (g *Sparse) Neighbors(u int) iter.Seq[int] {
	list := g.adj.of(u)
	return func(yield func(int) bool) {
		for _, v := range list {
			if !yield(int(v)) {
				return
			}
		}
	}
}

// Complement is the graph on n vertices in which every two distinct
// vertices are joined except the listed missing pairs. It describes a dense
// graph — such as "everyone in the lobby except those who have met" — in
// memory proportional to the missing pairs.
type Complement struct {
	n       int
	missing csr
}

// NewComplement returns the complete graph on n vertices minus the missing
// pairs. Self-loops are ignored and repeated pairs count once. It panics if
// a pair names a vertex outside 0..n-1.
func NewComplement(n int, missing []Edge) *Complement {
	return &Complement{n: n, missing: newCSR("NewComplement", n, missing)}
}

// Order returns the number of vertices.
func (g *Complement) Order() int { return g.n }

// Degree returns the number of neighbours of u.
func (g *Complement) Degree(u int) int { return g.n - 1 - len(g.missing.of(u)) }

// Adjacent reports whether u and v are distinct and not a missing pair.
func (g *Complement) Adjacent(u, v int) bool { return u != v && !g.missing.has(u, v) }

// Neighbors yields the neighbours of u in increasing order, skipping u and
// its missing pairs with a merge over the sorted missing list.
func (g *Complement) Neighbors(u int) iter.Seq[int] {
	miss := g.missing.of(u)
	n := g.n
	return func(yield func(int) bool) {
		k := 0
		for v := 0; v < n; v++ {
			if k < len(miss) && int(miss[k]) == v {
				k++
				continue
			}
			if v == u {
				continue
			}
			if !yield(v) {
				return
			}
		}
	}
}
