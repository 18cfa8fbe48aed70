package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// BenchmarkCreateTickets measures durable intake through the store alone:
// one transaction (one commit, fsync'd by a default server) per batch, as
// the matchmaker's group commit issues them. Reported as tickets/s.
func BenchmarkCreateTickets(b *testing.B) {
	for _, batch := range []int{1, 32, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s := openAt(b, newSchema(b))
			ctx := context.Background()
			n := 0
			var spent time.Duration
			for b.Loop() {
				ts := make([]cupid.NewTicket, batch)
				for j := range ts {
					ts[j] = cupid.NewTicket{Ticket: ticket(fmt.Sprintf("t%d", n), "", 0)}
					n++
				}
				start := time.Now()
				if _, _, err := s.CreateTickets(ctx, ts); err != nil {
					b.Fatal(err)
				}
				spent += time.Since(start)
			}
			b.ReportMetric(float64(n)/spent.Seconds(), "tickets/s")
		})
	}
}

// BenchmarkCreateTicketsCareful is batch=32 where every batch repeats a
// request id, so each takes the careful path (queue lock, locking read,
// then write): what retries and replacements cost.
func BenchmarkCreateTicketsCareful(b *testing.B) {
	const batch = 32
	s := openAt(b, newSchema(b))
	ctx := context.Background()
	n := 0
	var spent time.Duration
	for b.Loop() {
		ts := make([]cupid.NewTicket, batch)
		for j := range ts {
			rid := ""
			if j < 2 {
				rid = fmt.Sprint("r", n-j) // j=1 repeats j=0's
			}
			ts[j] = cupid.NewTicket{Ticket: ticket(fmt.Sprintf("t%d", n), rid, 0)}
			n++
		}
		start := time.Now()
		if _, _, err := s.CreateTickets(ctx, ts); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(start)
	}
	b.ReportMetric(float64(n)/spent.Seconds(), "tickets/s")
}

// BenchmarkCommitMatches measures match commits: batches of 16 one-on-one
// matches, one transaction each, as a pool's step commits what the engine
// proposed. Reported as matches/s; the tickets are created outside the
// timer.
func BenchmarkCommitMatches(b *testing.B) {
	const perBatch = 16
	s := openAt(b, newSchema(b))
	ctx := context.Background()
	n := 0
	var spent time.Duration
	for b.Loop() {
		b.StopTimer()
		ts := make([]cupid.NewTicket, 2*perBatch)
		ms := make([]*cupid.Match, perBatch)
		for j := range ts {
			ts[j] = cupid.NewTicket{Ticket: ticket(fmt.Sprintf("t%d-%d", n, j), "", 0)}
		}
		if _, _, err := s.CreateTickets(ctx, ts); err != nil {
			b.Fatal(err)
		}
		for j := range ms {
			ms[j] = pair(fmt.Sprintf("m%d-%d", n, j), ts[2*j].Ticket.ID, ts[2*j+1].Ticket.ID)
		}
		n++
		b.StartTimer()
		start := time.Now()
		if _, _, err := s.CommitMatches(ctx, cupid.Fence{}, ms); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(start)
	}
	b.ReportMetric(float64(n*perBatch)/spent.Seconds(), "matches/s")
}
