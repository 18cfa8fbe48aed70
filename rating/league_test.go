package rating

import (
	"math"
	"strings"
	"testing"
)

var ladder = League{Margin: 25, Divisions: []Division{
	{Name: "bronze"}, {Name: "silver", Min: 1400}, {Name: "gold", Min: 1700}, {Name: "platinum", Min: 2000},
}}

func TestLeaguePlacesWithHysteresis(t *testing.T) {
	for _, tc := range []struct {
		name string
		cur  int
		r    float64
		want int
	}{
		{"stays below the next floor plus margin", 0, 1424, 0},
		{"promoted at the next floor plus margin", 0, 1425, 1},
		{"stays just under his own floor", 1, 1376, 1},
		{"demoted below his floor less margin", 1, 1374.9, 0},
		{"a big win skips a division", 0, 1800, 2},
		{"a collapse falls two", 3, 1300, 0},
		{"top division has no ceiling", 3, 5000, 3},
		{"a division out of range is clamped first", 9, 1500, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ladder.Place(tc.cur, tc.r); got != tc.want {
				t.Fatalf("Place(%d, %v) = %s, want %s", tc.cur, tc.r, ladder.Divisions[got].Name, ladder.Divisions[tc.want].Name)
			}
		})
	}
	if got := ladder.Initial(1699); got != 1 {
		t.Errorf("Initial(1699) = %d, want silver", got)
	}
	// Bouncing around a floor never flips the division each game.
	cur, changes := 1, 0
	for i := range 100 {
		r := 1700 + 20*math.Sin(float64(i))
		if next := ladder.Place(cur, r); next != cur {
			changes++
			cur = next
		}
	}
	if changes != 0 {
		t.Errorf("a rating within the margin of a floor changed division %d times", changes)
	}
}

func TestLeagueValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    League
		want string
	}{
		{"empty", League{}, "divisions:"},
		{"nameless", League{Divisions: []Division{{Name: "a"}, {Min: 1}}}, "divisions[1].name"},
		{"twice", League{Divisions: []Division{{Name: "a"}, {Name: "a", Min: 1}}}, "divisions[1].name"},
		{"out of order", League{Divisions: []Division{{Name: "a"}, {Name: "b", Min: 10}, {Name: "c", Min: 5}}}, "divisions[2].min"},
		{"margin too wide", League{Margin: 10, Divisions: []Division{{Name: "a"}, {Name: "b", Min: 10}, {Name: "c", Min: 25}}}, "divisions[2].min"},
		{"negative margin", League{Margin: -1, Divisions: []Division{{Name: "a"}}}, "margin:"},
		{"NaN floor", League{Divisions: []Division{{Name: "a"}, {Name: "b", Min: math.NaN()}}}, "divisions[1].min"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.l.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
	if err := ladder.Validate(); err != nil {
		t.Fatalf("a good ladder refused: %v", err)
	}
}

func games(pattern string) []Outcome {
	out := make([]Outcome, len(pattern))
	for i, c := range pattern {
		switch c {
		case 'W':
			out[i] = Outcome{Expected: 0.5, Score: 1}
		case 'D':
			out[i] = Outcome{Expected: 0.5, Score: 0.5}
		case 'L':
			out[i] = Outcome{Expected: 0.5, Score: 0}
		}
	}
	return out
}

func TestFairPlayFlags(t *testing.T) {
	f := FairPlay{StreakEase: 100}
	for _, tc := range []struct {
		name       string
		recent     string
		lossesDay  int
		leagueDay  float64
		tank, smrf bool
		ease       float64
	}{
		{"an ordinary player", "WLWLWLDWLW", 3, 4, false, false, 0},
		{"loses many more than his league", "LLLLLLLLLLLLW", 13, 4, true, false, 0},
		{"loses many but so does his league", "WLWLWLWLWL", 13, 5, false, false, 0},
		{"too few losses to judge", "", 9, 1, false, false, 0},
		{"wins 16 of 20 called even", "WWWWLWWWWLWWWWLWWWWL", 0, 4, false, true, 0},
		{"wins 14 of 20 called even", "WWWLWWLWWLWWLWWLWWLW", 0, 4, false, false, 0},
		{"five losses in a row", "WLLLLL", 5, 4, false, false, 100},
		{"two games after the streak", "LLLLLDD", 5, 4, false, false, 100},
		{"three games after the streak", "LLLLLDDD", 5, 4, false, false, 0},
		{"a win ends the ease", "LLLLLW", 5, 4, false, false, 0},
		{"four losses are not a streak", "WLLLL", 4, 4, false, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := f.Check(games(tc.recent), tc.lossesDay, tc.leagueDay)
			if got.Tanking != tc.tank || got.Smurf != tc.smrf || got.Ease != tc.ease {
				t.Fatalf("got %+v, want tanking %v smurf %v ease %v", got, tc.tank, tc.smrf, tc.ease)
			}
			if (got.Tanking || got.Smurf || got.Ease > 0) != (len(got.Why) > 0) {
				t.Fatalf("flags %+v without (or with needless) reasons", got)
			}
		})
	}
	if got := (FairPlay{}).Check(games("LLLLLL"), 0, 0); got.Ease != 0 {
		t.Errorf("ease with StreakEase unset: %v, want off", got.Ease)
	}
}
