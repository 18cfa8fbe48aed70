package matching

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroupedGraphs checks Grouped against the same graph written out edge
// by edge: neighbour lists, degrees and adjacency agree, and on small
// graphs the matching is as large, and as good by priority, as the brute
// force finds.
func TestGroupedGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cases := []struct {
		n, groups, met int
		cross          bool
	}{
		{2, 2, 0, true}, {3, 2, 1, true}, {7, 2, 2, true}, {9, 3, 3, true}, {10, 2, 4, false},
		{11, 3, 2, false}, {12, 1, 3, false}, {12, 1, 3, true}, {40, 2, 10, true}, {41, 4, 8, false}, {300, 2, 30, true},
	}
	for _, c := range cases {
		for trial := range 20 {
			group := make([]int, c.n)
			for v := range group {
				group[v] = rng.IntN(c.groups)
			}
			missing := metPairs(rng, c.n, c.met)
			g := NewGrouped(group, c.cross, missing)
			var edges []Edge
			for u := range c.n {
				for v := u + 1; v < c.n; v++ {
					if (group[u] != group[v]) == c.cross && !slices.Contains(missing, Edge{u, v}) && !slices.Contains(missing, Edge{v, u}) {
						edges = append(edges, Edge{u, v})
					}
				}
			}
			explicit := NewSparse(c.n, edges)
			name := fmt.Sprintf("n=%d groups=%d cross=%v trial=%d", c.n, c.groups, c.cross, trial)
			for u := range c.n {
				got := slices.Collect(g.Neighbors(u))
				want := slices.Collect(explicit.Neighbors(u))
				if !slices.Equal(got, want) || g.Degree(u) != len(want) {
					t.Fatalf("%s: vertex %d: neighbours %v (degree %d), want %v", name, u, got, g.Degree(u), want)
				}
				for v := range c.n {
					if g.Adjacent(u, v) != explicit.Adjacent(u, v) {
						t.Fatalf("%s: Adjacent(%d,%d) = %v", name, u, v, g.Adjacent(u, v))
					}
				}
			}
			prio := make([]int, c.n)
			for v := range prio {
				prio[v] = rng.IntN(3)
			}
			want := -1
			var best []int
			if c.n <= 12 {
				want, best = bruteBest(matrixOf(explicit), prio)
			}
			m := check(t, name, g, Options{Rand: rng, Priority: prio}, want)
			if best != nil && !slices.Equal(classCounts(coveredOf(m), prio), best) {
				t.Fatalf("%s: priority coverage %v, brute force %v", name, classCounts(coveredOf(m), prio), best)
			}
			if e := check(t, name+" explicit", explicit, Options{Rand: rng}, -1); e.Size() != m.Size() {
				t.Fatalf("%s: grouped %d pairs, explicit %d", name, m.Size(), e.Size())
			}
		}
	}
}

// bruteTrio reports whether some triangle T of a has ν(G − T) = ν(G) − 1,
// by trying every triangle with the brute-force matching: whether a trio
// can be seated next to a maximum matching.
func bruteTrio(a adjMatrix) bool {
	n := len(a)
	nu, _ := bruteBest(a, nil)
	for x := range n {
		for y := x + 1; y < n; y++ {
			for z := y + 1; z < n; z++ {
				if !a[x][y] || !a[x][z] || !a[y][z] {
					continue
				}
				rest := make(adjMatrix, n)
				for u := range n {
					rest[u] = slices.Clone(a[u])
					for _, t := range []int{x, y, z} {
						rest[u][t] = false
						if u == t {
							clear(rest[u])
						}
					}
				}
				if sub, _ := bruteBest(rest, nil); sub == nu-1 {
					return true
				}
			}
		}
	}
	return false
}

// TestTrioAgainstBruteForce checks Trio on many small random graphs against
// the exhaustive answer: it finds a trio exactly when one exists, and what
// it returns is a maximum matching with the trio's pair in it, its third
// free and adjacent to both. With this seed some graphs (n=9 in trial
// 7015) need step 3: without it the test fails.
func TestTrioAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	found := 0
	for trial := range 30000 {
		n := 1 + rng.IntN(11)
		g := NewSparse(n, randomEdges(rng, n, 0.2+0.7*rng.Float64()))
		a := matrixOf(g)
		m := Maximum(g, Options{Rand: rng, Start: randomMaximal(rng, g)})
		prio := make([]int, n)
		for v := range prio {
			prio[v] = rng.IntN(3)
		}
		want := bruteTrio(a)
		r, ok := Trio(g, m, TrioOptions{Priority: prio, Rand: rng})
		name := fmt.Sprintf("trial %d n=%d", trial, n)
		if ok != want {
			t.Fatalf("%s: Trio found %v, brute force %v (matching %v)", name, ok, want, m)
		}
		if !ok {
			continue
		}
		found++
		if err := Verify(g, r.Matching); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Matching[r.X] != Unmatched || r.Matching[r.A] != r.B || !g.Adjacent(r.X, r.A) || !g.Adjacent(r.X, r.B) {
			t.Fatalf("%s: not a trio: %+v", name, r)
		}
	}
	if found < 3000 {
		t.Fatalf("only %d of the graphs had a trio: the test does not exercise Trio", found)
	}
}
