package matching

import (
	"fmt"
	"iter"
)

// Grouped is a dense graph whose edges follow groups: with Cross set, every
// two vertices of different groups are joined (two-sided and cross-group
// speed dating); without it, every two vertices of the same group are
// joined (within-group events). Listed missing pairs are taken out in
// either case. Like Complement it needs memory in proportion to the
// missing pairs only, never to the edges.
type Grouped struct {
	group   []int32
	cross   bool
	size    []int32   // vertices per group
	members [][]int32 // the vertices of each group, in increasing order
	missing csr       // only pairs the group rule would otherwise join
}

// NewGrouped returns the graph on len(group) vertices in which u and v are
// joined when group[u] != group[v] (cross) or group[u] == group[v] (not
// cross), they are distinct, and {u, v} is not a missing pair. Groups are
// numbered from 0. Missing pairs that the group rule does not join anyway
// are dropped, so Degree stays exact. It panics if a group is negative or a
// missing pair names a vertex outside the graph.
func NewGrouped(group []int, cross bool, missing []Edge) *Grouped {
	n := len(group)
	g := &Grouped{group: make([]int32, n), cross: cross}
	groups := 0
	for v, x := range group {
		if x < 0 || x >= 1<<31-1 {
			panic(fmt.Sprintf("matching: NewGrouped: vertex %d has group %d", v, x))
		}
		g.group[v] = int32(x)
		groups = max(groups, x+1)
	}
	g.size = make([]int32, groups)
	g.members = make([][]int32, groups)
	for v, x := range g.group {
		g.size[x]++
		g.members[x] = append(g.members[x], int32(v))
	}
	keep := make([]Edge, 0, len(missing))
	for _, e := range missing {
		if e.U < 0 || e.U >= n || e.V < 0 || e.V >= n {
			panic(fmt.Sprintf("matching: NewGrouped: missing pair {%d %d} outside 0..%d", e.U, e.V, n-1))
		}
		if e.U != e.V && g.ruled(e.U, e.V) {
			keep = append(keep, e)
		}
	}
	g.missing = newCSR("NewGrouped", n, keep)
	return g
}

// ruled reports whether the group rule alone joins u and v.
func (g *Grouped) ruled(u, v int) bool { return (g.group[u] != g.group[v]) == g.cross }

// Order returns the number of vertices.
func (g *Grouped) Order() int { return len(g.group) }

// Degree returns the number of neighbours of u.
func (g *Grouped) Degree(u int) int {
	own := int(g.size[g.group[u]])
	miss := len(g.missing.of(u))
	if g.cross {
		return len(g.group) - own - miss
	}
	return own - 1 - miss
}

// Adjacent reports whether the group rule joins u and v and they are not a
// missing pair.
func (g *Grouped) Adjacent(u, v int) bool {
	return u != v && g.ruled(u, v) && !g.missing.has(u, v)
}

// Neighbors yields the neighbours of u in increasing order: the members of
// u's group (within) or every vertex outside it (cross), less the missing
// pairs, merged against the sorted missing list.
func (g *Grouped) Neighbors(u int) iter.Seq[int] {
	miss := g.missing.of(u)
	return func(yield func(int) bool) {
		k := 0
		emit := func(v int) bool {
			for k < len(miss) && int(miss[k]) < v {
				k++
			}
			if k < len(miss) && int(miss[k]) == v {
				return true
			}
			return yield(v)
		}
		if !g.cross {
			for _, v := range g.members[g.group[u]] {
				if int(v) != u && !emit(int(v)) {
					return
				}
			}
			return
		}
		own := g.group[u]
		for v := range g.group {
			if g.group[v] != own && !emit(v) {
				return
			}
		}
	}
}
