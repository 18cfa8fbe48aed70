package sim

import (
	"slices"
	"strconv"
	"testing"

	"github.com/cupid-match/cupid"
)

// solo makes a waiting one-player party of skill mmr that arrived at sec.
func solo(id string, mmr float64, sec int64) *party {
	pt := &party{t: &cupid.Ticket{ID: id, Players: []cupid.Player{{ID: id, Attributes: cupid.Attributes{{Name: "mmr", Value: cupid.Number(mmr)}}}}},
		arrived: sec * 1e9, size: 1}
	pt.skillOf("mmr")
	return pt
}

// drain steps a baseline at now and returns its matches as ticket ids,
// team by team, marking the matched parties as the run does.
func drain(p pool, now int64) [][]string {
	var out [][]string
	p.step(now*1e9, func(f *formed) {
		var ids []string
		for _, team := range f.teams {
			for _, pt := range team {
				ids = append(ids, pt.t.ID)
				pt.state = matched
			}
			ids = append(ids, "|")
		}
		out = append(out, ids)
	})
	return out
}

// TestFIFOMatchesInArrivalOrder: the oldest tickets play together whatever
// their skill, a party goes to the first team with room, and nothing
// forms before the oldest has waited the hold.
func TestFIFOMatchesInArrivalOrder(t *testing.T) {
	b := &fifoPool{l: layout{teams: 2, size: 2}, hold: 10e9}
	duo := solo("duo", 1500, 1)
	duo.size = 2
	for _, pt := range []*party{solo("a", 100, 0), duo, solo("b", 2900, 2), solo("c", 1500, 3), solo("d", 1500, 4)} {
		if err := b.add(pt); err != nil {
			t.Fatal(err)
		}
	}
	if got := drain(b, 9); got != nil {
		t.Errorf("before the hold: %v", got)
	}
	if w, ok := b.nextWake(9e9); !ok || w != 10e9 {
		t.Errorf("next wake %v %v, want 10 s", w, ok)
	}
	got := drain(b, 10)
	want := [][]string{{"a", "b", "|", "duo", "|"}}
	if len(got) != 1 || !slices.Equal(got[0], want[0]) {
		t.Errorf("got %v, want %v", got, want)
	}
	big := solo("big", 1500, 5)
	big.size = 3
	if err := b.add(big); err == nil {
		t.Error("a party of 3 was accepted into teams of 2")
	}
}

// TestGreedyTakesTheNearestInSkill: the oldest ticket plays the tickets
// nearest to it in skill, and the teams are balanced.
func TestGreedyTakesTheNearestInSkill(t *testing.T) {
	b := &greedyPool{l: layout{teams: 2, size: 2}}
	skills := []float64{1500, 900, 1550, 2400, 1420, 1480, 1000}
	for i, s := range skills {
		if err := b.add(solo("p"+strconv.Itoa(i), s, int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	got := drain(b, 10)
	if len(got) != 1 {
		t.Fatalf("%d matches, want 1 (the other three cannot fill one)", len(got))
	}
	// p0 (1500) takes p5 (1480), p2 (1550) and p4 (1420); the balanced
	// split puts 1550 with 1420 and 1500 with 1480.
	want := []string{"p2", "p4", "|", "p0", "p5", "|"}
	if !slices.Equal(got[0], want) {
		t.Errorf("got %v, want %v", got[0], want)
	}
}
