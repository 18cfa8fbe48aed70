package main

import "testing"

func TestParseBench(t *testing.T) {
	out := `goos: linux
goarch: amd64
pkg: github.com/cupid-match/cupid/engine
cpu: AMD EPYC
BenchmarkPass1v1_1M-2   	       5	 640832444 ns/op	 641230000 cpu-ns/op	       198.3 engine-B/ticket	    499992 matches/op	432357218 B/op	    5354 allocs/op
BenchmarkSortFloor1M-2   	       5	 102277527 ns/op	 101932600 cpu-ns/op
BenchmarkAdvance/n=80-2         	    1000	    600123 ns/op
BenchmarkWengLin5v5/plackett-luce 	 1000000	      700.5 ns/op	  14276000 updates/s
--- FAIL: BenchmarkBroken
PASS
ok  	github.com/cupid-match/cupid/engine	42.1s
`
	got := map[string]result{}
	for _, r := range parseBench(out) {
		got[r.name] = r
	}
	for _, c := range []struct {
		name, unit string
		want       float64
	}{
		{"Pass1v1_1M", "ns/op", 640832444},
		{"Pass1v1_1M", "engine-B/ticket", 198.3},
		{"Pass1v1_1M", "allocs/op", 5354},
		{"SortFloor1M", "cpu-ns/op", 101932600},
		{"Advance/n=80", "ns/op", 600123},
		{"WengLin5v5/plackett-luce", "updates/s", 14276000},
	} {
		r, ok := got[c.name]
		if !ok {
			t.Errorf("%s: not parsed (got %v)", c.name, keys(got))
			continue
		}
		if v := r.values[c.unit]; v != c.want {
			t.Errorf("%s %s = %v, want %v", c.name, c.unit, v, c.want)
		}
	}
	if len(got) != 4 {
		t.Errorf("parsed %d benchmarks, want 4: %v", len(got), keys(got))
	}
}
