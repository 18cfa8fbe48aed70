package api

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// MatchService beyond the hand-off: game sessions (leavers, backfill,
// the end), the ready check's answers and the backends' match stream,
// over JSON, gRPC and the WebSocket, with the real ticket service.

// formMatch queues one player a ticket each in queue, lets the pool step
// and returns the id of the match they form.
func (e *env) formMatch(queue, cred string, players ...string) string {
	e.t.Helper()
	for _, p := range players {
		e.rpc("TicketService/CreateTicket", cred, `{"queue":"`+queue+`","players":[{"id":"`+p+`","attributes":{"mmr":1500}}]}`).ok(e.t)
	}
	e.wait(0)
	r := e.rpc("MatchService/ListMatches", cred, `{"queue":"`+queue+`"}`).ok(e.t)
	for _, m := range r.list("matches") {
		rec := reply{body: m.(map[string]any)}
		for _, team := range rec.list("match.teams") {
			ids, _ := team.(map[string]any)["playerIds"].([]any)
			if slices.Contains(ids, any(players[0])) {
				return rec.str("match.id")
			}
		}
	}
	e.t.Fatalf("no match of %v in %s: %s", players, queue, r.raw)
	return ""
}

func TestSessionsOverJSON(t *testing.T) {
	e := newEnv(t, envOptions{queues: []ticketsvc.Queue{{Name: "brawl", TTL: ttl, Ruleset: []byte(duelRules), LeaverWindow: time.Minute}}})
	m := func(method, body string) reply {
		t.Helper()
		return e.rpc("MatchService/"+method, "", body).ok(t)
	}
	id := e.formMatch("brawl", "", "alice", "bob")
	in := `{"id":"` + id + `"`
	m("AssignMatch", in+`,"assignment":{"server":"gs:1","sessionId":"s1","connection":{"token":"t1"}}}`)

	// Refusals name the field and change nothing.
	for _, c := range []struct {
		name, method, body string
		code               connect.Code
		field              string
	}{
		{"no leaver", "ReportLeavers", in + `}`, connect.CodeInvalidArgument, "player_ids"},
		{"an empty leaver", "ReportLeavers", in + `,"playerIds":[""]}`, connect.CodeInvalidArgument, "player_ids[0]"},
		{"a leaver twice", "ReportLeavers", in + `,"playerIds":["bob","bob"]}`, connect.CodeInvalidArgument, "player_ids[1]"},
		{"a leaver not in the game", "ReportLeavers", in + `,"playerIds":["bob","zed"]}`, connect.CodeFailedPrecondition, "player_ids[1]"},
		{"an option the ruleset lacks", "OpenBackfill", in + `,"matchOptions":{"map":["forest"]}}`, connect.CodeInvalidArgument, "match_options.map"},
		{"an option not a string", "OpenBackfill", in + `,"matchOptions":{"map":[3]}}`, connect.CodeInvalidArgument, "match_options.map[0]"},
		{"a team's attribute an object", "OpenBackfill", in + `,"teams":[{"players":[{"id":"alice","attributes":{"mmr":{"nested":1}}}]},{"players":[]}]}`, connect.CodeInvalidArgument, "teams[0].players[0].attributes.mmr"},
		{"three teams", "OpenBackfill", in + `,"teams":[{"players":[]},{"players":[]},{"players":[]}]}`, connect.CodeInvalidArgument, "teams"},
		{"close backfill not open", "CloseBackfill", in + `}`, connect.CodeFailedPrecondition, ""},
		{"an unknown match", "EndSession", `{"id":"nope"}`, connect.CodeNotFound, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := e.with(t).rpc("MatchService/"+c.method, "", c.body).refused(t, c.code)
			if !strings.HasPrefix(msg, c.field) {
				t.Fatalf("message %q does not start with %q", msg, c.field)
			}
			r := e.with(t).rpc("MatchService/GetMatch", "", in+`}`).ok(t)
			if r.list("match.match.left") != nil || r.path("match.match.backfill") == true || r.str("match.state") != "MATCH_STATE_ASSIGNED" {
				t.Fatalf("a refused %s changed the session: %s", c.method, r.raw)
			}
		})
	}

	// Bob leaves within the leaver window: his seat stays and backfill
	// opens.
	r := m("ReportLeavers", in+`,"playerIds":["bob"]}`)
	if r.str("match.match.left.0.playerId") != "bob" || r.path("match.match.left.0.replaced") != true || r.path("match.match.backfill") != true {
		t.Fatalf("leavers: %s", r.raw)
	}
	if seats := r.list("match.match.seats"); len(seats) != 2 {
		t.Fatalf("seats: %s", r.raw)
	}
	if r := m("CloseBackfill", in+`}`); r.path("match.match.backfill") == true {
		t.Fatalf("close: %s", r.raw)
	}
	// The game server's own view: alice at the rating it keeps.
	r = m("OpenBackfill", in+`,"teams":[{"players":[{"id":"alice","attributes":{"mmr":1620}}]},{"players":[]}]}`)
	if r.path("match.match.backfill") != true || r.str("match.assignment.server") != "gs:1" {
		t.Fatalf("open: %s", r.raw)
	}
	// A waiting player near alice's 1620 takes bob's seat.
	e.rpc("TicketService/CreateTicket", "", `{"queue":"brawl","players":[{"id":"carol","attributes":{"mmr":1640}}]}`).ok(t)
	e.wait(0)
	r = m("GetMatch", in+`}`)
	if got := r.list("match.match.teams.1.playerIds"); len(got) != 1 || got[0] != "carol" {
		t.Fatalf("carol did not take bob's seat: %s", r.raw)
	}
	if r := m("EndSession", in+`}`); r.str("match.state") != "MATCH_STATE_ENDED" || r.path("match.match.backfill") == true {
		t.Fatalf("end: %s", r.raw)
	}
	e.rpc("MatchService/EndSession", "", in+`}`).refused(t, connect.CodeFailedPrecondition)
	if r := m("ListMatches", `{"queue":"brawl","state":"MATCH_STATE_ENDED"}`); len(r.list("matches")) != 1 {
		t.Fatalf("ended matches: %s", r.raw)
	}
	e.rpc("MatchService/ListMatches", "", `{"queue":"brawl","state":42}`).refused(t, connect.CodeInvalidArgument, "state")
	e.rpc("MatchService/AssignMatch", "", in+`}`).refused(t, connect.CodeInvalidArgument, "assignment")
}

