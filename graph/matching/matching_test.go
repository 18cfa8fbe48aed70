package matching

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// check runs Maximum on g and fails the test unless the result is a valid,
// certified maximum matching of the size the brute force finds (when want
// is not negative) and, with priorities, covers a priority-optimal set.
func check(t *testing.T, name string, g Graph, opt Options, want int) Matching {
	t.Helper()
	m := Maximum(g, opt)
	if err := Verify(g, m); err != nil {
		t.Fatalf("%s: %v (matching %v)", name, err, m)
	}
	if want >= 0 && m.Size() != want {
		t.Fatalf("%s: size %d, brute force %d", name, m.Size(), want)
	}
	return m
}

func TestAllGraphsUpToSix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 6; n++ {
		pairs := n * (n - 1) / 2
		for mask := uint64(0); mask < 1<<pairs; mask++ {
			g := graphFromMask(n, mask)
			a := matrixOf(g)
			prio := make([]int, n)
			for i := range prio {
				prio[i] = rng.IntN(3)
			}
			size, best := bruteBest(a, prio)
			name := fmt.Sprintf("n=%d mask=%#x", n, mask)
			// Plain, from a poor start, and with priorities.
			check(t, name, g, Options{Rand: rng}, size)
			check(t, name+" poor start", g, Options{Start: randomMaximal(rng, g), Rand: rng}, size)
			m := check(t, name+" priority", g, Options{Priority: prio, Rand: rng}, size)
			if got := classCounts(coveredOf(m), prio); !slices.Equal(got, best) {
				t.Fatalf("%s priority %v: covers %v per class, best is %v (matching %v)", name, prio, got, best, m)
			}
		}
	}
}

func TestRandomSmallGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	count := 3000
	if testing.Short() {
		count = 500
	}
	for i := range count {
		n := 7 + rng.IntN(6) // 7..12
		p := []float64{0.15, 0.3, 0.5, 0.8}[i%4]
		g := NewSparse(n, randomEdges(rng, n, p))
		prio := make([]int, n)
		levels := 1 + rng.IntN(4)
		for v := range prio {
			prio[v] = rng.IntN(levels)
		}
		size, best := bruteBest(matrixOf(g), prio)
		name := fmt.Sprintf("case %d n=%d p=%.2f", i, n, p)
		check(t, name+" poor start", g, Options{Start: randomMaximal(rng, g), Rand: rng}, size)
		m := check(t, name, g, Options{Priority: prio, Start: randomMaximal(rng, g), Rand: rng}, size)
		if got := classCounts(coveredOf(m), prio); !slices.Equal(got, best) {
			t.Fatalf("%s priority %v: covers %v per class, best is %v", name, prio, got, best)
		}
	}
}

func TestRandomLargerGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []struct {
		n      int
		degree float64 // expected degree
	}{
		{50, 1}, {50, 2}, {50, 3}, {50, 10}, {50, 40},
		{300, 1.5}, {300, 2.5}, {300, 4}, {300, 50},
		{2000, 2}, {2000, 3},
	}
	for _, c := range cases {
		for rep := range 5 {
			g := NewSparse(c.n, randomEdges(rng, c.n, c.degree/float64(c.n-1)))
			name := fmt.Sprintf("n=%d degree=%.1f rep %d", c.n, c.degree, rep)
			plain := check(t, name, g, Options{Rand: rng}, -1)
			poor := check(t, name+" poor start", g, Options{Start: randomMaximal(rng, g), Rand: rng}, -1)
			if plain.Size() != poor.Size() {
				t.Fatalf("%s: sizes %d and %d", name, plain.Size(), poor.Size())
			}
		}
	}
}

