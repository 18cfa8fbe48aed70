package ratingsvc

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/sqlite"
)

// benchCallers are the concurrent reporters of the benchmarks: one (each
// result its own transaction) and many (64 × GOMAXPROCS goroutines: game
// backends reporting at once, which the group commit batches).
var benchCallers = []int{1, 64}

// BenchmarkReportResult5v5SQLite reports five-against-five results through
// the service into SQLite (WAL, synchronous=FULL): each result holds ten
// ratings, ten history lines and the league's day. Players come from a
// pool of 10,000, so most have a stored rating to read. results/s counts
// results, updates/s player ratings.
func BenchmarkReportResult5v5SQLite(b *testing.B) {
	for _, n := range benchCallers {
		b.Run(fmt.Sprintf("callers=%d", n), func(b *testing.B) {
			st, err := sqlite.Open(filepath.Join(b.TempDir(), "cupid.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			benchReport(b, st, n)
		})
	}
}

// BenchmarkReportResult5v5Memstore is the same in memory: the service's
// own cost (JSON of the rows and history, the rating), without the disk.
func BenchmarkReportResult5v5Memstore(b *testing.B) {
	for _, n := range benchCallers {
		b.Run(fmt.Sprintf("callers=%d", n), func(b *testing.B) {
			st := memstore.New()
			defer st.Close()
			benchReport(b, st, n)
		})
	}
}

// benchTeams are match i's two teams of five from a pool of 10,000.
func benchTeams(i int) [2][]string {
	const players = 10000
	var teams [2][]string
	for t := range 2 {
		for j := range 5 {
			teams[t] = append(teams[t], fmt.Sprintf("p%d", (i*10+t*5+j)*7919%players))
		}
	}
	return teams
}

func benchReport(b *testing.B, st cupid.RatingStore, callers int) {
	fm := &fakeMatches{m: map[string]*cupid.MatchRecord{}}
	svc, err := New(Options{Store: st, Matches: fm, Ratings: ranked, Queues: rankedQueue, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		teams := benchTeams(i)
		fm.add(fmt.Sprintf("m%d", i), "duel", cupid.MatchAssigned, teams[0], teams[1])
	}
	ctx := context.Background()
	var next atomic.Int64
	cpu0 := cpuTime()
	b.ResetTimer()
	report := func() {
		i := int(next.Add(1) - 1)
		if _, _, err := svc.ReportResult(ctx, Report{MatchID: fmt.Sprintf("m%d", i), TeamPlaces: []int{1 + i%2, 2 - i%2}}); err != nil {
			b.Error(err)
		}
	}
	if callers == 1 {
		for range b.N {
			report()
		}
	} else {
		b.SetParallelism(callers) // callers × GOMAXPROCS goroutines
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				report()
			}
		})
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "results/s")
	b.ReportMetric(float64(10*b.N)/b.Elapsed().Seconds(), "updates/s")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/result")
}

// cpuTime is the CPU time the process has used, user and system: on a
// shared machine, where other work takes cores from the benchmark, what a
// result costs is steadier in CPU time than in results per second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSaveResultsSQLite is the floor under the service: SQLite alone
// storing results of the same shape (a result body, ten players' rows
// created or rewritten over what was read, ten history lines), one
// transaction per batch of the given size, with no rating, JSON or reads.
func BenchmarkSaveResultsSQLite(b *testing.B) {
	for _, size := range []int{1, 256} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			st, err := sqlite.Open(filepath.Join(b.TempDir(), "cupid.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			ctx := context.Background()
			// About the bytes the service writes: a player's state 140
			// (with twenty recent games), a history line 80, a result
			// 3,150 (its report and the ten changes, JSON). Before the
			// binary form of states and lines (codec.go) they were 650,
			// 290 and 3,400.
			body := make([]byte, 140)
			version := map[string]int{}
			cpu0 := cpuTime()
			b.ResetTimer()
			for done := 0; done < b.N; {
				n := min(size, b.N-done)
				var results []cupid.ResultRecord
				var history []cupid.RatingEntry
				rows := map[string]cupid.RatingRow{}
				for i := done; i < done+n; i++ {
					id := fmt.Sprintf("m%d", i)
					results = append(results, cupid.ResultRecord{MatchID: id, At: t0, Body: make([]byte, 3150)})
					teams := benchTeams(i)
					for _, p := range append(teams[0], teams[1]...) {
						history = append(history, cupid.RatingEntry{Rating: "ranked", Player: p, MatchID: id, At: t0, Body: body[:80]})
						if _, ok := rows[p]; ok {
							continue
						}
						v := version[p]
						row := cupid.RatingRow{Kind: "player", ID: "ranked/" + p, Guard: true, Body: fmt.Appendf(nil, "%d%s", v+1, body)}
						if v > 0 {
							row.Prev = fmt.Appendf(nil, "%d%s", v, body)
						}
						rows[p] = row
						version[p] = v + 1
					}
				}
				var list []cupid.RatingRow
				for _, r := range rows {
					list = append(list, r)
				}
				if err := st.SaveResults(ctx, results, list, history); err != nil {
					b.Fatal(err)
				}
				done += n
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "results/s")
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/result")
		})
	}
}
