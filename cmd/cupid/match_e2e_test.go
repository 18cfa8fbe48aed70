package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/internal/watchtest"
)

// These tests follow a match from formed to players on a server, over the
// whole server: a backend's stream, its assignment, the players' watchers,
// and the release of matches nobody assigned.

// handoffQueues is a duel queue without a release and two that release
// unassigned matches after 30s, one requeueing and one cancelling.
const handoffQueues = `
queues:
  - name: duel
    ruleset: &duel
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 100, max: 3000}
  - name: requeue
    assign_timeout: 30s
    ruleset: *duel
  - name: cancel
    assign_timeout: 30s
    on_assign_timeout: cancel
    ruleset: *duel
`

func (s *testServer) matchClient() cupidv1connect.MatchServiceClient {
	return cupidv1connect.NewMatchServiceClient(http.DefaultClient, s.url)
}

// backend follows a queue's matches from after, sending each event on the
// returned channel, until the test ends or the server stops.
func backend(t *testing.T, s *testServer, queue string, after int64) <-chan *cupidv1.MatchEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s.cleanups = append(s.cleanups, cancel)
	t.Cleanup(cancel)
	stream, err := s.matchClient().WatchMatches(ctx, connect.NewRequest(&cupidv1.WatchMatchesRequest{Queue: queue, AfterSeq: after}))
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan *cupidv1.MatchEvent, 64)
	go func() {
		defer stream.Close()
		defer close(out)
		for stream.Receive() {
			out <- stream.Msg()
		}
	}()
	return out
}

// nextMatchEvent is the next event of a match stream, within 30 s.
func nextMatchEvent(t *testing.T, evs <-chan *cupidv1.MatchEvent) *cupidv1.MatchEvent {
	t.Helper()
	return watchtest.Within(t, evs, 30*time.Second)
}

// noMatchEvent checks that nothing more is on the stream once a later
// call has been made; the stream is read in order, so an event sent before
// the marker arrives first.
func noMatchEvent(t *testing.T, evs <-chan *cupidv1.MatchEvent, marker func() string) {
	t.Helper()
	want := marker()
	ev := nextMatchEvent(t, evs)
	if ev.GetMatch().GetId() != want {
		t.Fatalf("stream sent %s %s before the marker %s", ev.GetKind(), ev.GetMatch().GetId(), want)
	}
}

// duelPair creates two tickets that match each other in queue.
func duelPair(t *testing.T, c cupidv1connect.TicketServiceClient, queue, p1, p2 string) (a, b *cupidv1.Ticket) {
	t.Helper()
	return create(t, c, queue, player(p1, 1500)), create(t, c, queue, player(p2, 1510))
}

