package ruleset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const alliance1v1 = `"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}`

func TestParseProblems(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"unknown field with path", `{` + alliance1v1 + `, "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1}, {"atribute": "elo"}]}`,
			[]string{`1:179: matching_rule[1].atribute: unknown field (did you mean "attribute"?)`}},
		{"unknown field far from any", `{` + alliance1v1 + `, "zzz": 1}`,
			[]string{`1:98: zzz: unknown field`}},
		{"not an object", `[1]`, []string{"1:1: a ruleset must be a JSON object, not an array"}},
		{"every problem", `{"alliance": {"min_number": "2", "max_number": true, "player_min_number": 1.5, "player_max_number": -1e10}}`,
			[]string{
				"1:29: alliance.min_number: must be an integer, not a string",
				"1:48: alliance.max_number: must be an integer, not a boolean",
				"1:75: alliance.player_min_number: must be an integer, not 1.5",
				"1:101: alliance.player_max_number: -1e10 is out of range (at most 1000000000 in absolute value)",
			}},
		{"duplicate key", `{` + alliance1v1 + `, "auto_backfill": true, "auto_backfill": false}`,
			[]string{"1:121: auto_backfill: duplicate key: it is already set above"}},
		{"literal type", `{` + alliance1v1 + `, "comparison_rule": [{"attribute": "level", "operator": ">=", "value": true}]}`,
			[]string{"1:168: comparison_rule[0].value: must be a number or a string, not a boolean"}},
		{"missing alliance reported with other problems", `{"matchPool": "x"}`,
			[]string{"1:1: alliance: required: the number of teams and of players per team", "1:2: matchPool: unknown field"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			ps, _ := err.(Problems)
			var got []string
			for _, p := range ps {
				got = append(got, p.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("\ngot  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestNullMeansAbsent: encoders write null for unset optional fields; that
// must read like the field was left out.
func TestNullMeansAbsent(t *testing.T) {
	rs, err := Parse([]byte(`{` + alliance1v1 + `, "matching_rule": null, "match_options": null, "quality": null,
		"comparison_rule": [{"attribute": "level", "operator": "=", "value": null, "flexing": null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if rs.MatchingRule != nil || rs.MatchOptions != nil || rs.Quality != nil || rs.ComparisonRule[0].Value != nil {
		t.Errorf("null fields were not left unset: %+v", rs)
	}
	if err := Validate(rs); err != nil {
		t.Fatal(err)
	}
}

// TestRoundTrip: every valid ruleset of testdata, written back with
// encoding/json and read again, gives the same Ruleset.
func TestRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/[0-9a-z]*.json")
	for _, file := range files {
		if strings.HasPrefix(filepath.Base(file), "bad_") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		a, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(out)
		if err != nil {
			t.Fatalf("%s: re-reading %s: %v", file, out, err)
		}
		a.src, b.src = nil, nil
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: round trip differs:\n%+v\n%+v", file, a, b)
		}
		// encoding/json, given the Ruleset types, must read it back the
		// same way too, so other tools can use them directly.
		var c Ruleset
		if err := json.Unmarshal(out, &c); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, &c) {
			t.Errorf("%s: encoding/json reads differently:\n%+v\n%+v", file, a, &c)
		}
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"attribute", "criteria", "reference", "max", "weight", "is_for_balancing"}
	tests := []struct{ in, want string }{
		{"atribute", "attribute"},
		{"Attribute", "attribute"},
		{"refrence", "reference"},
		{"mx", "max"},
		{"criterion", "criteria"},
		{"colour", ""},
		{"is_balancing", "is_for_balancing"},
	}
	for _, tt := range tests {
		if got := suggest(tt.in, known); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