// A ready check over JSON with player tokens: each player answers for
// himself (a token's own player when none is named); the last acceptance
// forms the match.
func TestReadyCheckOverJSON(t *testing.T) {
	backend := ServerKey{Name: "backend", Hash: HashKey(keyTickets), Scopes: []Scope{ScopeTickets}}
	e := newEnv(t, envOptions{
		queues:  []ticketsvc.Queue{{Name: "ready", TTL: ttl, Ruleset: []byte(duelRules), Acceptance: ticketsvc.Acceptance{Timeout: 20 * time.Second}}},
		options: func(o *Options) { o.Auth = testAuth(t, backend) },
	})
	alice, bob := playerToken(t, "alice"), playerToken(t, "bob")
	e.rpc("TicketService/CreateTicket", alice, `{"queue":"ready","players":[{"id":"alice","attributes":{"mmr":1500}}]}`).ok(t)
	e.rpc("TicketService/CreateTicket", bob, `{"queue":"ready","players":[{"id":"bob","attributes":{"mmr":1500}}]}`).ok(t)
	e.wait(0)
	r := e.rpc("MatchService/ListMatches", keyTickets, `{"queue":"ready","state":"MATCH_STATE_PENDING"}`).ok(t)
	id := r.str("matches.0.match.id")
	if id == "" || r.str("matches.0.match.acceptBy") == "" {
		t.Fatalf("pending matches: %s", r.raw)
	}
	in := `{"id":"` + id + `"`
	r = e.rpc("MatchService/AcceptMatch", alice, in+`,"accept":true}`).ok(t)
	if r.str("match.state") != "MATCH_STATE_PENDING" || r.num("match.accepted") != 1 || r.str("match.answers.0.playerId") != "alice" || r.str("match.answers.0.at") == "" {
		t.Fatalf("alice's answer: %s", r.raw)
	}
	e.rpc("MatchService/AcceptMatch", alice, in+`,"playerId":"bob","accept":false}`).refused(t, connect.CodePermissionDenied, "only for himself, not for bob")
	e.rpc("MatchService/AcceptMatch", keyTickets, in+`,"playerId":"carol","accept":true}`).refused(t, connect.CodeInvalidArgument, "player_id")
	if r := e.rpc("MatchService/GetMatch", keyTickets, in+`}`).ok(t); r.num("match.accepted") != 1 || len(r.list("match.answers")) != 1 {
		t.Fatalf("refused answers were recorded: %s", r.raw)
	}
	r = e.rpc("MatchService/AcceptMatch", bob, in+`,"playerId":"bob","accept":true}`).ok(t)
	if r.str("match.state") != "MATCH_STATE_FORMED" || r.num("match.accepted") != 2 {
		t.Fatalf("bob's answer: %s", r.raw)
	}
	e.rpc("MatchService/AcceptMatch", bob, in+`,"accept":false}`).refused(t, connect.CodeFailedPrecondition)
	e.rpc("MatchService/AcceptMatch", bob, `{"id":"nope","accept":true}`).refused(t, connect.CodeNotFound)
}

