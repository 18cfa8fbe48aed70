package importer

import (
	"slices"
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

// TestFlexMatchExplicitSortOrder: FlexMatch's explicit sorting example sorts
// the candidates by how close their skill is to the anchor's (distanceSort,
// the first sort rule), then by experience, most first (absoluteSort). The
// anchor is the oldest ticket, skill 50; two players nearest its skill come
// first, then of the four at distance 5 the three most experienced. The
// older players far from its skill (c, g) and the least experienced at
// distance 5 (f) wait, though oldest first would have taken them.
func TestFlexMatchExplicitSortOrder(t *testing.T) {
	p := imported(t, "flexmatch", "explicit_sort.json")
	pl := func(id string, created, skill, exp float64) player {
		return player{id: id, created: created, attrs: map[string]cupid.Value{"skill": num(skill), "experience": num(exp)}}
	}
	addAll(t, p,
		pl("anchor", 0, 50, 20),
		pl("c", 1, 90, 40),
		pl("g", 2, 10, 40),
		pl("f", 3, 45, 12),
		pl("d", 4, 55, 20),
		pl("e", 5, 45, 30),
		pl("h", 6, 55, 25),
		pl("a", 7, 52, 20),
		pl("b", 8, 49, 20),
	)
	got := teamsOf(p.Step(at(1)))
	if len(got) != 1 {
		t.Fatalf("matches = %v, want one", got)
	}
	var ids []string
	for _, team := range got[0] {
		ids = append(ids, team...)
	}
	if want := "a anchor b d e h"; strings.Join(sorted(ids), " ") != want {
		t.Errorf("match = %v, want %s", got[0], want)
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }
