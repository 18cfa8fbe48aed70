package ruleset

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// problemsOf loads a ruleset and returns its problems as "path: message",
// without positions, so table entries stay readable.
func problemsOf(t *testing.T, src string) []string {
	t.Helper()
	_, err := Load([]byte(src))
	if err == nil {
		return nil
	}
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("error is %T, not Problems: %v", err, err)
	}
	var out []string
	for _, p := range ps {
		if p.Line == 0 {
			t.Errorf("problem without a position: %v", p)
		}
		p.Line, p.Column = 0, 0
		out = append(out, p.String())
	}
	return out
}

// with builds a 5v5 ruleset with extra top-level members.
func with(extra string) string {
	s := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 5, "player_max_number": 5}`
	if extra != "" {
		s += ", " + extra
	}
	return s + "}"
}

func TestValidateProblems(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // each must be among the problems
	}{
		{"player min above max", `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 5, "player_max_number": 3}}`,
			[]string{"alliance.player_min_number: must be ≤ player_max_number (5 > 3)"}},
		{"missing alliance", `{"auto_backfill": true}`,
			[]string{"alliance: required: the number of teams and of players per team"}},
		{"missing alliance field", `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 5}}`,
			[]string{"alliance.player_max_number: required"}},
		{"zero teams", `{"alliance": {"min_number": 0, "max_number": 2, "player_min_number": 5, "player_max_number": 5}}`,
			[]string{"alliance.min_number: must be between 1 and 100 (got 0)"}},
		{"match too big", `{"alliance": {"min_number": 2, "max_number": 20, "player_min_number": 5, "player_max_number": 100}}`,
			[]string{"alliance: a match of 20 teams of 100 players holds 2000 players, more than the limit of 1000"}},
		{"alliance flexing durations", with(`"alliance_flexing_rule": [{"duration": 60, "player_min_number": 3}, {"duration": 60, "player_min_number": 2}]`),
			[]string{"alliance_flexing_rule[1].duration: must be greater than the previous step's duration (alliance_flexing_rule[0].duration is 60): durations must increase"}},
		{"alliance flexing zero duration", with(`"alliance_flexing_rule": [{"duration": 0, "player_min_number": 3}]`),
			[]string{"alliance_flexing_rule[0].duration: must be > 0 seconds (got 0)"}},
		{"alliance flexing tightens", with(`"alliance_flexing_rule": [{"duration": 30, "player_min_number": 3}, {"duration": 60, "player_min_number": 4}]`),
			[]string{"alliance_flexing_rule[1].player_min_number: must not rise over time (4 > 3 before): flexing only relaxes"}},
		{"alliance flexing incoherent", with(`"alliance_flexing_rule": [{"duration": 30, "player_max_number": 3}]`),
			[]string{"alliance_flexing_rule[0].player_min_number: must be ≤ player_max_number (5 > 3) (after 30 s)"}},
		{"unknown criteria", with(`"matching_rule": [{"attribute": "mmr", "criteria": "range", "reference": 1}]`),
			[]string{`matching_rule[0].criteria: must be one of "distance", "spread", not "range"`}},
		{"missing criteria and reference", with(`"matching_rule": [{"attribute": "mmr"}]`),
			[]string{`matching_rule[0].criteria: required: one of "distance", "spread"`, "matching_rule[0].reference: required"}},
		{"negative max and weight", with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1, "max": -5, "weight": -1}]`),
			[]string{"matching_rule[0].max: must be > 0 when given (got -5)", "matching_rule[0].weight: must be ≥ 0 (got -1)"}},
		{"empty attribute", with(`"matching_rule": [{"attribute": "", "criteria": "distance", "reference": 1}]`),
			[]string{"matching_rule[0].attribute: must not be empty"}},
		{"reserved attribute", with(`"matching_rule": [{"attribute": "role", "criteria": "distance", "reference": 1}]`),
			[]string{`matching_rule[0].attribute: "role" is a reserved ticket key and never holds a number (it holds a string or a list of strings)`}},
		{"duplicate matching rule", with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1}, {"attribute": "mmr", "criteria": "distance", "reference": 2}]`),
			[]string{`matching_rule[1]: repeats matching_rule[0] (attribute "mmr", criteria "distance"): flexing_rule could not tell them apart`}},
		{"flexing without matching rules", with(`"flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 2}]`),
			[]string{`flexing_rule[0].attribute: no matching_rule has attribute "mmr": flexing_rule relaxes matching rules, and there are none`}},
		{"flexing unknown attribute", with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1}, {"attribute": "elo", "criteria": "distance", "reference": 1}],
			"flexing_rule": [{"duration": 10, "attribute": "level", "criteria": "distance", "reference": 2}]`),
			[]string{`flexing_rule[0].attribute: no matching_rule has attribute "level" (they are "mmr", "elo")`}},
		{"flexing reference shrinks", with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 200}],
			"flexing_rule": [{"duration": 15, "attribute": "mmr", "criteria": "distance", "reference": 100}]`),
			[]string{"flexing_rule[0].reference: must not be below the previous reference (100 < 200 in matching_rule[0]): flexing only relaxes"}},
		{"flexing too late", with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 200}],
			"flexing_rule": [{"duration": 100000, "attribute": "mmr", "criteria": "distance", "reference": 300}]`),
			[]string{"flexing_rule[0].duration: must be at most 86400 seconds (a day), got 100000"}},
		{"option type", with(`"match_options": {"options": [{"name": "map", "type": "ANY"}]}`),
			[]string{`match_options.options[0].type: must be one of "all", "any", "unique", not "ANY" (did you mean "any"?)`}},
		{"option missing name", with(`"match_options": {"options": [{"type": "any"}]}`),
			[]string{"match_options.options[0].name: required"}},
		{"latency without max", with(`"region_latency_initial_range_ms": 50`),
			[]string{"region_latency_max_ms: required when region latency rules are set: without a maximum, latency does not restrict matching"}},
		{"latency negative", with(`"region_expansion_range_ms": -5, "region_latency_max_ms": 100`),
			[]string{"region_expansion_range_ms: must be ≥ 0 (got -5)"}},
		{"latency range without rate", with(`"region_expansion_range_ms": 5, "region_latency_max_ms": 100`),
			[]string{"region_expansion_rate_ms: must be > 0 when region_expansion_range_ms is set: it is the wait between expansions"}},
		{"latency absurd", with(`"region_latency_max_ms": 60000`),
			[]string{"region_latency_max_ms: must be at most 10000 ms (got 60000)"}},
		{"bidirectional without latency", with(`"disable_bidirectional_latency_after_ms": 5000`),
			[]string{"disable_bidirectional_latency_after_ms: has no effect without region_latency_max_ms"}},
		{"fastest region without latency", with(`"region_choice": "fastest"`),
			[]string{"region_choice: fastest needs region_latency_max_ms: without latency rules the tickets' latencies are not read"}},
		{"unknown map key", with(`"sort_rule": [{"attribute": "maps", "sort": "absolute", "map_key": "favourite"}]`),
			[]string{`sort_rule[0].map_key: must be one of "max", "min", not "favourite"`}},
		{"unknown region choice", with(`"region_latency_max_ms": 100, "region_choice": "nearest"`),
			[]string{`region_choice: must be "acceptable" or "fastest", got "nearest"`}},
		{"comparison string order", with(`"comparison_rule": [{"attribute": "v", "operator": ">", "value": "1.2"}]`),
			[]string{`comparison_rule[0].operator: ">" cannot compare strings: use "=" or "!="`}},
		{"comparison flexing equality", with(`"comparison_rule": [{"attribute": "v", "operator": "=", "value": 3, "flexing": [{"duration": 5, "value": 4}]}]`),
			[]string{"comparison_rule[0].flexing: only a numeric value compared with <, <=, >= or > can flex"}},
		{"comparison flexing up for <=", with(`"comparison_rule": [{"attribute": "ping", "operator": "<=", "value": 80, "flexing": [{"duration": 5, "value": 60}]}]`),
			[]string{"comparison_rule[0].flexing[0].value: must not be below the previous value (60 < 80): flexing only relaxes"}},
		{"collection contains extras", with(`"collection_rule": [{"attribute": "dlc", "operation": "contains", "value": "x", "flexing": [{"duration": 5, "value": 0}]}]`),
			[]string{`collection_rule[0].flexing: applies only to "intersection"`}},
		{"collection intersection value", with(`"collection_rule": [{"attribute": "langs", "operation": "intersection", "value": "en"}]`),
			[]string{`collection_rule[0].value: applies only to "contains"`}},
		{"collection flexing counts", with(`"collection_rule": [{"attribute": "langs", "operation": "intersection", "min_count": 2, "flexing": [{"duration": 5, "value": 1.5}]}]`),
			[]string{"collection_rule[0].flexing[0].value: must be a whole number (got 1.5)"}},
		{"collection scope", with(`"collection_rule": [{"attribute": "langs", "operation": "intersection", "scope": "party"}]`),
			[]string{`collection_rule[0].scope: must be one of "match", "team", not "party"`}},
		{"team rule one team", `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 4, "player_max_number": 4},
			"team_rule": [{"attribute": "mmr", "aggregate": "avg", "max_difference": 10}]}`,
			[]string{"team_rule[0]: compares teams, but alliance.max_number is 1: a match has a single team"}},
		{"team rule party aggregate", with(`"team_rule": [{"attribute": "mmr", "aggregate": "avg", "party_aggregate": "sum", "max_difference": 10}]`),
			[]string{`team_rule[0].party_aggregate: must be one of "avg", "min", "max", not "sum"`}},
		{"match total bounds", with(`"match_total": [{"attribute": "power", "aggregate": "sum", "min": 10, "max": 5}]`),
			[]string{"match_total[0].min: must be ≤ max (10 > 5)"}},
		{"match total flexing", with(`"match_total": [{"attribute": "power", "aggregate": "sum", "min": 10,
			"flexing": [{"duration": 5, "min": 20}, {"duration": 6, "max": 30}, {"duration": 7}]}]`),
			[]string{
				"match_total[0].flexing[0].min: must not be above the previous min (20 > 10): flexing only relaxes",
				"match_total[0].flexing[1].max: the rule has no max to relax",
				"match_total[0].flexing[2]: sets neither min nor max: a step must change a bound",
			}},
		{"roles empty", with(`"roles": {"quotas": []}`), []string{"roles.quotas: must list at least one role"}},
		{"roles minimums too many", with(`"roles": {"quotas": [{"name": "tank", "min": 3}, {"name": "healer", "min": 3}]}`),
			[]string{"roles.quotas: the role minimums add up to 6, more than a team holds (player_max_number 5)"}},
		{"roles maximums too few", with(`"roles": {"quotas": [{"name": "tank", "max": 1}, {"name": "healer", "max": 2}]}`),
			[]string{"roles.quotas: the role maximums add up to 3, too few to fill a team (player_min_number 5)"}},
		{"roles after alliance flexing", with(`"alliance_flexing_rule": [{"duration": 60, "player_min_number": 2, "player_max_number": 3}],
			"roles": {"quotas": [{"name": "tank", "min": 2}, {"name": "healer", "min": 2}]}`),
			[]string{"roles.quotas: the role minimums add up to 4, more than a team holds (player_max_number 3 after 60 s)"}},
		{"roles duplicate", with(`"roles": {"quotas": [{"name": "tank"}, {"name": "tank"}]}`),
			[]string{`roles.quotas[1].name: "tank" already has a quota (roles.quotas[0])`}},
		{"roles flexing rises", with(`"roles": {"quotas": [{"name": "tank", "min": 1, "flexing": [{"duration": 5, "value": 2}]}]}`),
			[]string{"roles.quotas[0].flexing[0].value: must not be above the previous value (2 > 1): flexing only relaxes"}},
		{"cross play same keys", with(`"cross_play": {"accepted_attribute": "platform", "current_attribute": "platform"}`),
			[]string{`cross_play: accepted_attribute and current_attribute are both "platform": they must be two keys`}},
		{"filter returns number", with(`"filter": [{"name": "f", "expr": "ticket.size"}]`),
			[]string{"filter[0].expr: does not compile: expected bool, but got int"}},
		{"filter scope", with(`"filter": [{"name": "f", "expr": "len(teams) == 2"}]`),
			[]string{`filter[0].expr: does not compile: unknown name teams (a "pair" expression sees ticket and candidate; set "scope": "match" to see match and teams) (line 1, column 5 of the expression)`}},
		{"filter wall clock", with(`"filter": [{"name": "f", "expr": "now().Hour() > 3"}]`),
			[]string{"filter[0].expr: does not compile: unknown name now (now, date, timezone, repeat are not available in rulesets) (line 1, column 1 of the expression)"}},
		{"filter range", with(`"filter": [{"name": "f", "expr": "len(0..ticket.size) > 0"}]`),
			[]string{"filter[0].expr: a range (a..b) must have constant bounds"}},
		{"filter too long", with(`"filter": [{"name": "f", "expr": "true` + strings.Repeat(" && true", 200) + `"}]`),
			[]string{"filter[0].expr: expression is 1604 bytes long, more than the limit of 1000"}},
		{"filter too many predicates", with(`"filter": [{"name": "f", "scope": "match", "expr": "all(teams, {.size > 0}) && all(teams, {.size > 0}) && all(teams, {.size > 0}) && all(teams, {.size > 0}) && all(teams, {.size > 0})"}]`),
			[]string{"filter[0].expr: uses 5 predicates (all, any, map, filter, …), more than the limit of 4"}},
		{"filter weight", with(`"filter": [{"name": "f", "expr": "true", "weight": 2}]`),
			[]string{"filter[0].weight: applies only to scores: a filter passes or fails"}},
		{"expr names", with(`"score": [{"name": "s", "expr": "1"}, {"name": "s", "expr": "0"}]`),
			[]string{`score[1].name: "s" is already the name of score[0]`}},
		{"expr missing", with(`"score": [{"name": "s"}]`),
			[]string{"score[0].expr: required: the expression's source"}},
		{"quality zero", with(`"quality": {"skill_gap": 0, "skill_spread": 0, "parties": 0, "ping": 0, "variety": 0, "wait": 0, "roles": 0}`),
			[]string{"quality: every criterion weighs zero: the match score would be undefined"}},
		{"quality ping curve", with(`"quality": {"ping_ok_ms": 300}`),
			[]string{"quality.ping_bad_ms: must be > ping_ok_ms (200 ≤ 300)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problemsOf(t, tt.in)
			for _, w := range tt.want {
				if !contains(got, w) {
					t.Errorf("missing problem\n  %s\ngot\n  %s", w, strings.Join(got, "\n  "))
				}
			}
		})
	}
}

// TestValidateReportsEverything: one file with many mistakes yields one
// problem each, not just the first.
func TestValidateReportsEverything(t *testing.T) {
	got := problemsOf(t, `{
		"alliance": {"min_number": 3, "max_number": 2, "player_min_number": 5, "player_max_number": 3},
		"matching_rule": [{"attribute": "mmr", "criteria": "distnce", "reference": -1}],
		"match_options": {"options": [{"name": "map", "type": "every"}]},
		"region_latency_initial_range_ms": 500, "region_latency_max_ms": 100
	}`)
	if len(got) != 6 {
		t.Errorf("want 6 problems, got %d:\n%s", len(got), strings.Join(got, "\n"))
	}
}

// TestValidateWithoutSource: a Ruleset built in Go is validated too, with
// paths but no positions.
func TestValidateWithoutSource(t *testing.T) {
	rs := &Ruleset{
		Alliance:     Alliance{MinNumber: 2, MaxNumber: 2, PlayerMinNumber: 5, PlayerMaxNumber: 3},
		MatchingRule: []MatchingRule{{Attribute: "mmr", Criteria: CriteriaDistance, Reference: 100}},
		FlexingRule:  []FlexingRule{{Duration: 10, Attribute: "mmr", Criteria: CriteriaDistance, Reference: 50}},
	}
	err := Validate(rs)
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("got %v", err)
	}
	want := "alliance.player_min_number: must be ≤ player_max_number (5 > 3)\n" +
		"flexing_rule[0].reference: must not be below the previous reference (50 < 100 in matching_rule[0]): flexing only relaxes"
	if ps.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", ps.Error(), want)
	}
	rs.Alliance.PlayerMaxNumber = 5
	rs.FlexingRule[0].Reference = 150
	if err := Validate(rs); err != nil {
		t.Fatalf("fixed ruleset: %v", err)
	}
	if _, err := Compile(rs); err != nil {
		t.Fatal(err)
	}
}

func TestValidNilIsNilError(t *testing.T) {
	rs, err := Parse([]byte(with("")))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(rs); err != nil {
		t.Fatalf("Validate returned %#v", err)
	}
}

func TestMinDistanceProblems(t *testing.T) {
	rule := func(extra string) string {
		return with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 500, "min_distance": 200}]` + extra)
	}
	for _, tc := range []struct {
		name, in, want string
	}{
		{"on a spread", with(`"matching_rule": [{"attribute": "mmr", "criteria": "spread", "reference": 500, "min_distance": 1}]`),
			`matching_rule[0].min_distance: applies to criteria "distance" only (got "spread"): a spread has no pivot to be far from`},
		{"negative", with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 500, "min_distance": -1}]`),
			"matching_rule[0].min_distance: must be ≥ 0 (got -1)"},
		{"above the reference", with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 500, "min_distance": 600}]`),
			"matching_rule[0].min_distance: must be ≤ reference (600 > 500): no value could be both"},
		{"not a number", with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 500, "min_distance": "1"}]`),
			"matching_rule[0].min_distance: must be a number, not a string"},
		{"flexing raises it", rule(`, "flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 500, "min_distance": 100},
			{"duration": 20, "attribute": "mmr", "criteria": "distance", "reference": 500, "min_distance": 150}]`),
			"flexing_rule[1].min_distance: must not be above the previous min_distance (150 > 100 in flexing_rule[0]): flexing only relaxes"},
		{"flexing raises it above the rule's", rule(`, "flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 600}, {"duration": 20, "attribute": "mmr", "criteria": "distance", "reference": 600, "min_distance": 300}]`),
			"flexing_rule[1].min_distance: must not be above the previous min_distance (300 > 200 in matching_rule[0]): flexing only relaxes"},
		{"flexing a rule without one", with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 500}],
			"flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 500, "min_distance": 0}]`),
			"flexing_rule[0].min_distance: matching_rule[0] has no min_distance to relax"},
		{"misspelt", with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 500, "min_distanse": 1}]`),
			`matching_rule[0].min_distanse: unknown field (did you mean "min_distance"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := problemsOf(t, tc.in); !slices.Contains(got, tc.want) {
				t.Errorf("problems = %q\nwant among them %q", got, tc.want)
			}
		})
	}
}