// The backends' match stream: each event once, in order, resumable after
// the last seq handled; an unknown queue is refused before the stream.
func TestWatchMatchesResumes(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	c := cupidv1connect.NewMatchServiceClient(e.h2c, e.url, connect.WithGRPC())
	s, err := c.WatchMatches(ctx, connect.NewRequest(&cupidv1.WatchMatchesRequest{Queue: "duel"}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id := e.formMatch("duel", "", "alice", "bob")
	next := func(s *connect.ServerStreamForClient[cupidv1.MatchEvent], kind string) *cupidv1.MatchEvent {
		t.Helper()
		if !s.Receive() {
			t.Fatalf("the stream ended (%v), want %s", s.Err(), kind)
		}
		ev := s.Msg()
		if ev.GetKind() != kind {
			t.Fatalf("event %v, want %s", ev, kind)
		}
		return ev
	}
	formed := next(s, "formed")
	if formed.GetMatch().GetId() != id || formed.GetSeq() <= 0 || formed.GetAt() == nil {
		t.Fatalf("formed %v", formed)
	}
	e.rpc("MatchService/AssignMatch", "", `{"id":"`+id+`","assignment":{"server":"gs:9"}}`).ok(t)
	assigned := next(s, "assigned")
	if assigned.GetAssignment().GetServer() != "gs:9" || assigned.GetSeq() <= formed.GetSeq() {
		t.Fatalf("assigned %v", assigned)
	}

	// A backend that handled "formed" reconnects after it.
	again, err := c.WatchMatches(ctx, connect.NewRequest(&cupidv1.WatchMatchesRequest{Queue: "duel", AfterSeq: formed.GetSeq()}))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if ev := next(again, "assigned"); ev.GetSeq() != assigned.GetSeq() {
		t.Fatalf("resumed at %v, want seq %d", ev, assigned.GetSeq())
	}

	// The WebSocket sends the same events as JSON.
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/v1/queues/duel/matches/ws?after_seq=0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	for _, kind := range []string{"formed", "assigned"} {
		n := readNotification(t, ws)
		if n["kind"] != kind {
			t.Fatalf("socket event %v, want %s", n, kind)
		}
	}

	bad, err := c.WatchMatches(ctx, connect.NewRequest(&cupidv1.WatchMatchesRequest{Queue: "nope"}))
	if err == nil {
		for bad.Receive() {
		}
		err = bad.Err()
	}
	var ce *connect.Error
	if !asConnect(err, &ce) || ce.Code() != connect.CodeNotFound {
		t.Fatalf("an unknown queue's watch: %v", err)
	}
	for path, status := range map[string]int{
		"/v1/queues/nope/matches/ws":             404,
		"/v1/queues/duel/matches/ws?after_seq=x": 400,
		"/v1/queues/duel/matches/ws?after_seq=-": 400,
	} {
		if r := e.get(path); r.status != status {
			t.Errorf("GET %s: %d %s, want %d", path, r.status, r.raw, status)
		}
	}
}

// A queue's match watchers are capped as a ticket's are; past the cap the
// stream and the WebSocket are refused naming the queue.
func TestMatchWatchersAreCapped(t *testing.T) {
	e := newEnv(t, envOptions{options: func(o *Options) { o.Limits.MaxWatchersPerTicket = 1 }})
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	c := cupidv1connect.NewMatchServiceClient(e.h2c, e.url, connect.WithGRPC())
	first, err := c.WatchMatches(ctx, connect.NewRequest(&cupidv1.WatchMatchesRequest{Queue: "duel"}))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	// ResponseHeader waits for the headers, which the server sends once
	// it has counted the watcher.
	if first.ResponseHeader() == nil {
		t.Fatal("no headers")
	}
	second, err := c.WatchMatches(ctx, connect.NewRequest(&cupidv1.WatchMatchesRequest{Queue: "duel"}))
	if err == nil {
		for second.Receive() {
		}
		err = second.Err()
	}
	var ce *connect.Error
	if !asConnect(err, &ce) || ce.Code() != connect.CodeResourceExhausted || ce.Meta().Get("Cupid-Field") != "queue" {
		t.Fatalf("a second match watcher: %v", err)
	}
	r := e.get("/v1/queues/duel/matches/ws")
	if r.status != 429 {
		t.Fatalf("a match socket past the cap: %d %s", r.status, r.raw)
	}
	r.refused(t, connect.CodeResourceExhausted, "queue duel")
	// Another queue has its own.
	other, err := c.WatchMatches(ctx, connect.NewRequest(&cupidv1.WatchMatchesRequest{Queue: "squad"}))
	if err != nil {
		t.Fatalf("squad's watcher: %v", err)
	}
	other.Close()
}
