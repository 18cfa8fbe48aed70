package ruleset

import (
	"slices"
	"testing"
)

// TestSortRuleProblems: a bad sort rule is refused with the field named.
func TestSortRuleProblems(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"no attribute", with(`"sort_rule": [{"sort": "absolute"}]`), `sort_rule[0].attribute: required`},
		{"no sort", with(`"sort_rule": [{"attribute": "skill"}]`), `sort_rule[0].sort: required: one of "absolute", "distance"`},
		{"sort misspelt", with(`"sort_rule": [{"attribute": "skill", "sort": "distanse"}]`),
			`sort_rule[0].sort: must be one of "absolute", "distance", not "distanse" (did you mean "distance"?)`},
		{"order misspelt", with(`"sort_rule": [{"attribute": "skill", "sort": "absolute", "order": "desc"}]`),
			`sort_rule[0].order: must be one of "ascending", "descending", not "desc"`},
		{"party aggregate", with(`"sort_rule": [{"attribute": "skill", "sort": "absolute", "party_aggregate": "sum"}]`),
			`sort_rule[0].party_aggregate: must be one of "avg", "min", "max", not "sum"`},
		{"unknown field", with(`"sort_rule": [{"attribute": "skill", "sort": "absolute", "direction": "ascending"}]`),
			`sort_rule[0].direction: unknown field`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := problemsOf(t, tc.in)
			found := false
			for _, g := range got {
				found = found || g == tc.want || len(g) > len(tc.want) && g[:len(tc.want)] == tc.want
			}
			if !found {
				t.Errorf("problems = %q\nwant among them %q", got, tc.want)
			}
		})
	}
}

// TestSortRuleCompiles: defaults filled in, order kept.
func TestSortRuleCompiles(t *testing.T) {
	c, err := Load([]byte(with(`"sort_rule": [
		{"attribute": "skill", "sort": "distance"},
		{"attribute": "xp", "sort": "absolute", "order": "descending", "party_aggregate": "max"}]`)))
	if err != nil {
		t.Fatal(err)
	}
	want := []Sort{
		{Attribute: "skill", Distance: true, PartyAggregate: AggregateAvg},
		{Attribute: "xp", Descending: true, PartyAggregate: AggregateMax},
	}
	if !slices.Equal(c.Sorts, want) {
		t.Errorf("sorts = %+v, want %+v", c.Sorts, want)
	}
}
