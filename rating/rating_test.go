package rating

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestGlicko2PaperExample is the worked example of Glickman's "Example of
// the Glicko-2 system": a 1500 player (RD 200, σ 0.06, τ 0.5) beats a 1400
// (RD 30), loses to a 1550 (RD 100) and to a 1700 (RD 300), and ends at
// 1464.06, RD 151.52, σ 0.05999.
func TestGlicko2PaperExample(t *testing.T) {
	got, err := Glicko2Config{Tau: 0.5}.Period(Glicko2{R: 1500, RD: 200, Sigma: 0.06}, []Game{
		{Opponent: Glicko2{R: 1400, RD: 30, Sigma: 0.06}, Score: 1},
		{Opponent: Glicko2{R: 1550, RD: 100, Sigma: 0.06}, Score: 0},
		{Opponent: Glicko2{R: 1700, RD: 300, Sigma: 0.06}, Score: 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !near(got.R, 1464.06, 0.01) || !near(got.RD, 151.52, 0.01) || !near(got.Sigma, 0.05999, 0.00001) {
		t.Fatalf("got %+v, want R 1464.06, RD 151.52, σ 0.05999", got)
	}
}

func TestGlicko2IdlePeriodWidensOnlyTheDeviation(t *testing.T) {
	p := Glicko2{R: 1700, RD: 50, Sigma: 0.06}
	got, err := Glicko2Config{}.Period(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := math.Sqrt(50*50 + (0.06*glickoScale)*(0.06*glickoScale))
	if got.R != 1700 || !near(got.RD, want, 1e-9) || got.Sigma != 0.06 {
		t.Fatalf("got %+v, want R 1700, RD %.4f, σ 0.06", got, want)
	}
	for range 2000 { // about 1,100 idle periods reach the cap
		p, _ = Glicko2Config{}.Period(p, nil)
	}
	if p.RD != 350 {
		t.Fatalf("after a long absence RD %v, want the cap 350", p.RD)
	}
}

func TestGlicko2RefusesBadInput(t *testing.T) {
	good := NewGlicko2()
	for _, tc := range []struct {
		name   string
		p      Glicko2
		games  []Game
		within string
	}{
		{"NaN rating", Glicko2{R: math.NaN(), RD: 100, Sigma: 0.06}, nil, "player"},
		{"zero deviation", Glicko2{R: 1500, RD: 0, Sigma: 0.06}, nil, "player"},
		{"score above 1", good, []Game{{Opponent: good, Score: 2}}, "games[0].score"},
		{"bad opponent", good, []Game{{Opponent: good, Score: 1}, {Opponent: Glicko2{R: 1500, RD: 100}, Score: 0}}, "games[1].opponent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Glicko2Config{}.Period(tc.p, tc.games)
			if err == nil || !strings.HasPrefix(err.Error(), tc.within) {
				t.Fatalf("error %v, want one naming %s", err, tc.within)
			}
			if got != tc.p && !(math.IsNaN(got.R) && math.IsNaN(tc.p.R)) {
				t.Fatalf("a refused update changed the rating to %+v", got)
			}
		})
	}
}

// TestPlackettLuceReference checks the Weng-Lin Plackett-Luce model
// against the numbers published with the OpenSkill libraries' usage
// example: two against two, the first team wins.
func TestPlackettLuceReference(t *testing.T) {
	a1, a2 := Skill{25, 25.0 / 3}, Skill{32.444, 5.123}
	b1, b2 := Skill{43.381, 2.421}, Skill{25.188, 6.211}
	got, err := WengLin{}.Rate([][]Skill{{a1, a2}, {b1, b2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Skill{
		{{28.669648436582808, 8.071520788025197}, {33.83086971107981, 5.062772998705765}},
		{{43.071274808241974, 2.4166900452721256}, {23.149503312339064, 6.1378606973362135}},
	}
	for i := range want {
		for j := range want[i] {
			if !near(got[i][j].Mu, want[i][j].Mu, 1e-9) || !near(got[i][j].Sigma, want[i][j].Sigma, 1e-9) {
				t.Errorf("team %d player %d: %+v, want %+v", i, j, got[i][j], want[i][j])
			}
		}
	}
	if c := (Skill{43.071274808241974, 2.4166900452721256}).Conservative(3); !near(c, 35.821204672425594, 1e-9) {
		t.Errorf("conservative estimate %v, want 35.8212…", c)
	}
}

// TestWengLinProperties: over random games in both models, the winners'
// means rise and the losers' fall in a two-team game, every deviation
// shrinks, ties between equals change no mean, and the ranks given out of
// order mean the same as the teams given in order.
func TestWengLinProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, model := range []Model{PlackettLuce, BradleyTerry} {
		w := WengLin{Model: model}
		for g := range 300 {
			n := 2 + rng.IntN(4)
			teams := make([][]Skill, n)
			for i := range teams {
				for range 1 + rng.IntN(3) {
					teams[i] = append(teams[i], Skill{Mu: 10 + 30*rng.Float64(), Sigma: 1 + 7*rng.Float64()})
				}
			}
			got, err := w.Rate(teams, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range teams {
				for j := range teams[i] {
					if got[i][j].Sigma >= teams[i][j].Sigma {
						t.Fatalf("%s game %d: sigma of team %d player %d did not shrink: %v → %v", model, g, i, j, teams[i][j].Sigma, got[i][j].Sigma)
					}
				}
			}
			if n == 2 {
				for j := range teams[0] {
					if got[0][j].Mu <= teams[0][j].Mu {
						t.Fatalf("%s game %d: a winner's mean fell", model, g)
					}
				}
				for j := range teams[1] {
					if got[1][j].Mu >= teams[1][j].Mu {
						t.Fatalf("%s game %d: a loser's mean rose", model, g)
					}
				}
			}
			// The same result with the teams listed last-to-first.
			rev := make([][]Skill, n)
			ranks := make([]int, n)
			for i := range teams {
				rev[n-1-i] = teams[i]
				ranks[n-1-i] = i
			}
			back, err := w.Rate(rev, ranks)
			if err != nil {
				t.Fatal(err)
			}
			for i := range teams {
				for j := range teams[i] {
					if !near(back[n-1-i][j].Mu, got[i][j].Mu, 1e-9) || !near(back[n-1-i][j].Sigma, got[i][j].Sigma, 1e-9) {
						t.Fatalf("%s game %d: ranks out of order changed the result", model, g)
					}
				}
			}
		}
		equal := [][]Skill{{{25, 8}}, {{25, 8}}}
		tie, err := w.Rate(equal, []int{1, 1})
		if err != nil {
			t.Fatal(err)
		}
		if !near(tie[0][0].Mu, 25, 1e-9) || !near(tie[1][0].Mu, 25, 1e-9) {
			t.Errorf("%s: a tie between equals moved the means: %+v", model, tie)
		}
	}
}

// TestUncertaintyShrinksWithGames: a player who keeps playing converges;
// his deviation falls game after game in both systems.
func TestUncertaintyShrinksWithGames(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	w := WengLin{}
	me := w.New()
	g := NewGlicko2()
	for i := range 50 {
		opp := Skill{Mu: 20 + 10*rng.Float64(), Sigma: 3}
		ranks := []int{0, 1}
		if rng.IntN(2) == 0 {
			ranks = []int{1, 0}
		}
		out, err := w.Rate([][]Skill{{me}, {opp}}, ranks)
		if err != nil {
			t.Fatal(err)
		}
		if out[0][0].Sigma >= me.Sigma {
			t.Fatalf("game %d: sigma %v did not fall below %v", i, out[0][0].Sigma, me.Sigma)
		}
		me = out[0][0]
		next, err := Glicko2Config{}.Period(g, []Game{{Opponent: Glicko2{R: 1400 + 200*rng.Float64(), RD: 60, Sigma: 0.06}, Score: float64(rng.IntN(2))}})
		if err != nil {
			t.Fatal(err)
		}
		if next.RD >= g.RD {
			t.Fatalf("game %d: Glicko-2 RD %v did not fall below %v", i, next.RD, g.RD)
		}
		g = next
	}
}

func TestWengLinRefusesBadInput(t *testing.T) {
	ok := Skill{25, 8}
	for _, tc := range []struct {
		name  string
		w     WengLin
		teams [][]Skill
		ranks []int
		want  string
	}{
		{"one team", WengLin{}, [][]Skill{{ok}}, nil, "teams:"},
		{"empty team", WengLin{}, [][]Skill{{ok}, {}}, nil, "teams[1]"},
		{"bad sigma", WengLin{}, [][]Skill{{ok}, {{25, 0}}}, nil, "teams[1][0]"},
		{"ranks count", WengLin{}, [][]Skill{{ok}, {ok}}, []int{0}, "ranks:"},
		{"unknown model", WengLin{Model: "elo"}, [][]Skill{{ok}, {ok}}, nil, "model:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.w.Rate(tc.teams, tc.ranks)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want one starting %q", err, tc.want)
			}
		})
	}
}
