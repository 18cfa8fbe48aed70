package ruleset

import (
	"slices"
	"strings"
	"testing"
)

// uneven is a ruleset of five hunters and one monster, with extra members.
func uneven(extra string) string {
	s := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 5},
		"teams": [{"name": "hunters", "player_min_number": 5, "player_max_number": 5},
		          {"name": "monster", "player_min_number": 1, "player_max_number": 1}]`
	if extra != "" {
		s += ", " + extra
	}
	return s + "}"
}

func TestNamedTeamProblems(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"alliance disagrees", `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 5, "player_max_number": 5},
			"teams": [{"name": "a", "player_min_number": 5, "player_max_number": 5}, {"name": "b", "player_min_number": 1, "player_max_number": 1}]}`,
			"alliance.player_min_number: must be 1, the smallest team's player_min_number (got 5)"},
		{"too few teams in the alliance", `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 1, "player_max_number": 5},
			"teams": [{"name": "a", "player_min_number": 5, "player_max_number": 5}, {"name": "b", "player_min_number": 1, "player_max_number": 1}]}`,
			"alliance: must have min_number and max_number 2, the number of teams (got 1 and 1)"},
		{"a name twice", `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
			"teams": [{"name": "a", "player_min_number": 1, "player_max_number": 1}, {"name": "a", "player_min_number": 1, "player_max_number": 1}]}`,
			`teams[1].name: "a" names two teams`},
		{"min above max", `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 2},
			"teams": [{"name": "a", "player_min_number": 3, "player_max_number": 2}]}`,
			"teams[0].player_min_number: must be ≤ player_max_number (3 > 2)"},
		{"missing size", `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 1, "player_max_number": 1},
			"teams": [{"name": "a", "player_min_number": 1}]}`,
			"teams[0].player_max_number: required"},
		{"no flexing", uneven(`"alliance_flexing_rule": [{"duration": 10, "player_min_number": 1}]`),
			"alliance_flexing_rule: named teams do not flex: leave alliance_flexing_rule out with teams"},
		{"no backfill of uneven teams", uneven(`"auto_backfill": true`),
			"auto_backfill: backfill fills every team to one seat count; it does not apply to named teams of different sizes"},
		{"unknown team", uneven(`"team_comparison": [{"team": "monstr", "attribute": "x", "operator": "=", "value": 1}]`),
			`team_comparison[0].team: no team is named "monstr" (did you mean "monster"?)`},
		{"team without teams", with(`"team_comparison": [{"team": "red", "attribute": "x", "operator": "=", "value": 1}]`),
			`team_comparison[0].team: names team "red", but the ruleset names no teams (teams)`},
		{"value and reference", uneven(`"team_comparison": [{"attribute": "x", "operator": "=", "value": 1,
			"reference": {"team": "hunters", "attribute": "y", "aggregate": "max"}}]`),
			"team_comparison[0].reference: cannot be given with value: compare with one or the other"},
		{"neither", uneven(`"team_comparison": [{"attribute": "x", "operator": "="}]`),
			"team_comparison[0]: needs a value or a reference (another team's aggregate)"},
		{"reference needs an aggregate", uneven(`"team_comparison": [{"attribute": "x", "operator": ">=",
			"reference": {"team": "hunters", "attribute": "y"}}]`),
			`team_comparison[0].reference.aggregate: required: one of "avg", "min", "max", "sum", "stddev", "count"`},
		{"reference does not flex", uneven(`"team_comparison": [{"attribute": "x", "operator": ">=",
			"reference": {"team": "hunters", "attribute": "y", "aggregate": "max"}, "flexing": [{"duration": 5, "value": 1}]}]`),
			"team_comparison[0].flexing: only a value can flex, not a reference"},
		{"flexing tightens", uneven(`"team_comparison": [{"attribute": "x", "aggregate": "avg", "operator": ">=", "value": 10,
			"flexing": [{"duration": 5, "value": 12}]}]`),
			"team_comparison[0].flexing[0].value: must not be above the previous value (12 > 10): flexing only relaxes"},
		{"party aggregate with aggregate", uneven(`"team_comparison": [{"attribute": "x", "aggregate": "avg", "party_aggregate": "min", "operator": ">=", "value": 10}]`),
			"team_comparison[0].party_aggregate: applies only without aggregate (each party compared on its own)"},
		{"unknown field", uneven(`"team_comparison": [{"attribute": "x", "operator": ">=", "valeu": 10}]`),
			`team_comparison[0].valeu: unknown field (did you mean "value"?)`},
		{"reserved key", uneven(`"team_comparison": [{"attribute": "role", "operator": ">=", "value": 10}]`),
			`team_comparison[0].attribute: "role" is a reserved ticket key`},
		{"party aggregate on a string gate", with(`"comparison_rule": [{"attribute": "mode", "operator": "=", "value": "x", "party_aggregate": "avg"}]`),
			"comparison_rule[0].party_aggregate: applies only to a numeric value (a gate each party passes as one)"},
		{"team rule against", with(`"team_rule": [{"attribute": "x", "aggregate": "avg", "against": "matches", "max_difference": 1}]`),
			`team_rule[0].against: must be one of "teams", "match", not "matches" (did you mean "match"?)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := problemsOf(t, tc.in)
			if !slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, tc.want) }) {
				t.Errorf("problems %q\nwant one starting %q", got, tc.want)
			}
		})
	}
}

func TestNamedTeamsCompile(t *testing.T) {
	c, err := Load([]byte(uneven(`"team_comparison": [
		{"team": "monster", "attribute": "x", "operator": "=", "value": 1},
		{"attribute": "lvl", "aggregate": "avg", "operator": ">=", "value": 10, "flexing": [{"duration": 30, "value": 5}]},
		{"team": "monster", "attribute": "skill", "aggregate": "avg", "operator": ">=",
		 "reference": {"team": "hunters", "attribute": "want", "aggregate": "max"}}]`)))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.NamedTeams) != 2 || c.NamedTeams[1].Name != "monster" {
		t.Fatalf("named teams %v", c.NamedTeams)
	}
	tc := c.TeamComparisons
	if len(tc) != 3 || tc[0].Team != 1 || !tc[0].PerPlayer() || tc[1].Team != -1 || tc[1].PerPlayer() ||
		tc[2].Reference == nil || tc[2].Reference.Team != 0 || tc[2].Threshold != nil {
		t.Fatalf("team comparisons %+v", tc)
	}
	if next, ok := c.NextChange(0); !ok || next.Seconds() != 30 {
		t.Errorf("NextChange(0) = %v, %v; want 30 s (the flexing step)", next, ok)
	}
	if !tc[1].Holds(6, 31e9) || tc[1].Holds(6, 29e9) {
		t.Errorf("level 6 against >= 10, 5 after 30 s: wrong at 29 s or 31 s")
	}
}
