package main

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

const duel = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100, "max": 100000}]}`

// TestPlayersReachTheirGameServer: two players queue, the allocator starts
// a game server for their match and assigns it, each player's watcher
// hears the address, and connecting there answers with their session.
// A second allocator started from the saved state allocates nothing again.
func TestPlayersReachTheirGameServer(t *testing.T) {
	store := memstore.New()
	svc, err := ticketsvc.New(ticketsvc.Options{
		Store: store, Documents: store, Logger: slog.New(slog.DiscardHandler), Seed: 1,
		Queues: []ticketsvc.Queue{{Name: "duel", TTL: time.Minute, Ruleset: []byte(duel)}},
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
	// A match assigned by someone else before the allocator starts: its
	// "formed" event is replayed, and the allocator passes over it.
	c := client.New(srv.URL)
	early := []string{}
	for _, p := range []string{"xia", "yon"} {
		tk, err := c.CreateTicket(ctx, solo(p, 900))
		if err != nil {
			t.Fatal(err)
		}
		early = append(early, tk.GetId())
	}
	var earlyMatch string
	if err := c.Watch(ctx, early[0], 0, func(ev *cupidv1.TicketEvent) error {
		earlyMatch = ev.GetMatch().GetId()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AssignMatch(ctx, earlyMatch, &cupidv1.Assignment{Server: "elsewhere:1"}); err != nil {
		t.Fatal(err)
	}

	state := filepath.Join(t.TempDir(), "allocator.seq")
	a := &Allocator{Client: client.New(srv.URL), Queue: "duel", State: state, Log: t.Logf}
	defer a.Close()
	runCtx, stopRun := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- a.Run(runCtx) }()

	var ids []string
	for _, p := range []string{"ann", "ben"} {
		tk, err := c.CreateTicket(ctx, solo(p, 1500))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tk.GetId())
	}
	for i, id := range ids {
		var addr string
		err := c.WatchUntilAssigned(ctx, id, 0, func(ev *cupidv1.TicketEvent) error {
			if a := ev.GetAssignment(); a != nil {
				addr = a.GetServer()
			}
			return nil
		})
		if err != nil || addr == "" {
			t.Fatalf("player %d: no assignment (%v)", i, err)
		}
		greet := join(t, addr, []string{"ann", "ben"}[i])
		if !strings.HasPrefix(greet, "session-") || !strings.Contains(greet, "ann") || !strings.Contains(greet, "ben") {
			t.Fatalf("the game server said %q", greet)
		}
	}
	if got := join(t, addrOf(t, c, ctx, ids[0]), "zed"); !strings.HasPrefix(got, "refused") {
		t.Fatalf("a stranger was let in: %q", got)
	}
	// The players may hear of the assignment before the allocator hears
	// the server's answer: wait for it to count its game server.
	started := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if started = a.Games(); started > 0 {
			break
		}
	}
	stopRun()
	if err := <-ran; err != context.Canceled {
		t.Fatalf("the allocator stopped with %v, want only when told", err)
	}
	if started = a.Games(); started != 1 {
		t.Fatalf("%d game servers for one match to allocate (the other was assigned elsewhere)", started)
	}
	// Restarted from its state file, the allocator finds nothing to do:
	// it would fail on a second AssignMatch of the same match.
	again := &Allocator{Client: client.New(srv.URL), Queue: "duel", State: state, Log: t.Logf}
	defer again.Close()
	againCtx, stopAgain := context.WithTimeout(ctx, 500*time.Millisecond)
	defer stopAgain()
	if err := again.Run(againCtx); err != context.DeadlineExceeded {
		t.Fatalf("restarted allocator: %v, want to wait quietly until stopped", err)
	}
	if n := again.Games(); n != 0 {
		t.Fatalf("the restarted allocator started %d game servers for matches already allocated", n)
	}
}

func solo(id string, mmr float64) *cupidv1.CreateTicketRequest {
	return &cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{{
		Id: id, Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(mmr)},
	}}}
}

// TestDefaultStateIsOutsideTheWorkingDirectory: run from a checkout without
// --state, the allocator keeps its place in the user's cache directory
// (here a temporary one), not beside the sources.
func TestDefaultStateIsOutsideTheWorkingDirectory(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	path, err := defaultState("duel")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(path) || !strings.HasPrefix(path, cache) || filepath.Base(path) != "allocator-duel.seq" {
		t.Fatalf("default state %q, want allocator-duel.seq under %s", path, cache)
	}
}
