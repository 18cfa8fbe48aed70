package opponentsvc

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cupid-match/cupid/opponent"
)

// benchFinders are two instances of a million-entry finder (as the
// opponent package's BenchmarkQuery1M: MMR 0..5000 in 50 buckets of 20,000
// slots, nothing removed after an offer so the cache stays full).
func benchFinders() []Finder {
	one := func(name string) Finder {
		return Finder{Name: name, PlayerTable: "big", MemoryOnly: true, Opponent: opponent.Config{
			PlayerCacheSize:                          1_000_000,
			MinMMR:                                   0,
			MaxMMR:                                   5000,
			MmrBucketCount:                           50,
			BucketInitialSize:                        20_000,
			PlayerRemoveAfterCandidateOfferThreshold: opponent.ThresholdNever,
			PlayerIgnoreUpdateInsertThreshold:        opponent.ThresholdNever,
		}}
	}
	return []Finder{one("big-1"), one("big-2")}
}

var (
	benchOnce sync.Once
	benchSvc  *Service
)

// benchService fills both instances once per process (three million
// uniform players for a million slots, about 95% occupied), writing to the
// finders directly: the store is not what these benchmarks measure.
func benchService(b *testing.B) *Service {
	benchOnce.Do(func() {
		s, err := New(Options{Finders: benchFinders(), Registry: prometheus.NewRegistry(),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			panic(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 3_000_000; i++ {
			m := opponent.Single("player-"+strconv.Itoa(i), rng.Float64()*5000, nil)
			for _, name := range []string{"big-1", "big-2"} {
				if _, err := s.finders[name].f.Update(m, t0); err != nil {
					panic(err)
				}
			}
		}
		benchSvc = s
	})
	return benchSvc
}

// BenchmarkServiceFindOpponent1M: one caller, through the service (finder
// lookup, lock, clock, histogram) over a million cached players.
func BenchmarkServiceFindOpponent1M(b *testing.B) {
	s := benchService(b)
	rng := rand.New(rand.NewPCG(3, 4))
	found, n := 0, 0
	for b.Loop() {
		res, err := s.FindOpponent(context.Background(), "big-1", opponent.Query{AttackerID: "attacker", MMR: rng.Float64() * 5000})
		if err != nil {
			b.Fatal(err)
		}
		if res.Type == opponent.ResultSuccess {
			found++
		}
		n++
	}
	if found < n*9/10 {
		b.Fatalf("only %d of %d queries found someone", found, n)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "queries/s")
	b.ReportMetric(float64(stats(b, s, "big-1").Entries), "players")
}

// BenchmarkServiceFindOpponentParallel1M: GOMAXPROCS callers on one
// finder, so they contend for its lock.
func BenchmarkServiceFindOpponentParallel1M(b *testing.B) {
	benchParallel(b, func(int64) string { return "big-1" })
}

// BenchmarkServiceFindOpponentParallelInstances1M: the same callers
// spread over two instances by a hash of the attacker, as docs/opponents.md
// suggests; each instance has its own lock.
func BenchmarkServiceFindOpponentParallelInstances1M(b *testing.B) {
	benchParallel(b, func(attacker int64) string {
		if attacker%2 == 0 {
			return "big-1"
		}
		return "big-2"
	})
}

func benchParallel(b *testing.B, pick func(attacker int64) string) {
	s := benchService(b)
	var seq atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := seq.Add(1)
		rng := rand.New(rand.NewPCG(uint64(w), 4))
		i := w
		for pb.Next() {
			i++
			if _, err := s.FindOpponent(context.Background(), pick(i), opponent.Query{AttackerID: "attacker", MMR: rng.Float64() * 5000}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}

// BenchmarkFinderQueryDirect1M is the same query on the same finder without
// the service, so the difference with BenchmarkServiceFindOpponent1M is the
// service's own cost.
func BenchmarkFinderQueryDirect1M(b *testing.B) {
	s := benchService(b)
	f := s.finders["big-1"].f
	rng := rand.New(rand.NewPCG(3, 4))
	n := 0
	for b.Loop() {
		if _, err := f.Query(opponent.Query{AttackerID: "attacker", MMR: rng.Float64() * 5000}, t0); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "queries/s")
}
