package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
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
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// testServer is a real server started in-process on 127.0.0.1:0 over a
// real SQLite file.
type testServer struct {
	url    string
	data   string
	cancel context.CancelFunc
	done   chan error
	// cleanups run before the server stops.
	cleanups []func()
}

func startServer(t *testing.T, f serveFlags) *testServer {
	t.Helper()
	if f.data == "" {
		f.data = t.TempDir()
	}
	f.addr = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan string, 1)
	s := &testServer{data: f.data, cancel: cancel, done: make(chan error, 1)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	go func() { s.done <- serve(ctx, f, log, listening) }()
	select {
	case addr := <-listening:
		s.url = "http://" + addr
	case err := <-s.done:
		t.Fatalf("server did not start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start within 30s")
	}
	t.Cleanup(s.stop)
	return s
}

func (s *testServer) stop() {
	for _, f := range s.cleanups {
		f()
	}
	s.cancel()
	<-s.done
	s.done <- nil // stop is idempotent
}

func (s *testServer) grpcClient() cupidv1connect.TicketServiceClient {
	hc := h2cClient()
	// An idle HTTP/2 connection would hold the server's shutdown for its
	// grace period.
	s.cleanups = append(s.cleanups, hc.CloseIdleConnections)
	return cupidv1connect.NewTicketServiceClient(hc, s.url, connect.WithGRPC())
}

func (s *testServer) connectClient() cupidv1connect.TicketServiceClient {
	return cupidv1connect.NewTicketServiceClient(http.DefaultClient, s.url)
}

func player(id string, mmr float64) *cupidv1.Player {
	return &cupidv1.Player{Id: id, Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(mmr)}}
}

func create(t *testing.T, c cupidv1connect.TicketServiceClient, queue string, players ...*cupidv1.Player) *cupidv1.Ticket {
	t.Helper()
	res, err := c.CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{Queue: queue, Players: players}))
	if err != nil {
		t.Fatalf("create ticket: %v", err)
	}
	return res.Msg.GetTicket()
}

// waitFinal watches a ticket until its final event and returns it.
func waitFinal(t *testing.T, c cupidv1connect.TicketServiceClient, id string, after int64) *cupidv1.TicketEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stream, err := c.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: id, AfterSeq: after}))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	for stream.Receive() {
		if ev := stream.Msg(); ev.GetKind() != "created" {
			return ev
		}
	}
	t.Fatalf("watch of %s ended without a final event: %v", id, stream.Err())
	return nil
}

func TestTwoPlayersMatchOverGRPCAndConnect(t *testing.T) {
	s := startServer(t, serveFlags{})
	for _, c := range []struct {
		name   string
		client cupidv1connect.TicketServiceClient
	}{{"grpc", s.grpcClient()}, {"connect", s.connectClient()}} {
		t.Run(c.name, func(t *testing.T) {
			a := create(t, c.client, "duel", player(c.name+"-alice", 1500))
			if a.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
				t.Fatalf("new ticket state %v", a.GetState())
			}
			b := create(t, c.client, "duel", player(c.name+"-bob", 1550))
			ev := waitFinal(t, c.client, a.GetId(), 0)
			if ev.GetKind() != "matched" {
				t.Fatalf("alice's final event is %q, want matched", ev.GetKind())
			}
			m := ev.GetMatch()
			if len(m.GetTeams()) != 2 {
				t.Fatalf("match has %d teams, want 2", len(m.GetTeams()))
			}
			got := map[string]bool{}
			for _, team := range m.GetTeams() {
				for _, id := range team.GetTicketIds() {
					got[id] = true
				}
			}
			if !got[a.GetId()] || !got[b.GetId()] || len(got) != 2 {
				t.Fatalf("match tickets %v, want alice's and bob's", got)
			}
			if q := m.GetQuality().GetScore(); q <= 0 || q > 1 {
				t.Fatalf("quality score %v outside (0,1]", q)
			}
			res, err := c.client.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: b.GetId()}))
			if err != nil {
				t.Fatal(err)
			}
			if res.Msg.GetTicket().GetState() != cupidv1.TicketState_TICKET_STATE_MATCHED || res.Msg.GetTicket().GetMatch().GetId() != m.GetId() {
				t.Fatalf("bob's ticket %v, want matched in %s", res.Msg.GetTicket(), m.GetId())
			}
		})
	}
}

// postRaw posts a raw JSON body to a path ("/cupid.v1.TicketService/
// CreateTicket"), as curl would, and returns the answer as it came.
func postRaw(t *testing.T, url, path, body string) (int, []byte, http.Header) {
	t.Helper()
	res, err := http.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b, res.Header
}

// postOK is postRaw for a call that must succeed: its body.
func postOK(t *testing.T, url, path, body string) []byte {
	t.Helper()
	status, out, _ := postRaw(t, url, path, body)
	if status != http.StatusOK {
		t.Fatalf("%s %s: %d %s", path, body, status, out)
	}
	return out
}

