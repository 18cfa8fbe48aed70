package rating

import (
	"slices"
	"strings"
	"testing"
)

func TestPlacesFor(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sides []Side
		side  int
		left  bool
		want  []int
	}{
		{"no leaver: the places as reported", []Side{{1, []bool{false}}, {2, []bool{false}}}, 1, false, []int{1, 2}},
		{"the winner who left sees himself last", []Side{{1, []bool{true}}, {2, []bool{false}}}, 0, true, []int{7, 2}},
		{"his opponent sees him below", []Side{{1, []bool{true}}, {2, []bool{false}}}, 1, false, []int{4, 2}},
		{"a teammate who stayed keeps the place", []Side{{1, []bool{false, true}}, {2, []bool{false, false}}}, 0, false, []int{1, 2}},
		{"sides with leavers keep their order below the others",
			[]Side{{1, []bool{true}}, {2, []bool{true}}, {3, []bool{false}}, {3, []bool{false}}}, 2, false, []int{5, 6, 3, 3}},
		{"a leaver is below other sides with leavers", []Side{{1, []bool{true}}, {2, []bool{true}}}, 0, true, []int{7, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PlacesFor(tc.sides, tc.side, tc.left); !slices.Equal(got, tc.want) {
				t.Fatalf("PlacesFor = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestScore(t *testing.T) {
	for _, tc := range []struct {
		places []int
		side   int
		want   float64
	}{
		{[]int{1, 2}, 0, 1},
		{[]int{1, 2}, 1, 0},
		{[]int{1, 1}, 0, 0.5},
		{[]int{2, 1, 3}, 0, 0.5},
		{[]int{1, 2, 2, 4}, 1, 0.5},
		{[]int{1}, 0, 0.5},
	} {
		if got := Score(tc.places, tc.side); got != tc.want {
			t.Errorf("Score(%v, %d) = %v, want %v", tc.places, tc.side, got, tc.want)
		}
	}
}

// TestLeaversAgreeAcrossModels rates games with leavers, every player new,
// in Plackett-Luce, Bradley-Terry and Glicko-2, and checks that the three
// agree on who gains and who loses: the rule is PlacesFor's, not a
// model's.
func TestLeaversAgreeAcrossModels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		places []int
		left   [][]bool
		gains  [][]int // per player: +1 his rating rises, -1 it falls, 0 either (a middle place)
		scores [][]float64
	}{
		{"1v1, nobody left", []int{1, 2}, [][]bool{{false}, {false}}, [][]int{{1}, {-1}}, [][]float64{{1}, {0}}},
		{"1v1, the winner left", []int{1, 2}, [][]bool{{true}, {false}}, [][]int{{-1}, {1}}, [][]float64{{0}, {1}}},
		{"1v1, the loser left", []int{1, 2}, [][]bool{{false}, {true}}, [][]int{{1}, {-1}}, [][]float64{{1}, {0}}},
		{"1v1, both left", []int{1, 2}, [][]bool{{true}, {true}}, [][]int{{-1}, {-1}}, [][]float64{{0}, {0}}},
		{"2v2, a winner left", []int{1, 2}, [][]bool{{false, true}, {false, false}},
			[][]int{{1, -1}, {1, 1}}, [][]float64{{1, 0}, {1, 1}}},
		{"2v2, a loser left", []int{1, 2}, [][]bool{{false, false}, {true, false}},
			[][]int{{1, 1}, {-1, -1}}, [][]float64{{1, 1}, {0, 0}}},
		{"free-for-all, the first left", []int{1, 2, 3}, [][]bool{{true}, {false}, {false}},
			[][]int{{-1}, {1}, {0}}, [][]float64{{0}, {1}, {0.5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sides := make([]Side, len(tc.places))
			skills := make([][]Skill, len(tc.places))
			glickos := make([][]Glicko2, len(tc.places))
			for i := range sides {
				sides[i] = Side{Place: tc.places[i], Left: tc.left[i]}
				for range tc.left[i] {
					skills[i] = append(skills[i], WengLin{}.New())
					glickos[i] = append(glickos[i], NewGlicko2())
				}
			}
			check := func(model string, i, j int, before, after float64, r Rated) {
				t.Helper()
				if want := tc.gains[i][j]; (want > 0 && after <= before) || (want < 0 && after >= before) {
					t.Errorf("%s: side %d player %d went from %.3f to %.3f, want a change of sign %d", model, i, j, before, after, want)
				}
				if r.Score != tc.scores[i][j] {
					t.Errorf("%s: side %d player %d scored %v, want %v", model, i, j, r.Score, tc.scores[i][j])
				}
			}
			for _, m := range []Model{PlackettLuce, BradleyTerry} {
				out, rated, err := WengLin{Model: m}.RateSides(skills, sides)
				if err != nil {
					t.Fatal(err)
				}
				for i := range out {
					for j := range out[i] {
						check(string(m), i, j, skills[i][j].Mu, out[i][j].Mu, rated[i][j])
					}
				}
			}
			out, rated, err := Glicko2Config{}.RateSides(glickos, sides)
			if err != nil {
				t.Fatal(err)
			}
			for i := range out {
				for j := range out[i] {
					check("glicko2", i, j, glickos[i][j].R, out[i][j].R, rated[i][j])
				}
			}
		})
	}
}

// TestRateSidesWithoutLeaversIsRate: with nobody leaving, RateSides is
// one Rate of the reported places.
func TestRateSidesWithoutLeaversIsRate(t *testing.T) {
	teams := [][]Skill{{{30, 4}, {22, 6}}, {{25, 3}, {27, 5}}, {{20, 8}, {31, 2}}}
	places := []int{2, 1, 2}
	sides := []Side{{2, []bool{false, false}}, {1, []bool{false, false}}, {2, []bool{false, false}}}
	for _, m := range []Model{PlackettLuce, BradleyTerry} {
		w := WengLin{Model: m}
		want, _ := w.Rate(teams, places)
		got, rated, err := w.RateSides(teams, sides)
		if err != nil {
			t.Fatal(err)
		}
		exp := w.Expected(teams)
		for i := range want {
			for j := range want[i] {
				if got[i][j] != want[i][j] || rated[i][j].Expected != exp[i] || rated[i][j].Score != Score(places, i) {
					t.Fatalf("%s: side %d player %d: %+v %+v, want %+v", m, i, j, got[i][j], rated[i][j], want[i][j])
				}
			}
		}
	}
}

func TestRateSidesRefusesBadInput(t *testing.T) {
	ok := Skill{25, 8}
	for _, tc := range []struct {
		name  string
		teams [][]Skill
		sides []Side
		want  string
	}{
		{"one side", [][]Skill{{ok}}, []Side{{1, []bool{false}}}, "teams:"},
		{"sides count", [][]Skill{{ok}, {ok}}, []Side{{1, []bool{false}}}, "sides:"},
		{"marks count", [][]Skill{{ok}, {ok, ok}}, []Side{{1, []bool{false}}, {2, []bool{false}}}, "sides[1].left"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := (WengLin{}).RateSides(tc.teams, tc.sides); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Weng-Lin: error %v, want one starting %q", err, tc.want)
			}
			g := make([][]Glicko2, len(tc.teams))
			for i := range tc.teams {
				for range tc.teams[i] {
					g[i] = append(g[i], NewGlicko2())
				}
			}
			if _, _, err := (Glicko2Config{}).RateSides(g, tc.sides); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Glicko-2: error %v, want one starting %q", err, tc.want)
			}
		})
	}
}
