package client_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// Two players of a queue with a ready check: each game client shows the
// "match found" dialog when its ticket is proposed a match, and answers
// with AcceptMatch. When both have accepted, the match is formed and both
// watches end with "matched".
func ExampleClient_AcceptMatch() {
	s, stop, err := newServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	c := client.New(s.URL) // a game would use WithPlayerToken, one per player
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	results, err := c.CreateTickets(ctx, []*cupidv1.CreateTicketRequest{solo("ready", "gina", 1400), solo("ready", "hugo", 1410)})
	if err != nil {
		fmt.Println(err)
		return
	}
	var wg sync.WaitGroup
	heard := make([][]string, 2)
	for i, player := range []string{"gina", "hugo"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.WatchReadyCheck(ctx, results[i].Ticket.GetId(), player, 0,
				func(ctx context.Context, m *cupidv1.Match) (bool, error) {
					// Show the dialog until m.GetAcceptBy(); here, always yes.
					return true, nil
				},
				func(ev *cupidv1.TicketEvent) error {
					heard[i] = append(heard[i], ev.GetKind())
					return nil
				})
			if err != nil {
				heard[i] = append(heard[i], err.Error())
			}
		}()
	}
	wg.Wait()
	fmt.Println("gina heard", heard[0])
	fmt.Println("hugo heard", heard[1])
	// Output:
	// gina heard [created proposed matched]
	// hugo heard [created proposed matched]
}

// A player who declines ends his wait; the other, requeued, is proposed
// his next match and plays it.
func TestWatchReadyCheckAfterADecline(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	results, err := c.CreateTickets(ctx, []*cupidv1.CreateTicketRequest{solo("ready", "gina", 1400), solo("ready", "hugo", 1410)})
	if err != nil {
		t.Fatal(err)
	}
	yes := func(context.Context, *cupidv1.Match) (bool, error) { return true, nil }
	requeued := make(chan struct{})
	hugo := make(chan []string, 1)
	go func() {
		var heard []string
		err := c.WatchReadyCheck(ctx, results[1].Ticket.GetId(), "hugo", 0, yes, func(ev *cupidv1.TicketEvent) error {
			heard = append(heard, ev.GetKind())
			if ev.GetKind() == "requeued" {
				close(requeued)
			}
			return nil
		})
		if err != nil {
			heard = append(heard, err.Error())
		}
		hugo <- heard
	}()
	var gina []string
	err = c.WatchReadyCheck(ctx, results[0].Ticket.GetId(), "gina", 0,
		func(context.Context, *cupidv1.Match) (bool, error) { return false, nil },
		func(ev *cupidv1.TicketEvent) error { gina = append(gina, ev.GetKind()); return nil })
	if err != nil || strings.Join(gina, " ") != "created proposed cancelled" {
		t.Fatalf("gina heard %v (%v)", gina, err)
	}
	select {
	case <-requeued:
	case <-ctx.Done():
		t.Fatal("hugo was not requeued")
	}
	ivan, err := c.CreateTicket(ctx, solo("ready", "ivan", 1405))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WatchReadyCheck(ctx, ivan.GetId(), "ivan", 0, yes, func(*cupidv1.TicketEvent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if heard := <-hugo; strings.Join(heard, " ") != "created proposed requeued proposed matched" {
		t.Fatalf("hugo heard %v", heard)
	}
}
