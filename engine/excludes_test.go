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
		x := &extra{}
		p.summarise(tk, x)
		return &entry{h: hold(tk), x: x}
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
		got, native := p.excludesPass(0, c.a, c.c)
		if native != c.native || native && got != c.want {
			t.Errorf("%s: excludesPass = %v, native %v; want %v, native %v", c.name, got, native, c.want, c.native)
		}
		// The expression's own answer, both ways.
		if expr := p.pairExpr(f, c.a, c.c, t0); c.native && expr != c.want {
			t.Errorf("%s: the expression says %v, the native judgement %v", c.name, expr, got)
		}
		if both := p.pairFilter(0, c.a, c.c, t0); both != p.pairExpr(f, c.a, c.c, t0) {
			t.Errorf("%s: pairFilter %v with the native path, %v without", c.name, both, !both)
		}
	}

	// A hash that collides with the candidate's is no block: the hit is
	// confirmed on the id itself. a lists "x" and "y"; its list's words
	// are made to carry c's hash, each still placing its own id.
	a, c := mk("a", cupid.Strings("x", "y")), mk("c", none)
	list, width, _ := exList(a.x.ex, 0, 1)
	for i := range list {
		list[i] = c.x.ex[2]>>width<<width | list[i]&(1<<width-1)
	}
	if ok, native := p.excludesPass(0, a, c); !ok || !native {
		t.Errorf("colliding hashes: excludesPass = %v, native %v; want a pass", ok, native)
	}
	// The same words with c's id in the list are a block.
	a.h.players[0].Attributes[0].Value = cupid.Strings("x", "c0")
	if ok, _ := p.excludesPass(0, a, c); ok {
		t.Errorf("c0 listed: excludesPass passes")
	}
}
