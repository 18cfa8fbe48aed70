package client_test

import (
	"context"
	"fmt"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// squad is two teams of one or two players within 100 mmr, every match
// open to backfill until full (sessions_example_test.go).
const squad = `{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}],
  "auto_backfill": true
}`

// A game session from its forming to its end: two players start a game
// that has room for four, the backend assigns it a server, pauses and
// resumes backfill, a third player joins the running game and hears its
// server, one player leaves (the queue replaces no leavers, so his seat
// closes), and the backend ends the session when the game is over.
func ExampleClient_OpenBackfill() {
	s, stop, err := newServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	backend := client.New(s.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	results, err := backend.CreateTickets(ctx, []*cupidv1.CreateTicketRequest{solo("squad", "ann", 1500), solo("squad", "ben", 1510)})
	if err != nil {
		fmt.Println(err)
		return
	}
	var match *cupidv1.Match
	err = backend.Watch(ctx, results[0].Ticket.GetId(), 0, func(ev *cupidv1.TicketEvent) error {
		match = ev.GetMatch()
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("formed with", players(match), "seats", match.GetSeats(), "backfill", match.GetBackfill())
	id := match.GetId()
	if _, err := backend.AssignMatch(ctx, id, &cupidv1.Assignment{Server: "203.0.113.5:7777"}); err != nil {
		fmt.Println(err)
		return
	}
	r, err := backend.CloseBackfill(ctx, id)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("closed: backfill", r.GetMatch().GetBackfill())
	if r, err = backend.OpenBackfill(ctx, id); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("opened: backfill", r.GetMatch().GetBackfill())

	cat, err := backend.CreateTicket(ctx, solo("squad", "cat", 1490))
	if err != nil {
		fmt.Println(err)
		return
	}
	err = backend.WatchUntilAssigned(ctx, cat.GetId(), 0, func(ev *cupidv1.TicketEvent) error {
		if a := ev.GetAssignment(); a != nil {
			fmt.Println("cat joins", players(ev.GetMatch()), "at", a.GetServer(), "same game:", ev.GetMatch().GetId() == id)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	if r, err = backend.ReportLeavers(ctx, id, "ben"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ben left:", players(r.GetMatch()), "seats", r.GetMatch().GetSeats())
	if r, err = backend.EndSession(ctx, id); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.GetState())
	_, err = backend.EndSession(ctx, id)
	fmt.Println("ending it again:", connect.CodeOf(err))
	// Output:
	// formed with [[ann] [ben]] seats [2 2] backfill true
	// closed: backfill false
	// opened: backfill true
	// cat joins [[ann] [ben cat]] at 203.0.113.5:7777 same game: true
	// ben left: [[ann] [cat]] seats [2 1]
	// MATCH_STATE_ENDED
	// ending it again: failed_precondition
}

// players lists a match's players team by team.
func players(m *cupidv1.Match) [][]string {
	var out [][]string
	for _, t := range m.GetTeams() {
		out = append(out, append([]string{}, t.GetPlayerIds()...))
	}
	return out
}

// A game server that runs its own roster: two players were matched, one
// of them left and the game server let a player of its own in (gus, at
// 3000 mmr). It opens backfill with its view of the teams, and the
// newcomer Cupid finds is compared with gus: hal, at 2950, joins the game
// (ann, at 1500, is gone).
func ExampleClient_OpenBackfillWithTeams() {
	s, stop, err := newServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	backend := client.New(s.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	results, err := backend.CreateTickets(ctx, []*cupidv1.CreateTicketRequest{solo("squad", "ann", 1500), solo("squad", "ben", 1510)})
	if err != nil {
		fmt.Println(err)
		return
	}
	var match *cupidv1.Match
	err = backend.Watch(ctx, results[0].Ticket.GetId(), 0, func(ev *cupidv1.TicketEvent) error {
		match = ev.GetMatch()
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	id := match.GetId()
	if _, err := backend.CloseBackfill(ctx, id); err != nil {
		fmt.Println(err)
		return
	}
	gus := &cupidv1.Player{Id: "gus", Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(3000)}}
	// The game server's teams: gus and ben on one side; ann is gone.
	var view [][]*cupidv1.Player
	for _, team := range match.GetTeams() {
		if team.GetPlayerIds()[0] == "ben" {
			view = append(view, []*cupidv1.Player{{Id: "ben", Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(2990)}}, gus})
		} else {
			view = append(view, []*cupidv1.Player{})
		}
	}
	r, err := backend.OpenBackfillWithTeams(ctx, id, view)
	if err != nil {
		fmt.Println(err)
		return
	}
	var in []string
	for _, team := range players(r.GetMatch()) {
		in = append(in, team...)
	}
	fmt.Println("opened with", in, "left:", r.GetMatch().GetLeft()[0].GetPlayerId(), "backfill", r.GetMatch().GetBackfill())

	hal, err := backend.CreateTicket(ctx, solo("squad", "hal", 2950))
	if err != nil {
		fmt.Println(err)
		return
	}
	err = backend.Watch(ctx, hal.GetId(), 0, func(ev *cupidv1.TicketEvent) error {
		if ev.GetMatch() != nil {
			fmt.Println("hal joins the same game:", ev.GetMatch().GetId() == id)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Output:
	// opened with [ben gus] left: ann backfill true
	// hal joins the same game: true
}
