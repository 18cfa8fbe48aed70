package opponent

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/cupid-match/cupid"
)

const benchCache = 1_000_000

// benchConfig is a million-entry cache: MMR 0..5000 in 50 buckets of 20,000
// slots, nothing removed after an offer so the cache stays full while the
// benchmark queries it.
func benchConfig() Config {
	return Config{
		PlayerCacheSize:                          benchCache,
		MinMMR:                                   0,
		MaxMMR:                                   5000,
		MmrBucketCount:                           50,
		BucketInitialSize:                        benchCache / 50,
		PlayerRemoveAfterCandidateOfferThreshold: ThresholdNever,
		PlayerIgnoreUpdateInsertThreshold:        ThresholdNever,
	}
}

func benchID(i int) string {
	var buf [24]byte
	b := append(buf[:0], "player-"...)
	return string(strconv.AppendInt(b, int64(i), 10))
}

// benchAttrs gives player i a guild of 1,000 and a hero of 20 when the
// config declares them.
func benchAttrs(cfg *Config, i int) map[string]cupid.Value {
	if len(cfg.Attributes) == 0 {
		return nil
	}
	return map[string]cupid.Value{
		"guild": cupid.String("guild-" + strconv.Itoa(i%1000)),
		"hero":  cupid.String("hero-" + strconv.Itoa(i%20)),
	}
}

// fill inserts three times the cache size of players with uniform MMRs (so
// about 95% of the slots end up occupied) and reports the heap the finder
// holds per cached player.
func fill(b *testing.B, cfg Config) (*Finder, float64) {
	b.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := New(cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3*benchCache; i++ {
		m := Single(benchID(i), rng.Float64()*5000, benchAttrs(&cfg, i))
		if _, err := f.Update(m, t0); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return f, float64(after.HeapAlloc-before.HeapAlloc) / float64(f.Len())
}

// reportMemory is called after the timed loop, which would reset metrics
// reported before it.
func reportMemory(b *testing.B, f *Finder, perPlayer float64) {
	b.ReportMetric(perPlayer, "B/player")
	b.ReportMetric(float64(f.Len()), "players")
}

func benchQueries(b *testing.B, cfg Config, attrs func(i int) map[string]cupid.Value) {
	benchQueriesWith(b, cfg, attrs, nil)
}

// benchQueriesWith runs benchQueries after prepare has changed the filled
// finder.
func benchQueriesWith(b *testing.B, cfg Config, attrs func(i int) map[string]cupid.Value, prepare func(f *Finder)) {
	f, mem := fill(b, cfg)
	if prepare != nil {
		prepare(f)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	// Query attributes are built before the clock runs: they are the
	// caller's cost, not the finder's.
	var pool [1024]map[string]cupid.Value
	if attrs != nil {
		for i := range pool {
			pool[i] = attrs(i)
		}
	}
	found := 0
	i := 0
	for b.Loop() {
		q := Query{AttackerID: "attacker", MMR: rng.Float64() * 5000, Attributes: pool[i%len(pool)]}
		res, err := f.Query(q, t0)
		if err != nil {
			b.Fatal(err)
		}
		if res.Type == ResultSuccess {
			found++
		}
		i++
	}
	if found < i*9/10 {
		b.Fatalf("only %d of %d queries found someone", found, i)
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "queries/s")
	reportMemory(b, f, mem)
}

// BenchmarkQuery1M: the default judgement (nearest MMR) over a million
// cached players.
func BenchmarkQuery1M(b *testing.B) {
	benchQueries(b, benchConfig(), nil)
}

func seedBenchConfig() Config {
	cfg := benchConfig()
	cfg.Attributes = []Attribute{{Name: "guild", Type: TypeString}, {Name: "hero", Type: TypeString}}
	cfg.QueryAttributes = []Attribute{
		{Name: "guild", Type: TypeString},
		{Name: "rivals", Type: TypeStrings},
		{Name: "hero", Type: TypeString},
		{Name: "lose_streak", Type: TypeNumber},
	}
	return cfg
}

func seedBenchQuery(i int) map[string]cupid.Value {
	return map[string]cupid.Value{
		"guild":       cupid.String("guild-" + strconv.Itoa(i%1000)),
		"rivals":      cupid.Strings("guild-1", "guild-2", "guild-3"),
		"hero":        cupid.String("hero-" + strconv.Itoa(i%20)),
		"lose_streak": cupid.Number(float64(i % 5)),
	}
}

// BenchmarkQuery1MSeedExpr: the seed's quality rule as an expr-lang
// expression (32 candidates evaluated per query).
func BenchmarkQuery1MSeedExpr(b *testing.B) {
	cfg := seedBenchConfig()
	cfg.Quality = Quality{Filter: seedFilter, Score: seedScore}
	benchQueries(b, cfg, seedBenchQuery)
}

// BenchmarkQuery1MSeedFunc: the same rule as a Go QualityFunc.
func BenchmarkQuery1MSeedFunc(b *testing.B) {
	cfg := seedBenchConfig()
	cfg.QualityFunc = seedQuality
	benchQueries(b, cfg, seedBenchQuery)
}

// BenchmarkUpdate1M: state updates into a full million-entry cache, a mix of
// refreshes, moves between buckets and inserts that evict.
func BenchmarkUpdate1M(b *testing.B) {
	cfg := benchConfig()
	f, mem := fill(b, cfg)
	const pool = 1 << 21
	ids := make([]string, pool)
	for i := range ids {
		ids[i] = benchID(i * 2) // half of them cached already, half new
	}
	rng := rand.New(rand.NewPCG(5, 6))
	i := 0
	for b.Loop() {
		if _, err := f.Update(Single(ids[i%pool], rng.Float64()*5000, nil), t0); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "updates/s")
	reportMemory(b, f, mem)
}

// BenchmarkQuery1MSeedExprOnline: the seed's rule as an expression with
// one cached player in ten flagged online, so queries skip them by the time
// in their rows.
func BenchmarkQuery1MSeedExprOnline(b *testing.B) {
	cfg := seedBenchConfig()
	cfg.Quality = Quality{Filter: seedFilter, Score: seedScore}
	cfg.MaxPlayerStates = benchCache
	benchQueriesWith(b, cfg, seedBenchQuery, func(f *Finder) {
		for i := 0; i < 3*benchCache; i += 10 {
			if err := f.SetOnline(benchID(i), true, t0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
