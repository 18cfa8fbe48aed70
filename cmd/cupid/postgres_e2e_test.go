package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// postgresURL creates a fresh database on the PostgreSQL server named by
// CUPID_TEST_POSTGRES (the local server by default), drops it when the test
// ends, and returns its URL. It skips, saying how to point it at a server,
// only when no server answers.
func postgresURL(t *testing.T) string {
	t.Helper()
	admin := os.Getenv("CUPID_TEST_POSTGRES")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
			t.Skipf("no PostgreSQL server answered (%v); set CUPID_TEST_POSTGRES to a server's postgres:// URL to run this test", err)
		}
		t.Fatalf("connect to PostgreSQL: %v", err)
	}
	defer conn.Close(context.Background())
	b := make([]byte, 6)
	rand.Read(b)
	name := "cupid_e2e_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

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
