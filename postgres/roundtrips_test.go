package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// tripCounter counts what a pgx connection sends that waits for an answer:
// each batch and each plain query or exec is one round trip.
type tripCounter struct{ n atomic.Int64 }

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestRoundTrips pins the number of round trips of each call on a warm
// connection, whatever the number of rows: the promise of the package doc.
// (A connection's first use of a statement costs one more, to prepare it.)
func TestRoundTrips(t *testing.T) {
	cfg, err := pgxpool.ParseConfig(newSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	trips := &tripCounter{}
	cfg.ConnConfig.Tracer = trips
	cfg.MaxConns = 1
	s, err := openConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	n := 0
	batch := func(size int, rid func(i int) string, players func(i int) []string) []cupid.NewTicket {
		ts := make([]cupid.NewTicket, size)
		for i := range ts {
			id := fmt.Sprint("t", n)
			n++
			ts[i] = cupid.NewTicket{Ticket: ticket(id, rid(i), 0, players(i)...), Replace: true}
		}
		return ts
	}
	none := func(int) string { return "" }
	own := func(int) []string { return []string{fmt.Sprint("p", n)} }
	count := func(what string, want int64, f func() error) {
		t.Helper()
		for round := range 2 { // the first warms the connection's statements
			before := trips.n.Load()
			if err := f(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if got := trips.n.Load() - before; round == 1 && got != want {
				t.Errorf("%s: %d round trips, want %d", what, got, want)
			}
		}
	}
	for _, size := range []int{1, 256} {
		count(fmt.Sprintf("CreateTickets of %d new tickets", size), 1, func() error {
			_, _, err := s.CreateTickets(ctx, batch(size, none, own))
			return err
		})
		// A request id twice in the batch: the careful path.
		count(fmt.Sprintf("CreateTickets of %d with a request id twice", size+1), 2, func() error {
			_, _, err := s.CreateTickets(ctx, batch(size+1, func(i int) string { return fmt.Sprint("r", n-i%2) }, own))
			return err
		})
		// Every ticket replaces a waiting one: the optimistic attempt
		// fails, then the careful path.
		count(fmt.Sprintf("CreateTickets of %d replacing", size), 3, func() error {
			_, _, err := s.CreateTickets(ctx, batch(size, none, func(i int) []string { return []string{fmt.Sprint("same", i)} }))
			return err
		})
	}
	count("CommitMatches of 16 matches", 2, func() error {
		ts := batch(32, none, own)
		if _, _, err := s.CreateTickets(ctx, ts); err != nil {
			return err
		}
		trips.n.Add(-1) // the create is not what is counted
		var ms []*cupid.Match
		for i := 0; i < 32; i += 2 {
			ms = append(ms, pair(fmt.Sprint("m", n, "-", i), ts[i].Ticket.ID, ts[i+1].Ticket.ID))
		}
		_, _, err := s.CommitMatches(ctx, cupid.Fence{}, ms)
		return err
	})
	count("FinishTicket", 2, func() error {
		ts := batch(1, none, own)
		if _, _, err := s.CreateTickets(ctx, ts); err != nil {
			return err
		}
		trips.n.Add(-1) // the create is not what is counted
		_, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, ts[0].Ticket.ID, cupid.StateCancelled, "", time.Now())
		return err
	})
	count("Ping", 1, func() error { return s.Ping(ctx) })
	// A lease change is one round trip with its BEGIN and COMMIT: a node
	// that stops after sending it cannot hold the lease row open.
	count("AcquireLease", 1, func() error {
		_, _, err := s.AcquireLease(ctx, "queue/trips", "n1", time.Minute)
		return err
	})
	count("ReleaseLease", 1, func() error {
		tok, _, err := s.AcquireLease(ctx, "queue/trips2", "n1", time.Minute)
		if err != nil {
			return err
		}
		trips.n.Add(-1) // the acquire is not what is counted
		return s.ReleaseLease(ctx, "queue/trips2", "n1", tok)
	})
}
