package cupid

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestCheckAttributesOrder: the engine looks attributes up by binary search,
// so a Go caller's hand-built, unsorted or duplicated list is refused here
// rather than silently misread later.
func TestCheckAttributesOrder(t *testing.T) {
	n := Number(1)
	for _, c := range []struct {
		name  string
		attrs Attributes
		want  string
	}{
		{"none", nil, ""},
		{"sorted", Attributes{{Name: "a", Value: n}, {Name: "b", Value: n}}, ""},
		{"unsorted", Attributes{{Name: "b", Value: n}, {Name: "a", Value: n}}, "attributes.a"},
		{"twice", Attributes{{Name: "a", Value: n}, {Name: "a", Value: n}}, "attributes.a"},
	} {
		err := checkAttributes("attributes", c.attrs)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestTicketValidateNamesTheField(t *testing.T) {
	ok := func() *Ticket {
		return &Ticket{Key: QueueKey{Queue: "duel"}, Players: []Player{{ID: "a", Attributes: NewAttributes(map[string]Value{"mmr": Number(1)})}}}
	}
	for _, c := range []struct {
		name  string
		edit  func(*Ticket)
		field string
	}{
		{"valid", func(*Ticket) {}, ""},
		{"no queue", func(t *Ticket) { t.Key.Queue = "" }, "queue"},
		{"long version", func(t *Ticket) { t.Key.Version = strings.Repeat("v", MaxIDLength+1) }, "version"},
		{"NUL in custom key", func(t *Ticket) { t.Key.Custom = "eu\x00" }, "custom_key"},
		{"bad UTF-8 request id", func(t *Ticket) { t.RequestID = "\xff" }, "request_id"},
		{"no players", func(t *Ticket) { t.Players = nil }, "players"},
		{"empty player id", func(t *Ticket) { t.Players[0].ID = "" }, "players[0].id"},
		{"NUL in player id", func(t *Ticket) { t.Players[0].ID = "a\x00b" }, "players[0].id"},
		{"player twice", func(t *Ticket) { t.Players = append(t.Players, Player{ID: "a"}) }, "players[1].id"},
		{"too many players", func(t *Ticket) {
			for i := range MaxPlayersPerTicket {
				t.Players = append(t.Players, Player{ID: fmt.Sprint("p", i)})
			}
		}, "players"},
		{"infinite skill", func(t *Ticket) { t.Players[0].Attributes.Set("mmr", Number(math.Inf(1))) }, "players[0].attributes.mmr"},
		{"long string", func(t *Ticket) { t.Attributes.Set("map", String(strings.Repeat("m", MaxStringLength+1))) }, "attributes.map"},
		{"negative latency", func(t *Ticket) { t.Latencies = map[string]int32{"eu": -1} }, "latencies.eu"},
		{"latency too high", func(t *Ticket) { t.Latencies = map[string]int32{"eu": MaxLatencyMs + 1} }, "latencies.eu"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk := ok()
			c.edit(tk)
			err := tk.Validate()
			var e *Error
			switch {
			case c.field == "" && err != nil:
				t.Fatalf("valid ticket refused: %v", err)
			case c.field != "" && (!errors.As(err, &e) || e.Code != CodeInvalid || e.Field != c.field):
				t.Fatalf("error %v, want invalid on %q", err, c.field)
			}
		})
	}
}

// TestMapOfNumbersValidate: a map attribute is checked like a list — a
// bounded number of keys, keys a list could hold, finite values — and a bad
// entry is named by the path a rule reads it by.
func TestMapOfNumbersValidate(t *testing.T) {
	big := map[string]float64{}
	for i := range MaxListItems + 1 {
		big[fmt.Sprintf("k%d", i)] = 1
	}
	for _, c := range []struct {
		name  string
		m     map[string]float64
		field string
	}{
		{"fine", map[string]float64{"sword": 10, "bow": -3}, ""},
		{"empty map", map[string]float64{}, ""},
		{"NaN", map[string]float64{"sword": 10, "bow": math.NaN()}, "players[0].attributes.skills.bow"},
		{"infinite", map[string]float64{"sword": math.Inf(1)}, "players[0].attributes.skills.sword"},
		{"empty key", map[string]float64{"": 1}, "players[0].attributes.skills"},
		{"NUL in a key", map[string]float64{"a\x00b": 1}, "players[0].attributes.skills.a\x00b"},
		{"too many keys", big, "players[0].attributes.skills"},
	} {
		tk := &Ticket{Key: QueueKey{Queue: "duel"}, Players: []Player{{ID: "a", Attributes: NewAttributes(map[string]Value{"skills": Numbers(c.m)})}}}
		err := tk.Validate()
		var e *Error
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.field != "" && (!errors.As(err, &e) || e.Field != c.field):
			t.Errorf("%s: %v, want invalid on %q", c.name, err, c.field)
		}
	}
}

// TestResolvePaths: a rule's attribute name reads the attribute of that
// exact name first, else one key of a map of numbers; the longest map name
// wins, and a key the map lacks is absent rather than read from elsewhere.
func TestResolvePaths(t *testing.T) {
	a := NewAttributes(map[string]Value{
		"skills":       Numbers(map[string]float64{"sword": 10, "bow": 3, "x.y": 7}),
		"skills.bow":   Number(99), // the exact name wins
		"gear.v2":      Numbers(map[string]float64{"hp": 5}),
		"gear":         Numbers(map[string]float64{"v2.hp": 6}),
		"mmr":          Number(1500),
		"mode":         String("ranked"),
		"mode.ranked":  Bool(true),
		"plain.number": Number(1),
	})
	for _, c := range []struct {
		name string
		ok   bool
		want Value
	}{
		{"mmr", true, Number(1500)},
		{"skills.sword", true, Number(10)},
		{"skills.bow", true, Number(99)},
		{"skills.x.y", true, Number(7)},
		{"skills.axe", false, Value{}},
		{"gear.v2.hp", true, Number(5)},
		{"mode.ranked", true, Bool(true)},
		{"mmr.x", false, Value{}},
		{"plain.number", true, Number(1)},
		{"skills", true, Numbers(map[string]float64{"sword": 10, "bow": 3, "x.y": 7})},
		{".sword", false, Value{}},
	} {
		got, ok := a.Resolve(c.name)
		if ok != c.ok || got.Kind != c.want.Kind || got.Number != c.want.Number || got.Bool != c.want.Bool {
			t.Errorf("Resolve(%q) = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestListLimit(t *testing.T) {
	for _, c := range []struct {
		in, want int
		err      string
	}{{0, 100, ""}, {1, 1, ""}, {1000, 1000, ""}, {1001, 0, "limit: at most 1000, got 1001"}, {-1, 0, "limit: must not be negative"}} {
		got, err := ListLimit(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ListLimit(%d): %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ListLimit(%d) = %d, %v, want %d", c.in, got, err, c.want)
		}
	}
}