// postService calls a procedure of a service with a raw JSON body and
// decodes the JSON answer; the header carries Cupid-Field.
func postService(t *testing.T, url, service, procedure, body string) (int, map[string]any, http.Header) {
	t.Helper()
	status, b, h := postRaw(t, url, "/cupid.v1."+service+"/"+procedure, body)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s answered %d with non-JSON %q", procedure, status, b)
	}
	return status, out, h
}

// postJSON calls a TicketService procedure with a raw JSON body, as curl
// would.
func postJSON(t *testing.T, url, procedure, body string) (int, map[string]any) {
	t.Helper()
	status, out, _ := postService(t, url, "TicketService", procedure, body)
	return status, out
}

func TestRawJSONBadInputNamesTheFieldAndStoresNothing(t *testing.T) {
	s := startServer(t, serveFlags{})
	big := `{"queue":"duel","players":[{"id":"x","attributes":{"note":"` + strings.Repeat("a", 2<<20) + `"}}]}`
	cases := []struct {
		name   string
		body   string
		status int
		code   string
		field  string
	}{
		{"unknown queue", `{"queue":"nope","players":[{"id":"a"}]}`, 404, "not_found", "queue"},
		{"no queue", `{"players":[{"id":"a"}]}`, 400, "invalid_argument", "queue"},
		{"no players", `{"queue":"duel"}`, 400, "invalid_argument", "players"},
		{"empty player id", `{"queue":"duel","players":[{"id":""}]}`, 400, "invalid_argument", "players[0].id"},
		{"duplicate player ids", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1}},{"id":"a","attributes":{"mmr":1}}]}`, 400, "invalid_argument", "players[1].id"},
		{"party larger than a team", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1}},{"id":"b","attributes":{"mmr":1}}]}`, 400, "invalid_argument", "players"},
		{"boolean attribute", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":true}}]}`, 400, "invalid_argument", "players[0].attributes.mmr"},
		{"list of numbers", `{"queue":"duel","players":[{"id":"a","attributes":{"maps":[1,2]}}]}`, 400, "invalid_argument", "players[0].attributes.maps[0]"},
		{"negative latency", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1}}],"latencies":{"eu":-5}}`, 400, "invalid_argument", "latencies.eu"},
		{"malformed JSON", `{"queue":"duel","players":[{"id":"a"}`, 400, "invalid_argument", ""},
		{"wrong type", `{"queue":7}`, 400, "invalid_argument", ""},
		{"oversized", big, 0, "resource_exhausted", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, out := postJSON(t, s.url, "CreateTicket", c.body)
			if c.status != 0 && status != c.status {
				t.Errorf("status %d, want %d (%v)", status, c.status, out)
			}
			if out["code"] != c.code {
				t.Errorf("code %v, want %s (%v)", out["code"], c.code, out)
			}
			if msg, _ := out["message"].(string); c.field != "" && !strings.HasPrefix(msg, c.field+":") {
				t.Errorf("message %q does not start with the field %q", msg, c.field)
			}
		})
	}
	_, out := postJSON(t, s.url, "ListTickets", `{}`)
	if tickets, ok := out["tickets"]; ok {
		t.Fatalf("bad input stored tickets: %v", tickets)
	}
}

func TestNaNAttributeOverGRPCIsRefused(t *testing.T) {
	s := startServer(t, serveFlags{})
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		_, err := s.grpcClient().CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{
			Queue: "duel", Players: []*cupidv1.Player{player("nan", v)},
		}))
		if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "players[0].attributes.mmr") {
			t.Fatalf("mmr=%v: err %v, want invalid_argument naming players[0].attributes.mmr", v, err)
		}
	}
}

func TestIdempotentCreate(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := s.connectClient()
	req := &cupidv1.CreateTicketRequest{Queue: "duel", RequestId: "req-1", Players: []*cupidv1.Player{player("solo", 1000)}}
	first, err := c.CreateTicket(context.Background(), connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.CreateTicket(context.Background(), connect.NewRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	if again.Msg.GetTicket().GetId() != first.Msg.GetTicket().GetId() || !again.Msg.GetExisted() || first.Msg.GetExisted() {
		t.Fatalf("retry gave %s (existed=%v), first %s (existed=%v)", again.Msg.GetTicket().GetId(), again.Msg.GetExisted(),
			first.Msg.GetTicket().GetId(), first.Msg.GetExisted())
	}
}

func TestCancelAndExpiryReachWatchers(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cupid.yaml")
	os.WriteFile(cfg, []byte(`
queues:
  - name: quick
    ticket_ttl: 1s
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule: [{attribute: mmr, criteria: distance, reference: 10}]
`), 0o644)
	s := startServer(t, serveFlags{config: cfg})
	c := s.connectClient()
	exp := create(t, c, "quick", player("late", 100))
	if ev := waitFinal(t, c, exp.GetId(), 0); ev.GetKind() != "expired" {
		t.Fatalf("final event %q, want expired", ev.GetKind())
	}
	can := create(t, c, "quick", player("quitter", 5000))
	if _, err := c.CancelTicket(context.Background(), connect.NewRequest(&cupidv1.CancelTicketRequest{Id: can.GetId()})); err != nil {
		t.Fatal(err)
	}
	if ev := waitFinal(t, c, can.GetId(), 0); ev.GetKind() != "cancelled" {
		t.Fatalf("final event %q, want cancelled", ev.GetKind())
	}
	_, err := c.CancelTicket(context.Background(), connect.NewRequest(&cupidv1.CancelTicketRequest{Id: can.GetId()}))
	if connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("second cancel: %v, want failed_precondition", err)
	}
}

func TestWebSocketDeliversTheMatch(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := s.connectClient()
	a := create(t, c, "duel", player("ws-a", 2000))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(s.url, "http", "ws", 1)+"/v1/tickets/"+a.GetId()+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	_, first, err := ws.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(first, []byte(`"kind":"created"`)) {
		t.Fatalf("first message %s, want the created event", first)
	}
	create(t, c, "duel", player("ws-b", 2010))
	_, msg, err := ws.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Kind  string `json:"kind"`
		Match struct {
			ID    string `json:"id"`
			Teams []any  `json:"teams"`
		} `json:"match"`
	}
	if err := json.Unmarshal(msg, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Kind != "matched" || ev.Match.ID == "" || len(ev.Match.Teams) != 2 {
		t.Fatalf("socket message %s, want a matched event with two teams", msg)
	}
	if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("after the final event the socket should close normally, got %v", err)
	}
	res, err := http.Get(s.url + "/v1/tickets/nope/ws")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("socket for an unknown ticket: %d, want 404", res.StatusCode)
	}
}

func TestHealthReadyAndMetrics(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := s.connectClient()
	create(t, c, "duel", player("m-a", 1200))
	b := create(t, c, "duel", player("m-b", 1210))
	waitFinal(t, c, b.GetId(), 0)
	for path, want := range map[string]string{
		"/healthz": "ok",
		"/readyz":  "ready",
		"/metrics": `cupid_matches_total{queue="duel"} 1`,
	} {
		res, err := http.Get(s.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d, body lacks %q", path, res.StatusCode, want)
		}
	}
	for _, series := range []string{"cupid_time_to_match_seconds_bucket", "cupid_waiting_tickets", "cupid_pools", `cupid_tickets_total{queue="duel",state="matched"} 2`} {
		res, _ := http.Get(s.url + "/metrics")
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(body), series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}

func TestStatsAndList(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := s.connectClient()
	for i := 0; i < 3; i++ {
		create(t, c, "duel", player(fmt.Sprintf("far-%d", i), float64(i)*1000))
	}
	st, err := c.QueueStats(context.Background(), connect.NewRequest(&cupidv1.QueueStatsRequest{Queue: "duel"}))
	if err != nil {
		t.Fatal(err)
	}
	var waiting int64
	for _, p := range st.Msg.GetPools() {
		waiting += p.GetWaiting()
	}
	if waiting != 3 {
		t.Fatalf("stats say %d waiting, want 3", waiting)
	}
	ls, err := c.ListTickets(context.Background(), connect.NewRequest(&cupidv1.ListTicketsRequest{Queue: "duel", State: cupidv1.TicketState_TICKET_STATE_WAITING}))
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.Msg.GetTickets()) != 3 {
		t.Fatalf("list has %d tickets, want 3", len(ls.Msg.GetTickets()))
	}
	g, err := c.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: ls.Msg.GetTickets()[0].GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	if g.Msg.GetTicket().GetWhy().GetSummary() == "" {
		t.Fatalf("a waiting ticket should say why it waits: %v", g.Msg.GetTicket())
	}
}

func TestSquadPartiesStayTogether(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := s.connectClient()
	trio := create(t, c, "squad5v5", player("t1", 1500), player("t2", 1520), player("t3", 1480))
	create(t, c, "squad5v5", player("d1", 1510), player("d2", 1490))
	for i := 0; i < 5; i++ {
		create(t, c, "squad5v5", player(fmt.Sprintf("s%d", i), 1450+float64(i)*25))
	}
	ev := waitFinal(t, c, trio.GetId(), 0)
	if ev.GetKind() != "matched" {
		t.Fatalf("trio's final event %q", ev.GetKind())
	}
	teamOf := map[string]int{}
	for i, team := range ev.GetMatch().GetTeams() {
		if len(team.GetPlayerIds()) != 5 {
			t.Fatalf("team %d has %d players, want 5", i, len(team.GetPlayerIds()))
		}
		for _, p := range team.GetPlayerIds() {
			teamOf[p] = i
		}
	}
	if len(teamOf) != 10 {
		t.Fatalf("%d players matched, want 10", len(teamOf))
	}
	if teamOf["t1"] != teamOf["t2"] || teamOf["t2"] != teamOf["t3"] || teamOf["d1"] != teamOf["d2"] {
		t.Fatalf("a party was split: %v", teamOf)
	}
}
