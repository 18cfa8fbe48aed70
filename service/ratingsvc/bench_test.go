package ratingsvc

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/sqlite"
)

// BenchmarkReportResult5v5SQLite reports five-against-five results through
// the service into SQLite (WAL, synchronous=FULL): one transaction per
// result holding the result, ten ratings, ten history lines and the
// league's day. Players come from a pool of 10,000, so most have a stored
// rating to read. updates/s counts player ratings.
func BenchmarkReportResult5v5SQLite(b *testing.B) {
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "cupid.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	benchReport(b, st)
}

// BenchmarkReportResult5v5Memstore is the same in memory: the service's
// own cost (JSON of the rows and history, the rating), without the disk.
func BenchmarkReportResult5v5Memstore(b *testing.B) {
	st := memstore.New()
	defer st.Close()
	benchReport(b, st)
}

func benchReport(b *testing.B, st cupid.RatingStore) {
	fm := &fakeMatches{m: map[string]*cupid.MatchRecord{}}
	svc, err := New(Options{Store: st, Matches: fm, Ratings: ranked, Queues: rankedQueue, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	const players = 10000
	for i := 0; i < b.N; i++ {
		var teams [2][]string
		for t := range 2 {
			for j := range 5 {
				teams[t] = append(teams[t], fmt.Sprintf("p%d", (i*10+t*5+j)*7919%players))
			}
		}
		fm.add(fmt.Sprintf("m%d", i), "duel", cupid.MatchAssigned, teams[0], teams[1])
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := svc.ReportResult(ctx, Report{MatchID: fmt.Sprintf("m%d", i), TeamPlaces: []int{1 + i%2, 2 - i%2}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "results/s")
	b.ReportMetric(float64(10*b.N)/b.Elapsed().Seconds(), "updates/s")
}
