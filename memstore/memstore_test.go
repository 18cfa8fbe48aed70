package memstore

import (
	"context"
	"errors"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/storetest"
)

func open(t *testing.T) *Store {
	s := New()
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) cupid.Store { return open(t) })
}

func TestDocumentsContract(t *testing.T) {
	storetest.RunDocuments(t, func(t *testing.T) cupid.DocumentStore { return open(t) })
}

var ctx = context.Background()

func ticket(id string, players ...string) cupid.NewTicket {
	t := &cupid.Ticket{ID: id, Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: storetest.T0, ExpiresAt: storetest.T0.Add(time.Hour)}
	for _, p := range players {
		t.Players = append(t.Players, cupid.Player{ID: p})
	}
	return cupid.NewTicket{Ticket: t}
}

func TestFailAndFailNext(t *testing.T) {
	s := open(t)
	boom := errors.New("boom")
	s.FailNext("CreateTickets", boom)
	if _, _, err := s.CreateTickets(ctx, []cupid.NewTicket{ticket("a", "p1")}); !errors.Is(err, boom) {
		t.Fatalf("first create: %v, want boom", err)
	}
	if _, err := s.Ticket(ctx, "a"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("the failed create stored a: %v", err)
	}
	if _, _, err := s.CreateTickets(ctx, []cupid.NewTicket{ticket("a", "p1")}); err != nil {
		t.Fatalf("second create: %v", err)
	}

	s.Fail("Ping", boom)
	for range 2 {
		if err := s.Ping(ctx); !errors.Is(err, boom) {
			t.Fatalf("ping: %v, want boom", err)
		}
	}
	s.Fail("Ping", nil)
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping after Fail(nil): %v", err)
	}

	s.FailNext("FinishTicket", boom)
	s.FailNext("FinishTicket", nil)
	if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, "a", cupid.StateCancelled, "", storetest.T0); err != nil {
		t.Fatalf("finish after FailNext(nil): %v", err)
	}

	defer func() {
		if recover() == nil {
			t.Fatal("an unknown operation did not panic")
		}
	}()
	s.Fail("Commit", boom)
}

// TestBlockHoldsACommitInFlight is the race a service test needs: a commit
// is in flight while the ticket is cancelled, and the commit then refuses
// the match.
func TestBlockHoldsACommitInFlight(t *testing.T) {
	s := open(t)
	if _, _, err := s.CreateTickets(ctx, []cupid.NewTicket{ticket("a", "p1"), ticket("b", "p2")}); err != nil {
		t.Fatal(err)
	}
	arrived, release := s.Block("CommitMatches")
	type result struct {
		out []cupid.Committed
		err error
	}
	done := make(chan result)
	go func() {
		out, _, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{{ID: "m", Teams: []cupid.Team{{TicketIDs: []string{"a"}}, {TicketIDs: []string{"b"}}}}})
		done <- result{out, err}
	}()
	<-arrived
	if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, "b", cupid.StateCancelled, "", storetest.T0); err != nil {
		t.Fatalf("cancel while the commit is held: %v", err)
	}
	select {
	case <-done:
		t.Fatal("the held commit returned before release")
	case <-time.After(10 * time.Millisecond):
	}
	release()
	r := <-done
	if r.err != nil || r.out[0].OK || len(r.out[0].NotWaiting) != 1 || r.out[0].NotWaiting[0] != "b" {
		t.Fatalf("commit after release: %+v, %v", r.out, r.err)
	}
	release() // twice is harmless
}

func TestBlockedCallEndsWithItsContext(t *testing.T) {
	s := open(t)
	arrived, release := s.Block("Ping")
	defer release()
	c, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- s.Ping(c) }()
	<-arrived
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("held ping: %v, want context.Canceled", err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("the hold applies to one call only: %v", err)
	}
}

func TestReleaseBeforeArrival(t *testing.T) {
	s := open(t)
	_, release := s.Block("Ping")
	release()
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestClosed(t *testing.T) {
	s := New()
	s.Close()
	if err := s.Ping(ctx); err == nil {
		t.Fatal("ping after close succeeded")
	}
}

func TestRetentionContract(t *testing.T) {
	storetest.RunRetention(t, func(t *testing.T) cupid.Store { return open(t) })
}
