package lifecycle

import (
	"errors"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

func TestAmend(t *testing.T) {
	now := time.Date(2026, 5, 4, 9, 0, 30, 0, time.UTC)
	created := now.Add(-30 * time.Second)
	waiting := &cupid.Ticket{ID: "t1", Key: cupid.QueueKey{Queue: "duel"}, State: cupid.StateWaiting, CreatedAt: created, ExpiresAt: created.Add(time.Hour),
		Players: []cupid.Player{
			{ID: "ann", Attributes: cupid.NewAttributes(map[string]cupid.Value{"mode": cupid.String("dm")})},
			{ID: "bob"},
		},
		Attributes: cupid.NewAttributes(map[string]cupid.Value{"mode": cupid.Strings("dm", "koth"), "mmr": cupid.Number(3)}),
		Latencies:  map[string]int32{"us-east": 50, "eu-west": 100}}
	matched := *waiting
	matched.State = cupid.StateMatched
	for _, tc := range []struct {
		name string
		t    *cupid.Ticket
		a    Amendment
		code cupid.Code // "" when the amendment is written
	}{
		{"a waiting ticket takes the offer", waiting, Amendment{Latencies: map[string]int32{"eu-west": 60}}, ""},
		{"a new region", waiting, Amendment{Latencies: map[string]int32{"ap-east": 90}}, ""},
		{"unknown ticket", nil, Amendment{Latencies: map[string]int32{"eu-west": 60}}, cupid.CodeNotFound},
		{"no longer waiting", &matched, Amendment{Latencies: map[string]int32{"eu-west": 60}}, cupid.CodeConflict},
		{"nothing to change", waiting, Amendment{}, cupid.CodeInvalid},
		{"the same latency", waiting, Amendment{Latencies: map[string]int32{"eu-west": 100}}, cupid.CodeInvalid},
		{"a negative latency", waiting, Amendment{Latencies: map[string]int32{"eu-west": -1}}, cupid.CodeInvalid},
		{"a mode added", waiting, Amendment{Values: map[string]string{"mode": "ctf"}}, ""},
		{"a mode it accepts already", waiting, Amendment{Values: map[string]string{"mode": "dm"}}, cupid.CodeInvalid},
		{"a choice it does not hold", waiting, Amendment{Values: map[string]string{"map": "dust"}}, cupid.CodeInvalid},
		{"a value added to a number", waiting, Amendment{Values: map[string]string{"mmr": "x"}}, cupid.CodeInvalid},
		{"an empty value", waiting, Amendment{Values: map[string]string{"mode": ""}}, cupid.CodeInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := amend(tc.t, "t1", tc.a, now)
			if tc.code != "" {
				var ce *cupid.Error
				if !errors.As(err, &ce) || ce.Code != tc.code || w != nil {
					t.Fatalf("got %v (writes %v), want %s and nothing written", err, w, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Tickets) != 1 || len(w.Events) != 0 || w.Match != nil {
				t.Fatalf("writes %+v", w)
			}
			got := w.Tickets[0]
			if !got.Reborn || got.From != cupid.StateWaiting || got.Ticket.State != cupid.StateWaiting {
				t.Errorf("write %+v", got)
			}
			if !got.Ticket.CreatedAt.Equal(created) || !got.Ticket.ExpiresAt.Equal(tc.t.ExpiresAt) || got.Ticket.ID != "t1" {
				t.Errorf("the ticket lost its age: %+v", got.Ticket)
			}
			for region, ms := range tc.a.Latencies {
				if got.Ticket.Latencies[region] != ms {
					t.Errorf("latency to %s %d, want %d", region, got.Ticket.Latencies[region], ms)
				}
			}
			for name, v := range tc.a.Values {
				tv, _ := got.Ticket.Attributes.Get(name)
				pv, _ := got.Ticket.Players[0].Attributes.Get(name)
				if !slices.Contains(tv.Strings, v) || !slices.Contains(pv.Strings, v) {
					t.Errorf("%s after adding %s: ticket %v, ann %v", name, v, tv, pv)
				}
				if _, has := got.Ticket.Players[1].Attributes.Get(name); has {
					t.Errorf("bob, who had no %s of his own, got one", name)
				}
			}
			before, _ := tc.t.Players[0].Attributes.Get("mode")
			beforeT, _ := tc.t.Attributes.Get("mode")
			if tc.t.Latencies["eu-west"] != 100 || before.String != "dm" || len(beforeT.Strings) != 2 {
				t.Error("the stored ticket read was changed in place")
			}
		})
	}
}
