package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// BenchmarkCreateTickets measures durable intake through the store alone:
// one transaction (one fsync) per batch, as the matchmaker's group commit
// issues them. Reported as tickets/s.
func BenchmarkCreateTickets(b *testing.B) {
	for _, batch := range []int{1, 32, 256} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			n := 0
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				ts := make([]cupid.NewTicket, batch)
				for j := range ts {
					ts[j] = cupid.NewTicket{Ticket: ticket(fmt.Sprintf("t%d", n), "", 0)}
					n++
				}
				if _, _, err := s.CreateTickets(ctx, ts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "tickets/s")
		})
	}
}

// BenchmarkCommitMatches measures match commits: batches of 16 one-on-one
// matches, one transaction each, as a pool's step commits what the engine
// proposed. Reported as matches/s and as the process's CPU time per match
// (user + system, so the fsync's share too: wall time on a shared machine
// varies more than CPU); the tickets are created outside the timer.
func BenchmarkCommitMatches(b *testing.B) {
	const perBatch = 16
	s, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	n := 0
	var spent, cpu time.Duration
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
			ms[j] = &cupid.Match{ID: fmt.Sprintf("m%d-%d", n, j), CreatedAt: t0,
				Teams: []cupid.Team{{TicketIDs: []string{ts[2*j].Ticket.ID}}, {TicketIDs: []string{ts[2*j+1].Ticket.ID}}}}
		}
		n++
		b.StartTimer()
		start, cpu0 := time.Now(), cpuTime()
		if _, _, err := s.CommitMatches(ctx, cupid.Fence{}, ms); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(start)
		cpu += cpuTime() - cpu0
	}
	b.ReportMetric(float64(n*perBatch)/spent.Seconds(), "matches/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(n*perBatch), "cpu-µs/match")
}

// cpuTime is the process's user + system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
