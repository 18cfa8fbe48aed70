package engine

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

// ruleCase runs tickets through a pool and compares the matches formed.
// Steps happen at the given times; want lists the matches of all steps in
// order as "TIME: teams", teams separated by | and tickets by +.
type ruleCase struct {
	name    string
	rules   string
	tickets []*tb
	steps   []float64
	want    []string
}

func runCase(t *testing.T, tc ruleCase) {
	t.Helper()
	p := newPool(t, tc.rules)
	for _, b := range tc.tickets {
		b.add(t, p)
	}
	var got []string
	for _, s := range tc.steps {
		for _, m := range matchIDs(p.Step(at(s))) {
			got = append(got, strconv.FormatFloat(s, 'g', -1, 64)+": "+m)
		}
	}
	if !reflect.DeepEqual(got, tc.want) {
		t.Errorf("matches = %q, want %q", got, tc.want)
	}
}

const duel = `"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}`

func TestDistanceRules(t *testing.T) {
	flexing := `{` + duel + `,
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}],
		"flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 300}]}`
	for _, tc := range []ruleCase{
		{
			name:    "within reference",
			rules:   flexing,
			tickets: []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 0).num("mmr", 1100)},
			steps:   []float64{0},
			want:    []string{"0: a|b"},
		},
		{
			name:    "outside reference until the anchor flexes",
			rules:   flexing,
			tickets: []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 5).num("mmr", 1250)},
			steps:   []float64{5, 9.9, 10},
			want:    []string{"10: a|b"},
		},
		{
			name:  "the anchor's wait decides: a new ticket joins an old anchor's wider window",
			rules: flexing,
			// b is brand new at 20 s but a has waited 20 s: 300 allowed.
			tickets: []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 20).num("mmr", 1290)},
			steps:   []float64{20},
			want:    []string{"20: a|b"},
		},
		{
			name: "distance is from the anchor, so a 3-player match may span twice the reference",
			rules: `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 3},
				"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}]}`,
			tickets: []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 1).num("mmr", 900), ticket("c", 2).num("mmr", 1100)},
			steps:   []float64{3},
			want:    []string{"3: a+b+c"},
		},
		{
			name: "spread bounds the whole match",
			rules: `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 3},
				"matching_rule": [{"attribute": "mmr", "criteria": "spread", "reference": 100}]}`,
			tickets: []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 1).num("mmr", 900), ticket("c", 2).num("mmr", 1100), ticket("d", 3).num("mmr", 1050)},
			steps:   []float64{4},
			want:    []string{"4: a+c+d"},
		},
		{
			name: "a party's value is its players' average",
			rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
				"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}]}`,
			tickets: []*tb{ticket("a", 0).party(2).num("mmr", 800, 1200), ticket("b", 1).party(2).num("mmr", 1050, 1050)},
			steps:   []float64{2},
			want:    []string{"2: a|b"},
		},
		{
			name: "several rules must all hold",
			rules: `{` + duel + `, "matching_rule": [
				{"attribute": "mmr", "criteria": "distance", "reference": 100},
				{"attribute": "level", "criteria": "distance", "reference": 2}]}`,
			tickets: []*tb{ticket("a", 0).num("mmr", 1000).num("level", 10), ticket("b", 1).num("mmr", 1000).num("level", 13), ticket("c", 2).num("mmr", 1090).num("level", 12)},
			steps:   []float64{3},
			want:    []string{"3: a|c"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

func TestAllianceAndParties(t *testing.T) {
	fiveVsFive := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 5, "player_max_number": 5},
		"alliance_flexing_rule": [{"duration": 60, "player_min_number": 3}]}`
	for _, tc := range []ruleCase{
		{
			name:    "a full match only",
			rules:   fiveVsFive,
			tickets: []*tb{ticket("a", 0).party(5), ticket("b", 1).party(4)},
			steps:   []float64{2, 59},
			want:    nil,
		},
		{
			name:  "parties are packed into teams without splitting",
			rules: fiveVsFive,
			tickets: []*tb{
				ticket("a", 0).party(3), ticket("b", 1).party(3), ticket("c", 2).party(3),
				ticket("d", 3).party(2), ticket("e", 4).party(2),
			},
			steps: []float64{5},
			want:  []string{"5: a+d|b+e"},
		},
		{
			name:    "after 60 s the flexed alliance starts 4 against 4",
			rules:   fiveVsFive,
			tickets: []*tb{ticket("a", 0).party(4), ticket("b", 1).party(4)},
			steps:   []float64{2, 60},
			want:    []string{"60: a|b"},
		},
		{
			name:  "8v8 starts with at least 4 a side (AccelByte's match rulesets)",
			rules: `{"auto_backfill": false, "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 4, "player_max_number": 8}}`,
			tickets: []*tb{ticket("a", 0).party(3), ticket("b", 1).party(2), ticket("c", 2).party(2),
				ticket("d", 3)},
			steps: []float64{4},
			want:  []string{"4: a+d|b+c"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

func TestMatchOptions(t *testing.T) {
	opts := func(kind string) string {
		return `{` + duel + `, "match_options": {"options": [{"name": "map", "type": "` + kind + `"}]}}`
	}
	for _, tc := range []ruleCase{
		{
			name:    "all: same set",
			rules:   opts("all"),
			tickets: []*tb{ticket("a", 0).opt("map", "x", "y"), ticket("b", 1).opt("map", "x"), ticket("c", 2).opt("map", "y", "x")},
			steps:   []float64{3},
			want:    []string{"3: a|c"},
		},
		{
			name:    "all: an unset option matches only unset",
			rules:   opts("all"),
			tickets: []*tb{ticket("a", 0), ticket("b", 1).opt("map", "x"), ticket("c", 2)},
			steps:   []float64{3},
			want:    []string{"3: a|c"},
		},
		{
			name:    "any: one value in common",
			rules:   opts("any"),
			tickets: []*tb{ticket("a", 0).opt("map", "x", "y"), ticket("b", 1).opt("map", "z"), ticket("c", 2).opt("map", "y", "z")},
			steps:   []float64{3},
			want:    []string{"3: a|c"},
		},
		{
			name:    "unique: values must differ",
			rules:   opts("unique"),
			tickets: []*tb{ticket("a", 0).opt("map", "x"), ticket("b", 1).opt("map", "x"), ticket("c", 2).opt("map", "y")},
			steps:   []float64{3},
			want:    []string{"3: a|c"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

func TestMatchOptionsAnyAcrossTheMatch(t *testing.T) {
	// Pairwise each shares a map with the anchor, but not all three share
	// one: any requires one value every ticket accepts.
	rules := `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 3},
		"match_options": {"options": [{"name": "map", "type": "any"}]}}`
	runCase(t, ruleCase{
		rules: rules,
		tickets: []*tb{ticket("a", 0).opt("map", "x", "y"), ticket("b", 1).opt("map", "x"), ticket("c", 2).opt("map", "y"),
			ticket("d", 3).opt("map", "x", "z")},
		steps: []float64{4},
		want:  []string{"4: a+b+d"},
	})
}

func TestComparisonRules(t *testing.T) {
	for _, tc := range []ruleCase{
		{
			name: "gate with flexing: level >= 10, then >= 5 after 30 s",
			rules: `{` + duel + `, "comparison_rule": [{"attribute": "level", "operator": ">=", "value": 10,
				"flexing": [{"duration": 30, "value": 5}]}]}`,
			tickets: []*tb{ticket("a", 0).num("level", 12), ticket("b", 0).num("level", 6)},
			steps:   []float64{1, 29, 30},
			want:    []string{"30: a|b"},
		},
		{
			name:    "equal between tickets",
			rules:   `{` + duel + `, "comparison_rule": [{"attribute": "game_version", "operator": "="}]}`,
			tickets: []*tb{ticket("a", 0).str("game_version", "1.2"), ticket("b", 1).str("game_version", "1.3"), ticket("c", 2).str("game_version", "1.2")},
			steps:   []float64{3},
			want:    []string{"3: a|c"},
		},
		{
			name: "not equal across teams: clanmates never face each other",
			rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
				"comparison_rule": [{"attribute": "clan", "operator": "!="}]}`,
			tickets: []*tb{ticket("a", 0).str("clan", "red"), ticket("b", 1).str("clan", "red"), ticket("c", 2).str("clan", "blue"), ticket("d", 3).str("clan", "blue")},
			steps:   []float64{4},
			want:    []string{"4: a+b|c+d"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

func TestCollectionRules(t *testing.T) {
	for _, tc := range []ruleCase{
		{
			name: "intersection over the match, flexing from 2 to 1 shared value",
			rules: `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 3},
				"collection_rule": [{"attribute": "languages", "operation": "intersection", "min_count": 2,
				"flexing": [{"duration": 20, "value": 1}]}]}`,
			tickets: []*tb{ticket("a", 0).list("languages", "en", "fr"), ticket("b", 0).list("languages", "en", "fr", "de"), ticket("c", 0).list("languages", "en", "de")},
			steps:   []float64{1, 20},
			want:    []string{"20: a+b+c"},
		},
		{
			name: "intersection per team",
			rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
				"collection_rule": [{"attribute": "languages", "operation": "intersection", "scope": "team"}]}`,
			tickets: []*tb{ticket("a", 0).list("languages", "en"), ticket("b", 1).list("languages", "de"), ticket("c", 2).list("languages", "en"), ticket("d", 3).list("languages", "de")},
			steps:   []float64{4},
			want:    []string{"4: a+c|b+d"},
		},
		{
			name:    "max_count bounds the shared values",
			rules:   `{` + duel + `, "collection_rule": [{"attribute": "tags", "operation": "intersection", "min_count": 1, "max_count": 1}]}`,
			tickets: []*tb{ticket("a", 0).list("tags", "x", "y"), ticket("b", 1).list("tags", "x", "y"), ticket("c", 2).list("tags", "y", "z")},
			steps:   []float64{3},
			want:    []string{"3: a|c"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

func TestTeamAndTotalRules(t *testing.T) {
	for _, tc := range []ruleCase{
		{
			name: "team average difference with flexing",
			rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
				"team_rule": [{"attribute": "mmr", "aggregate": "avg", "max_difference": 50, "flexing": [{"duration": 30, "value": 500}]}]}`,
			// Parties of 2 fixed: 1000 vs 1400 apart.
			tickets: []*tb{ticket("a", 0).party(2).num("mmr", 1000), ticket("b", 1).party(2).num("mmr", 1400)},
			steps:   []float64{2, 30},
			want:    []string{"30: a|b"},
		},
		{
			name: "team rule steers the split",
			rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
				"team_rule": [{"attribute": "power", "aggregate": "max", "max_difference": 0}]}`,
			tickets: []*tb{ticket("a", 0).num("power", 10), ticket("b", 1).num("power", 10), ticket("c", 2).num("power", 1), ticket("d", 3).num("power", 2)},
			steps:   []float64{4},
			want:    []string{"4: a+c|b+d"},
		},
		{
			name: "match total bounds",
			rules: `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 2, "player_max_number": 2},
				"match_total": [{"attribute": "power", "aggregate": "sum", "max": 100, "flexing": [{"duration": 10, "max": 150}]}]}`,
			tickets: []*tb{ticket("a", 0).num("power", 70), ticket("b", 1).num("power", 60)},
			steps:   []float64{2, 10},
			want:    []string{"10: a+b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { runCase(t, tc) })
	}
}

func TestRolesAndCrossPlay(t *testing.T) {
	roles := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
		"roles": {"quotas": [{"name": "tank", "min": 1, "max": 1}, {"name": "healer", "min": 1, "max": 1}]}}`
	runCase(t, ruleCase{
		name:  "each team gets a tank and a healer",
		rules: roles,
		tickets: []*tb{
			ticket("a", 0).str("role", "tank"), ticket("b", 1).str("role", "tank"), ticket("c", 2).str("role", "tank"),
			ticket("d", 3).str("role", "healer"), ticket("e", 4).list("role", "healer", "tank"),
		},
		steps: []float64{5},
		want:  []string{"5: a+d|b+e"},
	})
	p := newPool(t, roles)
	ticket("a", 0).str("role", "tank").add(t, p)
	ticket("b", 0).list("role", "healer", "tank").add(t, p)
	ticket("c", 0).str("role", "healer").add(t, p)
	ticket("d", 0).str("role", "tank").add(t, p)
	props := p.Step(at(1))
	if len(props) != 1 {
		t.Fatalf("got %v", matchIDs(props))
	}
	if got := props[0].Roles; got["b.p0"] != "healer" && got["b.p0"] != "tank" || len(got) != 4 {
		t.Errorf("roles = %v", got)
	}

	cross := `{` + duel + `, "cross_play": {}}`
	runCase(t, ruleCase{
		name:  "cross-play: each platform must be accepted by the other (b plays on ps5, a accepts only pc)",
		rules: cross,
		tickets: []*tb{
			ticket("a", 0).str("current_platform", "pc").list("cross_platform", "pc"),
			ticket("b", 1).str("current_platform", "ps5").list("cross_platform", "ps5", "pc"),
			ticket("c", 2).str("current_platform", "pc").list("cross_platform", "pc", "ps5"),
		},
		steps: []float64{3},
		want:  []string{"3: a|c"},
	})
}

func TestExpressions(t *testing.T) {
	runCase(t, ruleCase{
		name:    "pair filter, switched off after 30 s",
		rules:   `{` + duel + `, "filter": [{"name": "same_lang", "expr": "ticket.attr.lang == candidate.attr.lang", "disable_after": 30}]}`,
		tickets: []*tb{ticket("a", 0).opt("lang", "en"), ticket("b", 0).opt("lang", "fr")},
		steps:   []float64{1, 30},
		want:    []string{"30: a|b"},
	})
	runCase(t, ruleCase{
		name: "match filter sees the teams",
		rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
			"filter": [{"name": "even", "scope": "match", "expr": "abs(sum(map(teams[0].players, .mmr)) - sum(map(teams[1].players, .mmr))) <= 100"}]}`,
		tickets: []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 1).num("mmr", 2000), ticket("c", 2).num("mmr", 1500), ticket("d", 3).num("mmr", 1500)},
		steps:   []float64{4},
		want:    []string{"4: a+b|c+d"},
	})
	p := newPool(t, `{`+duel+`, "score": [{"name": "same_lang", "expr": "match.tickets[0].attr.lang == match.tickets[1].attr.lang ? 1 : 0", "weight": 2}]}`)
	ticket("a", 0).opt("lang", "en").add(t, p)
	ticket("b", 0).opt("lang", "fr").add(t, p)
	props := p.Step(at(0))
	if len(props) != 1 {
		t.Fatal("no match")
	}
	if v, ok := props[0].Quality.Parts.Get("same_lang"); !ok || v != 0 {
		t.Errorf("score part = %v, %v; parts %v", v, ok, props[0].Quality.Parts)
	}
}

func TestCheck(t *testing.T) {
	rules := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 3},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}],
		"comparison_rule": [{"attribute": "level", "operator": ">=", "value": 10, "flexing": [{"duration": 30, "value": 5}]}],
		"match_options": {"options": [{"name": "slot", "type": "unique"}]},
		"roles": {"quotas": [{"name": "tank", "max": 1}, {"name": "dps"}]},
		"region_latency_initial_range_ms": 50, "region_expansion_range_ms": 50, "region_expansion_rate_ms": 10000, "region_latency_max_ms": 200}`
	good := func(id string) *tb {
		return ticket(id, 0).num("mmr", 1000).num("level", 12).opt("slot", "x").str("role", "dps").lat("eu", 40)
	}
	for _, tc := range []struct {
		name, field, msg string
		b                *tb
	}{
		{"ok", "", "", good("a")},
		{"party too big", "players", "does not fit a team of at most 3", good("a").party(4).num("mmr", 1).num("level", 12).str("role", "dps")},
		{"missing attribute", "players[1].attributes.mmr", "required by matching_rule[0]",
			func() *tb {
				b := good("a").party(2).num("level", 12).str("role", "dps")
				m := b.t.Players[1].Attributes.Map()
				delete(m, "mmr")
				b.t.Players[1].Attributes = cupid.NewAttributes(m)
				b.t.Players[0].Attributes.Set("mmr", numv(1))
				return b
			}()},
		{"NaN", "players[0].attributes.mmr", "finite", good("a").num("mmr", nan())},
		{"gate never passes", "players[0].attributes.level", "even after every relaxation", good("a").num("level", 3)},
		{"unknown role", "players[0].attributes.role", "none of [healer] is a role", good("a").str("role", "healer")},
		{"latency too high", "latencies", "every region is above region_latency_max_ms", good("a").lat("eu", 250)},
		{"no latencies", "latencies", "required", good("a").lat()},
		{"unique taken inside the party", "players[1].attributes.slot", "already taken", good("a").party(2).num("mmr", 1).num("level", 12).str("role", "dps")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, rules)
			err := p.Check(tc.b.t)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			ce, ok := asCupidError(err)
			if !ok || ce.Field != tc.field || !strings.Contains(ce.Message, tc.msg) {
				t.Fatalf("error = %v, want field %q containing %q", err, tc.field, tc.msg)
			}
			if p.Len() != 0 {
				t.Fatal("Check changed the pool")
			}
		})
	}
}
