package statshistory

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
	"github.com/cupid-match/cupid/sqlite"
)

// BenchmarkRead7Days reads the 7-day range of a queue that had traffic
// every minute of the week (10,080 documents) from the embedded store, as
// the dashboard's 7 d range does: go test -run X -bench Read7Days
// ./service/statshistory.
func BenchmarkRead7Days(b *testing.B) {
	store, err := sqlite.Open(filepath.Join(b.TempDir(), "cupid.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	now := time.Date(2026, 3, 9, 10, 0, 0, 0, time.UTC)
	s := New(Options{Source: noSource{}, Docs: store, Now: func() time.Time { return now }})
	size := 0
	for i := range 7 * 24 * 60 {
		at := now.Add(-time.Duration(i+1) * time.Minute)
		body, _ := json.Marshal(queuestats.Minute{Queue: "duel", At: at, Arrivals: 1200, Matches: 600, Waited: 1200, P50: 12.5, P90: 41.25, P99: 88.125, Scored: 600, Quality: 0.8125})
		size += len(body)
		if err := store.PutDocument(ctx, cupid.Fence{}, Kind("duel"), at.Format(idLayout)+"/"+s.run, body, now); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		ps, err := s.Read(ctx, "duel", now.Add(-7*24*time.Hour), now, 2*time.Hour)
		if err != nil || len(ps) != 84 || ps[83].Arrivals != 120*1200 {
			b.Fatalf("%d points, %v", len(ps), err)
		}
	}
	b.ReportMetric(float64(size)/(7*24*60), "bytes/minute")
}

type noSource struct{}

func (noSource) QueueMinutes(from, to time.Time) []queuestats.Minute { return nil }
func (noSource) Queues() []string                                    { return []string{"duel"} }
