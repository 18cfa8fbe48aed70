package rating

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBradleyTerryReference replays the Bradley-Terry (full pairing)
// series of OpenSkill's test fixtures: three free-for-all games of five,
// three and four players given by score (higher is better, equal scores
// tie), starting from new players.
func TestBradleyTerryReference(t *testing.T) {
	w := WengLin{Model: BradleyTerry}
	rate := func(teams [][]Skill, scores ...int) [][]Skill {
		ranks := make([]int, len(scores))
		for i, s := range scores {
			ranks[i] = -s
		}
		out, err := w.Rate(teams, ranks)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	n := w.New()
	g1 := rate([][]Skill{{n}, {n}, {n}, {n}, {n}}, 9, 7, 7, 5, 5)
	p0, p1, p2, p3, p4 := g1[0][0], g1[1][0], g1[2][0], g1[3][0], g1[4][0]
	g2 := rate([][]Skill{{p4}, {p2}, {p1}}, 9, 5, 5)
	p4, p2, p1 = g2[0][0], g2[1][0], g2[2][0]
	g3 := rate([][]Skill{{p3}, {p1}, {p2}, {p0}}, 9, 9, 7, 7)
	p3, p1, p2, p0 = g3[0][0], g3[1][0], g3[2][0], g3[3][0]
	for _, c := range []struct {
		name      string
		got       Skill
		mu, sigma float64
	}{
		{"p0", p0, 27.643471362, 6.716636758},
		{"p1", p1, 28.84497938, 6.310098392},
		{"p2", p2, 20.705805441, 6.310098392},
		{"p3", p3, 24.387640207, 6.668755907},
		{"p4", p4, 23.354955778, 6.854096855},
	} {
		if !near(c.got.Mu, c.mu, 1e-6) || !near(c.got.Sigma, c.sigma, 1e-6) {
			t.Errorf("%s: %+v, want μ %v σ %v", c.name, c.got, c.mu, c.sigma)
		}
	}
}

func TestExpectedScores(t *testing.T) {
	w := WengLin{}
	even := w.Expected([][]Skill{{{25, 8}}, {{25, 8}}})
	if !near(even[0], 0.5, 1e-12) || !near(even[1], 0.5, 1e-12) {
		t.Fatalf("equal teams expect %v, want 0.5 each", even)
	}
	for _, teams := range [][][]Skill{
		{{{30, 3}, {28, 4}}, {{20, 3}, {22, 5}}},
		{{{30, 3}}, {{25, 3}}, {{20, 3}}, {{15, 8}}},
	} {
		e := w.Expected(teams)
		var sum float64
		for i := range e {
			sum += e[i]
			if i > 0 && e[i] >= e[i-1] {
				t.Fatalf("a weaker team expects more: %v", e)
			}
		}
		// Pairwise chances add up to one, so the expected scores average 0.5.
		if !near(sum/float64(len(e)), 0.5, 1e-12) {
			t.Fatalf("expected scores %v do not average 0.5", e)
		}
	}
	// Glickman's example: E for the 1500 player against the 1400 (RD 30).
	if e := (Glicko2{1500, 200, 0.06}).Expected(Glicko2{1400, 30, 0.06}); !near(e, 0.639, 0.001) {
		t.Fatalf("Glicko-2 expected %v, want 0.639 (Glickman's example)", e)
	}
	c := Composite([]Glicko2{{1400, 30, 0.06}, {1600, 40, 0.06}})
	if c.R != 1500 || !near(c.RD, math.Sqrt((900+1600)/2.0), 1e-12) {
		t.Fatalf("composite %+v", c)
	}
}

// TestWengLinConservesMeanBetweenEqualUncertainties: when every team is
// as uncertain as the others, what one side gains the other loses — the
// sum of the means is kept — in every two-team game of both models, and
// in Bradley-Terry's every game (its pairwise comparisons are each zero-
// sum). Plackett-Luce with three or more teams does not promise it.
func TestWengLinConservesMeanBetweenEqualUncertainties(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, model := range []Model{PlackettLuce, BradleyTerry} {
		w := WengLin{Model: model}
		for g := range 500 {
			n := 2
			if model == BradleyTerry {
				n = 2 + rng.IntN(4)
			}
			sigma := 1 + 7*rng.Float64()
			size := 1 + rng.IntN(5)
			teams := make([][]Skill, n)
			ranks := make([]int, n)
			var before float64
			for i := range teams {
				for range size {
					s := Skill{Mu: 10 + 30*rng.Float64(), Sigma: sigma}
					teams[i] = append(teams[i], s)
					before += s.Mu
				}
				ranks[i] = rng.IntN(n)
			}
			out, err := w.Rate(teams, ranks)
			if err != nil {
				t.Fatal(err)
			}
			var after float64
			for i := range out {
				for _, s := range out[i] {
					after += s.Mu
				}
			}
			if !near(before, after, 1e-9*before) {
				t.Fatalf("%s game %d (%d teams of %d, ranks %v): the means summed %v before and %v after", model, g, n, size, ranks, before, after)
			}
		}
	}
}
