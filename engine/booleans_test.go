package engine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

// Booleans are attribute values of their own kind: the reserved key
// new_session_only of AccelByte's match rulesets is one, and expressions may
// test others.

func (b *tb) flag(name string, v bool) *tb {
	b.t.Attributes.Set(name, cupid.Bool(v))
	return b
}

func TestBoolValueJSON(t *testing.T) {
	// The stored form of the older kinds must not change by a byte.
	for _, tc := range []struct {
		v    cupid.Value
		want string
	}{
		{cupid.Number(3), `{"kind":1,"number":3}`},
		{cupid.String("x"), `{"kind":2,"string":"x"}`},
		{cupid.Strings("a", "b"), `{"kind":3,"strings":["a","b"]}`},
		{cupid.Bool(true), `{"kind":4,"bool":true}`},
		{cupid.Bool(false), `{"kind":4}`},
	} {
		got, err := json.Marshal(tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.v, got, err, tc.want)
			continue
		}
		var back cupid.Value
		if err := json.Unmarshal(got, &back); err != nil || back.Kind != tc.v.Kind || back.Bool != tc.v.Bool {
			t.Errorf("Unmarshal(%s) = %+v, %v", got, back, err)
		}
	}
}

func TestBoolAttributesValidate(t *testing.T) {
	tk := ticket("a", 0).flag("new_session_only", true).t
	tk.Players[0].Attributes.Set("voice", cupid.Bool(false))
	if err := tk.Validate(); err != nil {
		t.Fatalf("Validate refuses booleans: %v", err)
	}
	// A retry that flips a boolean is not the same request.
	other := ticket("a", 0).flag("new_session_only", false).t
	other.Players[0].Attributes.Set("voice", cupid.Bool(false))
	if tk.SameRequest(other) {
		t.Error("SameRequest ignores a boolean's value")
	}
}

func TestBoolCheck(t *testing.T) {
	rules := `{` + duel + `, "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}]}`
	for _, tc := range []struct {
		name, field, msg string
		b                *tb
	}{
		{"new_session_only true", "", "", ticket("a", 0).num("mmr", 1000).flag("new_session_only", true)},
		{"new_session_only false", "", "", ticket("a", 0).num("mmr", 1000).flag("new_session_only", false)},
		{"new_session_only as a string", "attributes.new_session_only", "must be a boolean",
			ticket("a", 0).num("mmr", 1000).opt("new_session_only", "true")},
		{"new_session_only on a player", "players[0].attributes.new_session_only", "must be a boolean",
			ticket("a", 0).num("mmr", 1000).num("new_session_only", 1)},
		{"a boolean is not a number", "players[0].attributes.mmr", "must be a number, not a boolean (matching_rule[0])",
			func() *tb {
				b := ticket("a", 0)
				b.t.Players[0].Attributes.Set("mmr", cupid.Bool(true))
				return b
			}()},
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

func TestBoolInExpressions(t *testing.T) {
	// The filter compares booleans as booleans: "voice == true" would be
	// false for the string "true".
	runCase(t, ruleCase{
		name:  "pair filter on a boolean",
		rules: `{` + duel + `, "filter": [{"name": "voice", "expr": "ticket.attr.voice == true && candidate.attr.voice == true"}]}`,
		tickets: []*tb{
			ticket("a", 0).flag("voice", true), ticket("b", 1).flag("voice", false), ticket("c", 2).flag("voice", true),
		},
		steps: []float64{3},
		want:  []string{"3: a|c"},
	})
	p := newPool(t, `{`+duel+`, "score": [{"name": "voice_chat", "expr": "mean(map(match.tickets, {.attr.voice == true ? 1 : 0}))"}]}`)
	ticket("a", 0).flag("voice", true).add(t, p)
	ticket("b", 0).flag("voice", false).add(t, p)
	props := p.Step(at(0))
	if len(props) != 1 {
		t.Fatal("no match")
	}
	if v, ok := props[0].Quality.Parts.Get("voice_chat"); !ok || v != 0.5 {
		t.Errorf("score part = %v, %v; parts %v", v, ok, props[0].Quality.Parts)
	}
}
