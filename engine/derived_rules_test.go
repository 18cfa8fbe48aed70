package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The rules that compile to generated filters (ruleset/derived.go):
// team_sizes, collection rules that count players, compound rules. These
// tests run them through the engine on tickets whose outcome the rule states.

// stepAll steps the pool at sec and returns the matches formed.
func stepAll(t *testing.T, p *Pool, sec float64) []string {
	t.Helper()
	return matchIDs(p.Step(at(sec)))
}

func TestTeamSizesEqual(t *testing.T) {
	// docs/rulesets.md: two teams of 4 to 8 players; nine players waiting
	// with team_sizes "equal" make 4v4 and one waits (without it, 5v4).
	for _, tc := range []struct {
		policy string
		sizes  [2]int
	}{
		{`"equal"`, [2]int{4, 4}},
		{`"within_one"`, [2]int{4, 5}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 4, "player_max_number": 8},
				"team_sizes": `+tc.policy+`}`)
			for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
				ticket(id, 0).add(t, p)
			}
			got := stepAll(t, p, 1)
			if len(got) != 1 {
				t.Fatalf("matches = %v, want one", got)
			}
			var sizes []int
			for _, team := range strings.Split(got[0], "|") {
				sizes = append(sizes, strings.Count(team, "+")+1)
			}
			slices.Sort(sizes)
			if !slices.Equal(sizes, tc.sizes[:]) {
				t.Errorf("match %s: team sizes %v, want %v", got[0], sizes, tc.sizes)
			}
		})
	}
}

func TestContainsMaxCount(t *testing.T) {
	// One team of four, at most one medic: three medics and three others
	// can only form a match with one medic in it.
	const rules = `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 4, "player_max_number": 4},
		"collection_rule": [{"attribute": "character", "operation": "contains", "value": "medic", "max_count": 1}]}`
	p := newPool(t, rules)
	for _, id := range []string{"m1", "m2", "m3"} {
		ticket(id, 0).str("character", "medic").add(t, p)
	}
	for _, id := range []string{"x1", "x2", "x3"} {
		ticket(id, 0).list("character", "sniper", "scout").add(t, p)
	}
	got := stepAll(t, p, 1)
	if len(got) != 1 {
		t.Fatalf("matches = %v, want one", got)
	}
	if n := strings.Count(got[0], "m"); n != 1 {
		t.Errorf("match %s has %d medics, want 1", got[0], n)
	}
}

func TestContainsMinCountPerTeam(t *testing.T) {
	// Every team of two needs a medic; two medics and two others give
	// medic+other against medic+other, never the medics together.
	const rules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
		"collection_rule": [{"attribute": "character", "operation": "contains", "value": "medic", "min_count": 1, "scope": "team"}]}`
	p := newPool(t, rules)
	ticket("m1", 0).str("character", "medic").add(t, p)
	ticket("m2", 0).str("character", "medic").add(t, p)
	ticket("x1", 0).str("character", "tank").add(t, p)
	ticket("x2", 0).str("character", "tank").add(t, p)
	got := stepAll(t, p, 1)
	if len(got) != 1 {
		t.Fatalf("matches = %v, want one", got)
	}
	for _, team := range strings.Split(got[0], "|") {
		if strings.Count(team, "m") != 1 {
			t.Errorf("match %s: team %s does not have exactly one medic", got[0], team)
		}
	}
}

