package engine

import (
	"math"
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

func TestCheckRefusesValuesBeyondTheRulesMax(t *testing.T) {
	rules := `{` + duel + `, "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100, "max": 3000},
		{"attribute": "level", "criteria": "distance", "reference": 5}]}`
	for _, tc := range []struct {
		name, field, msg string
		b                *tb
	}{
		{"within", "", "", ticket("a", 0).num("mmr", 1500).num("level", 10)},
		{"at the max", "", "", ticket("a", 0).num("mmr", 3000).num("level", 10)},
		{"at minus the max", "", "", ticket("a", 0).num("mmr", -3000).num("level", 10)},
		{"zero", "", "", ticket("a", 0).num("mmr", 0).num("level", 10)},
		{"no max: any finite number", "", "", ticket("a", 0).num("mmr", 10).num("level", 1e300)},
		{"above", "players[0].attributes.mmr", "3000.5 is above the rule's max 3000 (matching_rule[0])",
			ticket("a", 0).num("mmr", 3000.5).num("level", 10)},
		{"far above", "players[0].attributes.mmr", "1e+300 is above the rule's max 3000",
			ticket("a", 0).num("mmr", 1e300).num("level", 10)},
		{"largest float", "players[0].attributes.mmr", "above the rule's max 3000",
			ticket("a", 0).num("mmr", math.MaxFloat64).num("level", 10)},
		{"below minus the max", "players[0].attributes.mmr", "-5000 is below -3000, beyond the rule's max 3000 (matching_rule[0])",
			ticket("a", 0).num("mmr", -5000).num("level", 10)},
		{"infinity is still not finite", "players[0].attributes.mmr", "must be a finite number",
			ticket("a", 0).num("mmr", math.Inf(1)).num("level", 10)},
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
		})
	}
}

// TestCheckRefusesUnstaffableParties: a party plays on one team, so one
// whose players' roles can never fit a team's role maxima is refused at
// create, naming the roles.
func TestCheckRefusesUnstaffableParties(t *testing.T) {
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 3},
		"roles": {"quotas": [{"name": "tank", "min": 1, "max": 1}, {"name": "dps", "min": 1, "max": 2}]}}`)
	for _, c := range []struct {
		name  string
		tk    *cupid.Ticket
		field string
	}{
		{"two who only tank", ticket("a", 0).party(2).str("role", "tank").t, "players"},
		{"tank and dps", ticket("b", 0).party(2).str("role", "tank", "dps").t, ""},
		{"three who only deal damage", ticket("c", 0).party(3).str("role", "dps").t, "players"},
		{"a solo tank", ticket("d", 0).str("role", "tank").t, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := p.Check(c.tk)
			if c.field == "" && err != nil || c.field != "" && (err == nil || !strings.Contains(err.Error(), "could never be staffed")) {
				t.Fatalf("Check: %v", err)
			}
		})
	}
}
