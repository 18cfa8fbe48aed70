package main

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

func (s *testServer) lobbyClient() cupidv1connect.LobbyServiceClient {
	return cupidv1connect.NewLobbyServiceClient(http.DefaultClient, s.url)
}

// lobbyCall makes a lobby call, trying again while the lobbies are not yet
// running on the server (on a shared store they wait for the node to take
// their lease); the deadline only keeps a broken server from hanging the
// test.
func lobbyCall[Req, Res any](t *testing.T, call func(context.Context, *connect.Request[Req]) (*connect.Response[Res], error), req *Req) *Res {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := call(context.Background(), connect.NewRequest(req))
		if err == nil {
			return res.Msg
		}
		if connect.CodeOf(err) != connect.CodeUnavailable || time.Now().After(deadline) {
			t.Fatalf("%T: %v", req, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func lobbyErr[Req, Res any](t *testing.T, call func(context.Context, *connect.Request[Req]) (*connect.Response[Res], error), req *Req, code connect.Code) {
	t.Helper()
	_, err := call(context.Background(), connect.NewRequest(req))
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != code {
		t.Fatalf("%T: %v, want %v", req, err, code)
	}
}

func i32(v int32) *int32 { return &v }

// TestLobbyCreatedListedFilledStartedAssigned: through the real server, a
// lobby is created, listed with filters, filled by id and by code, the
// server restarts in the middle, and the host starts it: its match is on
// the queue's match log (WatchMatches) with the lobby's teams, and the
// backend assigns it as any other.
func TestLobbyCreatedListedFilledStartedAssigned(t *testing.T) {
	s := startServer(t, serveFlags{})
	lobbyToMatch(t, s, func() *testServer {
		data := s.data
		s.stop()
		s = startServer(t, serveFlags{data: data})
		return s
	})
}

// TestLobbyOnPostgres: the same on PostgreSQL, where the lobbies run under
// their lease.
func TestLobbyOnPostgres(t *testing.T) {
	dbURL := postgresURL(t)
	s := startServer(t, serveFlags{store: dbURL})
	lobbyToMatch(t, s, func() *testServer {
		s.stop()
		s = startServer(t, serveFlags{store: dbURL})
		return s
	})
}

func lobbyToMatch(t *testing.T, s *testServer, restart func() *testServer) {
	c := s.lobbyClient()
	host := lobbyCall(t, c.CreateLobby, &cupidv1.CreateLobbyRequest{Player: "ann", Settings: &cupidv1.LobbySettings{
		Name: "ann's duel", Queue: "duel", Teams: 2, TeamSize: 1, Attributes: map[string]string{"map": "dust"}}}).GetLobby()
	lobbyCall(t, c.CreateLobby, &cupidv1.CreateLobbyRequest{Player: "zed", Settings: &cupidv1.LobbySettings{Queue: "squad5v5", Teams: 2, TeamSize: 5}})
	lobbyCall(t, c.CreateLobby, &cupidv1.CreateLobbyRequest{Player: "yan", Settings: &cupidv1.LobbySettings{Queue: "duel", Teams: 2, TeamSize: 1,
		Visibility: cupidv1.LobbyVisibility_LOBBY_VISIBILITY_PRIVATE}})
	lobbyErr(t, c.CreateLobby, &cupidv1.CreateLobbyRequest{Player: "xi", Settings: &cupidv1.LobbySettings{Queue: "duel", Teams: 0, TeamSize: 1}}, connect.CodeInvalidArgument)

	all := lobbyCall(t, c.ListLobbies, &cupidv1.ListLobbiesRequest{})
	if len(all.GetLobbies()) != 2 {
		t.Fatalf("public lobbies: %v", all.GetLobbies())
	}
	dust := lobbyCall(t, c.ListLobbies, &cupidv1.ListLobbiesRequest{Queue: "duel", Attributes: map[string]string{"map": "dust"}, MinFreeSeats: 1})
	if len(dust.GetLobbies()) != 1 || dust.GetLobbies()[0].GetId() != host.GetId() {
		t.Fatalf("duel lobbies on dust: %v", dust.GetLobbies())
	}
	page := lobbyCall(t, c.ListLobbies, &cupidv1.ListLobbiesRequest{PageSize: 1})
	if len(page.GetLobbies()) != 1 || page.GetNextCursor() == "" {
		t.Fatalf("first page: %v", page)
	}
	lobbyErr(t, c.ListLobbies, &cupidv1.ListLobbiesRequest{PageSize: 1000}, connect.CodeInvalidArgument)

	lobbyErr(t, c.JoinLobby, &cupidv1.JoinLobbyRequest{Player: "bob", Code: "NOPE00"}, connect.CodeNotFound)
	joined := lobbyCall(t, c.JoinLobby, &cupidv1.JoinLobbyRequest{Player: "bob", Code: host.GetCode(), Team: i32(1)}).GetLobby()
	if len(joined.GetMembers()) != 2 || joined.GetFreeSeats() != 0 {
		t.Fatalf("after bob joined: %v", joined)
	}
	lobbyErr(t, c.JoinLobby, &cupidv1.JoinLobbyRequest{Player: "cat", LobbyId: host.GetId()}, connect.CodeResourceExhausted)

	s = restart()
	c = s.lobbyClient()
	got := lobbyCall(t, c.GetLobby, &cupidv1.GetLobbyRequest{LobbyId: host.GetId()}).GetLobby()
	if len(got.GetMembers()) != 2 || got.GetCode() != host.GetCode() {
		t.Fatalf("after the restart: %v", got)
	}
	matches := backend(t, s, "duel", 0)
	lobbyErr(t, c.Start, &cupidv1.LobbyPlayerRequest{LobbyId: host.GetId(), Player: "ann"}, connect.CodeFailedPrecondition)
	lobbyCall(t, c.SetReady, &cupidv1.SetReadyRequest{LobbyId: host.GetId(), Player: "ann", Ready: true})
	lobbyCall(t, c.SetReady, &cupidv1.SetReadyRequest{LobbyId: host.GetId(), Player: "bob", Ready: true})
	lobbyErr(t, c.Start, &cupidv1.LobbyPlayerRequest{LobbyId: host.GetId(), Player: "bob"}, connect.CodePermissionDenied)
	started := lobbyCall(t, c.Start, &cupidv1.LobbyPlayerRequest{LobbyId: host.GetId(), Player: "ann"})
	if started.GetLobby().GetState() != cupidv1.LobbyState_LOBBY_STATE_STARTED || started.GetMatch().GetId() != started.GetLobby().GetMatchId() {
		t.Fatalf("started: %v", started)
	}
	ev := nextMatchEvent(t, matches)
	for ev.GetMatch().GetId() != started.GetMatch().GetId() {
		ev = nextMatchEvent(t, matches) // the store may hold earlier runs' matches
	}
	teams := ev.GetMatch().GetTeams()
	if ev.GetKind() != "formed" || len(teams) != 2 || teams[0].GetPlayerIds()[0] != "ann" || teams[1].GetPlayerIds()[0] != "bob" {
		t.Fatalf("the lobby's match on the match log: %v", ev)
	}
	mc := s.matchClient()
	if _, err := mc.AssignMatch(context.Background(), connect.NewRequest(&cupidv1.AssignMatchRequest{Id: ev.GetMatch().GetId(),
		Assignment: &cupidv1.Assignment{Server: "10.0.0.7:7777"}})); err != nil {
		t.Fatal(err)
	}
	rec, err := mc.GetMatch(context.Background(), connect.NewRequest(&cupidv1.GetMatchRequest{Id: ev.GetMatch().GetId()}))
	if err != nil || rec.Msg.GetMatch().GetState() != cupidv1.MatchState_MATCH_STATE_ASSIGNED {
		t.Fatalf("assigned: %v %v", rec, err)
	}
	if l := lobbyCall(t, c.ListLobbies, &cupidv1.ListLobbiesRequest{Queue: "duel"}); len(l.GetLobbies()) != 0 {
		t.Fatalf("a started lobby listed: %v", l.GetLobbies())
	}
}

// TestLobbyFreeSeatsFilledFromTheQueueThroughTheServer: a lobby open to the
// queue starts with a free seat in each team, and two players who queue
// normally take them: their tickets are matched into the lobby's match,
// which then holds all four.
func TestLobbyFreeSeatsFilledFromTheQueueThroughTheServer(t *testing.T) {
	cfg := writeConfig(t, `queues:
  - name: pairs
    ticket_ttl: 10m
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 2}
`)
	s := startServer(t, serveFlags{config: cfg})
	c := s.lobbyClient()
	l := lobbyCall(t, c.CreateLobby, &cupidv1.CreateLobbyRequest{Player: "ann", Settings: &cupidv1.LobbySettings{
		Queue: "pairs", Teams: 2, TeamSize: 2, FillFromQueue: true}}).GetLobby()
	lobbyCall(t, c.JoinLobby, &cupidv1.JoinLobbyRequest{Player: "bob", LobbyId: l.GetId(), Team: i32(1)})
	for _, p := range []string{"ann", "bob"} {
		lobbyCall(t, c.SetReady, &cupidv1.SetReadyRequest{LobbyId: l.GetId(), Player: p, Ready: true})
	}
	started := lobbyCall(t, c.Start, &cupidv1.LobbyPlayerRequest{LobbyId: l.GetId(), Player: "ann"})
	if !started.GetMatch().GetBackfill() {
		t.Fatalf("the lobby's match is not open to the queue: %v", started.GetMatch())
	}
	tc := s.connectClient()
	for _, p := range []string{"cat", "dan"} {
		res, err := tc.CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{Queue: "pairs", Players: []*cupidv1.Player{{Id: p}}}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a failure guard
		stream, err := tc.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: res.Msg.GetTicket().GetId()}))
		if err != nil {
			t.Fatal(err)
		}
		var last *cupidv1.TicketEvent
		for stream.Receive() {
			last = stream.Msg()
		}
		cancel()
		if last.GetKind() != "matched" || last.GetMatch().GetId() != started.GetMatch().GetId() {
			t.Fatalf("%s's ticket ended %v, want matched into the lobby's match %s (%v)", p, last, started.GetMatch().GetId(), stream.Err())
		}
	}
	mc := s.matchClient()
	rec, err := mc.GetMatch(context.Background(), connect.NewRequest(&cupidv1.GetMatchRequest{Id: started.GetMatch().GetId()}))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, team := range rec.Msg.GetMatch().GetMatch().GetTeams() {
		n += len(team.GetPlayerIds())
	}
	if n != 4 {
		t.Fatalf("the lobby's match holds %d players, want 4: %v", n, rec.Msg.GetMatch())
	}
}
