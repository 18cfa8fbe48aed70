package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/internal/testclock"
)

// These tests follow a game session through the whole server: a match that
// forms below its size stays open to backfill, late players join it and
// hear its server, leavers are replaced within the queue's leaver window
// and not after it, and a restart keeps all of it.

// sessionQueues is a two-against-two queue that may start with one a side
// and keeps every match open to backfill until full; leavers in the first
// minute after the assignment are replaced.
const sessionQueues = `
queues:
  - name: squad
    leaver_window: 60s
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 2}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 100, max: 3000}
      auto_backfill: true
`

// assignedTo watches a ticket until its assigned event and returns the
// match and the server it names.
func assignedTo(t *testing.T, s *clockServer, id string) (match, server string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := s.c.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: id, WaitForAssignment: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	for stream.Receive() {
		if ev := stream.Msg(); ev.GetKind() == "assigned" {
			return ev.GetMatch().GetId(), ev.GetAssignment().GetServer()
		}
	}
	t.Fatalf("the watch of %s ended before an assignment: %v", id, stream.Err())
	return "", ""
}

// nextOf reads the stream up to the next event of the match.
func nextOf(t *testing.T, evs <-chan *cupidv1.MatchEvent, match string) *cupidv1.MatchEvent {
	t.Helper()
	for {
		if ev := nextMatchEvent(t, evs); ev.GetMatch().GetId() == match {
			return ev
		}
	}
}

func sessionPlayers(m *cupidv1.Match) []string {
	var out []string
	for _, t := range m.GetTeams() {
		out = append(out, t.GetPlayerIds()...)
	}
	slices.Sort(out)
	return out
}

func TestSessionBackfillLeaversAndRestart(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { sessionScenario(t, "") })
	t.Run("postgres", func(t *testing.T) { sessionScenario(t, postgresURL(t)) })
}

