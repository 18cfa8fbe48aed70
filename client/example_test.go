package client_test

import (
	"context"
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
	// ids[1].id refused: not_found: ids[1].id: no ticket "no-such-ticket"
}
