package main

import (
	"testing"

	"github.com/cupid-match/cupid/internal/pgtest"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// postgresURL is a fresh PostgreSQL database for the test (pgtest.URL).
func postgresURL(t *testing.T) string { return pgtest.URL(t, "cupid_e2e") }

// TestServeOnPostgres runs the server as the README's --store flag says, on
// a fresh PostgreSQL database: tickets match, a restart keeps what waits and
// what was matched, and one live ticket per player holds there too.
func TestServeOnPostgres(t *testing.T) {
	dbURL := postgresURL(t)
	s := startServer(t, serveFlags{store: dbURL})
	c := s.connectClient()
	a := create(t, c, "duel", player("pg-alice", 1500))
	create(t, c, "duel", player("pg-bob", 1510))
	if ev := waitFinal(t, c, a.GetId(), 0); ev.GetKind() != "matched" {
		t.Fatalf("alice ended %v, want matched", ev)
	}
	w := create(t, c, "squad5v5", player("pg-carol", 1500))
	s.stop()

	s = startServer(t, serveFlags{store: dbURL})
	c = s.connectClient()
	if got := getTicket(t, c, a.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_MATCHED || got.GetMatch() == nil {
		t.Fatalf("after restart alice is %v, want matched with her match", got)
	}
	if got := getTicket(t, c, w.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
		t.Fatalf("after restart carol is %v, want waiting", got.GetState())
	}
	_, err := createReq(t, c, &cupidv1.CreateTicketRequest{Queue: "squad5v5", Players: []*cupidv1.Player{player("pg-carol", 1500)}})
	wantCode(t, err, connect.CodeAlreadyExists, w.GetId())
}

// TestNoPlayerInTwoMatchesOnPostgres races creates and matches as the
// SQLite test does, on PostgreSQL, whose transactions really run side by
// side.
func TestNoPlayerInTwoMatchesOnPostgres(t *testing.T) {
	raceTwoQueues(t, postgresURL(t))
}
