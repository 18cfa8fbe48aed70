package storetest

import (
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// testAmend: a waiting ticket that accepted an offer (lifecycle.Amend)
// reads back with its new latency and its creation, expiry, players and
// place in the oldest-first order unchanged; it stays in the player index
// (a second live ticket of its player is still refused); and it can still
// be matched.
func testAmend(t *testing.T, s cupid.Store) {
	var m maker
	create(t, s, nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2")))
	before, err := s.Ticket(bg, "b")
	if err != nil {
		t.Fatal(err)
	}
	at := T0.Add(2 * time.Minute)
	got, err := lifecycle.Amend(bg, s, cupid.Fence{}, "b", lifecycle.Amendment{Latencies: map[string]int32{"us": 60}}, at)
	if err != nil {
		t.Fatal(err)
	}
	if got.Latencies["us"] != 60 || got.Latencies["eu"] != 20 {
		t.Errorf("amended latencies %v", got.Latencies)
	}
	read, err := s.Ticket(bg, "b")
	if err != nil {
		t.Fatal(err)
	}
	if read.Latencies["us"] != 60 || read.Latencies["eu"] != 20 || read.State != cupid.StateWaiting ||
		!read.CreatedAt.Equal(before.CreatedAt) || !read.ExpiresAt.Equal(before.ExpiresAt) || len(read.Players) != 1 || read.Players[0].ID != "p2" {
		t.Errorf("read back %+v; before %+v", read, before)
	}
	waiting, err := s.WaitingTickets(bg)
	if err != nil {
		t.Fatal(err)
	}
	if len(waiting) != 2 || waiting[0].ID != "a" || waiting[1].ID != "b" {
		t.Errorf("waiting %v, want a then b", ids(waiting))
	}
	out, _, err := s.CreateTickets(bg, []cupid.NewTicket{nt(m.tk("c", "duel", "", "p2"))})
	if err != nil || out[0].Err == nil {
		t.Errorf("a second live ticket of p2 after the amendment: %+v, %v", out, err)
	}
	commit(t, s, match("m", at, []string{"a"}, []string{"b"}))
	_, err = lifecycle.Amend(bg, s, cupid.Fence{}, "b", lifecycle.Amendment{Latencies: map[string]int32{"us": 50}}, at)
	wantCode(t, "Amend(matched)", err, cupid.CodeConflict)
}