func sessionScenario(t *testing.T, store string) {
	data := t.TempDir()
	s := startConfigServerOn(t, data, sessionQueues, testclock.At(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)), store)
	ctx := context.Background()
	evs := backend(t, s.testServer, "squad", 0)

	// Three players in one call: a match of three, open for a fourth.
	res, err := s.c.CreateTickets(ctx, connect.NewRequest(&cupidv1.CreateTicketsRequest{Tickets: []*cupidv1.CreateTicketRequest{
		{Queue: "squad", Players: []*cupidv1.Player{player("ann", 1500)}},
		{Queue: "squad", Players: []*cupidv1.Player{player("ben", 1510)}},
		{Queue: "squad", Players: []*cupidv1.Player{player("cat", 1490)}},
	}}))
	if err != nil {
		t.Fatal(err)
	}
	formed := nextMatchEvent(t, evs)
	m := formed.GetMatch()
	if formed.GetKind() != "formed" || !slices.Equal(sessionPlayers(m), []string{"ann", "ben", "cat"}) || !m.GetBackfill() || !slices.Equal(m.GetSeats(), []int32{2, 2}) {
		t.Fatalf("formed: %v", formed)
	}
	id := m.GetId()
	mc := s.matchClient()
	if _, err := mc.AssignMatch(ctx, connect.NewRequest(&cupidv1.AssignMatchRequest{Id: id, Assignment: &cupidv1.Assignment{Server: "10.0.0.5:7777"}})); err != nil {
		t.Fatal(err)
	}
	if ev := nextOf(t, evs, id); ev.GetKind() != "assigned" {
		t.Fatalf("after the assignment: %v", ev)
	}
	for _, r := range res.Msg.GetResults() {
		if got, server := assignedTo(t, s, r.GetTicket().GetId()); got != id || server != "10.0.0.5:7777" {
			t.Fatalf("%s assigned %s at %s", r.GetTicket().GetPlayers()[0].GetId(), got, server)
		}
	}

	// A fourth player joins the running game and hears where it is.
	dan := create(t, s.c, "squad", player("dan", 1500))
	if got, server := assignedTo(t, s, dan.GetId()); got != id || server != "10.0.0.5:7777" {
		t.Fatalf("dan assigned %s at %s, want the session's server", got, server)
	}
	ev := nextOf(t, evs, id)
	if ev.GetKind() != "backfilled" || !slices.Equal(ev.GetTicketIds(), []string{dan.GetId()}) || !slices.Equal(ev.GetPlayerIds(), []string{"dan"}) || ev.GetMatch().GetBackfill() {
		t.Fatalf("backfilled event: %v", ev)
	}

	// Within the window, ann leaves: her seat reopens. A player who asks
	// for a new session only is never backfilled: fay waits, and the seat
	// goes to eve, who comes after her.
	fay, err := s.c.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{Queue: "squad", Players: []*cupidv1.Player{player("fay", 1500)},
		Attributes: map[string]*structpb.Value{"new_session_only": structpb.NewBoolValue(true)}}))
	if err != nil {
		t.Fatal(err)
	}
	s.clock.Advance(10 * time.Second)
	left, err := mc.ReportLeavers(ctx, connect.NewRequest(&cupidv1.ReportLeaversRequest{Id: id, PlayerIds: []string{"ann"}}))
	if err != nil {
		t.Fatal(err)
	}
	if lm := left.Msg.GetMatch().GetMatch(); !lm.GetBackfill() || len(lm.GetLeft()) != 1 || !lm.GetLeft()[0].GetReplaced() {
		t.Fatalf("after ann left: %v", lm)
	}
	if ev := nextOf(t, evs, id); ev.GetKind() != "left" || !slices.Equal(ev.GetPlayerIds(), []string{"ann"}) {
		t.Fatalf("left event: %v", ev)
	}
	s.mm.Wake()
	if got := getTicket(t, s.c, fay.Msg.GetTicket().GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
		t.Fatalf("fay (new session only) is %v in %s", got.GetState(), got.GetMatchId())
	}
	eve := create(t, s.c, "squad", player("eve", 1500))
	if got, _ := assignedTo(t, s, eve.GetId()); got != id {
		t.Fatalf("eve assigned %s, want ann's seat in %s", got, id)
	}
	ev = nextOf(t, evs, id)
	if ev.GetKind() != "backfilled" || !slices.Equal(sessionPlayers(ev.GetMatch()), []string{"ben", "cat", "dan", "eve"}) {
		t.Fatalf("after eve: %v", ev)
	}

	// A restart keeps the session; a leaver within the window reopens it
	// after the restart as before.
	s.stop()
	s = startConfigServerOn(t, data, sessionQueues, s.clock, store)
	mc = s.matchClient()
	evs = backend(t, s.testServer, "squad", ev.GetSeq())
	s.clock.Advance(10 * time.Second)
	if _, err := mc.ReportLeavers(ctx, connect.NewRequest(&cupidv1.ReportLeaversRequest{Id: id, PlayerIds: []string{"ben"}})); err != nil {
		t.Fatal(err)
	}
	s.stop()
	s = startConfigServerOn(t, data, sessionQueues, s.clock, store)
	mc = s.matchClient()
	hal := create(t, s.c, "squad", player("hal", 1500))
	if got, server := assignedTo(t, s, hal.GetId()); got != id || server != "10.0.0.5:7777" {
		t.Fatalf("hal after a restart: assigned %s at %s, want the open session", got, server)
	}

	// After the window, a leaver's seat closes with him.
	s.clock.Advance(time.Minute)
	left, err = mc.ReportLeavers(ctx, connect.NewRequest(&cupidv1.ReportLeaversRequest{Id: id, PlayerIds: []string{"cat"}}))
	if err != nil {
		t.Fatal(err)
	}
	lm := left.Msg.GetMatch().GetMatch()
	if lm.GetBackfill() || lm.GetSeats()[0]+lm.GetSeats()[1] != 3 {
		t.Fatalf("after cat left late: %v", lm)
	}
	_, err = mc.ReportLeavers(ctx, connect.NewRequest(&cupidv1.ReportLeaversRequest{Id: id, PlayerIds: []string{"cat"}}))
	wantCode(t, err, connect.CodeFailedPrecondition, "cat")
	_, err = mc.OpenBackfill(ctx, connect.NewRequest(&cupidv1.OpenBackfillRequest{Id: id}))
	wantCode(t, err, connect.CodeFailedPrecondition, "every seat")
	// fay's next chance is a new match: with gus, now that the session
	// is full for good.
	gus := create(t, s.c, "squad", player("gus", 1500))
	if got := waitFinal(t, s.c, gus.GetId(), 0); got.GetKind() != "matched" || got.GetMatch().GetId() == id ||
		!slices.Equal(sessionPlayers(got.GetMatch()), []string{"fay", "gus"}) {
		t.Fatalf("gus: %v", got)
	}
	if _, err := mc.EndSession(ctx, connect.NewRequest(&cupidv1.EndSessionRequest{Id: id})); err != nil {
		t.Fatal(err)
	}
	_, err = mc.EndSession(ctx, connect.NewRequest(&cupidv1.EndSessionRequest{Id: id}))
	wantCode(t, err, connect.CodeFailedPrecondition, "ended")
	if got := getMatch(t, s, id); got.GetState() != cupidv1.MatchState_MATCH_STATE_ENDED {
		t.Fatalf("state after EndSession: %v", got.GetState())
	}
}

