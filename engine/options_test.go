package engine

import (
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

// "any" match options, as AccelByte's match rulesets define them: players
// are matched with others who have the same option and at least one value
// in common ("players can only match if they have both specified at least one
// matching map"). A ticket without the option therefore matches nobody, not
// even another ticket without it, and Check refuses it up front rather than
// letting it wait forever.

const anyMaps = `{` + duel + `, "match_options": {"options": [{"name": "map", "type": "any"}]}}`

func TestAnyOptionCheck(t *testing.T) {
	for _, tc := range []struct {
		name, field, msg string
		b                *tb
	}{
		{"set on the ticket", "", "", ticket("a", 0).opt("map", "x", "y")},
		{"set on every player", "", "", ticket("a", 0).party(1).list("map", "x")},
		{"missing", "attributes.map", `required: match_options.options[0] is "any"`, ticket("a", 0)},
		{"empty list", "attributes.map", "at least one value", ticket("a", 0).opt("map")},
		{"missing for one player of a party", "players[1].attributes.map", "required",
			func() *tb {
				b := ticket("p", 0).party(2)
				b.t.Players[0].Attributes.Set("map", cupid.Strings("x"))
				return b
			}()},
		{"a party without a common value", "players", `share no value of map`,
			func() *tb {
				b := ticket("p", 0).party(2)
				b.t.Players[0].Attributes.Set("map", cupid.Strings("x"))
				b.t.Players[1].Attributes.Set("map", cupid.Strings("y"))
				return b
			}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := anyMaps
			if strings.Contains(tc.name, "party") || strings.Contains(tc.name, "player") {
				rules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2},
					"match_options": {"options": [{"name": "map", "type": "any"}]}}`
			}
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

func TestAnyOptionNeverMatchesWithoutIt(t *testing.T) {
	// Neither a ticket that has the option nor one without it may match a
	// ticket without it: the pool never takes such a ticket.
	p := newPool(t, anyMaps)
	ticket("a", 0).opt("map", "x").add(t, p)
	for _, b := range []*tb{ticket("b", 1), ticket("c", 2)} {
		if err := p.Add(b.t); err == nil {
			t.Fatalf("%s without the option was taken", b.t.ID)
		}
	}
	if got := matchIDs(p.Step(at(3))); len(got) != 0 {
		t.Fatalf("matches = %v", got)
	}
	ticket("d", 4).opt("map", "y", "x").add(t, p)
	if got := matchIDs(p.Step(at(5))); len(got) != 1 || got[0] != "a|d" {
		t.Fatalf("matches = %v, want a|d", got)
	}
}

func TestAnyOptionSetRulesetEvicts(t *testing.T) {
	// A queue that starts reading "any" options sends away the tickets that
	// could now never match, with the reason.
	p := newPool(t, `{`+duel+`}`)
	ticket("a", 0).opt("map", "x").add(t, p)
	ticket("b", 0).add(t, p)
	ev, err := p.SetRuleset(load(t, anyMaps))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 1 || ev[0].Ticket.ID != "b" || !strings.Contains(ev[0].Err.Error(), "attributes.map") {
		t.Fatalf("evicted = %v", ev)
	}
}

func TestAnyOptionAllAndUniqueUnchanged(t *testing.T) {
	// "all" still lets unset match unset; "unique" still needs a value.
	runCase(t, ruleCase{
		rules:   `{` + duel + `, "match_options": {"options": [{"name": "mode", "type": "all"}, {"name": "map", "type": "any"}]}}`,
		tickets: []*tb{ticket("a", 0).opt("map", "x"), ticket("b", 1).opt("map", "x").opt("mode", "ranked"), ticket("c", 2).opt("map", "x", "z")},
		steps:   []float64{3},
		want:    []string{"3: a|c"},
	})
}
