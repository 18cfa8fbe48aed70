package ruleset

import (
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

// TestReservedKeysInRules: a rule that reads a reserved ticket key must need
// the kind of value that key holds. new_session_only holds a boolean, which
// no rule but an expression can read.
func TestReservedKeysInRules(t *testing.T) {
	const nso = `"new_session_only" is a reserved ticket key and never holds `
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"matching rule", with(`"matching_rule": [{"attribute": "new_session_only", "criteria": "distance", "reference": 1}]`),
			`matching_rule[0].attribute: ` + nso + `a number (it holds a boolean)`},
		{"match option", with(`"match_options": {"options": [{"name": "new_session_only", "type": "all"}]}`),
			`match_options.options[0].name: ` + nso + `a string or a list of strings (it holds a boolean)`},
		{"comparison between tickets", with(`"comparison_rule": [{"attribute": "new_session_only", "operator": "="}]`),
			`comparison_rule[0].attribute: ` + nso + `a number or a string (it holds a boolean)`},
		{"comparison gate", with(`"comparison_rule": [{"attribute": "new_session_only", "operator": "=", "value": "true"}]`),
			`comparison_rule[0].attribute: ` + nso + `a string (it holds a boolean)`},
		{"collection", with(`"collection_rule": [{"attribute": "new_session_only", "operation": "contains", "value": "x"}]`),
			`collection_rule[0].attribute: ` + nso + `a string or a list of strings (it holds a boolean)`},
		{"team rule", with(`"team_rule": [{"attribute": "new_session_only", "aggregate": "avg", "max_difference": 1}]`),
			`team_rule[0].attribute: ` + nso + `a number (it holds a boolean)`},
		{"match total", with(`"match_total": [{"attribute": "new_session_only", "aggregate": "sum", "max": 1}]`),
			`match_total[0].attribute: ` + nso + `a number (it holds a boolean)`},
		{"roles", with(`"roles": {"attribute": "new_session_only", "quotas": [{"name": "tank"}]}`),
			`roles.attribute: ` + nso + `a string or a list of strings (it holds a boolean)`},
		{"cross-play accepted", with(`"cross_play": {"accepted_attribute": "new_session_only"}`),
			`cross_play.accepted_attribute: ` + nso + `a string or a list of strings (it holds a boolean)`},
		{"cross-play current", with(`"cross_play": {"current_attribute": "new_session_only"}`),
			`cross_play.current_attribute: ` + nso + `a string (it holds a boolean)`},
		{"a string key read as a number", with(`"comparison_rule": [{"attribute": "client_version", "operator": ">=", "value": 3}]`),
			`comparison_rule[0].attribute: "client_version" is a reserved ticket key and never holds a number (it holds a string)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problemsOf(t, tt.in)
			if !contains(got, tt.want) {
				t.Errorf("missing problem\n  %s\ngot\n  %s", tt.want, strings.Join(got, "\n  "))
			}
		})
	}
	// Reading a reserved key with the kind it holds stays allowed.
	for _, ok := range []string{
		with(`"match_options": {"options": [{"name": "cross_platform", "type": "all"}]}`),
		with(`"comparison_rule": [{"attribute": "server_name", "operator": "!=", "value": "local"}]`),
		with(`"collection_rule": [{"attribute": "role", "operation": "contains", "value": "tank"}]`),
		with(`"filter": [{"name": "fresh", "expr": "ticket.attr.new_session_only == candidate.attr.new_session_only"}]`),
	} {
		if got := problemsOf(t, ok); got != nil {
			t.Errorf("%s: %v", ok, got)
		}
	}
}

func TestReservedKinds(t *testing.T) {
	for _, tc := range []struct {
		key  string
		v    cupid.Value
		want bool
	}{
		{KeyNewSessionOnly, cupid.Bool(true), true},
		{KeyNewSessionOnly, cupid.String("true"), false},
		{KeyNewSessionOnly, cupid.Number(1), false},
		{KeyClientVersion, cupid.String("1.2"), true},
		{KeyClientVersion, cupid.Number(1.2), false},
		{KeyRole, cupid.Strings("tank", "dps"), true},
		{KeyCrossPlatform, cupid.Strings("pc"), true},
		{KeyCurrentPlatform, cupid.Bool(true), false},
	} {
		r, ok := Reserved(tc.key)
		if !ok {
			t.Fatalf("%s is not reserved", tc.key)
		}
		if got := r.Holds(tc.v.Kind); got != tc.want {
			t.Errorf("%s holds %+v: %v, want %v", tc.key, tc.v, got, tc.want)
		}
	}
	if _, ok := Reserved("mmr"); ok {
		t.Error("mmr is reserved")
	}
	if r, _ := Reserved(KeyNewSessionOnly); r.Kind != "a boolean" {
		t.Errorf("new_session_only holds %q", r.Kind)
	}
}

func TestTicketViewBooleans(t *testing.T) {
	tk := party("b", 0, 1000)
	tk.Attributes.Set(KeyNewSessionOnly, cupid.Bool(true))
	tk.Players[0].Attributes.Set("voice", cupid.Bool(false))
	v := NewTicketView(tk, now)
	if v.Attr[KeyNewSessionOnly] != true {
		t.Errorf("attr new_session_only = %#v", v.Attr[KeyNewSessionOnly])
	}
	if v.Players[0]["voice"] != false {
		t.Errorf("player voice = %#v", v.Players[0]["voice"])
	}
	f := compileOne(t, ExprRule{Name: "fresh", Expr: `ticket.attr.new_session_only && !candidate.players[0].voice`}, false)
	if ok, err := f.Pass(PairEnv{v, v}); err != nil || !ok {
		t.Errorf("filter on booleans: %v, %v", ok, err)
	}
}
