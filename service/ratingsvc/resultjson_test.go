package ratingsvc

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/cupid-match/cupid/rating"
)

// The hand-written result is byte for byte what encoding/json writes for
// the same storedResult, so results stored before and after read alike.
func TestResultJSONIsEncodingJSONs(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 30, 0, 120000000, time.UTC)
	odd := "a\"b\\c\n\r\t\b\f\x01<>&\u2028\u2029é\xff😀"
	for _, c := range []struct {
		name   string
		digest string
		report Report
		out    Outcome
	}{
		{"5v5", "ab12", Report{MatchID: "m1", TeamPlaces: []int{1, 2}}, Outcome{MatchID: "m1", Rating: "ranked", At: at, Players: []PlayerChange{
			{Player: "alice", Team: 0, Place: 1, Score: 1, Expected: 0.48712345678901234, Before: 1.25, After: 2.5000000001, Skill: &rating.Skill{Mu: 26.1, Sigma: 8.01}},
			{Player: "bob", Team: 1, Place: 2, Score: 0, Expected: 0.6, Leaver: true, Before: -10, After: -12.75, Skill: &rating.Skill{Mu: 20, Sigma: 5},
				LeagueBefore: "gold", LeagueAfter: "silver", DivisionBefore: 2, DivisionAfter: 1, Flags: rating.Flags{Tanking: true, Smurf: true, Ease: 2, Why: []string{"left", odd}}},
		}}},
		{"no digest, Glicko-2, odd numbers and names", "", Report{MatchID: odd, PlayerPlaces: map[string]int{"x": 1, "y": 2}, Leavers: []string{"y"}},
			Outcome{MatchID: odd, Rating: odd, At: at.Add(time.Nanosecond), Players: []PlayerChange{
				{Player: odd, Place: 1, Score: 1e-7, Expected: 1e21, Before: 123456789012345678, After: math.Copysign(0, -1), Pending: 2,
					Glicko: &rating.Glicko2{R: 1500, RD: 3.5e-9, Sigma: 0.06}, Flags: rating.Flags{Smurf: true}},
				{Player: "z", Flags: rating.Flags{Ease: 0.1}},
			}}},
		{"no players", "d", Report{MatchID: "m"}, Outcome{MatchID: "m", Rating: "r", At: at}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, report, err := digestJSON(c.report)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendResultJSON(nil, c.digest, report, &c.out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(storedResult{Digest: c.digest, Report: c.report, Outcome: c.out})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("wrote\n%s\nencoding/json writes\n%s", got, want)
			}
		})
	}
	for _, ch := range []PlayerChange{{Player: "x", Score: math.NaN()}, {Player: "x", Skill: &rating.Skill{Mu: math.Inf(1)}}, {Player: "x", Glicko: &rating.Glicko2{RD: math.NaN()}}} {
		if _, err := appendChangeJSON(nil, &ch); err == nil {
			t.Errorf("%+v encoded, want an error", ch)
		}
	}
}
