package engine

import (
	"strings"
	"testing"
)

// Sort rules (sort.go): the anchor, the oldest ticket, fills its match from
// the front of the sorted candidates instead of with the oldest ones.
func TestSortRules(t *testing.T) {
	const threeOfOne = `"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 3}`
	type tk struct {
		id         string
		skill, exp float64
	}
	pool := []tk{
		{"a", 100, 10}, // the anchor: oldest
		{"b", 10, 1},
		{"c", 95, 50},
		{"d", 130, 30},
		{"e", 104, 5},
		{"f", 96, 30},
	}
	for _, tc := range []struct {
		name, rules string
		want        string
	}{
		{"no sort rule: oldest first", ``, "a+b+c"},
		{"absolute descending: most experienced first",
			`, "sort_rule": [{"attribute": "exp", "sort": "absolute", "order": "descending"}]`, "a+c+d"},
		{"absolute ascending: least experienced first",
			`, "sort_rule": [{"attribute": "exp", "sort": "absolute"}]`, "a+b+e"},
		{"distance: nearest the anchor's skill first",
			`, "sort_rule": [{"attribute": "skill", "sort": "distance", "order": "ascending"}]`, "a+e+f"},
		{"distance descending: farthest first",
			`, "sort_rule": [{"attribute": "skill", "sort": "distance", "order": "descending"}]`, "a+b+d"},
		// d and f tie on experience (30); the second rule prefers f,
		// nearer the anchor's skill, over d.
		{"second rule breaks the first one's ties",
			`, "sort_rule": [{"attribute": "exp", "sort": "absolute", "order": "descending"},
			                 {"attribute": "skill", "sort": "distance"}]`, "a+c+f"},
		// A distance rule still refuses: b and d are too far; among the
		// others the most experienced come first.
		{"with a distance rule that refuses",
			`, "matching_rule": [{"attribute": "skill", "criteria": "distance", "reference": 10}],
			   "sort_rule": [{"attribute": "exp", "sort": "absolute", "order": "descending"}]`, "a+c+f"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, `{`+threeOfOne+tc.rules+`}`)
			for i, x := range pool {
				ticket(x.id, float64(i)).num("skill", x.skill).num("exp", x.exp).add(t, p)
			}
			got := stepAll(t, p, 10)
			// The anchor's match comes first; the rest make another.
			if len(got) == 0 || got[0] != tc.want {
				t.Errorf("matches = %v, want %s first", got, tc.want)
			}
		})
	}
}

// A party sorts by its players' aggregate: avg by default, max when asked.
func TestSortRulePartyAggregate(t *testing.T) {
	for _, tc := range []struct{ agg, want string }{
		{``, "a|c"},                           // party b: avg 20 < c's 30
		{`, "party_aggregate": "max"`, "a|b"}, // party b: max 35 > c's 30
	} {
		p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2},
			"sort_rule": [{"attribute": "exp", "sort": "absolute", "order": "descending"`+tc.agg+`}]}`)
		ticket("a", 0).party(2).num("exp", 1, 1).add(t, p)
		ticket("b", 1).party(2).num("exp", 5, 35).add(t, p)
		ticket("c", 2).party(2).num("exp", 30, 30).add(t, p)
		got := strings.Join(stepAll(t, p, 10), " ")
		if got != tc.want && got != reverseTeams(tc.want) {
			t.Errorf("party_aggregate %q: matches = %v, want %s", tc.agg, got, tc.want)
		}
	}
}

func reverseTeams(s string) string {
	parts := strings.Split(s, "|")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, "|")
}
