package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/internal/testclock"
)

// These tests run the ready check over the whole server: the players'
// watchers, their answers, the backend's stream, the deadline and a
// restart while a match waits for answers.

// readyQueues are duel queues whose players have 20s to accept a match; a
// decliner's ticket is cancelled in one, put at the back of the queue in
// the other.
const readyQueues = `
queues:
  - name: duel
    acceptance: {timeout: 20s}
    ruleset: &duel
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 100, max: 3000}
  - name: last
    acceptance: {timeout: 20s, on_decline: requeue_last}
    ruleset: *duel
`

// ticketWatch follows a ticket's events (through matches and requeues)
// until the test ends.
func ticketWatch(t *testing.T, s *clockServer, id string, after int64) <-chan *cupidv1.TicketEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s.cleanups = append(s.cleanups, cancel)
	t.Cleanup(cancel)
	out := make(chan *cupidv1.TicketEvent, 64)
	// The call returns with the stream's first message, so it is made in
	// the goroutine: a watch with nothing to say yet must not block.
	go func() {
		defer close(out)
		stream, err := s.c.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: id, AfterSeq: after, WaitForAssignment: true}))
		if err != nil {
			return
		}
		defer stream.Close()
		for stream.Receive() {
			out <- stream.Msg()
		}
	}()
	return out
}

// nextKind reads the next event and checks its kind.
func nextKind(t *testing.T, evs <-chan *cupidv1.TicketEvent, kind string) *cupidv1.TicketEvent {
	t.Helper()
	select {
	case ev, ok := <-evs:
		if !ok {
			t.Fatalf("the watch ended before %s", kind)
		}
		if ev.GetKind() != kind {
			t.Fatalf("heard %s (%v), want %s", ev.GetKind(), ev, kind)
		}
		return ev
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s within 30s", kind)
	}
	return nil
}

