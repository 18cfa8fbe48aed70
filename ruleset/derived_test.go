package ruleset

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// The rules that compile to generated filters: their problems, and the
// filters they become.

func TestDerivedRuleProblems(t *testing.T) {
	filters := `"filter": [{"name": "close", "expr": "abs(ticket.attr.mmr - candidate.attr.mmr) < 100"},
		{"name": "whole", "scope": "match", "expr": "match.size > 2"},
		{"name": "late", "expr": "true", "disable_after": 10}]`
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"team sizes misspelt", with(`"team_sizes": "equals"`),
			[]string{`team_sizes: must be one of "equal", "within_one", not "equals" (did you mean "equal"?)`}},
		{"team sizes with one team", `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 5, "player_max_number": 5}, "team_sizes": "equal"}`,
			[]string{"team_sizes: needs at least two teams (alliance.max_number is 1)"}},
		{"contains count without value", with(`"collection_rule": [{"attribute": "character", "operation": "contains", "max_count": 5}]`),
			[]string{`collection_rule[0].value: required by "contains": the string counted`}},
		{"contains count reversed", with(`"collection_rule": [{"attribute": "character", "operation": "contains", "value": "medic", "min_count": 3, "max_count": 1}]`),
			[]string{"collection_rule[0].max_count: must be ≥ min_count (1 < 3)"}},
		{"counting does not flex", with(`"collection_rule": [{"attribute": "c", "operation": "contains", "value": "medic", "max_count": 1, "flexing": [{"duration": 5, "value": 2}]}]`),
			[]string{`collection_rule[0].flexing: applies only to "intersection" (a rule that counts players does not flex)`}},
		{"player ids without counts", with(`"collection_rule": [{"attribute": "blocked", "operation": "player_ids"}]`),
			[]string{`collection_rule[0].max_count: required by "player_ids" unless min_count is given (0 for a block list)`}},
		{"player ids with value", with(`"collection_rule": [{"attribute": "blocked", "operation": "player_ids", "value": "x", "max_count": 0}]`),
			[]string{`collection_rule[0].value: applies only to "contains"`}},
		{"compound unknown filter", with(filters + `, "compound_rule": [{"name": "c", "statement": "or(close, clse)"}]`),
			[]string{`compound_rule[0].statement: "clse" is not the name of a filter (did you mean "close"?)`}},
		{"compound mixes scopes", with(filters + `, "compound_rule": [{"name": "c", "statement": "and(close, whole)"}]`),
			[]string{`compound_rule[0].statement: mixes "pair" and "match" filters ("whole" is "match"): a statement judges either pairs or matches`}},
		{"compound of a disabled filter", with(filters + `, "compound_rule": [{"name": "c", "statement": "not(late)"}]`),
			[]string{`compound_rule[0].statement: filter "late" has disable_after; in a compound rule, set disable_after on the compound rule instead`}},
		{"compound syntax", with(filters + `, "compound_rule": [{"name": "c", "statement": "and(close"}]`),
			[]string{`compound_rule[0].statement: and( at character 1 is never closed`}},
		{"compound not with two", with(filters + `, "compound_rule": [{"name": "c", "statement": "not(close, whole)"}]`),
			[]string{`compound_rule[0].statement: not( at character 1 takes one rule, not 2`}},
		{"compound unknown operator", with(filters + `, "compound_rule": [{"name": "c", "statement": "nand(close, late)"}]`),
			[]string{`compound_rule[0].statement: "nand" at character 1 is not an operator: use and, or, xor or not`}},
		{"compound name taken", with(filters + `, "compound_rule": [{"name": "close", "statement": "not(whole)"}]`),
			[]string{`compound_rule[0].name: "close" is already the name of a filter`}},
		{"compound over budget", with(`"filter": [
			{"name": "a", "expr": "all(ticket.players, {.x > 1})"}, {"name": "b", "expr": "all(ticket.players, {.x > 2})"},
			{"name": "c", "expr": "all(ticket.players, {.x > 3})"}, {"name": "d", "expr": "all(ticket.players, {.x > 4})"},
			{"name": "e", "expr": "all(ticket.players, {.x > 5})"}],
			"compound_rule": [{"name": "all5", "statement": "and(a, b, c, d, e)"}]`),
			[]string{`compound_rule[0].statement: the combined expression uses 5 predicates (all, any, map, filter, …), more than the limit of 4`}},
		{"party aggregate misspelt", with(`"matching_rule": [{"attribute": "mmr", "criteria": "spread", "reference": 100, "party_aggregate": "mean"}]`),
			[]string{`matching_rule[0].party_aggregate: must be one of "avg", "min", "max", not "mean" (did you mean "min"?)`}},
		{"compound unknown field", with(`"compound_rule": [{"name": "c", "statment": "x"}]`),
			[]string{`compound_rule[0].statment: unknown field (did you mean "statement"?)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := problemsOf(t, tc.in)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("problems = %q\nwant among them %q", got, w)
				}
			}
		})
	}
}

// TestDerivedFilters: what each rule compiles to, and that a filter a
// compound rule consumes no longer applies on its own.
func TestDerivedFilters(t *testing.T) {
	c, err := Load([]byte(with(`"team_sizes": "within_one",
		"collection_rule": [
			{"attribute": "langs", "operation": "intersection"},
			{"attribute": "character", "operation": "contains", "value": "medic", "max_count": 5},
			{"attribute": "blocked", "operation": "player_ids", "max_count": 0},
			{"attribute": "avoid", "operation": "player_ids", "max_count": 2, "scope": "team"}],
		"filter": [{"name": "close", "expr": "abs(ticket.attr.mmr - candidate.attr.mmr) < 100"},
			{"name": "same_map", "expr": "ticket.attr.map == candidate.attr.map"},
			{"name": "kept", "expr": "true"}],
		"compound_rule": [{"name": "close_or_map", "statement": "or(close, same_map)", "disable_after": 60}]`)))
	if err != nil {
		t.Fatal(err)
	}
	var names, scopes []string
	for _, f := range c.Filters {
		names = append(names, f.Name)
		scopes = append(scopes, f.Scope)
	}
	wantNames := []string{"kept", "team_sizes", "collection_rule[1]", "collection_rule[2]", "collection_rule[3]", "close_or_map"}
	wantScopes := []string{"pair", "match", "match", "pair", "match", "pair"}
	if !slices.Equal(names, wantNames) || !slices.Equal(scopes, wantScopes) {
		t.Errorf("filters = %v %v\nwant %v %v", names, scopes, wantNames, wantScopes)
	}
	if len(c.Collections) != 1 || c.Collections[0].Path != "collection_rule[0]" {
		t.Errorf("collections = %+v, want only collection_rule[0]", c.Collections)
	}
	last := c.Filters[len(c.Filters)-1]
	if last.DisableAfter.Seconds() != 60 {
		t.Errorf("compound disable_after = %v, want 60s", last.DisableAfter)
	}
	if next, ok := c.NextChange(0); !ok || next.Seconds() != 60 {
		t.Errorf("NextChange(0) = %v, %v; want 60s (the compound rule switching off)", next, ok)
	}
}

func TestStatementSource(t *testing.T) {
	st, err := parseStatement("xor(a, not(b), and(c, d))")
	if err != nil {
		t.Fatal(err)
	}
	got := st.source(map[string]string{"a": "A", "b": "B", "c": "C", "d": "D"})
	want := "(((A) ? 1 : 0) + (!(B) ? 1 : 0) + (((C) && (D)) ? 1 : 0) == 1)"
	if got != want {
		t.Errorf("source = %s\nwant     %s", got, want)
	}
}

func TestAttributeDefaultProblems(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"bool value", with(`"attribute_defaults": [{"name": "x", "value": true}]`),
			"attribute_defaults[0].value: must be a number, a string, a list of strings or a map of numbers, not a boolean"},
		{"no value", with(`"attribute_defaults": [{"name": "x"}]`),
			"attribute_defaults[0].value: required: a number, a string, a list of strings or a map of numbers"},
		{"twice", with(`"attribute_defaults": [{"name": "x", "value": 1}, {"name": "x", "value": 2}]`),
			`attribute_defaults[1].name: "x" already has a default (attribute_defaults[0])`},
		{"reserved", with(`"attribute_defaults": [{"name": "role", "value": "tank"}]`),
			`attribute_defaults[0].name: "role" is a reserved ticket key; it takes no default`},
		{"list of numbers", with(`"attribute_defaults": [{"name": "x", "value": [1]}]`),
			"attribute_defaults[0].value[0]: must be a string, not a number"},
		{"string in a map", with(`"attribute_defaults": [{"name": "skills", "value": {"sword": 10, "bow": "three"}}]`),
			"attribute_defaults[0].value.bow: must be a number, not a string"},
		{"empty key", with(`"attribute_defaults": [{"name": "skills", "value": {"": 1}}]`),
			"attribute_defaults[0].value: map keys must not be empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := problemsOf(t, tc.in); !slices.Contains(got, tc.want) {
				t.Errorf("problems = %q\nwant among them %q", got, tc.want)
			}
		})
	}
	// A ruleset with defaults survives encoding/json both ways.
	c, err := Load([]byte(with(`"attribute_defaults": [{"name": "skill", "value": 10}, {"name": "mode", "value": "casual"}, {"name": "maps", "value": ["a", "b"]}, {"name": "skills", "value": {"sword": 10, "bow": 3}}]`)))
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(c.Source)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Load(data)
	if err != nil {
		t.Fatalf("reloading %s: %v", data, err)
	}
	if !reflect.DeepEqual(back.Defaults, c.Defaults) {
		t.Errorf("defaults after a round trip = %+v, want %+v", back.Defaults, c.Defaults)
	}
}
