package pairing

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// bruteMatching returns the size of a maximum matching of the graph with
// adjacency a, by trying every matching.
func bruteMatching(a [][]bool, used []bool) int {
	v := slices.Index(used, false)
	if v < 0 {
		return 0
	}
	used[v] = true
	best := bruteMatching(a, used) // v left out
	for w := v + 1; w < len(a); w++ {
		if !used[w] && a[v][w] {
			used[w] = true
			best = max(best, 1+bruteMatching(a, used))
			used[w] = false
		}
	}
	used[v] = false
	return best
}

// bruteSeated returns how many people the best round can seat with enough
// rooms: two per pair of a maximum matching, plus one when some triangle T
// of allowed pairs leaves ν(G − T) = ν − 1 (a trio next to a maximum
// matching) and trios are on.
func bruteSeated(a [][]bool, trios bool) int {
	n := len(a)
	nu := bruteMatching(a, make([]bool, n))
	if !trios {
		return 2 * nu
	}
	for x := range n {
		for y := x + 1; y < n; y++ {
			for z := y + 1; z < n; z++ {
				if !a[x][y] || !a[x][z] || !a[y][z] {
					continue
				}
				used := make([]bool, n)
				used[x], used[y], used[z] = true, true, true
				if bruteMatching(a, used) == nu-1 {
					return 2*nu + 1
				}
			}
		}
	}
	return 2 * nu
}

// TestRoundsAgainstBruteForce builds many small random events — every
// mode, random records on one or both sides, random never lists, trios on
// or off, enough rooms or too few — and checks each computed round against
// exhaustive search: no room holds two people the rules keep apart, and
// the round seats as many people as the best possible round (a maximum
// matching of the allowed pairs, plus a trio when one fits), or fills
// every room when rooms are short.
func TestRoundsAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	modes := []Mode{ModeOpen, ModeTwoSided, ModeWithinGroup, ModeCrossGroup}
	trioRounds := 0
	ok := mustOK(t)
	for trial := range 1500 {
		n := 2 + rng.IntN(9)
		mode := modes[rng.IntN(len(modes))]
		cfg := Config{Rooms: 1 + rng.IntN(5), Round: time.Minute, Countdown: 0, MinLobby: 2, Mode: mode, Trios: rng.IntN(2) == 0}
		if mode == ModeTwoSided {
			cfg.Sides = []string{"stay", "move"}
			cfg.Trios = false // refused: nobody is across from two others
		}
		e, err := New(cfg, rng.Uint64())
		if err != nil {
			t.Fatal(err)
		}
		e.MinLobbyForTest(n + 1) // no countdown: the round is started by hand below
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("p%d", i)
			group := ""
			switch mode {
			case ModeTwoSided:
				group = cfg.Sides[rng.IntN(2)]
			case ModeWithinGroup, ModeCrossGroup:
				group = []string{"x", "y", "z"}[rng.IntN(3)]
			}
			ok(e.JoinGroup(t0, keys[i], group))
		}
		density := rng.Float64() * 0.8
		for _, a := range keys {
			for _, b := range keys {
				if a != b && rng.Float64() < density/2 {
					ok(e.ImportHistory(t0, []MetEdge{{From: a, To: b}}, 100))
				}
				if a != b && rng.Float64() < 0.05 {
					ok(e.SetNever(t0, a, b, true))
				}
			}
		}
		for _, k := range keys {
			ok(e.EnterLobby(t0, k))
		}
		// The allowed pairs as the rules say, before the round marks any.
		a := make([][]bool, n)
		for i := range a {
			a[i] = make([]bool, n)
			for j := range a[i] {
				a[i][j] = i != j && e.mayPair(keys[i], keys[j])
			}
		}
		ok(e.StartRound(t0))
		name := fmt.Sprintf("trial %d: n=%d mode=%s rooms=%d trios=%v", trial, n, mode, cfg.Rooms, cfg.Trios)
		seated, trios := 0, 0
		for _, pr := range e.Snapshot().Pairs {
			members := []string{pr.A, pr.B}
			if pr.C != "" {
				members = append(members, pr.C)
				trios++
			}
			for _, x := range members {
				for _, y := range members {
					if x != y && !a[slices.Index(keys, x)][slices.Index(keys, y)] {
						t.Fatalf("%s: room %d seats %s with %s, whom the rules keep apart", name, pr.Room, x, y)
					}
				}
			}
			seated += len(members)
		}
		if trios > 1 || (trios == 1 && !cfg.Trios) {
			t.Fatalf("%s: %d trios", name, trios)
		}
		trioRounds += trios
		best := bruteSeated(a, cfg.Trios)
		nu := bruteMatching(a, make([]bool, n))
		switch {
		case nu > cfg.Rooms:
			if pairs := len(e.Snapshot().Pairs); pairs != cfg.Rooms {
				t.Fatalf("%s: %d rooms used of %d with %d pairs possible", name, pairs, cfg.Rooms, nu)
			}
		case seated != best:
			t.Fatalf("%s: seated %d, the best round seats %d", name, seated, best)
		}
	}
	if trioRounds < 100 {
		t.Fatalf("only %d rounds had a trio: the test does not exercise trios", trioRounds)
	}
}