func TestPlayerIDsBlockList(t *testing.T) {
	// 1v1: a blocks b's player. a and b never meet, whichever anchors;
	// a meets c.
	const rules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"collection_rule": [{"attribute": "blocked", "operation": "player_ids", "max_count": 0}]}`
	p := newPool(t, rules)
	ticket("a", 0).list("blocked", "b.p0").add(t, p)
	ticket("b", 1).list("blocked").add(t, p)
	if got := stepAll(t, p, 2); len(got) != 0 {
		t.Fatalf("a blocked b, yet %v", got)
	}
	ticket("c", 3).list("blocked").add(t, p)
	got := stepAll(t, p, 4)
	if len(got) != 1 || got[0] == "a|b" || got[0] == "b|a" {
		t.Fatalf("matches = %v, want a or b with c", got)
	}
}

func TestPlayerIDsMinCount(t *testing.T) {
	// A match of three needs someone named in a "friends" list.
	const rules = `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 3},
		"collection_rule": [{"attribute": "friends", "operation": "player_ids", "min_count": 1}]}`
	p := newPool(t, rules)
	ticket("a", 0).list("friends").add(t, p)
	ticket("b", 0).list("friends").add(t, p)
	ticket("c", 0).list("friends").add(t, p)
	if got := stepAll(t, p, 1); len(got) != 0 {
		t.Fatalf("nobody is anybody's friend, yet %v", got)
	}
	p2 := newPool(t, rules)
	ticket("a", 0).list("friends", "c.p0").add(t, p2)
	ticket("b", 0).list("friends").add(t, p2)
	ticket("c", 0).list("friends").add(t, p2)
	if got := stepAll(t, p2, 1); !slices.Equal(got, []string{"a+b+c"}) {
		t.Fatalf("matches = %v, want a+b+c", got)
	}
}

func TestCompoundOr(t *testing.T) {
	// 1v1: a pair matches when skills are close OR the maps agree.
	const rules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"filter": [
			{"name": "close", "expr": "abs(ticket.attr.skill - candidate.attr.skill) <= 10"},
			{"name": "same_map", "expr": "ticket.players[0].map == candidate.players[0].map"}
		],
		"compound_rule": [{"name": "close_or_same_map", "statement": "or(close, same_map)"}]}`
	for _, tc := range []struct {
		name       string
		skillB     float64
		mapA, mapB string
		match      bool
	}{
		{"close, other map", 105, "x", "y", true},
		{"far, same map", 500, "x", "x", true},
		{"far, other map", 500, "x", "y", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, rules)
			ticket("a", 0).num("skill", 100).str("map", tc.mapA).add(t, p)
			ticket("b", 0).num("skill", tc.skillB).str("map", tc.mapB).add(t, p)
			if got := stepAll(t, p, 1); (len(got) == 1) != tc.match {
				t.Errorf("matches = %v, want match %v", got, tc.match)
			}
		})
	}
}

func TestCompoundDisableAfter(t *testing.T) {
	// not(same_map) for the first 30 s: different maps only, then anyone.
	const rules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"filter": [{"name": "same_map", "expr": "ticket.players[0].map == candidate.players[0].map"}],
		"compound_rule": [{"name": "new_map", "statement": "not(same_map)", "disable_after": 30}]}`
	p := newPool(t, rules)
	ticket("a", 0).str("map", "x").add(t, p)
	ticket("b", 0).str("map", "x").add(t, p)
	if got := stepAll(t, p, 29); len(got) != 0 {
		t.Fatalf("at 29 s: %v, want none", got)
	}
	if got := stepAll(t, p, 30); len(got) != 1 {
		t.Fatalf("at 30 s: %v, want a|b", got)
	}
}

func TestAttributeDefaults(t *testing.T) {
	// skill defaults to 10: a ticket without it is accepted and matches a
	// skill of 15 within 10, not one of 30. A ticket's own value wins.
	const rules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"attribute_defaults": [{"name": "skill", "value": 10}, {"name": "maps", "value": ["dust"]}],
		"matching_rule": [{"attribute": "skill", "criteria": "distance", "reference": 10}],
		"collection_rule": [{"attribute": "maps", "operation": "intersection"}]}`
	p := newPool(t, rules)
	bare := ticket("bare", 0).t
	if err := p.Check(bare); err != nil {
		t.Fatalf("Check refuses a ticket the defaults complete: %v", err)
	}
	if len(bare.Players[0].Attributes) != 0 {
		t.Fatalf("Check modified the caller's ticket: %v", bare.Players[0].Attributes)
	}
	ticket("bare", 0).add(t, p)
	ticket("far", 0).num("skill", 30).add(t, p)
	if got := stepAll(t, p, 1); len(got) != 0 {
		t.Fatalf("default 10 vs 30 matched: %v", got)
	}
	ticket("near", 0).num("skill", 15).list("maps", "dust", "inferno").add(t, p)
	got := stepAll(t, p, 2)
	if len(got) != 1 || !strings.Contains(got[0], "bare") || !strings.Contains(got[0], "near") {
		t.Fatalf("matches = %v, want bare with near", got)
	}
	// An explicit value is not overridden: far keeps 30 and waits.
	ticket("other", 0).num("skill", 28).list("maps", "dust").add(t, p)
	if got := stepAll(t, p, 3); len(got) != 1 || !strings.Contains(got[0], "far") {
		t.Fatalf("matches = %v, want far with other", got)
	}
}

func TestContainsMaxCountSmallerMatch(t *testing.T) {
	// One team of 3 to 4, at most one medic: two medics and two others
	// cannot make four, but the group search leaves the second medic out
	// and three form a match.
	const rules = `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 4},
		"collection_rule": [{"attribute": "character", "operation": "contains", "value": "medic", "max_count": 1}]}`
	p := newPool(t, rules)
	ticket("m1", 0).str("character", "medic").add(t, p)
	ticket("m2", 0).str("character", "medic").add(t, p)
	ticket("x1", 0).str("character", "tank").add(t, p)
	ticket("x2", 0).str("character", "tank").add(t, p)
	got := stepAll(t, p, 1)
	if len(got) != 1 || strings.Count(got[0], "m") != 1 || strings.Count(got[0], "+") != 2 {
		t.Fatalf("matches = %v, want one medic and the two others", got)
	}
}

