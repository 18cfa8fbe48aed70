package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/internal/testclock"
)

func wantRateRefusal(t *testing.T, err error, retryAfter string, mention ...string) {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted {
		t.Fatalf("got %v, want resource_exhausted", err)
	}
	if got := ce.Meta().Get("Retry-After"); got != retryAfter {
		t.Errorf("Retry-After %q, want %q", got, retryAfter)
	}
	for _, m := range mention {
		if !strings.Contains(ce.Message(), m) {
			t.Errorf("%q does not mention %q", ce.Message(), m)
		}
	}
}

// TestRateLimitsPerKeyAndPlayer runs the real server with server.rate_limits
// set low, on a clock the test moves: a key and a player each have their
// own bucket, a call past it is refused with Retry-After and served again
// after the wait it names, a bulk counts its tickets, and a WebSocket past
// the limit gets 429.
func TestRateLimitsPerKeyAndPlayer(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("hs.secret", authSecret+"\n")
	write("cupid.yaml", `queues:
  - name: duel
    ticket_ttl: 1h
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 10, max: 3000}
server:
  rate_limits:
    server_keys: {rate: 2, burst: 3}
    players: {rate: 1}
auth:
  server_keys:
`+keyLine("backend", "cupid_sk_backend", "tickets")+keyLine("other", "cupid_sk_other", "tickets")+`  player_tokens: {audience: cupid, hs256_secret_file: hs.secret}
`)
	clk := testclock.At(time.Now())
	s := startServer(t, serveFlags{config: filepath.Join(dir, "cupid.yaml"), hooks: &serveHooks{now: clk.Now}})
	ctx := context.Background()
	mmr := 0.0
	mk := func(id string) *cupidv1.CreateTicketRequest {
		mmr += 100 // no two tickets match
		return &cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{{Id: id,
			Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(mmr)}}}}
	}
	backend := s.as("cupid_sk_backend").tickets
	for i := range 3 {
		if _, err := backend.CreateTicket(ctx, connect.NewRequest(mk(fmt.Sprintf("k%d", i)))); err != nil {
			t.Fatalf("create %d within the burst: %v", i, err)
		}
	}
	_, err := backend.CreateTicket(ctx, connect.NewRequest(mk("k3")))
	wantRateRefusal(t, err, "1", "server key backend", "2 calls a second", "retry in 500ms")

	// Another key and a player are not limited by backend's calls.
	if _, err := s.as("cupid_sk_other").tickets.CreateTicket(ctx, connect.NewRequest(mk("o0"))); err != nil {
		t.Fatalf("key other: %v", err)
	}
	bob := s.as(playerToken(t, "bob")).tickets
	created, err := bob.CreateTicket(ctx, connect.NewRequest(mk("bob")))
	if err != nil {
		t.Fatalf("player bob: %v", err)
	}
	id := created.Msg.GetTicket().GetId()
	if _, err := bob.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: id})); err != nil {
		t.Fatalf("player bob, second call (burst 2): %v", err)
	}
	_, err = bob.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: id}))
	wantRateRefusal(t, err, "1", "player bob", "retry in 1s")
	// His WebSocket too: 429 before the upgrade.
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, res, err := websocket.Dial(dctx, strings.Replace(s.url, "http", "ws", 1)+"/v1/tickets/"+id+"/ws?token="+playerToken(t, "bob"), nil)
	if err == nil || res == nil || res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" {
		t.Fatalf("bob's socket past his limit: %v, %v", res, err)
	}

	// After the half second backend was told, one call again; a bulk of
	// three needs three tokens, which 1.5 s more bring.
	clk.Advance(500 * time.Millisecond)
	if _, err := backend.CreateTicket(ctx, connect.NewRequest(mk("k3"))); err != nil {
		t.Fatalf("after the wait: %v", err)
	}
	bulk := &cupidv1.CreateTicketsRequest{Tickets: []*cupidv1.CreateTicketRequest{mk("b0"), mk("b1"), mk("b2")}}
	clk.Advance(time.Second)
	_, err = backend.CreateTickets(ctx, connect.NewRequest(bulk))
	wantRateRefusal(t, err, "1", "counts 3", "retry in 500ms")
	clk.Advance(500 * time.Millisecond)
	out, err := backend.CreateTickets(ctx, connect.NewRequest(bulk))
	if err != nil {
		t.Fatalf("bulk after the wait: %v", err)
	}
	if n := len(out.Msg.GetResults()); n != 3 {
		t.Fatalf("%d results", n)
	}
	// The refused calls stored nothing: k3 once, and the bulk once.
	list, err := s.as("cupid_sk_other").tickets.ListTickets(ctx, connect.NewRequest(&cupidv1.ListTicketsRequest{Queue: "duel"}))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(list.Msg.GetTickets()); n != 9 {
		t.Errorf("%d tickets listed, want 9 (k0–k3, o0, bob, b0–b2)", n)
	}
}
