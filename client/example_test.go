package client_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// A game backend queues two players in one call and follows the first
// ticket until it is matched. Against a real deployment the URL is the
// server's and the client carries a server key:
//
//	c := client.New("https://cupid.example.com", client.WithServerKey(os.Getenv("CUPID_KEY")))
func Example() {
	s, stop, err := newServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	c := client.New(s.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	results, err := c.CreateTickets(ctx, []*cupidv1.CreateTicketRequest{
		solo("duel", "alice", 1500),
		solo("duel", "bob", 1520),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Println(r.Field, r.Err)
			return
		}
	}
	err = c.Watch(ctx, results[0].Ticket.GetId(), 0, func(ev *cupidv1.TicketEvent) error {
		fmt.Println(ev.GetKind())
		if m := ev.GetMatch(); m != nil {
			fmt.Println("teams:", len(m.GetTeams()))
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// created
	// matched
	// teams: 2
}

// A backend that takes players out of the queue in bulk gets one result
// per ticket.
func ExampleClient_CancelTickets() {
	s, stop, err := newServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	c := client.New(s.URL)
	ctx := context.Background()

	tk, err := c.CreateTicket(ctx, solo("duel", "carol", 1200))
	if err != nil {
		fmt.Println(err)
		return
	}
	results, err := c.CancelTickets(ctx, []string{tk.GetId(), "no-such-ticket"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Println(r.Field, "refused:", r.Err)
			continue
		}
		fmt.Println("cancelled:", r.Ticket.GetPlayers()[0].GetId())
	}
	// Output:
	// cancelled: carol
	// ids[1] refused: not_found: ids[1]: no ticket "no-such-ticket"
}

// An allocator follows a queue's matches, starts a game server for each
// and assigns it; the players' watchers hear where to connect. In
// production it stores the last Seq it handled and resumes after it.
func ExampleClient_WatchMatches() {
	s, stop, err := newServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	backend := client.New(s.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	allocated := make(chan error, 1)
	go func() {
		allocated <- backend.WatchMatches(ctx, "duel", 0, func(ev *cupidv1.MatchEvent) error {
			if ev.GetKind() != "formed" {
				return nil
			}
			_, err := backend.AssignMatch(ctx, ev.GetMatch().GetId(), &cupidv1.Assignment{
				Server: "203.0.113.5:7777", SessionId: "game-1",
			})
			if err == nil {
				err = errStop // one match is all this example allocates
			}
			return err
		})
	}()

	results, err := backend.CreateTickets(ctx, []*cupidv1.CreateTicketRequest{solo("duel", "erin", 1300), solo("duel", "frank", 1310)})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = backend.WatchUntilAssigned(ctx, results[0].Ticket.GetId(), 0, func(ev *cupidv1.TicketEvent) error {
		fmt.Println(ev.GetKind())
		if a := ev.GetAssignment(); a != nil {
			fmt.Println("connect to", a.GetServer(), "session", a.GetSessionId())
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println("allocator stopped:", <-allocated)
	// Output:
	// created
	// matched
	// assigned
	// connect to 203.0.113.5:7777 session game-1
	// allocator stopped: stop
}

var errStop = errors.New("stop")
