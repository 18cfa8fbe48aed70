package main

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"

	"github.com/cupid-match/cupid/api"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

const authSecret = "an-hs256-secret-of-at-least-32-bytes!!"

func keyLine(name, key, scopes string) string {
	h := api.HashKey(key)
	return "  - {name: " + name + ", sha256: " + hex.EncodeToString(h[:]) + ", scopes: [" + scopes + "]}\n"
}

// authServer starts a server whose configuration has an auth section: keys
// in a keys file (admin, tickets only, events only), HS256 player tokens,
// a finder players may update and one they may not.
func authServer(t *testing.T) (*testServer, string) {
	t.Helper()
	old := keysPollInterval
	keysPollInterval = 50 * time.Millisecond
	t.Cleanup(func() { keysPollInterval = old })
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.yaml")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("keys.yaml", "server_keys:\n"+keyLine("ops", "cupid_sk_admin", "admin")+keyLine("backend", "cupid_sk_tickets", "tickets")+keyLine("lobby", "cupid_sk_events", "events"))
	write("hs.secret", authSecret+"\n")
	finder := "    player_cache_size: 1000\n    min_mmr: 0\n    max_mmr: 3000\n    mmr_bucket_count: 30\n"
	write("cupid.yaml", `queues:
  - name: duel
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 10, max: 3000}
opponents:
  - name: raid
`+finder+`  - name: arena
    players_may_update: true
`+finder+`auth:
  server_keys_file: keys.yaml
  player_tokens: {audience: cupid, hs256_secret_file: hs.secret}
`)
	return startServer(t, serveFlags{config: filepath.Join(dir, "cupid.yaml")}), keys
}