func getMatch(t *testing.T, s *clockServer, id string) *cupidv1.MatchRecord {
	t.Helper()
	res, err := s.matchClient().GetMatch(context.Background(), connect.NewRequest(&cupidv1.GetMatchRequest{Id: id}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetMatch()
}

// TestOpenBackfillWithTheGameServersTeams: a game server opens backfill
// with its own view of the session — ann and ben are gone, gus, a player
// it let in itself at 3000 mmr, plays alone — and Cupid compares
// newcomers with gus, also after a restart: lou at 1500 waits, hal at
// 2950 joins and hears the session's server. A view naming a player of
// another live match is refused and changes nothing.
func TestOpenBackfillWithTheGameServersTeams(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { backfillTeamsScenario(t, "") })
	t.Run("postgres", func(t *testing.T) { backfillTeamsScenario(t, postgresURL(t)) })
}

func backfillTeamsScenario(t *testing.T, store string) {
	data := t.TempDir()
	s := startConfigServerOn(t, data, sessionQueues, testclock.At(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)), store)
	ctx := context.Background()
	evs := backend(t, s.testServer, "squad", 0)
	mc := s.matchClient()
	pair := func(a, b string) *cupidv1.Match {
		t.Helper()
		if _, err := s.c.CreateTickets(ctx, connect.NewRequest(&cupidv1.CreateTicketsRequest{Tickets: []*cupidv1.CreateTicketRequest{
			{Queue: "squad", Players: []*cupidv1.Player{player(a, 1500)}},
			{Queue: "squad", Players: []*cupidv1.Player{player(b, 1510)}},
		}})); err != nil {
			t.Fatal(err)
		}
		formed := nextMatchEvent(t, evs)
		for formed.GetKind() != "formed" { // the previous pair's backfill_closed
			formed = nextMatchEvent(t, evs)
		}
		if !slices.Equal(sessionPlayers(formed.GetMatch()), []string{a, b}) {
			t.Fatalf("formed: %v", formed)
		}
		if _, err := mc.CloseBackfill(ctx, connect.NewRequest(&cupidv1.CloseBackfillRequest{Id: formed.GetMatch().GetId()})); err != nil {
			t.Fatal(err)
		}
		return formed.GetMatch()
	}
	m := pair("ann", "ben")
	pair("cat", "dan")
	id := m.GetId()
	if _, err := mc.AssignMatch(ctx, connect.NewRequest(&cupidv1.AssignMatchRequest{Id: id, Assignment: &cupidv1.Assignment{Server: "10.0.0.6:7777"}})); err != nil {
		t.Fatal(err)
	}
	gus := player("gus", 3000)
	view := func(other ...*cupidv1.Player) []*cupidv1.BackfillTeam {
		out := make([]*cupidv1.BackfillTeam, len(m.GetTeams()))
		for i, team := range m.GetTeams() {
			out[i] = &cupidv1.BackfillTeam{}
			if slices.Contains(team.GetPlayerIds(), "ann") {
				out[i].Players = []*cupidv1.Player{gus}
			} else {
				out[i].Players = other
			}
		}
		return out
	}
	_, err := mc.OpenBackfill(ctx, connect.NewRequest(&cupidv1.OpenBackfillRequest{Id: id, Teams: view()[:1]}))
	wantCode(t, err, connect.CodeInvalidArgument, "teams")
	_, err = mc.OpenBackfill(ctx, connect.NewRequest(&cupidv1.OpenBackfillRequest{Id: id, Teams: view(player("cat", 1500))}))
	wantCode(t, err, connect.CodeFailedPrecondition, "cat")
	if got := getMatch(t, s, id).GetMatch(); got.GetBackfill() || !slices.Equal(sessionPlayers(got), []string{"ann", "ben"}) {
		t.Fatalf("a refused OpenBackfill changed the session: %v", got)
	}

	res, err := mc.OpenBackfill(ctx, connect.NewRequest(&cupidv1.OpenBackfillRequest{Id: id, Teams: view()}))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Msg.GetMatch().GetMatch(); !got.GetBackfill() || !slices.Equal(sessionPlayers(got), []string{"gus"}) || len(got.GetLeft()) != 2 {
		t.Fatalf("the session as the game server gave it: %v", got)
	}
	opened := nextOf(t, evs, id)
	if opened.GetKind() == "assigned" {
		opened = nextOf(t, evs, id)
	}
	if opened.GetKind() != "backfill_opened" || !slices.Equal(sessionPlayers(opened.GetMatch()), []string{"gus"}) {
		t.Fatalf("the stream after OpenBackfill with teams: %v", opened)
	}
	lou := create(t, s.c, "squad", player("lou", 1500))

	// After a restart the session still compares newcomers with gus.
	s.stop()
	s = startConfigServerOn(t, data, sessionQueues, s.clock, store)
	hal := create(t, s.c, "squad", player("hal", 2950))
	if got, server := assignedTo(t, s, hal.GetId()); got != id || server != "10.0.0.6:7777" {
		t.Fatalf("hal at 2950: assigned %s at %s, want the session with gus", got, server)
	}
	if got := getMatch(t, s, id).GetMatch(); !slices.Equal(sessionPlayers(got), []string{"gus", "hal"}) {
		t.Fatalf("the session after hal: %v", sessionPlayers(got))
	}
	// lou came first and was offered to the pool before hal: he is not
	// compared with ann and ben any more.
	if got := getTicket(t, s.c, lou.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
		t.Fatalf("lou at 1500 is %v in %s, want waiting", got.GetState(), got.GetMatchId())
	}
}
