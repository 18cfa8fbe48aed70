package dashboard

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/opponent"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/service/pairingsvc"
)

func TestLabelWords(t *testing.T) {
	for _, c := range []struct {
		b    opponent.BucketStats
		want string
	}{
		{opponent.BucketStats{Key: "mmr=3", MMRLow: 1500, MMRHigh: 1750}, "MMR 1500 to 1750"},
		{opponent.BucketStats{Key: `mmr=0|arena="forest"|league=2`, MMRLow: 0, MMRHigh: 333.333}, `MMR 0 to 333.33, arena "forest", league 2`},
		{opponent.BucketStats{Key: `mmr=1|mode=*`, MMRLow: 10, MMRHigh: 20}, "MMR 10 to 20, mode any"},
		{opponent.BucketStats{Key: "odd"}, "odd"},
	} {
		if got := labelWords(c.b); got != c.want {
			t.Errorf("%s: got %q, want %q", c.b.Key, got, c.want)
		}
	}
}

func TestWhyWords(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	e := &engine.Explanation{
		Summary: "No one close enough in mmr yet.", Considered: 3, Compatible: 0, PlayersAvailable: 1, PlayersNeeded: 2, PlayersMinimum: 2,
		Blocks:         []engine.Block{{Rule: "matching_rule[0] mmr", Removed: 3, Nearest: "mmr distance 340 > 100 allowed"}},
		NextRelaxation: now.Add(4 * time.Second), NextAdds: 1, Relaxes: []string{"mmr distance 100 → 300"},
	}
	got := whyWords(e, now)
	want := []string{
		"No one close enough in mmr yet.",
		"Of 3 waiting tickets looked at, 0 tickets could play with it: 1 of the 2 players a match needs are here (at least 2 with a smaller match).",
		"The rule matching_rule[0] mmr turned away 3 tickets; the nearest: mmr distance 340 > 100 allowed.",
		"Its rules relax in 4s (mmr distance 100 → 300), letting 1 ticket more in.",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	e.NextRelaxation = time.Time{}
	if got := whyWords(e, now); got[len(got)-1] != "Its rules do not relax any further." {
		t.Fatalf("without relaxation: %q", got[len(got)-1])
	}
}

// TestEventStatusSaysWhyNoRoundStarts: an idle event says whether it waits
// for people or has nobody who may meet, and a paused one says it is
// paused, whatever its phase.
func TestEventStatusSaysWhyNoRoundStarts(t *testing.T) {
	tests := []struct {
		name string
		v    pairingsvc.EventView
		want string
	}{
		{"waiting for people", pairingsvc.EventView{Phase: pairing.PhaseIdle}, "idle: waiting for the lobby to fill"},
		{"nobody can pair", pairingsvc.EventView{Phase: pairing.PhaseIdle, Stale: true}, "idle: nobody in the lobby can be paired (they have all met); waiting for someone new"},
		{"paused with nobody to pair", pairingsvc.EventView{Phase: pairing.PhaseIdle, Stale: true, Paused: true},
			"paused (every timer stopped); idle: nobody in the lobby can be paired (they have all met); waiting for someone new"},
		{"paused in a round", pairingsvc.EventView{Phase: pairing.PhaseRound, Paused: true}, "paused (every timer stopped); round on"},
		{"counting down", pairingsvc.EventView{Phase: pairing.PhaseCountdown}, "counting down to the next round"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eventStatus(&tt.v); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
