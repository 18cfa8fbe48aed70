package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

// Two rule features FlexMatch has: attributes that are maps of numbers (a
// rule reads one key by its path, skills.sword), and a smallest distance
// (min_distance) that flexing lowers.

// skills gives every player of the ticket the map attribute skills.
func (b *tb) skills(m map[string]float64) *tb {
	for i := range b.t.Players {
		b.t.Players[i].Attributes.Set("skills", cupid.Numbers(m))
	}
	return b
}

func TestMapAttributeRules(t *testing.T) {
	sword := func(v float64) map[string]float64 { return map[string]float64{"sword": v, "bow": 1000 - v} }
	teams2v2 := `"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2}`
	for _, tc := range []ruleCase{
		{
			name:    "distance on one key: close swords meet, the bow is not read",
			rules:   `{` + duel + `, "matching_rule": [{"attribute": "skills.sword", "criteria": "distance", "reference": 50}]}`,
			tickets: []*tb{ticket("a", 0).skills(sword(500)), ticket("far", 0).skills(sword(600)), ticket("b", 1).skills(sword(540))},
			steps:   []float64{2},
			want:    []string{"2: a|b"},
		},
		{
			name: "comparison gate on one key",
			rules: `{` + duel + `, "comparison_rule": [{"attribute": "skills.sword", "operator": ">=", "value": 10}],
				"matching_rule": [{"attribute": "skills.bow", "criteria": "distance", "reference": 1000}]}`,
			tickets: []*tb{ticket("a", 1).skills(sword(20)), ticket("b", 2).skills(sword(30))},
			steps:   []float64{3},
			want:    []string{"3: a|b"},
		},
		{
			name: "a party's value of the key is its players' average",
			rules: `{` + teams2v2 + `,
				"matching_rule": [{"attribute": "skills.sword", "criteria": "distance", "reference": 10}]}`,
			tickets: []*tb{
				func() *tb {
					b := ticket("duo", 0).party(2)
					b.t.Players[0].Attributes.Set("skills", cupid.Numbers(sword(100)))
					b.t.Players[1].Attributes.Set("skills", cupid.Numbers(sword(300)))
					return b
				}(),
				ticket("far", 0).party(2).skills(sword(100)),
				ticket("avg", 1).party(2).skills(sword(205)),
			},
			steps: []float64{2},
			want:  []string{"2: duo|avg"},
		},
		{
			name: "team aggregate on one key",
			rules: `{` + teams2v2 + `, "team_rule": [{"attribute": "skills.sword", "aggregate": "avg", "max_difference": 20}],
				"matching_rule": [{"attribute": "skills.sword", "criteria": "distance", "reference": 1000}]}`,
			tickets: []*tb{ticket("a", 0).skills(sword(100)), ticket("b", 0).skills(sword(200)),
				ticket("c", 0).skills(sword(110)), ticket("d", 0).skills(sword(190))},
			steps: []float64{1},
			want:  []string{"1: a+b|c+d"},
		},
		{
			name: "a default for one key fills a map without it",
			rules: `{` + duel + `, "attribute_defaults": [{"name": "skills.axe", "value": 7}],
				"matching_rule": [{"attribute": "skills.axe", "criteria": "distance", "reference": 0}]}`,
			tickets: []*tb{ticket("a", 0).skills(sword(1)), ticket("b", 0).skills(map[string]float64{"axe": 7}),
				ticket("c", 0).skills(map[string]float64{"axe": 8})},
			steps: []float64{1},
			want:  []string{"1: a|b"},
		},
		{
			name: "a default map for a player without the attribute",
			rules: `{` + duel + `, "attribute_defaults": [{"name": "skills", "value": {"sword": 500}}],
				"matching_rule": [{"attribute": "skills.sword", "criteria": "distance", "reference": 0}]}`,
			tickets: []*tb{ticket("none", 0), ticket("other", 0).skills(sword(400)), ticket("same", 1).skills(sword(500))},
			steps:   []float64{2},
			want:    []string{"2: none|same"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

// TestMapAttributeCheck: a ticket a rule cannot read is refused at Check,
// naming the key's path.
func TestMapAttributeCheck(t *testing.T) {
	rules := `{` + duel + `, "matching_rule": [{"attribute": "skills.sword", "criteria": "distance", "reference": 50}],
		"comparison_rule": [{"attribute": "skills.sword", "operator": ">=", "value": 10}]}`
	for _, tc := range []struct {
		name, field, msg string
		b                *tb
	}{
		{"has the key", "", "", ticket("a", 0).skills(map[string]float64{"sword": 10})},
		{"key missing", "players[0].attributes.skills.sword", "required by matching_rule[0]", ticket("a", 0).skills(map[string]float64{"bow": 1})},
		{"no map", "players[0].attributes.skills.sword", "required by matching_rule[0]", ticket("a", 0)},
		{"the map is a number", "players[0].attributes.skills.sword", "required by matching_rule[0]", ticket("a", 0).num("skills", 3)},
		{"an attribute of that exact name is read first", "players[0].attributes.skills.sword", "must be a number",
			ticket("a", 0).skills(map[string]float64{"sword": 10}).str("skills.sword", "x")},
		{"a gate on the key", "players[0].attributes.skills.sword", "5 is not >= 10 even after every relaxation (comparison_rule[0])",
			ticket("a", 0).skills(map[string]float64{"sword": 5})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := newPool(t, rules).Check(tc.b.t)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			ce, ok := asCupidError(err)
			if !ok || ce.Field != tc.field || !strings.Contains(ce.Error(), tc.msg) {
				t.Fatalf("error %v, want %s: %s", err, tc.field, tc.msg)
			}
		})
	}
}

func TestMinDistance(t *testing.T) {
	// Mentor matches: the two players at least 300 apart, at most 1000;
	// after 20 s of the anchor's wait 100 apart will do.
	mentor := `{` + duel + `,
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1000, "min_distance": 300}],
		"flexing_rule": [{"duration": 20, "attribute": "mmr", "criteria": "distance", "reference": 1000, "min_distance": 100}]}`
	for _, tc := range []ruleCase{
		{
			name:    "too close never meet before the step",
			rules:   mentor,
			tickets: []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 0).num("mmr", 1100)},
			steps:   []float64{0, 10, 19.9},
		},
		{
			name:    "far enough meet at once",
			rules:   mentor,
			tickets: []*tb{ticket("a", 0).num("mmr", 1000), ticket("close", 0).num("mmr", 1200), ticket("b", 1).num("mmr", 1400)},
			steps:   []float64{1},
			want:    []string{"1: a|b"},
		},
		{
			name:    "the step that lowers min_distance forms the pair it refused",
			rules:   mentor,
			tickets: []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 5).num("mmr", 1150)},
			steps:   []float64{5, 19.9, 20},
			want:    []string{"20: a|b"},
		},
		{
			name:    "still too close after the step",
			rules:   mentor,
			tickets: []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 0).num("mmr", 1050)},
			steps:   []float64{0, 20, 100},
		},
		{
			name:    "beyond the reference too",
			rules:   mentor,
			tickets: []*tb{ticket("a", 0).num("mmr", 0), ticket("b", 0).num("mmr", 1500)},
			steps:   []float64{0, 30},
		},
		{
			name: "on a map key",
			rules: `{` + duel + `,
				"matching_rule": [{"attribute": "skills.sword", "criteria": "distance", "reference": 1000, "min_distance": 300}]}`,
			tickets: []*tb{ticket("a", 0).skills(map[string]float64{"sword": 100}), ticket("near", 0).skills(map[string]float64{"sword": 200}),
				ticket("b", 1).skills(map[string]float64{"sword": 500})},
			steps: []float64{2},
			want:  []string{"2: a|b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

// TestMinDistanceExplained: a ticket refused by min_distance is told so,
// with the numbers, and what the next step relaxes.
func TestMinDistanceExplained(t *testing.T) {
	p := newPool(t, `{`+duel+`,
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1000, "min_distance": 300}],
		"flexing_rule": [{"duration": 20, "attribute": "mmr", "criteria": "distance", "reference": 1000, "min_distance": 100}]}`)
	ticket("a", 0).num("mmr", 1000).add(t, p)
	ticket("b", 0).num("mmr", 1150).add(t, p)
	if props := p.Step(at(1)); len(props) != 0 {
		t.Fatalf("matched %q", matchIDs(props))
	}
	x, ok := p.Explain("a", at(1))
	if !ok || len(x.Blocks) != 1 {
		t.Fatalf("explanation %+v", x)
	}
	b := x.Blocks[0]
	if b.Rule != "matching_rule[0] mmr" || b.Nearest != "mmr distance 150 < 300 required" {
		t.Errorf("block %+v", b)
	}
	if !x.NextRelaxation.Equal(at(20)) || x.NextAdds != 1 || !slices.Contains(x.Relaxes, "mmr min distance 300 → 100") {
		t.Errorf("next relaxation %v adds %d: %q", x.NextRelaxation, x.NextAdds, x.Relaxes)
	}
}

// TestMinDistanceBackfill: a newcomer must be min_distance from every player
// of the session, as it must be within the reference of each.
func TestMinDistanceBackfill(t *testing.T) {
	rules := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1000, "min_distance": 100}]}`
	runBackfill(t, bfCase{
		name:     "min distance from every session player",
		rules:    rules,
		sessions: []Session{sess("S", 0, team("x", 0, 1000, 1300), team("y", 1, 1600))},
		tickets: []*tb{
			ticket("near0", 0).num("mmr", 1050), // within 100 of x0
			ticket("near2", 0).num("mmr", 1650), // within 100 of y0
			ticket("ok", 1).num("mmr", 1450),
		},
		steps: []float64{2},
		want:  []string{"2: S=|ok"},
	})
}
