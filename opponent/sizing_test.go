package opponent

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"
)

func sizingConfig() Config {
	cfg := baseConfig()
	cfg.PlayerCacheSize = 10000
	cfg.BucketMinSize = 16
	cfg.BucketInitialSize = 256
	cfg.Sizing.MinSamples = 100
	return cfg
}

// population feeds 700 players around MMR 250, 300 around 750 and 1 at 50.
func population(t *testing.T, f *Finder) {
	t.Helper()
	for i := 0; i < 1001; i++ {
		mmr := 250.0
		switch {
		case i == 1000:
			mmr = 50
		case i%10 >= 7:
			mmr = 750
		}
		if _, err := f.Update(Single(fmt.Sprintf("p%d", i), mmr, nil), t0); err != nil {
			t.Fatal(err)
		}
	}
}

func sizes(f *Finder) map[string]int {
	out := map[string]int{}
	for _, b := range f.Stats().PerBucket {
		out[b.Key] = b.Size
	}
	return out
}

// TestBucketsGrowBeforeAnyModel: buckets start at the initial size and,
// once full, double into room the cache has spare, so the popular ones hold
// their players before any rebalance.
func TestBucketsGrowBeforeAnyModel(t *testing.T) {
	f := newFinder(t, sizingConfig())
	population(t, f)
	want := map[string]int{"mmr=2": 1024, "mmr=7": 512, "mmr=0": 256}
	got := sizes(f)
	if len(got) != len(want) {
		t.Fatalf("sizes %v, want %v", got, want)
	}
	for k, s := range want {
		if got[k] != s {
			t.Fatalf("sizes %v, want %v", got, want)
		}
	}
	if f.Len() != 1001 {
		t.Fatalf("Len = %d, want all 1001 players", f.Len())
	}
	checkInvariants(t, f)
}

func TestRebalanceSizesByPopulation(t *testing.T) {
	cfg := sizingConfig()
	f := newFinder(t, cfg)
	population(t, f)
	m, ok := f.Rebalance(t0)
	if !ok || len(m.Buckets) != 3 {
		t.Fatalf("Rebalance = %+v, %v", m, ok)
	}
	s := sizes(f)
	busy, quiet, rare := s["mmr=2"], s["mmr=7"], s["mmr=0"]
	if !(busy > quiet && quiet > rare && rare >= cfg.BucketMinSize) {
		t.Fatalf("sizes %v do not follow the population", s)
	}
	if r := float64(busy-16) / float64(quiet-16); math.Abs(r-7.0/3) > 0.01 {
		t.Fatalf("busy/quiet = %.3f, want 7/3", r)
	}
	if st := f.Stats(); st.Capacity > cfg.PlayerCacheSize {
		t.Fatalf("capacity %d exceeds the cache %d", st.Capacity, cfg.PlayerCacheSize)
	}
	// A bucket the model has never seen starts at the minimum.
	put(t, f, "newcomer", 950, nil)
	if got := sizes(f)["mmr=9"]; got != cfg.BucketMinSize {
		t.Fatalf("new bucket size %d, want the minimum %d", got, cfg.BucketMinSize)
	}
}

func TestRebalanceNeedsSamples(t *testing.T) {
	cfg := sizingConfig()
	cfg.Sizing.MinSamples = 5000
	f := newFinder(t, cfg)
	population(t, f)
	if !f.RebalanceAt().IsZero() || !f.RebalanceDue(t0) {
		t.Fatal("a new finder should be due at once")
	}
	if _, ok := f.Rebalance(t0); ok {
		t.Fatal("rebalanced on too few samples")
	}
	if _, ok := f.SizingModel(); ok {
		t.Fatal("a model appeared")
	}
	if !f.RebalanceDue(t0.Add(10 * time.Minute)) {
		t.Fatal("should be due after the interval")
	}
	if f.RebalanceDue(t0.Add(time.Minute)) {
		t.Fatal("should not be due within the interval")
	}
	if at := f.RebalanceAt(); !at.Equal(t0.Add(10 * time.Minute)) {
		t.Fatalf("RebalanceAt = %v, want the interval after the attempt", at)
	}
}

func TestSizingModelSurvivesRestart(t *testing.T) {
	cfg := sizingConfig()
	before := newFinder(t, cfg)
	population(t, before)
	if _, ok := before.Rebalance(t0); !ok {
		t.Fatal("no rebalance")
	}
	m, _ := before.SizingModel()
	stored, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}

	// A restart: a new finder loads the stored model, then fills up.
	var loaded SizingModel
	if err := json.Unmarshal(stored, &loaded); err != nil {
		t.Fatal(err)
	}
	after := newFinder(t, cfg)
	if err := after.LoadSizingModel(loaded); err != nil {
		t.Fatal(err)
	}
	population(t, after)
	if got, want := sizes(after), sizes(before); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sizes after reload %v, want %v", got, want)
	}

	// Loading into a finder that already has buckets resizes them.
	late := newFinder(t, cfg)
	population(t, late)
	if err := late.LoadSizingModel(loaded); err != nil {
		t.Fatal(err)
	}
	if got, want := sizes(late), sizes(before); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sizes after a late load %v, want %v", got, want)
	}
}

func TestLoadSizingModelValidation(t *testing.T) {
	cfg := sizingConfig()
	good := SizingModel{Version: 1, MinMMR: 0, MaxMMR: 1000, MmrBucketCount: 10,
		Buckets: []BucketWeight{{Key: "mmr=1", Weight: 0.5}, {Key: "mmr=2", Weight: 0.5}}}
	cases := []struct {
		edit  func(m *SizingModel)
		code  string
		field string
	}{
		{func(m *SizingModel) { m.Version = 2 }, "invalid", "version"},
		{func(m *SizingModel) { m.MmrBucketCount = 20 }, "conflict", "mmr_bucket_count"},
		{func(m *SizingModel) { m.Buckets[1].Weight = math.NaN() }, "invalid", "buckets[1].weight"},
		{func(m *SizingModel) { m.Buckets[0].Weight = -1 }, "invalid", "buckets[0].weight"},
		{func(m *SizingModel) { m.Buckets[1].Key = "mmr=1" }, "invalid", "buckets[1].key"},
		{func(m *SizingModel) { m.Buckets[0].Key = "" }, "invalid", "buckets[0].key"},
		{func(m *SizingModel) { m.Samples = math.Inf(1) }, "invalid", "samples"},
	}
	for _, c := range cases {
		f := newFinder(t, cfg)
		m := good
		m.Buckets = append([]BucketWeight(nil), good.Buckets...)
		c.edit(&m)
		wantField(t, f.LoadSizingModel(m), codeOf(c.code), c.field)
		if _, ok := f.SizingModel(); ok {
			t.Fatalf("%s: a rejected model was installed", c.field)
		}
	}
	f := newFinder(t, cfg)
	if err := f.LoadSizingModel(good); err != nil {
		t.Fatal(err)
	}
}
