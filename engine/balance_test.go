package engine

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// randomParties makes parties filling teams of the given size: solos and
// small parties with normalised skills around 0.5.
func randomParties(rng *rand.Rand, teams, size, nattr, maxParty int) []bparty {
	total := teams * size
	var ps []bparty
	for total > 0 {
		s := 1 + rng.IntN(maxParty)
		if s > total {
			s = total
		}
		// Keep it packable: a party never exceeds the space left in
		// some team; simplest is to cap at size.
		s = min(s, size)
		vals := make([]float64, nattr)
		for a := range vals {
			for range s {
				vals[a] += 0.5 + rng.NormFloat64()*0.15
			}
		}
		ps = append(ps, bparty{size: s, vals: vals})
		total -= s
	}
	return ps
}

// bruteForce tries every assignment.
func bruteForce(ps []bparty, nattr int, sizes []int) (float64, bool) {
	T := len(sizes)
	team := make([]int, len(ps))
	cnt := make([]int, T)
	sum := make([]float64, T*nattr)
	best, found := math.Inf(1), false
	var rec func(i int)
	rec = func(i int) {
		if i == len(ps) {
			for t := range cnt {
				if cnt[t] != sizes[t] {
					return
				}
			}
			if o := imbalance(sum, sizes, nattr); o < best {
				best, found = o, true
			}
			return
		}
		for t := 0; t < T; t++ {
			if cnt[t]+ps[i].size > sizes[t] {
				continue
			}
			team[i] = t
			cnt[t] += ps[i].size
			for a := 0; a < nattr; a++ {
				sum[t*nattr+a] += ps[i].vals[a]
			}
			rec(i + 1)
			cnt[t] -= ps[i].size
			for a := 0; a < nattr; a++ {
				sum[t*nattr+a] -= ps[i].vals[a]
			}
		}
	}
	rec(0)
	return best, found
}

func TestExactBalanceMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var b balancer
	for trial := 0; trial < 300; trial++ {
		teams := 2 + rng.IntN(2)
		size := 2 + rng.IntN(4)
		nattr := 1 + rng.IntN(2)
		ps := randomParties(rng, teams, size, nattr, 3)
		sizes := make([]int, teams)
		for i := range sizes {
			sizes[i] = size
		}
		want, ok := bruteForce(ps, nattr, sizes)
		res := b.exact(ps, nattr, sizes, nil, exactNodeBudget)
		if ok != res.ok {
			t.Fatalf("trial %d: feasible %v vs %v", trial, ok, res.ok)
		}
		if !ok {
			continue
		}
		if !res.exact || math.Abs(res.obj-want) > 1e-9 {
			t.Fatalf("trial %d: exact %v (proven %v), brute force %v", trial, res.obj, res.exact, want)
		}
		// The assignment really has that objective and those sizes.
		cnt := make([]int, teams)
		sum := make([]float64, teams*nattr)
		for k, tm := range res.team {
			cnt[tm] += ps[k].size
			for a := 0; a < nattr; a++ {
				sum[tm*nattr+a] += ps[k].vals[a]
			}
		}
		for i := range cnt {
			if cnt[i] != size {
				t.Fatalf("trial %d: team sizes %v", trial, cnt)
			}
		}
		if math.Abs(imbalance(sum, sizes, nattr)-res.obj) > 1e-9 {
			t.Fatalf("trial %d: reported objective differs from the assignment's", trial)
		}
	}
}

func TestMeetInTheMiddleMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	var b balancer
	for trial := 0; trial < 200; trial++ {
		s0 := 3 + rng.IntN(4)
		s1 := s0 - rng.IntN(2) // equal or one fewer
		nattr := rng.IntN(3)
		// Fill both teams' worth of players with parties of 1-2.
		ps := randomParties(rng, 1, s0+s1, nattr, 2)
		sizes := []int{s0, s1}
		want, ok := bruteForce(ps, nattr, sizes)
		res := b.mitm(ps, nattr, sizes, nil)
		if ok != res.ok {
			t.Fatalf("trial %d: feasible %v vs %v", trial, ok, res.ok)
		}
		if ok && math.Abs(res.obj-want) > 1e-9 {
			t.Fatalf("trial %d (%d v %d, %d attrs): mitm %v, brute force %v", trial, s0, s1, nattr, res.obj, want)
		}
	}
}

// TestHeuristicGap bounds the heuristic's distance from the exact optimum on
// random two-team matches of 6 to 12 players a side, solos and parties of up
// to 3, one or two balancing attributes. The objective is in normalised
// units: 0.01 is one hundredth of an attribute's max between team averages.
func TestHeuristicGap(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	var b balancer
	var gaps []float64
	trials := 200
	if testing.Short() {
		trials = 60
	}
	for trial := 0; trial < trials; trial++ {
		size := 6 + rng.IntN(7)
		nattr := 1 + rng.IntN(2)
		ps := randomParties(rng, 2, size, nattr, 3)
		sizes := []int{size, size}
		h := b.heuristic(ps, nattr, sizes)
		if !h.ok {
			// Greedy packing can fail; the engine then falls back to
			// the exact search. Count it as no result.
			continue
		}
		hObj := h.obj
		e := b.exact(ps, nattr, sizes, nil, exactNodeBudget)
		if !e.ok {
			t.Fatalf("trial %d: exact found nothing", trial)
		}
		if hObj < e.obj-1e-9 {
			t.Fatalf("trial %d: heuristic %v beats exact %v", trial, hObj, e.obj)
		}
		gaps = append(gaps, hObj-e.obj)
	}
	sort.Float64s(gaps)
	mean := 0.0
	for _, g := range gaps {
		mean += g
	}
	mean /= float64(len(gaps))
	p95 := gaps[len(gaps)*95/100]
	worst := gaps[len(gaps)-1]
	t.Logf("heuristic gap over %d matches: mean %.5f, p95 %.5f, max %.5f (normalised units)", len(gaps), mean, p95, worst)
	if mean > 0.005 || p95 > 0.02 || worst > 0.05 {
		t.Errorf("heuristic gap too large: mean %.5f p95 %.5f max %.5f", mean, p95, worst)
	}
}

func TestSizeSplits(t *testing.T) {
	var b balancer
	got := b.sizeSplits(11, 2, 4, 8)
	if len(got) == 0 || got[0][0] != 6 || got[0][1] != 5 {
		t.Fatalf("most even split first: %v", got)
	}
	for _, s := range got {
		if s[0]+s[1] != 11 || s[1] < 4 || s[0] > 8 {
			t.Fatalf("bad split %v", s)
		}
	}
	if b.sizeSplits(7, 2, 4, 8) != nil {
		t.Fatal("7 players cannot make two teams of 4")
	}
}

func BenchmarkBalance5v5Solo(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	ps := randomParties(rng, 2, 5, 1, 1)
	var bal balancer
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bal.balance(ps, 1, 2, 5, 5, 12, nil, nil)
	}
}

func BenchmarkBalance12v12Solo(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	ps := randomParties(rng, 2, 12, 2, 1)
	var bal balancer
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bal.balance(ps, 2, 2, 12, 12, 12, nil, nil)
	}
}

func BenchmarkBalance4x5Solo(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	ps := randomParties(rng, 4, 5, 1, 1)
	var bal balancer
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bal.balance(ps, 1, 4, 5, 5, 12, nil, nil)
	}
}

func BenchmarkBalance3x8Parties(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	ps := randomParties(rng, 3, 8, 2, 3)
	var bal balancer
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bal.balance(ps, 2, 3, 8, 8, 12, nil, nil)
	}
}
