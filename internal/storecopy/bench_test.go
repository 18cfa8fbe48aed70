package storecopy_test

import (
	"fmt"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/storecopy"
)

// BenchmarkSQLiteIntoPostgres copies a store of 20,000 waiting tickets
// (20,000 ticket rows, 20,000 events, 20,000 player index rows) into a
// fresh PostgreSQL schema per iteration and reports the rows per second.
//
//	go test ./internal/storecopy -run '^$' -bench SQLiteIntoPostgres -benchtime 3x
func BenchmarkSQLiteIntoPostgres(b *testing.B) {
	const tickets = 20000
	src, path := openSQLite(b, "bench.db")
	for i := 0; i < tickets; i += 500 {
		var nts []cupid.NewTicket
		for j := i; j < i+500; j++ {
			tk := &cupid.Ticket{ID: fmt.Sprintf("t%06d", j), Key: cupid.QueueKey{Queue: "duel"}, State: cupid.StateWaiting,
				CreatedAt: t0.Add(time.Duration(j) * time.Millisecond), ExpiresAt: t0.Add(time.Hour), Latencies: map[string]int32{"eu": 20},
				Players: []cupid.Player{{ID: fmt.Sprintf("p%06d", j), Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(float64(j % 3000))})}}}
			nts = append(nts, cupid.NewTicket{Ticket: tk})
		}
		if _, _, err := src.CreateTickets(bg, nts); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	var rows int64
	for range b.N {
		b.StopTimer()
		dst := openPostgres(b, newSchema(b))
		b.StartTimer()
		err := storecopy.Copy(bg, src, dst, storecopy.Options{Source: path, Progress: func(p storecopy.Progress) {
			if p.Done {
				rows += p.Copied
			}
		}})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