// TestMinDistanceSchedule: min_distance compiles into a schedule that only
// falls, a step that leaves it out keeps the value in force, and its steps
// are changes the engine wakes up for.
func TestMinDistanceSchedule(t *testing.T) {
	c, err := Load([]byte(with(`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 500, "min_distance": 200},
		{"attribute": "level", "criteria": "distance", "reference": 5}],
		"flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 600},
			{"duration": 30, "attribute": "mmr", "criteria": "distance", "reference": 600, "min_distance": 50}]`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		wait     time.Duration
		ref, min float64
	}{{0, 500, 200}, {10 * time.Second, 600, 200}, {29 * time.Second, 600, 200}, {30 * time.Second, 600, 50}, {time.Hour, 600, 50}} {
		if r, m := c.ReferenceAt(0, tc.wait), c.MinDistanceAt(0, tc.wait); r != tc.ref || m != tc.min {
			t.Errorf("at %v: reference %v, min_distance %v; want %v, %v", tc.wait, r, m, tc.ref, tc.min)
		}
	}
	if m := c.MinDistanceAt(1, 0); m != 0 || c.Matching[1].MinDistance != nil {
		t.Errorf("a rule without min_distance has %v", c.Matching[1].MinDistance)
	}
	if next, ok := c.NextChange(10 * time.Second); !ok || next != 30*time.Second {
		t.Errorf("next change after 10 s = %v, %v; want 30 s", next, ok)
	}
}
