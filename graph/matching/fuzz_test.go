package matching

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// FuzzMaximum reads a small graph, priorities and a seed from the fuzzer's
// bytes and checks the result against Verify and the brute force.
//
// Layout: byte 0 picks n (0..11), byte 1 the number of priority levels,
// bytes 2..9 the seed; then pairs of bytes are edges (taken mod n).
func FuzzMaximum(f *testing.F) {
	f.Add([]byte{5, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 0})
	f.Add([]byte{10, 3, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 5, 7, 7, 9, 9, 6, 6, 8, 8, 5, 0, 5, 1, 6, 2, 7, 3, 8, 4, 9})
	f.Add([]byte{7, 2, 9, 9, 9, 9, 9, 9, 9, 9, 0, 1, 1, 2, 2, 0, 0, 3, 3, 4, 4, 0, 0, 5, 5, 6, 6, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 10 {
			return
		}
		n := int(data[0]) % 12
		levels := 1 + int(data[1])%4
		var seed uint64
		for _, b := range data[2:10] {
			seed = seed<<8 | uint64(b)
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		var edges []Edge
		if n > 0 {
			for i := 10; i+1 < len(data); i += 2 {
				edges = append(edges, Edge{int(data[i]) % n, int(data[i+1]) % n})
			}
		}
		g := NewSparse(n, edges)
		prio := make([]int, n)
		for v := range prio {
			prio[v] = rng.IntN(levels)
		}
		m := Maximum(g, Options{Priority: prio, Rand: rng, Start: randomMaximal(rng, g)})
		if err := Verify(g, m); err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		size, best := bruteBest(matrixOf(g), prio)
		if m.Size() != size {
			t.Fatalf("size %d, brute force %d", m.Size(), size)
		}
		if got := classCounts(coveredOf(m), prio); !slices.Equal(got, best) {
			t.Fatalf("priorities %v: covers %v per class, best %v", prio, got, best)
		}
		c := Maximum(NewComplement(n, edges), Options{Rand: rng})
		if err := Verify(NewComplement(n, edges), c); err != nil {
			t.Fatalf("complement: %v", err)
		}
	})
}
