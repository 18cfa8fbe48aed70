package engine

import (
	"slices"
	"testing"
)

// BenchmarkSortFloor1M is the floor the 1M pass is compared with: a
// slices.Sort of the pass benchmark's million skill values (the same
// generator and seed). The shared machines the figures come from vary by
// up to 1.7× from one minute to the next, so docs/PERFORMANCE.md gives the
// pass as a ratio to this floor measured in the same `go test -bench` call:
//
//	go test ./engine -run '^$' -bench 'Pass1v1_1M|SortFloor' -benchtime 5x -count 5
func BenchmarkSortFloor1M(b *testing.B) { benchSortFloor(b, 1_000_000) }

// BenchmarkSortFloor100k is the same floor for the 100,000-ticket passes.
func BenchmarkSortFloor100k(b *testing.B) { benchSortFloor(b, 100_000) }

func benchSortFloor(b *testing.B, n int) {
	ts := gen1v1(n, t0, 42)
	keys := make([]float64, n)
	for i, t := range ts {
		keys[i] = t.Players[0].Attributes[0].Value.Number
	}
	work := make([]float64, n)
	cpuNs := 0.0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		copy(work, keys)
		cpu0 := cpuTime()
		b.StartTimer()
		slices.Sort(work)
		b.StopTimer()
		cpuNs += float64(cpuTime() - cpu0)
	}
	b.ReportMetric(cpuNs/float64(b.N), "cpu-ns/op")
	if !slices.IsSorted(work) {
		b.Fatal("not sorted")
	}
}