func TestMatchingRulePartyAggregate(t *testing.T) {
	// A party of 1000 and 1400 against a solo 1050, within 100: by the
	// average (1200) they are 150 apart, by the party's minimum 50.
	for _, tc := range []struct {
		agg   string
		match bool
	}{{"", false}, {`, "party_aggregate": "avg"`, false}, {`, "party_aggregate": "min"`, true}, {`, "party_aggregate": "max"`, false}} {
		p := newPool(t, `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 3},
			"matching_rule": [{"attribute": "mmr", "criteria": "spread", "reference": 100`+tc.agg+`}]}`)
		ticket("duo", 0).party(2).num("mmr", 1000, 1400).add(t, p)
		ticket("solo", 0).num("mmr", 1050).add(t, p)
		if got := stepAll(t, p, 1); (len(got) == 1) != tc.match {
			t.Errorf("party_aggregate%s: matches %v, want a match %v", tc.agg, got, tc.match)
		}
	}
}

func TestLatencySpread(t *testing.T) {
	// Three players, latencies at most 100 ms and within 50 ms of each
	// other. In eu they are 20, 30 and 90 ms apart (a spread of 70); in us
	// 60, 70 and 80 (20): the match is hosted in us, though eu is faster
	// for two of them.
	const rules = `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 3},
		"region_latency_max_ms": 100, "region_latency_spread_ms": 50}`
	p := newPool(t, rules)
	ticket("a", 0).lat("eu", 20, "us", 60).add(t, p)
	ticket("b", 0).lat("eu", 30, "us", 70).add(t, p)
	ticket("c", 0).lat("eu", 90, "us", 80).add(t, p)
	props := p.Step(at(1))
	if len(props) != 1 || props[0].Region != "us" {
		t.Fatalf("matches %v, want a+b+c in us", matchIDs(props))
	}
	// Only eu: c (90 ms) is 70 from a; d (40 ms) takes the place.
	p = newPool(t, rules)
	ticket("a", 0).lat("eu", 20).add(t, p)
	ticket("b", 0).lat("eu", 30).add(t, p)
	ticket("c", 0).lat("eu", 90).add(t, p)
	if got := stepAll(t, p, 1); len(got) != 0 {
		t.Fatalf("a spread of 70 matched: %v", got)
	}
	ticket("d", 1).lat("eu", 40).add(t, p)
	if got := stepAll(t, p, 2); len(got) != 1 || got[0] != "a+b+d" {
		t.Fatalf("matches %v, want a+b+d", got)
	}
}

// TestRegionChoiceFastest: with region_choice "fastest" a ticket plays only
// in the region of its lowest latency, so it is matched with those whose
// fastest region is the same, and hosted there; with the default any
// region both accept will do.
func TestRegionChoiceFastest(t *testing.T) {
	const duel = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"region_latency_max_ms": 200%s}`
	tests := []struct {
		name   string
		choice string
		want   []string // matches, each "a|b@region"
	}{
		// a is fastest in eu, b in us, c in eu: a, the oldest, anchors.
		{"acceptable takes the oldest pair in their best common region", "", []string{"a|b@eu"}},
		{"fastest groups by fastest region", `, "region_choice": "fastest"`, []string{"a|c@eu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPool(t, fmt.Sprintf(duel, tt.choice))
			ticket("a", 0).lat("eu", 20, "us", 30).add(t, p)
			ticket("b", 1).lat("eu", 25, "us", 10).add(t, p)
			ticket("c", 2).lat("eu", 15, "us", 90).add(t, p)
			var got []string
			for _, pr := range p.Step(at(5)) {
				got = append(got, strings.Join(matchIDs([]Proposal{pr}), "")+"@"+pr.Region)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("matches %v, want %v", got, tt.want)
			}
		})
	}
	// Two tickets whose fastest regions differ never meet, though each
	// accepts the other's; a tie goes to the region first by name.
	p := newPool(t, fmt.Sprintf(duel, `, "region_choice": "fastest"`))
	ticket("x", 0).lat("eu", 20, "us", 30).add(t, p)
	ticket("y", 1).lat("eu", 40, "us", 10).add(t, p)
	if got := stepAll(t, p, 60); len(got) != 0 {
		t.Fatalf("tickets of different fastest regions matched: %v", got)
	}
	ticket("z", 2).lat("us", 50, "eu", 50).add(t, p)
	if got := p.Step(at(61)); len(got) != 1 || got[0].Region != "eu" {
		t.Fatalf("x and z (a tie between eu and us) should meet in eu: %v", got)
	}
}
