package main

import (
	"bufio"
	"context"
	"log/slog"
	"net"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// squad is two teams of one or two; every match stays open to backfill
// until full.
const squad = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100, "max": 100000}],
  "auto_backfill": true}`

// join connects to a game server as player and returns its first answer.
func join(t *testing.T, addr, player string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("join " + player + "\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("%s joining %s: %v", player, addr, err)
	}
	return strings.TrimSpace(line)
}

// leave connects as player and leaves the game.
func leave(t *testing.T, addr, player string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	if _, err := conn.Write([]byte("join " + player + "\nleave\n")); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s leaving: %v after %q", player, err, got)
		}
		got = append(got, strings.TrimSpace(line))
	}
	if got[1] != "bye" {
		t.Fatalf("%s leaving: the server said %q", player, got)
	}
}

// addrOf waits for a ticket's assignment and returns its server.
func addrOf(t *testing.T, c *client.Client, ctx context.Context, ticket string) string {
	t.Helper()
	var addr string
	err := c.WatchUntilAssigned(ctx, ticket, 0, func(ev *cupidv1.TicketEvent) error {
		if a := ev.GetAssignment(); a != nil {
			addr = a.GetServer()
		}
		return nil
	})
	if err != nil || addr == "" {
		t.Fatalf("ticket %s: no assignment (%v)", ticket, err)
	}
	return addr
}

// TestBackfilledPlayersJoinTheRunningGame: a game that starts two against
// none-too-many takes a third player into the same server; a player who
// leaves in the first minute is reported and his seat goes to the next
// player, who connects to the same server too; the allocator ends the game.
func TestBackfilledPlayersJoinTheRunningGame(t *testing.T) {
	store := memstore.New()
	svc, err := ticketsvc.New(ticketsvc.Options{
		Store: store, Documents: store, Logger: slog.New(slog.DiscardHandler), Seed: 1,
		Queues: []ticketsvc.Queue{{Name: "squad", TTL: time.Minute, Ruleset: []byte(squad), LeaverWindow: time.Minute}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	srv := httptest.NewServer(api.Handler(api.Options{Matchmaker: svc, Logger: slog.New(slog.DiscardHandler)}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	a := &Allocator{Client: client.New(srv.URL), Queue: "squad", State: filepath.Join(t.TempDir(), "seq"), Log: t.Logf}
	defer a.Close()
	runCtx, stopRun := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- a.Run(runCtx) }()
	// The allocator has stopped, and written its state for the last time,
	// before the test's directory is removed.
	defer func() { stopRun(); <-ran }()

	c := client.New(srv.URL)
	squadTicket := func(p string) *cupidv1.CreateTicketRequest {
		return &cupidv1.CreateTicketRequest{Queue: "squad", Players: []*cupidv1.Player{{
			Id: p, Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(1500)},
		}}}
	}
	res, err := c.CreateTickets(ctx, []*cupidv1.CreateTicketRequest{squadTicket("ann"), squadTicket("ben")})
	if err != nil {
		t.Fatal(err)
	}
	server := addrOf(t, c, ctx, res[0].Ticket.GetId())
	if got := join(t, server, "ann"); !strings.Contains(got, "ann") || !strings.Contains(got, "ben") {
		t.Fatalf("ann's game: %q", got)
	}

	// cat queues later and is backfilled into the running game: same
	// server, and it lets her in.
	cat, err := c.CreateTicket(ctx, squadTicket("cat"))
	if err != nil {
		t.Fatal(err)
	}
	if got := addrOf(t, c, ctx, cat.GetId()); got != server {
		t.Fatalf("cat was sent to %s, the game runs on %s", got, server)
	}
	if got := join(t, server, "cat"); !strings.Contains(got, "cat") || !strings.Contains(got, "ann") {
		t.Fatalf("cat joining the running game: %q", got)
	}

	// ben leaves within the queue's leaver window: the allocator reports
	// him, his seat reopens and dan takes it on the same server.
	leave(t, server, "ben")
	r, err := c.GetMatch(ctx, getTicket(t, c, ctx, cat.GetId()).GetMatchId())
	if err != nil {
		t.Fatal(err)
	}
	m := r.GetMatch()
	if len(m.GetLeft()) != 1 || m.GetLeft()[0].GetPlayerId() != "ben" || !m.GetBackfill() {
		t.Fatalf("after ben left: %v", m)
	}
	dan, err := c.CreateTicket(ctx, squadTicket("dan"))
	if err != nil {
		t.Fatal(err)
	}
	if got := addrOf(t, c, ctx, dan.GetId()); got != server {
		t.Fatalf("dan was sent to %s, the game runs on %s", got, server)
	}
	if got := join(t, server, "ben"); !strings.HasPrefix(got, "refused") {
		t.Fatalf("ben came back after leaving: %q", got)
	}

	if err := a.EndGame(ctx, m.GetId()); err != nil {
		t.Fatal(err)
	}
	r, err = c.GetMatch(ctx, m.GetId())
	if err != nil {
		t.Fatal(err)
	}
	if r.GetState() != cupidv1.MatchState_MATCH_STATE_ENDED || !slices.Equal(players(r.GetMatch()), []string{"ann", "cat", "dan"}) && !slices.Equal(players(r.GetMatch()), []string{"ann", "dan", "cat"}) {
		t.Fatalf("the game at its end: %v %v", r.GetState(), players(r.GetMatch()))
	}
	if _, err := net.DialTimeout("tcp", server, time.Second); err == nil {
		t.Fatalf("the ended game's server still listens")
	}
}

func getTicket(t *testing.T, c *client.Client, ctx context.Context, id string) *cupidv1.Ticket {
	t.Helper()
	res, err := c.Tickets.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: id}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetTicket()
}
