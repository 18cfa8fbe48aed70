package engine

import (
	"fmt"
	"testing"

	"github.com/cupid-match/cupid"
)

// TestExcludesAgreesWithTheExpression: the native judgement of a
// block-list rule gives the rule's expression's answer for every pair,
// both ways round, and leaves a value that is not a list to the
// expression.
func TestExcludesAgreesWithTheExpression(t *testing.T) {
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2},
		"collection_rule": [{"attribute": "blocked", "operation": "player_ids", "max_count": 0}]}`)
	f := p.r.filters[0]
	if f.Excludes != "blocked" {
		t.Fatalf("the block-list rule's filter has Excludes %q", f.Excludes)
	}
	mk := func(id string, lists ...cupid.Value) *entry {
		tk := &cupid.Ticket{ID: id}
		for i, l := range lists {
			pl := cupid.Player{ID: fmt.Sprintf("%s%d", id, i)}
			if l.Kind != 0 || l.Strings != nil {
				pl.Attributes = cupid.Attributes{{Name: "blocked", Value: l}}
			}
			tk.Players = append(tk.Players, pl)
		}
		return &entry{h: hold(tk), x: &extra{}}
	}
	none := cupid.Value{}
	cases := []struct {
		name   string
		a, c   *entry
		want   bool
		native bool
	}{
		{"no lists", mk("a", none), mk("c", none), true, true},
		{"empty lists", mk("a", cupid.Strings()), mk("c", cupid.Strings()), true, true},
		{"a blocks c", mk("a", cupid.Strings("x", "c0")), mk("c", none), false, true},
		{"c blocks a", mk("a", none), mk("c", cupid.Strings("a0")), false, true},
		{"a party's second player blocks", mk("a", none, cupid.Strings("c1")), mk("c", none, none), false, true},
		{"blocks someone else", mk("a", cupid.Strings("z")), mk("c", cupid.Strings("y")), true, true},
		{"not a list", mk("a", cupid.String("c0")), mk("c", none), false, false},
	}
	for _, c := range cases {
		got, native := excludesPass(f.Excludes, c.a, c.c)
		if native != c.native || native && got != c.want {
			t.Errorf("%s: excludesPass = %v, native %v; want %v, native %v", c.name, got, native, c.want, c.native)
		}
		// The expression's own answer (Excludes cleared), both ways.
		e := *f
		e.Excludes = ""
		if expr := p.pairFilter(&e, c.a, c.c, t0); c.native && expr != c.want {
			t.Errorf("%s: the expression says %v, the native judgement %v", c.name, expr, got)
		}
		if both := p.pairFilter(f, c.a, c.c, t0); both != p.pairFilter(&e, c.a, c.c, t0) {
			t.Errorf("%s: pairFilter %v with the native path, %v without", c.name, both, !both)
		}
	}
}