func acceptMatch(s *clockServer, id, player string, accept bool) (*cupidv1.MatchRecord, error) {
	res, err := s.matchClient().AcceptMatch(context.Background(), connect.NewRequest(&cupidv1.AcceptMatchRequest{Id: id, PlayerId: player, Accept: accept}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatch(), nil
}

func mustAccept(t *testing.T, s *clockServer, id, player string, accept bool) *cupidv1.MatchRecord {
	t.Helper()
	r, err := acceptMatch(s, id, player, accept)
	if err != nil {
		t.Fatalf("AcceptMatch(%s, %v): %v", player, accept, err)
	}
	return r
}

func TestReadyCheckAcceptedFormsTheMatch(t *testing.T) {
	s := startConfigServer(t, t.TempDir(), readyQueues)
	evs := backend(t, s.testServer, "duel", 0)
	a, b := duelPair(t, s.c, "duel", "alice", "bob")
	wa, wb := ticketWatch(t, s, a.GetId(), 0), ticketWatch(t, s, b.GetId(), 0)
	nextKind(t, wa, "created")
	nextKind(t, wb, "created")
	p := nextKind(t, wa, "proposed")
	mid := p.GetMatch().GetId()
	if mid == "" || !p.GetMatch().GetAcceptBy().AsTime().Equal(s.clock.Now().Add(20*time.Second)) || len(p.GetMatch().GetTeams()) != 2 {
		t.Fatalf("proposed %v", p)
	}
	nextKind(t, wb, "proposed")
	// A player's socket carries the proposal with its deadline too.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(s.url, "http", "ws", 1)+"/v1/tickets/"+a.GetId()+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	var msg struct {
		Kind  string `json:"kind"`
		Match struct {
			ID       string `json:"id"`
			AcceptBy string `json:"acceptBy"`
		} `json:"match"`
	}
	for msg.Kind != "proposed" {
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &msg); err != nil {
			t.Fatal(err)
		}
	}
	if msg.Match.ID != mid || msg.Match.AcceptBy == "" {
		t.Fatalf("the socket's proposal %+v", msg)
	}
	if got := getTicket(t, s.c, a.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_MATCHED || got.GetMatchId() != mid {
		t.Fatalf("alice while pending %v", got)
	}
	if r := mustAccept(t, s, mid, "alice", true); r.GetState() != cupidv1.MatchState_MATCH_STATE_PENDING || r.GetAccepted() != 1 {
		t.Fatalf("after alice %v", r)
	}
	r := mustAccept(t, s, mid, "bob", true)
	if r.GetState() != cupidv1.MatchState_MATCH_STATE_FORMED || r.GetAccepted() != 2 || len(r.GetAnswers()) != 2 {
		t.Fatalf("after bob %v", r)
	}
	if m := nextKind(t, wa, "matched"); m.GetMatch().GetId() != mid {
		t.Fatalf("alice matched in %v", m.GetMatch())
	}
	nextKind(t, wb, "matched")
	// The backend's first event is the formed match: the proposal never
	// reached it.
	if ev := nextMatchEvent(t, evs); ev.GetKind() != "formed" || ev.GetMatch().GetId() != mid {
		t.Fatalf("the backend heard %v", ev)
	}
	// A backend that knows nothing of acceptance carries on as ever.
	if _, err := s.matchClient().AssignMatch(context.Background(), connect.NewRequest(&cupidv1.AssignMatchRequest{Id: mid,
		Assignment: &cupidv1.Assignment{Server: "gs:1"}})); err != nil {
		t.Fatal(err)
	}
	if ev := nextKind(t, wa, "assigned"); ev.GetAssignment().GetServer() != "gs:1" {
		t.Fatalf("alice heard %v", ev)
	}
	got, err := s.matchClient().GetMatch(context.Background(), connect.NewRequest(&cupidv1.GetMatchRequest{Id: mid}))
	if err != nil || got.Msg.GetMatch().GetAccepted() != 2 || got.Msg.GetMatch().GetAnswers()[0].GetPlayerId() != "alice" {
		t.Fatalf("GetMatch %v (%v)", got, err)
	}
}

func TestReadyCheckDeclineRequeuesTheOtherWithHisAge(t *testing.T) {
	s := startConfigServer(t, t.TempDir(), readyQueues)
	evs := backend(t, s.testServer, "duel", 0)
	a, b := duelPair(t, s.c, "duel", "dec-a", "dec-b")
	wb := ticketWatch(t, s, b.GetId(), 0)
	nextKind(t, wb, "created")
	mid := nextKind(t, wb, "proposed").GetMatch().GetId()

	// Bad calls are refused and change nothing.
	_, err := acceptMatch(s, mid, "mallory", true)
	wantCode(t, err, connect.CodeInvalidArgument, "player_id", "mallory")
	_, err = acceptMatch(s, "nope", "dec-a", true)
	wantCode(t, err, connect.CodeNotFound, "nope")
	_, err = acceptMatch(s, mid, "", true)
	wantCode(t, err, connect.CodeInvalidArgument, "player_id")
	mustAccept(t, s, mid, "dec-b", true)
	_, err = acceptMatch(s, mid, "dec-b", false)
	wantCode(t, err, connect.CodeFailedPrecondition, "already accepted")
	if r := mustAccept(t, s, mid, "dec-b", true); r.GetState() != cupidv1.MatchState_MATCH_STATE_PENDING || r.GetAccepted() != 1 {
		t.Fatalf("the same answer twice %v", r)
	}

	r := mustAccept(t, s, mid, "dec-a", false)
	if r.GetState() != cupidv1.MatchState_MATCH_STATE_RELEASED || r.GetReason() != "declined by dec-a" {
		t.Fatalf("after the decline %v", r)
	}
	if ev := nextKind(t, wb, "requeued"); ev.GetReason() != "declined by dec-a" {
		t.Fatalf("dec-b heard %v", ev)
	}
	gotA := getTicket(t, s.c, a.GetId())
	if gotA.GetState() != cupidv1.TicketState_TICKET_STATE_CANCELLED || !strings.Contains(gotA.GetReason(), "declined match "+mid) {
		t.Fatalf("the decliner's ticket %v", gotA)
	}
	if got := getTicket(t, s.c, b.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING || !got.GetCreatedAt().AsTime().Equal(b.GetCreatedAt().AsTime()) {
		t.Fatalf("dec-b after the decline %v", got)
	}
	_, err = acceptMatch(s, mid, "dec-b", true)
	if err != nil {
		t.Fatalf("repeating an answer after the release: %v", err)
	}

	// A third player comes: dec-b, back in his pool, meets him.
	c := create(t, s.c, "duel", player("dec-c", 1505))
	again := nextKind(t, wb, "proposed").GetMatch()
	if again.GetId() == mid || !strings.Contains(strings.Join(again.GetTeams()[0].GetTicketIds(), " ")+" "+strings.Join(again.GetTeams()[1].GetTicketIds(), " "), c.GetId()) {
		t.Fatalf("dec-b's next match %v", again)
	}
	mustAccept(t, s, again.GetId(), "dec-b", true)
	mustAccept(t, s, again.GetId(), "dec-c", true)
	nextKind(t, wb, "matched")
	if ev := nextMatchEvent(t, evs); ev.GetKind() != "formed" || ev.GetMatch().GetId() != again.GetId() {
		t.Fatalf("the backend heard %v; the declined match must not reach it", ev)
	}
}

func TestReadyCheckDeadlineSurvivesARestart(t *testing.T) {
	readyCheckAcrossARestart(t, "")
}

func TestReadyCheckDeadlineSurvivesARestartOnPostgres(t *testing.T) {
	readyCheckAcrossARestart(t, postgresURL(t))
}

// readyCheckAcrossARestart: a restart while a match waits for answers
// keeps the answers and the deadline, which then releases it; store is
// "" for SQLite or a PostgreSQL URL.
func readyCheckAcrossARestart(t *testing.T, store string) {
	data := t.TempDir()
	s := startConfigServerOn(t, data, readyQueues, testclock.At(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)), store)
	a, b := duelPair(t, s.c, "last", "to-a", "to-b")
	wa := ticketWatch(t, s, a.GetId(), 0)
	nextKind(t, wa, "created")
	p := nextKind(t, wa, "proposed")
	mid, deadline := p.GetMatch().GetId(), p.GetMatch().GetAcceptBy().AsTime()
	mustAccept(t, s, mid, "to-a", true)
	s.clock.Advance(10 * time.Second)
	s.stop()

	s = startConfigServerOn(t, data, readyQueues, s.clock, store)
	got, err := s.matchClient().GetMatch(context.Background(), connect.NewRequest(&cupidv1.GetMatchRequest{Id: mid}))
	if err != nil {
		t.Fatal(err)
	}
	r := got.Msg.GetMatch()
	if r.GetState() != cupidv1.MatchState_MATCH_STATE_PENDING || r.GetAccepted() != 1 || !r.GetMatch().GetAcceptBy().AsTime().Equal(deadline) {
		t.Fatalf("after a restart %v", r)
	}
	wa = ticketWatch(t, s, a.GetId(), p.GetSeq())
	s.mm.Handoff().AcceptDue(context.Background()) // not due yet: nothing happens
	s.clock.Advance(10 * time.Second)
	s.mm.Handoff().AcceptDue(context.Background())
	if ev := nextKind(t, wa, "requeued"); ev.GetReason() != "not accepted in time by to-b" {
		t.Fatalf("to-a heard %v", ev)
	}
	got, err = s.matchClient().GetMatch(context.Background(), connect.NewRequest(&cupidv1.GetMatchRequest{Id: mid}))
	if err != nil || got.Msg.GetMatch().GetState() != cupidv1.MatchState_MATCH_STATE_RELEASED {
		t.Fatalf("after the deadline %v (%v)", got, err)
	}
	// to-b did not answer: back to waiting, but as if he had just come.
	gb := getTicket(t, s.c, b.GetId())
	if gb.GetReason() != "" || !gb.GetCreatedAt().AsTime().Equal(s.clock.Now()) {
		t.Fatalf("to-b %v", gb)
	}
	// Both are back in their pool and are proposed a new match.
	if next := nextKind(t, wa, "proposed").GetMatch().GetId(); next == mid {
		t.Fatalf("proposed the released match again")
	}
	if ga := getTicket(t, s.c, a.GetId()); !ga.GetCreatedAt().AsTime().Equal(a.GetCreatedAt().AsTime()) {
		t.Fatalf("to-a lost his age: %v", ga)
	}
}