func TestBackendSeesEveryMatchOnceAcrossARestart(t *testing.T) {
	data := t.TempDir()
	s := startConfigServer(t, data, handoffQueues)
	evs := backend(t, s.testServer, "duel", 0)
	a, _ := duelPair(t, s.c, "duel", "alice", "bob")
	first := nextMatchEvent(t, evs)
	if first.GetKind() != "formed" || first.GetSeq() <= 0 || len(first.GetMatch().GetTeams()) != 2 {
		t.Fatalf("first event %v", first)
	}
	m1 := first.GetMatch().GetId()
	if got := getTicket(t, s.c, a.GetId()); got.GetMatchId() != m1 {
		t.Fatalf("alice in match %q, the stream said %s", got.GetMatchId(), m1)
	}
	s.stop()

	// The backend restarts too, and resumes after the last seq it handled.
	s = startConfigServerOn(t, data, handoffQueues, s.clock, "")
	evs = backend(t, s.testServer, "duel", first.GetSeq())
	mc := s.matchClient()
	// The assignment survives the restart and reaches alice's watcher.
	watch, err := s.c.WatchTicket(context.Background(), connect.NewRequest(&cupidv1.WatchTicketRequest{Id: a.GetId(), WaitForAssignment: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	var kinds []string
	for len(kinds) < 2 && watch.Receive() {
		kinds = append(kinds, watch.Msg().GetKind())
	}
	if strings.Join(kinds, " ") != "created matched" {
		t.Fatalf("alice's watcher heard %v (%v)", kinds, watch.Err())
	}
	res, err := mc.AssignMatch(context.Background(), connect.NewRequest(&cupidv1.AssignMatchRequest{Id: m1,
		Assignment: &cupidv1.Assignment{Server: "10.1.2.3:7777", SessionId: "sess-1", Connection: map[string]string{"token": "abc"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Msg.GetMatch().GetState() != cupidv1.MatchState_MATCH_STATE_ASSIGNED {
		t.Fatalf("assigned %v", res.Msg.GetMatch())
	}
	if !watch.Receive() {
		t.Fatalf("alice's watcher ended without the assignment: %v", watch.Err())
	}
	ev := watch.Msg()
	if ev.GetKind() != "assigned" || ev.GetAssignment().GetServer() != "10.1.2.3:7777" || ev.GetAssignment().GetConnection()["token"] != "abc" {
		t.Fatalf("alice heard %v", ev)
	}
	if watch.Receive() {
		t.Fatalf("the watch went on after the assignment: %v", watch.Msg())
	}

	// The stream resumed: not m1's formed again, but its assignment, then
	// the next match.
	assigned := nextMatchEvent(t, evs)
	if assigned.GetKind() != "assigned" || assigned.GetMatch().GetId() != m1 || assigned.GetAssignment().GetSessionId() != "sess-1" || assigned.GetSeq() <= first.GetSeq() {
		t.Fatalf("after the restart the stream sent %v", assigned)
	}
	duelPair(t, s.c, "duel", "carol", "dave")
	second := nextMatchEvent(t, evs)
	if second.GetKind() != "formed" || second.GetMatch().GetId() == m1 {
		t.Fatalf("then %v", second)
	}

	// Bad calls are refused and change nothing.
	_, err = mc.AssignMatch(context.Background(), connect.NewRequest(&cupidv1.AssignMatchRequest{Id: m1, Assignment: &cupidv1.Assignment{Server: "other:1"}}))
	wantCode(t, err, connect.CodeFailedPrecondition, m1, "already assigned")
	_, err = mc.AssignMatch(context.Background(), connect.NewRequest(&cupidv1.AssignMatchRequest{Id: "nope", Assignment: &cupidv1.Assignment{Server: "x:1"}}))
	wantCode(t, err, connect.CodeNotFound, "nope")
	_, err = mc.AssignMatch(context.Background(), connect.NewRequest(&cupidv1.AssignMatchRequest{Id: second.GetMatch().GetId()}))
	wantCode(t, err, connect.CodeInvalidArgument, "assignment")
	got, err := mc.GetMatch(context.Background(), connect.NewRequest(&cupidv1.GetMatchRequest{Id: m1}))
	if err != nil || got.Msg.GetMatch().GetAssignment().GetServer() != "10.1.2.3:7777" {
		t.Fatalf("m1 after refusals %v (%v)", got, err)
	}
	list, err := mc.ListMatches(context.Background(), connect.NewRequest(&cupidv1.ListMatchesRequest{Queue: "duel", State: cupidv1.MatchState_MATCH_STATE_FORMED}))
	if err != nil || len(list.Msg.GetMatches()) != 1 || list.Msg.GetMatches()[0].GetMatch().GetId() != second.GetMatch().GetId() {
		t.Fatalf("formed matches %v (%v)", list, err)
	}
	// A refused call put nothing on the stream: the next event is the
	// next match.
	noMatchEvent(t, evs, func() string {
		duelPair(t, s.c, "duel", "erin", "frank")
		return nextMatchEvent(t, backend(t, s.testServer, "duel", second.GetSeq())).GetMatch().GetId()
	})
}

func TestMatchStreamOverWebSocket(t *testing.T) {
	s := startConfigServer(t, t.TempDir(), handoffQueues)
	duelPair(t, s.c, "duel", "ws-a", "ws-b")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	base := strings.Replace(s.url, "http", "ws", 1) + "/v1/queues/duel/matches/ws"
	ws, _, err := websocket.Dial(ctx, base+"?after_seq=0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	var ev struct {
		Seq   string `json:"seq"`
		Kind  string `json:"kind"`
		Match struct {
			ID string `json:"id"`
		} `json:"match"`
		Assignment struct {
			Server string `json:"server"`
		} `json:"assignment"`
	}
	read := func() {
		t.Helper()
		_, msg, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ev.Assignment.Server = ""
		if err := json.Unmarshal(msg, &ev); err != nil {
			t.Fatal(err)
		}
	}
	read()
	if ev.Kind != "formed" || ev.Match.ID == "" {
		t.Fatalf("first socket message %+v", ev)
	}
	formedSeq := ev.Seq
	if _, err := s.matchClient().AssignMatch(ctx, connect.NewRequest(&cupidv1.AssignMatchRequest{Id: ev.Match.ID, Assignment: &cupidv1.Assignment{Server: "gs:1"}})); err != nil {
		t.Fatal(err)
	}
	read()
	if ev.Kind != "assigned" || ev.Assignment.Server != "gs:1" {
		t.Fatalf("second socket message %+v", ev)
	}
	// Resuming after the formed event starts at the assignment.
	ws2, _, err := websocket.Dial(ctx, base+"?after_seq="+formedSeq, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.CloseNow()
	_, msg, err := ws2.Read(ctx)
	if err != nil || !strings.Contains(string(msg), `"kind":"assigned"`) {
		t.Fatalf("resumed socket sent %s (%v)", msg, err)
	}
	for _, c := range []struct {
		path string
		want int
	}{
		{"/v1/queues/nope/matches/ws", http.StatusNotFound},
		{"/v1/queues/duel/matches/ws?after_seq=-1", http.StatusBadRequest},
	} {
		res, err := http.Get(s.url + c.path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Fatalf("%s: %d, want %d", c.path, res.StatusCode, c.want)
		}
	}
}

func TestUnassignedMatchIsRequeuedWithItsAgeThenMatchesAgain(t *testing.T) {
	s := startConfigServer(t, t.TempDir(), handoffQueues)
	evs := backend(t, s.testServer, "requeue", 0)
	a, b := duelPair(t, s.c, "requeue", "rq-a", "rq-b")
	formed := nextMatchEvent(t, evs)
	m1 := formed.GetMatch().GetId()
	// Not yet due: nothing happens.
	s.clock.Advance(29 * time.Second)
	s.mm.Handoff().ReleaseDue(context.Background())
	if got := getTicket(t, s.c, a.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_MATCHED {
		t.Fatalf("released early: %v", got.GetState())
	}
	s.clock.Advance(2 * time.Second)
	s.mm.Handoff().ReleaseDue(context.Background())
	released := nextMatchEvent(t, evs)
	if released.GetKind() != "released" || released.GetMatch().GetId() != m1 || !strings.Contains(released.GetReason(), "30s") {
		t.Fatalf("after the timeout the stream sent %v", released)
	}
	// Back in their pool with their age, they match again.
	s.mm.Wake()
	again := nextMatchEvent(t, evs)
	if again.GetKind() != "formed" || again.GetMatch().GetId() == m1 {
		t.Fatalf("then %v", again)
	}
	for _, want := range []*cupidv1.Ticket{a, b} {
		got := getTicket(t, s.c, want.GetId())
		if got.GetMatchId() != again.GetMatch().GetId() || !got.GetCreatedAt().AsTime().Equal(want.GetCreatedAt().AsTime()) {
			t.Fatalf("%s after requeue: match %s created %v, want match %s created %v", want.GetId(), got.GetMatchId(), got.GetCreatedAt().AsTime(),
				again.GetMatch().GetId(), want.GetCreatedAt().AsTime())
		}
	}
	// The ticket's history says what happened.
	stream, err := s.c.WatchTicket(context.Background(), connect.NewRequest(&cupidv1.WatchTicketRequest{Id: a.GetId(), WaitForAssignment: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	var kinds []string
	for len(kinds) < 4 && stream.Receive() {
		kinds = append(kinds, stream.Msg().GetKind())
	}
	if strings.Join(kinds, " ") != "created matched requeued matched" {
		t.Fatalf("history %v", kinds)
	}
	_, err = s.matchClient().AssignMatch(context.Background(), connect.NewRequest(&cupidv1.AssignMatchRequest{Id: m1, Assignment: &cupidv1.Assignment{Server: "late:1"}}))
	wantCode(t, err, connect.CodeFailedPrecondition, "released")
}

func TestUnassignedMatchIsCancelledWithAReason(t *testing.T) {
	s := startConfigServer(t, t.TempDir(), handoffQueues)
	a, _ := duelPair(t, s.c, "cancel", "cx-a", "cx-b")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(s.url, "http", "ws", 1)+"/v1/tickets/"+a.GetId()+"/ws?wait_for_assignment=true", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	s.mm.Wake()
	var kinds []string
	var last map[string]any
	for len(kinds) < 2 {
		_, msg, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(msg, &last)
		kinds = append(kinds, last["kind"].(string))
	}
	s.clock.Advance(31 * time.Second)
	s.mm.Handoff().ReleaseDue(context.Background())
	_, msg, err := ws.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(msg, &last)
	kinds = append(kinds, last["kind"].(string))
	if strings.Join(kinds, " ") != "created matched cancelled" || !strings.Contains(last["reason"].(string), "assign_timeout") {
		t.Fatalf("the socket heard %v, last %v", kinds, last)
	}
	if _, _, err := ws.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("after the cancel the socket should close normally, got %v", err)
	}
	got := getTicket(t, s.c, a.GetId())
	if got.GetState() != cupidv1.TicketState_TICKET_STATE_CANCELLED || got.GetReason() != last["reason"] {
		t.Fatalf("ticket %v %q", got.GetState(), got.GetReason())
	}
	// The player may queue again at once.
	if _, err := createReq(t, s.c, &cupidv1.CreateTicketRequest{Queue: "cancel", Players: []*cupidv1.Player{player("cx-a", 1500)}}); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(s.url + "/v1/tickets/" + a.GetId() + "/ws?wait_for_assignment=maybe")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("wait_for_assignment=maybe: %d, want 400", res.StatusCode)
	}
}

// TestHandoffOnPostgres: the stream resumes across a restart, the
// assignment survives it and a release requeues, on PostgreSQL.
func TestHandoffOnPostgres(t *testing.T) {
	dbURL := postgresURL(t)
	s := startConfigServerOn(t, t.TempDir(), handoffQueues, testclock.At(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)), dbURL)
	evs := backend(t, s.testServer, "requeue", 0)
	a, _ := duelPair(t, s.c, "requeue", "pgm-a", "pgm-b")
	formed := nextMatchEvent(t, evs)
	s.clock.Advance(31 * time.Second)
	s.mm.Handoff().ReleaseDue(context.Background())
	if ev := nextMatchEvent(t, evs); ev.GetKind() != "released" || ev.GetMatch().GetId() != formed.GetMatch().GetId() {
		t.Fatalf("after the timeout %v", ev)
	}
	s.mm.Wake()
	again := nextMatchEvent(t, evs)
	if again.GetKind() != "formed" {
		t.Fatalf("after the requeue %v", again)
	}
	if _, err := s.matchClient().AssignMatch(context.Background(), connect.NewRequest(&cupidv1.AssignMatchRequest{Id: again.GetMatch().GetId(),
		Assignment: &cupidv1.Assignment{Server: "pg:7777"}})); err != nil {
		t.Fatal(err)
	}
	assigned := nextMatchEvent(t, evs)
	s.stop()

	s = startConfigServerOn(t, t.TempDir(), handoffQueues, s.clock, dbURL)
	evs = backend(t, s.testServer, "requeue", again.GetSeq())
	if ev := nextMatchEvent(t, evs); ev.GetSeq() != assigned.GetSeq() || ev.GetAssignment().GetServer() != "pg:7777" {
		t.Fatalf("resumed after a restart with %v, want the assignment", ev)
	}
	got, err := s.matchClient().GetMatch(context.Background(), connect.NewRequest(&cupidv1.GetMatchRequest{Id: again.GetMatch().GetId()}))
	if err != nil || got.Msg.GetMatch().GetState() != cupidv1.MatchState_MATCH_STATE_ASSIGNED {
		t.Fatalf("after a restart %v (%v)", got, err)
	}
	if tk := getTicket(t, s.c, a.GetId()); tk.GetMatchId() != again.GetMatch().GetId() || !tk.GetCreatedAt().AsTime().Equal(a.GetCreatedAt().AsTime()) {
		t.Fatalf("alice after requeue and restart: %v", tk)
	}
}

// TestMatchServiceErrorsNameTheRequestField: every MatchService call takes
// the match as "id", and its refusals about the match name "id" (in the
// message and the Cupid-Field header), not the store's "match_id".
func TestMatchServiceErrorsNameTheRequestField(t *testing.T) {
	s := startServer(t, serveFlags{})
	for _, c := range []struct{ procedure, body string }{
		{"GetMatch", `{"id":"nope"}`},
		{"AssignMatch", `{"id":"nope","assignment":{"server":"10.0.0.7:7777"}}`},
		{"AcceptMatch", `{"id":"nope","playerId":"alice","accept":true}`},
		{"ReportLeavers", `{"id":"nope","playerIds":["bob"]}`},
		{"OpenBackfill", `{"id":"nope"}`},
		{"CloseBackfill", `{"id":"nope"}`},
		{"EndSession", `{"id":"nope"}`},
	} {
		status, out, h := postService(t, s.url, "MatchService", c.procedure, c.body)
		msg, _ := out["message"].(string)
		if status != http.StatusNotFound || h.Get("Cupid-Field") != "id" || !strings.HasPrefix(msg, "id: ") {
			t.Errorf("%s of an unknown match: %d %v, field %q; want not_found naming id", c.procedure, status, out, h.Get("Cupid-Field"))
		}
	}
}
