package matching

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkComplement times the pairing workload: the graph of allowed pairs
// is everyone except the 20–50 people each person has met.
func BenchmarkComplement(b *testing.B) {
	for _, n := range []int{80, 10_000} {
		rng := rand.New(rand.NewPCG(1, 2))
		var missing []Edge
		for u := range n {
			for range (20 + rng.IntN(31)) / 2 { // each pair counts for both ends
				missing = append(missing, Edge{u, rng.IntN(n)})
			}
		}
		g := NewComplement(n, missing)
		prio := make([]int, n)
		for v := range prio {
			prio[v] = rng.IntN(3)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				Maximum(g, Options{Rand: rng})
			}
		})
		b.Run(fmt.Sprintf("n=%d/priority", n), func(b *testing.B) {
			for b.Loop() {
				Maximum(g, Options{Rand: rng, Priority: prio})
			}
		})
		b.Run(fmt.Sprintf("n=%d/odd", n-1), func(b *testing.B) {
			g := NewComplement(n-1, clip(missing, n-1))
			for b.Loop() {
				Maximum(g, Options{Rand: rng, Priority: prio[:n-1]})
			}
		})
	}
}

func clip(edges []Edge, n int) []Edge {
	var out []Edge
	for _, e := range edges {
		if e.U < n && e.V < n {
			out = append(out, e)
		}
	}
	return out
}

// BenchmarkSparse times plain random sparse graphs, where the greedy pass
// leaves many free vertices and the blossom search does the work.
func BenchmarkSparse(b *testing.B) {
	for _, c := range []struct {
		n      int
		degree int
	}{{80, 3}, {10_000, 3}, {10_000, 10}} {
		rng := rand.New(rand.NewPCG(3, 4))
		var edges []Edge
		for range c.n * c.degree / 2 {
			edges = append(edges, Edge{rng.IntN(c.n), rng.IntN(c.n)})
		}
		g := NewSparse(c.n, edges)
		b.Run(fmt.Sprintf("n=%d/degree=%d", c.n, c.degree), func(b *testing.B) {
			for b.Loop() {
				Maximum(g, Options{Rand: rng})
			}
		})
	}
}
