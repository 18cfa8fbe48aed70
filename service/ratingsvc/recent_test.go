package ratingsvc

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/cupid-match/cupid/rating"
)

func o(expected, score float64) rating.Outcome {
	return rating.Outcome{Expected: expected, Score: score}
}

func TestRecentGamesEncoding(t *testing.T) {
	games := recentGames{{Expected: 0.81292055125681, Score: 1}, {Expected: 0.5, Score: 0.5}, {Expected: 0.12345, Score: 0}}
	b, err := json.Marshal(games)
	if err != nil || string(b) != `[[0.8129,1],[0.5,0.5],[0.1235,0]]` {
		t.Fatalf("encoded %s, %v", b, err)
	}
	for _, c := range []struct {
		name, in string
		want     recentGames
	}{
		{"compact", `[[0.8129,1],[0.5,0.5]]`, recentGames{o(0.8129, 1), o(0.5, 0.5)}},
		{"with spaces", `[ [0.8129, 1], [0.5,0.5] ]`, recentGames{o(0.8129, 1), o(0.5, 0.5)}},
		{"as stored before, objects", `[{"Expected":0.81292055125681,"Score":1},{"Expected":0.5,"Score":0}]`, recentGames{o(0.81292055125681, 1), o(0.5, 0)}},
		{"empty", `[]`, recentGames{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got recentGames
			if err := json.Unmarshal([]byte(c.in), &got); err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("decoded %v, %v; want %v", got, err, c.want)
			}
		})
	}
	for _, bad := range []string{`[[0.5]]`, `[[0.5,"x"]]`, `{"a":1}`, `[[0.5,1]`} {
		var got recentGames
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("%s decoded as %v", bad, got)
		}
	}
	if _, err := json.Marshal(recentGames{{Expected: math.NaN(), Score: 1}}); err == nil {
		t.Error("a NaN was encoded")
	}
	var back recentGames
	if err := json.Unmarshal(b, &back); err != nil || back[0] != (rating.Outcome{Expected: 0.8129, Score: 1}) {
		t.Fatalf("round trip %v, %v", back, err)
	}
}