// TestComplementGraphs covers the pairing workload: everyone except a few
// dozen people each has met.
func TestComplementGraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cases := []struct{ n, met int }{
		{2, 1}, {3, 1}, {9, 4}, {9, 8}, {20, 10}, {20, 17}, {80, 40}, {80, 75}, {81, 78}, {301, 30}, {1000, 40},
	}
	for _, c := range cases {
		missing := metPairs(rng, c.n, c.met)
		comp := NewComplement(c.n, missing)
		explicit := explicitComplement(c.n, missing)
		prio := make([]int, c.n)
		for v := range prio {
			prio[v] = rng.IntN(3)
		}
		name := fmt.Sprintf("n=%d met=%d", c.n, c.met)
		a := check(t, name, comp, Options{Rand: rng, Priority: prio}, -1)
		b := check(t, name+" explicit", explicit, Options{Rand: rng, Priority: prio}, -1)
		if a.Size() != b.Size() {
			t.Fatalf("%s: complement %d pairs, explicit %d", name, a.Size(), b.Size())
		}
		if ca, cb := classCounts(coveredOf(a), prio), classCounts(coveredOf(b), prio); !slices.Equal(ca, cb) {
			t.Fatalf("%s: priority coverage %v and %v differ", name, ca, cb)
		}
	}
}

// metPairs draws, for each vertex, up to met random others it has met.
func metPairs(rng *rand.Rand, n, met int) []Edge {
	var e []Edge
	for u := range n {
		for range met / 2 {
			v := rng.IntN(n)
			e = append(e, Edge{u, v}) // self-loops are ignored by the graphs
		}
	}
	return e
}

func explicitComplement(n int, missing []Edge) *Sparse {
	c := NewComplement(n, missing)
	var edges []Edge
	for u := range n {
		for v := range c.Neighbors(u) {
			if u < v {
				edges = append(edges, Edge{u, v})
			}
		}
	}
	return NewSparse(n, edges)
}

// TestKnownGraphs holds graphs that exercise blossoms: odd cycles with
// stems, nested blossoms, the Petersen graph, and the trivial edges.
func TestKnownGraphs(t *testing.T) {
	cycle := func(vs ...int) []Edge {
		var e []Edge
		for i := range vs {
			e = append(e, Edge{vs[i], vs[(i+1)%len(vs)]})
		}
		return e
	}
	path := func(vs ...int) []Edge {
		var e []Edge
		for i := 0; i+1 < len(vs); i++ {
			e = append(e, Edge{vs[i], vs[i+1]})
		}
		return e
	}
	join := func(parts ...[]Edge) []Edge { return slices.Concat(parts...) }
	petersen := join(cycle(0, 1, 2, 3, 4), cycle(5, 7, 9, 6, 8), []Edge{{0, 5}, {1, 6}, {2, 7}, {3, 8}, {4, 9}})
	complete := func(n int) []Edge {
		var e []Edge
		for u := range n {
			for v := u + 1; v < n; v++ {
				e = append(e, Edge{u, v})
			}
		}
		return e
	}
	cases := []struct {
		name  string
		n     int
		edges []Edge
		want  int
	}{
		{"empty graph", 0, nil, 0},
		{"one vertex", 1, nil, 0},
		{"one edge", 2, []Edge{{0, 1}}, 1},
		{"isolated vertices", 5, nil, 0},
		{"triangle", 3, cycle(0, 1, 2), 1},
		{"pentagon", 5, cycle(0, 1, 2, 3, 4), 2},
		{"triangle with stem", 5, join(path(3, 4, 0), cycle(0, 1, 2)), 2},
		{"pentagon with two stems", 8, join(cycle(0, 1, 2, 3, 4), path(5, 6, 0), []Edge{{2, 7}}), 4},
		{"blossom then augment through it", 6, join(cycle(0, 1, 2), path(3, 0), path(2, 4, 5)), 3},
		// A triangle blossom inside a pentagon blossom, with an exit from the
		// innermost triangle.
		{"nested blossoms", 10, join(cycle(0, 1, 2), path(2, 3, 4, 5, 0), path(1, 6), path(5, 7, 8), path(4, 9)), 5},
		{"two triangles joined", 6, join(cycle(0, 1, 2), cycle(3, 4, 5), path(2, 3)), 3},
		{"flower", 7, join(cycle(0, 1, 2), cycle(0, 3, 4), cycle(0, 5, 6)), 3},
		{"petersen", 10, petersen, 5},
		{"star", 6, []Edge{{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}}, 1},
		{"K7", 7, complete(7), 3},
		{"K8", 8, complete(8), 4},
		{"long odd cycle", 15, cycle(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14), 7},
		{"self-loops and duplicates", 3, []Edge{{0, 0}, {0, 1}, {1, 0}, {1, 2}}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewSparse(c.n, c.edges)
			size, _ := bruteBest(matrixOf(g), nil)
			if size != c.want {
				t.Fatalf("brute force finds %d, table says %d", size, c.want)
			}
			for seed := range uint64(30) {
				rng := rand.New(rand.NewPCG(seed, 9))
				check(t, c.name, g, Options{Rand: rng}, c.want)
				check(t, c.name+" poor start", g, Options{Rand: rng, Start: randomMaximal(rng, g)}, c.want)
			}
		})
	}
}

