package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// TestAllocatorLoop is a game backend's allocator: it follows the queue's
// matches (the connection dropped once on the way), assigns each a server,
// and the players' watchers hear the server's address.
func TestAllocatorLoop(t *testing.T) {
	s := startServer(t)
	conns := &dialer{}
	backend := client.New(s.URL, client.WithHTTPClient(&http.Client{Transport: &http.Transport{DialContext: conns.dial}}),
		client.WithBackoff(client.Backoff{First: 10 * time.Millisecond, Max: 50 * time.Millisecond}))
	players := client.New(s.URL, client.WithHTTPClient(&http.Client{Transport: &http.Transport{}}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// Two matches form one after the other; the stream is cut after the
	// first match is assigned.
	allocated := make(chan error, 1)
	var kinds []string
	var seqs []int64
	go func() {
		cut := false
		done := errors.New("done")
		err := backend.WatchMatches(ctx, "duel", 0, func(ev *cupidv1.MatchEvent) error {
			kinds, seqs = append(kinds, ev.GetKind()), append(seqs, ev.GetSeq())
			if ev.GetKind() != "formed" {
				if len(kinds) == 4 {
					return done
				}
				return nil
			}
			_, err := backend.AssignMatch(ctx, ev.GetMatch().GetId(), &cupidv1.Assignment{
				Server: "10.0.0.7:7777", Connection: map[string]string{"token": "t-" + ev.GetMatch().GetId()},
			})
			if !cut {
				cut = true
				conns.cut() // the stream resumes after this event
			}
			return err
		})
		if errors.Is(err, done) {
			err = nil
		}
		allocated <- err
	}()

	var tickets []string
	for _, p := range []struct {
		id  string
		mmr float64
	}{{"a", 1000}, {"b", 1010}, {"c", 2000}, {"d", 2010}} {
		tk, err := players.CreateTicket(ctx, solo("duel", p.id, p.mmr))
		if err != nil {
			t.Fatal(err)
		}
		tickets = append(tickets, tk.GetId())
	}
	for _, id := range tickets {
		var got *cupidv1.Assignment
		err := players.WatchUntilAssigned(ctx, id, 0, func(ev *cupidv1.TicketEvent) error {
			if ev.GetKind() == "assigned" {
				got = ev.GetAssignment()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if got.GetServer() != "10.0.0.7:7777" || got.GetConnection()["token"] == "" {
			t.Fatalf("ticket %s: assignment %v", id, got)
		}
	}
	if err := <-allocated; err != nil {
		t.Fatal(err)
	}
	formed, assigned := 0, 0
	for i, k := range kinds {
		if i > 0 && seqs[i] <= seqs[i-1] {
			t.Fatalf("match events out of order or repeated: %v %v", kinds, seqs)
		}
		switch k {
		case "formed":
			formed++
		case "assigned":
			assigned++
		}
	}
	if formed != 2 || assigned != 2 {
		t.Fatalf("match events %v, want two formed and two assigned, once each", kinds)
	}
	if rec, err := backend.GetMatch(ctx, ""); connect.CodeOf(err) != connect.CodeInvalidArgument || rec != nil {
		t.Errorf("GetMatch without an id: %v, want invalid_argument", err)
	}
}

// dialer remembers the connections it made, so a test can cut them.
type dialer struct {
	mu    sync.Mutex
	conns []net.Conn
}

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		d.mu.Lock()
		d.conns = append(d.conns, c)
		d.mu.Unlock()
	}
	return c, err
}

func (d *dialer) cut() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = nil
}

func TestAssignTwiceIsRefused(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, err := c.CreateTicket(ctx, solo("duel", "a", 1000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateTicket(ctx, solo("duel", "b", 1000)); err != nil {
		t.Fatal(err)
	}
	var matchID string
	if err := c.Watch(ctx, a.GetId(), 0, func(ev *cupidv1.TicketEvent) error {
		if ev.GetKind() == "matched" {
			matchID = ev.GetMatch().GetId()
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rec, err := c.AssignMatch(ctx, matchID, &cupidv1.Assignment{Server: "s1:1"})
	if err != nil || rec.GetState() != cupidv1.MatchState_MATCH_STATE_ASSIGNED {
		t.Fatalf("first assignment: %v, %v", rec, err)
	}
	if _, err := c.AssignMatch(ctx, matchID, &cupidv1.Assignment{Server: "s2:1"}); connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("second assignment: %v, want failed_precondition", err)
	}
	rec, err = c.GetMatch(ctx, matchID)
	if err != nil || rec.GetAssignment().GetServer() != "s1:1" {
		t.Fatalf("after a refused second assignment: %v, %v", rec, err)
	}
}