func playerToken(t *testing.T, player string) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": player, "aud": "cupid", "exp": time.Now().Add(time.Hour).Unix(),
	}).SignedString([]byte(authSecret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// clients are the API's clients sending one credential.
type clients struct {
	tickets   cupidv1connect.TicketServiceClient
	rulesets  cupidv1connect.RulesetServiceClient
	pairing   cupidv1connect.PairingServiceClient
	opponents cupidv1connect.OpponentServiceClient
}

func (s *testServer) as(token string) clients {
	hc := withBearer(http.DefaultClient, token)
	return clients{
		tickets:   cupidv1connect.NewTicketServiceClient(hc, s.url),
		rulesets:  cupidv1connect.NewRulesetServiceClient(hc, s.url),
		pairing:   cupidv1connect.NewPairingServiceClient(hc, s.url),
		opponents: cupidv1connect.NewOpponentServiceClient(hc, s.url),
	}
}

func wantAuthCode(t *testing.T, err error, code connect.Code, msg string) {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != code || !strings.Contains(err.Error(), msg) {
		t.Fatalf("err = %v, want %v containing %q", err, code, msg)
	}
}

func httpStatus(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

func TestAuthPlayersActOnlyAsThemselves(t *testing.T) {
	s, _ := authServer(t)
	ctx := context.Background()
	anon, admin := s.as(""), s.as("cupid_sk_admin")
	alice, bob := s.as(playerToken(t, "alice")), s.as(playerToken(t, "bob"))

	_, err := anon.tickets.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{player("alice", 1500)}}))
	wantAuthCode(t, err, connect.CodeUnauthenticated, "authorization: a server key or player token is required")
	_, err = s.as("cupid_sk_guessed").tickets.ListTickets(ctx, connect.NewRequest(&cupidv1.ListTicketsRequest{}))
	wantAuthCode(t, err, connect.CodeUnauthenticated, "not a known server key")

	// A player queues himself, not someone else.
	_, err = bob.tickets.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{player("alice", 1500)}}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "players[0].id: the token's player bob may queue only himself, not alice")
	_, err = bob.tickets.CreateTickets(ctx, connect.NewRequest(&cupidv1.CreateTicketsRequest{Tickets: []*cupidv1.CreateTicketRequest{
		{Queue: "duel", Players: []*cupidv1.Player{player("bob", 1500)}},
		{Queue: "duel", Players: []*cupidv1.Player{player("carol", 1500)}},
	}}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "tickets[1]")
	tk := create(t, alice.tickets, "duel", player("alice", 1500))
	id := tk.GetId()

	// Bob can neither read, cancel nor watch Alice's ticket, and nothing changes.
	_, err = bob.tickets.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: id}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "the token's player bob is not in ticket "+id)
	_, err = bob.tickets.CancelTicket(ctx, connect.NewRequest(&cupidv1.CancelTicketRequest{Id: id}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "not in ticket")
	_, err = bob.tickets.AcceptOffer(ctx, connect.NewRequest(&cupidv1.AcceptOfferRequest{Id: id, OfferId: "latency:eu-west"}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "not in ticket")
	// Alice may: her call reaches the service (which has no such offer for her).
	_, err = alice.tickets.AcceptOffer(ctx, connect.NewRequest(&cupidv1.AcceptOfferRequest{Id: id, OfferId: "latency:eu-west"}))
	if code := connect.CodeOf(err); code == connect.CodePermissionDenied || code == connect.CodeUnauthenticated {
		t.Errorf("alice accepting an offer for her own ticket: %v", err)
	}
	stream, err := bob.tickets.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: id}))
	if err == nil {
		for stream.Receive() {
			t.Fatal("bob received an event of alice's ticket")
		}
		err = stream.Err()
		stream.Close()
	}
	wantAuthCode(t, err, connect.CodePermissionDenied, "not in ticket")
	_, err = bob.tickets.ListTickets(ctx, connect.NewRequest(&cupidv1.ListTicketsRequest{}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "ListTickets needs a server key with the tickets scope")
	_, err = bob.tickets.QueueStats(ctx, connect.NewRequest(&cupidv1.QueueStatsRequest{}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "QueueStats needs a server key")
	_, err = bob.rulesets.PutRuleset(ctx, connect.NewRequest(&cupidv1.PutRulesetRequest{Queue: "duel", Ruleset: "{}"}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "PutRuleset needs a server key with the rulesets scope")
	got, err := admin.tickets.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: id}))
	if err != nil || got.Msg.GetTicket().GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
		t.Fatalf("alice's ticket after bob's refused calls: %v, %v", got, err)
	}
	if _, err := alice.tickets.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: id})); err != nil {
		t.Fatalf("alice reads her ticket: %v", err)
	}
	if _, err := alice.rulesets.GetRuleset(ctx, connect.NewRequest(&cupidv1.GetRulesetRequest{Queue: "duel"})); err != nil {
		t.Fatalf("a player reads a ruleset: %v", err)
	}

	// The WebSocket watch needs a token too, in the header or the query.
	wsURL := "ws" + strings.TrimPrefix(s.url, "http") + "/v1/tickets/" + id + "/ws"
	for _, c := range []struct {
		name, query string
		status      int
	}{{"no token", "", 401}, {"bob's token", "?token=" + playerToken(t, "bob"), 403}, {"a bad token", "?token=x.y.z", 401}} {
		_, res, err := websocket.Dial(ctx, wsURL+c.query, nil)
		if err == nil || res == nil || res.StatusCode != c.status {
			t.Fatalf("ws with %s: %v (%v), want HTTP %d", c.name, err, res, c.status)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(wctx, wsURL+"?token="+playerToken(t, "alice"), nil)
	if err != nil {
		t.Fatalf("alice's ws: %v", err)
	}
	if _, msg, err := conn.Read(wctx); err != nil || !strings.Contains(string(msg), "created") {
		t.Fatalf("alice's first ws message %s, %v", msg, err)
	}
	conn.CloseNow()
	if _, err := alice.tickets.CancelTicket(ctx, connect.NewRequest(&cupidv1.CancelTicketRequest{Id: id})); err != nil {
		t.Fatalf("alice cancels her ticket: %v", err)
	}

	// Events: a player joins, enters the lobby and clears his record as
	// himself only; deleting events and the met-graph need a key.
	lobby := s.as("cupid_sk_events")
	if _, err := lobby.pairing.CreateEvent(ctx, connect.NewRequest(&cupidv1.CreateEventRequest{Id: "ev", Settings: &cupidv1.EventSettings{Rooms: 2}})); err != nil {
		t.Fatal(err)
	}
	_, err = alice.pairing.CreateEvent(ctx, connect.NewRequest(&cupidv1.CreateEventRequest{Id: "ev2", Settings: &cupidv1.EventSettings{Rooms: 2}}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "CreateEvent needs a server key with the events scope")
	if _, err := alice.pairing.Join(ctx, connect.NewRequest(&cupidv1.ParticipantRequest{EventId: "ev", Participant: "alice"})); err != nil {
		t.Fatalf("alice joins as herself: %v", err)
	}
	for name, call := range map[string]func(context.Context, *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.ParticipantResponse], error){
		"Join": alice.pairing.Join, "EnterLobby": alice.pairing.EnterLobby, "ClearRecord": alice.pairing.ClearRecord, "Leave": alice.pairing.Leave,
	} {
		_, err := call(ctx, connect.NewRequest(&cupidv1.ParticipantRequest{EventId: "ev", Participant: "bob"}))
		if err == nil || !strings.Contains(err.Error(), "the token's player alice may act in an event only as himself, not as participant bob") {
			t.Fatalf("%s as bob by alice: %v", name, err)
		}
	}
	_, err = alice.pairing.MetGraph(ctx, connect.NewRequest(&cupidv1.MetGraphRequest{EventId: "ev"}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "events scope")
	_, err = alice.pairing.DeleteEvent(ctx, connect.NewRequest(&cupidv1.DeleteEventRequest{Id: "ev"}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "DeleteEvent needs a server key with the events scope")
	evURL := "ws" + strings.TrimPrefix(s.url, "http") + "/v1/events/ev/ws?participant=bob&token=" + playerToken(t, "alice")
	if _, res, err := websocket.Dial(ctx, evURL, nil); err == nil || res == nil || res.StatusCode != 403 {
		t.Fatalf("alice watching the event as bob: %v %v", err, res)
	}

	// Opponents: a player updates his own model only where the finder
	// allows, and looks for opponents only as himself.
	model := &cupidv1.PlayerModel{Mmr: 1500}
	_, err = alice.opponents.UpdatePlayer(ctx, connect.NewRequest(&cupidv1.UpdatePlayerRequest{Finder: "raid", PlayerId: "alice", Model: model}))
	wantAuthCode(t, err, connect.CodePermissionDenied, `finder "raid" does not let players update their own model`)
	if _, err := alice.opponents.UpdatePlayer(ctx, connect.NewRequest(&cupidv1.UpdatePlayerRequest{Finder: "arena", PlayerId: "alice", Model: model})); err != nil {
		t.Fatalf("alice updates her model in arena: %v", err)
	}
	_, err = alice.opponents.UpdatePlayer(ctx, connect.NewRequest(&cupidv1.UpdatePlayerRequest{Finder: "arena", PlayerId: "bob", Model: model}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "may update only his own model, not bob")
	_, err = alice.opponents.RemovePlayer(ctx, connect.NewRequest(&cupidv1.RemovePlayerRequest{Finder: "arena", PlayerId: "alice"}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "RemovePlayer needs a server key with the opponents scope")
	_, err = alice.opponents.FindOpponent(ctx, connect.NewRequest(&cupidv1.FindOpponentRequest{Finder: "arena", Attacker: &cupidv1.PlayerModel{Id: "bob", Mmr: 1500}}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "only as the attacker himself")
	if _, err := alice.opponents.FindOpponent(ctx, connect.NewRequest(&cupidv1.FindOpponentRequest{Finder: "arena", Attacker: &cupidv1.PlayerModel{Id: "alice", Mmr: 1500}})); err != nil {
		t.Fatalf("alice looks for an opponent: %v", err)
	}
}

func TestAuthScopedKeysAndRevocation(t *testing.T) {
	s, keys := authServer(t)
	ctx := context.Background()
	backend, lobby := s.as("cupid_sk_tickets"), s.as("cupid_sk_events")

	tk := create(t, backend.tickets, "duel", player("dana", 1500))
	if _, err := backend.tickets.ListTickets(ctx, connect.NewRequest(&cupidv1.ListTicketsRequest{})); err != nil {
		t.Fatal(err)
	}
	_, err := backend.rulesets.PutRuleset(ctx, connect.NewRequest(&cupidv1.PutRulesetRequest{Queue: "duel", Ruleset: "{}"}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "PutRuleset needs the rulesets scope; server key backend has tickets")
	_, err = backend.pairing.CreateEvent(ctx, connect.NewRequest(&cupidv1.CreateEventRequest{Id: "e", Settings: &cupidv1.EventSettings{Rooms: 1}}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "CreateEvent needs the events scope")
	_, err = backend.opponents.UpdatePlayer(ctx, connect.NewRequest(&cupidv1.UpdatePlayerRequest{Finder: "raid", PlayerId: "x", Model: &cupidv1.PlayerModel{Mmr: 1}}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "opponents scope")
	_, err = lobby.tickets.CancelTicket(ctx, connect.NewRequest(&cupidv1.CancelTicketRequest{Id: tk.GetId()}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "CancelTicket needs the tickets scope; server key lobby has events")
	wsURL := "ws" + strings.TrimPrefix(s.url, "http") + "/v1/tickets/" + tk.GetId() + "/ws?token=cupid_sk_events"
	if _, res, err := websocket.Dial(ctx, wsURL, nil); err == nil || res == nil || res.StatusCode != 403 {
		t.Fatalf("the events key watching a ticket: %v %v", err, res)
	}

	// /healthz stays open; /metrics needs a key.
	if st := httpStatus(t, s.url+"/healthz", ""); st != 200 {
		t.Fatalf("/healthz: %d", st)
	}
	if st := httpStatus(t, s.url+"/metrics", ""); st != 401 {
		t.Fatalf("/metrics without a key: %d", st)
	}
	if st := httpStatus(t, s.url+"/metrics", playerToken(t, "alice")); st != 403 {
		t.Fatalf("/metrics with a player token: %d", st)
	}
	if st := httpStatus(t, s.url+"/metrics", "cupid_sk_tickets"); st != 200 {
		t.Fatalf("/metrics with a key: %d", st)
	}

	// Revoke the backend's key by editing the keys file: no restart.
	if err := os.WriteFile(keys, []byte("server_keys:\n"+keyLine("ops", "cupid_sk_admin", "admin")+keyLine("lobby", "cupid_sk_events", "events")), 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := backend.tickets.ListTickets(ctx, connect.NewRequest(&cupidv1.ListTicketsRequest{}))
		if err != nil {
			wantAuthCode(t, err, connect.CodeUnauthenticated, "not a known server key")
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the revoked key still works 10s after the keys file changed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := lobby.pairing.ListEvents(ctx, connect.NewRequest(&cupidv1.ListEventsRequest{})); err != nil {
		t.Fatalf("a key still listed: %v", err)
	}
}

func TestLoopbackWithoutAuthRunsOpen(t *testing.T) {
	s := startServer(t, serveFlags{})
	if _, err := s.connectClient().ListTickets(context.Background(), connect.NewRequest(&cupidv1.ListTicketsRequest{})); err != nil {
		t.Fatalf("an open server refused a call: %v", err)
	}
	if st := httpStatus(t, s.url+"/metrics", ""); st != 200 {
		t.Fatalf("/metrics on an open server: %d", st)
	}
}

func TestBeyondLoopbackWithoutAuthRefusesToStart(t *testing.T) {
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0"} {
		err := serve(context.Background(), serveFlags{addr: addr, data: t.TempDir()}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
		if err == nil || !strings.Contains(err.Error(), "listens beyond loopback") || !strings.Contains(err.Error(), "Add an auth section") {
			t.Fatalf("--addr %s without auth: %v", addr, err)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:7070": true, "127.5.0.1:1": true, "[::1]:7070": true, "localhost:7070": true,
		":7070": false, "0.0.0.0:7070": false, "10.0.0.5:7070": false, "[::]:7070": false, "game.example.com:7070": false} {
		if isLoopback(addr) != want {
			t.Errorf("isLoopback(%s) = %v", addr, !want)
		}
	}
}