func TestStartIsKeptWhenMaximum(t *testing.T) {
	g := NewComplement(6, nil)
	start := []Edge{{0, 5}, {1, 4}, {2, 3}}
	m := Maximum(g, Options{Start: start})
	for _, e := range start {
		if m[e.U] != e.V {
			t.Fatalf("start pair %v not kept: %v", e, m)
		}
	}
	// Pairs that are not edges, overlap or name outside vertices are skipped.
	g2 := NewSparse(4, []Edge{{0, 1}, {2, 3}, {1, 2}})
	m = Maximum(g2, Options{Start: []Edge{{0, 2}, {1, 2}, {2, 3}, {7, 1}, {3, 3}}})
	if err := Verify(g2, m); err != nil || m.Size() != 2 {
		t.Fatalf("got %v, %v; want the two-pair matching", m, err)
	}
}

func TestSameSeedSameMatching(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	g := NewComplement(200, metPairs(rng, 200, 30))
	prio := make([]int, 200)
	for v := range prio {
		prio[v] = rng.IntN(2)
	}
	run := func(seed uint64) Matching {
		return Maximum(g, Options{Priority: prio, Rand: rand.New(rand.NewPCG(seed, 0))})
	}
	if a, b := run(1), run(1); !slices.Equal(a, b) {
		t.Fatal("same seed gave different matchings")
	}
	if a, b := run(1), run(2); slices.Equal(a, b) {
		t.Fatal("different seeds gave the same matching of a 200-vertex dense graph")
	}
}

func TestVerifyRejects(t *testing.T) {
	g := NewSparse(4, []Edge{{0, 1}, {1, 2}, {2, 3}})
	cases := []struct {
		name string
		m    Matching
	}{
		{"wrong length", Matching{-1, -1}},
		{"not maximum", Matching{-1, 2, 1, -1}},
		{"not an edge", Matching{2, -1, 0, -1}},
		{"asymmetric", Matching{1, -1, 3, 2}},
		{"self", Matching{0, -1, -1, -1}},
		{"outside", Matching{9, -1, -1, -1}},
	}
	for _, c := range cases {
		if err := Verify(g, c.m); err == nil {
			t.Errorf("%s: Verify accepted %v", c.name, c.m)
		}
	}
	if err := Verify(g, Matching{1, 0, 3, 2}); err != nil {
		t.Errorf("Verify rejected a perfect matching: %v", err)
	}
}

func TestPriorityLength(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a priority slice of the wrong length")
		}
	}()
	Maximum(NewSparse(3, nil), Options{Priority: []int{1}})
}

func TestGraphs(t *testing.T) {
	s := NewSparse(4, []Edge{{0, 1}, {1, 0}, {2, 1}, {3, 3}})
	c := NewComplement(4, []Edge{{0, 1}, {1, 0}, {2, 1}, {3, 3}})
	for u := range 4 {
		var sn, cn []int
		for v := range s.Neighbors(u) {
			sn = append(sn, v)
		}
		for v := range c.Neighbors(u) {
			cn = append(cn, v)
		}
		if len(sn) != s.Degree(u) || len(cn) != c.Degree(u) {
			t.Fatalf("vertex %d: degree and neighbour lists disagree: %v/%d %v/%d", u, sn, s.Degree(u), cn, c.Degree(u))
		}
		for v := range 4 {
			if s.Adjacent(u, v) != slices.Contains(sn, v) || c.Adjacent(u, v) != slices.Contains(cn, v) {
				t.Fatalf("Adjacent(%d,%d) disagrees with Neighbors", u, v)
			}
			if u != v && s.Adjacent(u, v) == c.Adjacent(u, v) {
				t.Fatalf("Sparse and Complement agree on (%d,%d) but should be complements", u, v)
			}
		}
	}
}
