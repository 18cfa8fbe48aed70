package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
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
				ts := make([]*cupid.Ticket, batch)
				for j := range ts {
					ts[j] = ticket(fmt.Sprintf("t%d", n), "", 0)
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
