package engine

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// t0 is the virtual clock's origin in tests.
var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

var testKey = cupid.QueueKey{Queue: "q"}

func load(t testing.TB, src string) *ruleset.Compiled {
	t.Helper()
	c, err := ruleset.Load([]byte(src))
	if err != nil {
		t.Fatalf("ruleset: %v", err)
	}
	return c
}

func newPool(t testing.TB, src string) *Pool {
	t.Helper()
	p, err := New(testKey, load(t, src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tb builds test tickets.
type tb struct {
	t *cupid.Ticket
}

func ticket(id string, created float64) *tb {
	return &tb{t: &cupid.Ticket{ID: id, Key: testKey, CreatedAt: at(created), State: cupid.StateWaiting,
		Players: []cupid.Player{{ID: id + ".p0", Attributes: cupid.Attributes{}}}}}
}

// party makes the ticket a party of n players (attributes set afterwards go
// to every player).
func (b *tb) party(n int) *tb {
	b.t.Players = nil
	for i := 0; i < n; i++ {
		b.t.Players = append(b.t.Players, cupid.Player{ID: fmt.Sprintf("%s.p%d", b.t.ID, i), Attributes: cupid.Attributes{}})
	}
	return b
}

func (b *tb) num(name string, vs ...float64) *tb {
	for i := range b.t.Players {
		v := vs[0]
		if i < len(vs) {
			v = vs[i]
		}
		b.t.Players[i].Attributes.Set(name, cupid.Number(v))
	}
	return b
}

func (b *tb) str(name string, vs ...string) *tb {
	for i := range b.t.Players {
		v := vs[0]
		if i < len(vs) {
			v = vs[i]
		}
		b.t.Players[i].Attributes.Set(name, cupid.String(v))
	}
	return b
}

func (b *tb) list(name string, vs ...string) *tb {
	for i := range b.t.Players {
		b.t.Players[i].Attributes.Set(name, cupid.Strings(vs...))
	}
	return b
}

func (b *tb) opt(name string, vs ...string) *tb {
	if len(vs) == 1 {
		b.t.Attributes.Set(name, cupid.String(vs[0]))
	} else {
		b.t.Attributes.Set(name, cupid.Strings(vs...))
	}
	return b
}

func (b *tb) lat(kv ...any) *tb {
	b.t.Latencies = map[string]int32{}
	for i := 0; i < len(kv); i += 2 {
		b.t.Latencies[kv[i].(string)] = int32(kv[i+1].(int))
	}
	return b
}

func (b *tb) add(t testing.TB, p *Pool) *cupid.Ticket {
	t.Helper()
	if err := p.Add(b.t); err != nil {
		t.Fatalf("add %s: %v", b.t.ID, err)
	}
	return b.t
}

// matchIDs renders proposals as "a+b|c+d" strings (teams by |), sorted
// within teams, for compact assertions.
func matchIDs(props []Proposal) []string {
	var out []string
	for _, pr := range props {
		s := ""
		for i, tm := range pr.Match().Teams {
			if i > 0 {
				s += "|"
			}
			ids := append([]string(nil), tm.TicketIDs...)
			sortStrings(ids)
			for j, id := range ids {
				if j > 0 {
					s += "+"
				}
				s += id
			}
		}
		out = append(out, s)
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func numv(v float64) cupid.Value { return cupid.Number(v) }

func nan() float64 { return math.NaN() }

func asCupidError(err error) (*cupid.Error, bool) {
	var ce *cupid.Error
	ok := errors.As(err, &ce)
	return ce, ok
}

// attrOf reads one attribute, the zero Value when absent, as indexing the
// old map did; property checks chain .Number or .String on it.
func attrOf(a cupid.Attributes, name string) cupid.Value {
	v, _ := a.Get(name)
	return v
}
