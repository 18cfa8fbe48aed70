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
