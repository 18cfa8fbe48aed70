package opponent

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestHashIsStable(t *testing.T) {
	// Pinned values: a restart, another machine or another Go version must
	// put a player in the same slot, so the hash may never change.
	for _, c := range []struct {
		id   string
		want uint64
	}{
		{"", 0xefd01f60ba992926},
		{"player-1", 0xd74127021d25a53f},
		{"0190a6b2-7c1e-7000-8000-000000000001", 0x89d6b51142cacee3},
	} {
		if got := hashID(c.id); got != c.want {
			t.Errorf("hashID(%q) = %#x, want %#x", c.id, got, c.want)
		}
	}
}

func TestReplaceOnInsertEvicts(t *testing.T) {
	// One bucket of 16 slots in a cache of 16: no room to grow.
	cfg := baseConfig()
	cfg.PlayerCacheSize, cfg.BucketInitialSize, cfg.BucketMinSize = 16, 16, 16
	f := newFinder(t, cfg)
	for i := range 16 {
		put(t, f, fmt.Sprintf("p%d", i), 150, nil)
	}
	b := f.buckets[0]
	const newcomer = "newcomer"
	victim := b.ids[slotOf(hashID(newcomer), 16)]

	r, err := f.Update(Single(newcomer, 150, nil), t0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Inserted != 1 || r.Evicted != 1 {
		t.Fatalf("insert into a full bucket = %+v, want 1 inserted, 1 evicted", r)
	}
	st := f.Stats()
	if st.Entries != 16 || st.Players != 16 || st.Evicted != 1 {
		t.Fatalf("stats = %+v, want 16 entries and one eviction", st.Counters)
	}
	// The evicted player (the occupant the newcomer's hash picks) left the
	// index too: removing him finds nothing, and the newcomer is cached.
	if n := f.Remove(victim); n != 0 {
		t.Fatalf("Remove(evicted %s) = %d, want 0", victim, n)
	}
	if n := f.Remove(newcomer); n != 1 {
		t.Fatalf("Remove(newcomer) = %d, want 1", n)
	}
	checkInvariants(t, f)
}

// TestCacheFillsToItsSize: before any rebalance, 20,000 players into a
// cache of 10,000 over 30 MMR buckets fill its every slot but a few buckets'
// odd ones (with the ignore threshold "never"), or up to the threshold
// (0.9). The finder held 4,500 of them before buckets grew into the cache's
// spare room and were re-planned from the players seen.
func TestCacheFillsToItsSize(t *testing.T) {
	for _, c := range []struct {
		threshold Threshold
		min, max  int
	}{
		{ThresholdNever, 9900, 10000},
		{"0.9", 8900, 9100},
	} {
		t.Run(string(c.threshold), func(t *testing.T) {
			cfg := Config{PlayerCacheSize: 10000, MinMMR: 0, MaxMMR: 3000, MmrBucketCount: 30,
				PlayerIgnoreUpdateInsertThreshold: c.threshold}
			f := newFinder(t, cfg)
			rng := rand.New(rand.NewPCG(1, 2))
			for i := range 20000 {
				// Roughly normal MMRs around 1500, as real populations are.
				mmr := 1500 + 500*(rng.Float64()+rng.Float64()+rng.Float64()-1.5)
				if _, err := f.Update(Single(fmt.Sprintf("p%d", i), mmr, nil), t0); err != nil {
					t.Fatal(err)
				}
			}
			st := f.Stats()
			if st.Capacity != 10000 || st.Entries < c.min || st.Entries > c.max {
				t.Fatalf("capacity %d, entries %d; want capacity 10000 and %d..%d entries", st.Capacity, st.Entries, c.min, c.max)
			}
			checkInvariants(t, f)
		})
	}
}

func TestUpdateInPlaceMoveAndRemove(t *testing.T) {
	f := newFinder(t, baseConfig())
	put(t, f, "p1", 150, nil)

	// Same bucket: updated in place.
	r, err := f.Update(Single("p1", 160, nil), t0)
	if err != nil || r.Updated != 1 || r.Inserted != 0 {
		t.Fatalf("update in place = %+v, %v", r, err)
	}
	// Another bucket: the old entry leaves, one entry remains.
	r, err = f.Update(Single("p1", 750, nil), t0)
	if err != nil || r.Inserted != 1 || r.Removed != 1 {
		t.Fatalf("move = %+v, %v", r, err)
	}
	if f.Len() != 1 {
		t.Fatalf("Len = %d, want 1", f.Len())
	}
	if res := query(t, f, Query{MMR: 150}); res.Type != ResultNoneFound {
		t.Fatalf("old bucket still answers: %+v", res)
	}
	if res := query(t, f, Query{MMR: 750, ReturnModel: true}); res.PlayerID != "p1" || res.Model.Entries[0].MMR != 750 {
		t.Fatalf("new bucket = %+v", res)
	}
	// An empty payload marks the player ineligible.
	r, err = f.Update(Model{PlayerID: "p1"}, t0)
	if err != nil || r.Removed != 1 || f.Len() != 0 {
		t.Fatalf("ineligible update = %+v, %v, len %d", r, err, f.Len())
	}
	if n := f.Remove("p1"); n != 0 {
		t.Fatalf("Remove after removal = %d", n)
	}
}

func TestInternedValuesAreFreed(t *testing.T) {
	cfg := baseConfig()
	cfg.Attributes = []Attribute{{Name: "guild", Type: TypeString}, {Name: "heroes", Type: TypeStrings}}
	f := newFinder(t, cfg)
	put(t, f, "p1", 100, attrs{"guild": str("g1"), "heroes": strs("a", "b")})
	put(t, f, "p2", 200, attrs{"guild": str("g1"), "heroes": strs("a", "b")})
	if got := f.Stats().Strings; got != 2 {
		t.Fatalf("interned = %d, want 2 (one guild, one list, shared)", got)
	}
	if _, err := f.Update(Single("p1", 100, attrs{"guild": str("g2")}), t0); err != nil {
		t.Fatal(err)
	}
	if got := f.Stats().Strings; got != 3 {
		t.Fatalf("interned = %d, want 3 (g1, g2, list)", got)
	}
	f.Remove("p1")
	f.Remove("p2")
	if got := f.Stats().Strings; got != 0 {
		t.Fatalf("interned after removing everyone = %d, want 0", got)
	}
}

func TestMultipleEntriesPerPlayer(t *testing.T) {
	cfg := baseConfig()
	cfg.AllowMultipleEntriesPerPlayer = true
	cfg.Attributes = []Attribute{{Name: "setup", Type: TypeString}}
	f := newFinder(t, cfg)

	m := Model{PlayerID: "p1", Entries: []Entry{
		{MMR: 150, Attributes: attrs{"setup": str("castle")}},
		{MMR: 450, Attributes: attrs{"setup": str("tower")}},
	}}
	r, err := f.Update(m, t0)
	if err != nil || r.Inserted != 2 {
		t.Fatalf("Update = %+v, %v", r, err)
	}
	if st := f.Stats(); st.Players != 1 || st.Entries != 2 {
		t.Fatalf("players %d entries %d, want 1 and 2", st.Players, st.Entries)
	}
	// One entry per bucket: another entry in the 100s bucket replaces it.
	r, err = f.Update(Model{PlayerID: "p1", Entries: []Entry{{MMR: 120, Attributes: attrs{"setup": str("moat")}}}}, t0)
	if err != nil || r.Updated != 1 || f.Len() != 2 {
		t.Fatalf("replace in bucket = %+v, %v, len %d", r, err, f.Len())
	}
	// The returned model tells which entry was chosen.
	res := query(t, f, Query{MMR: 450, ReturnModel: true})
	if res.PlayerID != "p1" || res.Model.Entries[0].Attributes["setup"].String != "tower" {
		t.Fatalf("query = %+v", res)
	}
	res = query(t, f, Query{MMR: 150, ReturnModel: true})
	if res.Model.Entries[0].Attributes["setup"].String != "moat" {
		t.Fatalf("query = %+v", res.Model)
	}
	// Excluding the player excludes every entry.
	if res := query(t, f, Query{MMR: 150, Exclude: []string{"p1"}}); res.Type != ResultNoneFound {
		t.Fatalf("excluded player offered: %+v", res)
	}
	// An empty payload is ignored with multiple entries, as in the seed.
	if r, err := f.Update(Model{PlayerID: "p1"}, t0); err != nil || r != (UpdateResult{}) || f.Len() != 2 {
		t.Fatalf("empty update = %+v, %v, len %d", r, err, f.Len())
	}
	if n := f.Remove("p1"); n != 2 || f.Len() != 0 || f.Stats().Players != 0 {
		t.Fatalf("Remove = %d, len %d", n, f.Len())
	}
}

func TestSingleEntryRejectsSeveral(t *testing.T) {
	f := newFinder(t, baseConfig())
	_, err := f.Update(Model{PlayerID: "p1", Entries: []Entry{{MMR: 1}, {MMR: 2}}}, t0)
	wantField(t, err, "invalid", "entries")
}

func TestBucketLimit(t *testing.T) {
	cfg := baseConfig()
	cfg.MaxBuckets = 2
	f := newFinder(t, cfg)
	put(t, f, "a", 50, nil)
	put(t, f, "b", 150, nil)
	r, err := f.Update(Single("c", 250, nil), t0)
	if err != nil || r.Ignored != 1 {
		t.Fatalf("third bucket = %+v, %v; want ignored", r, err)
	}
	if st := f.Stats(); st.Buckets != 2 || st.BucketLimited != 1 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestCacheNeverOutgrowsItsSize(t *testing.T) {
	cfg := baseConfig()
	cfg.PlayerCacheSize = 500
	cfg.BucketInitialSize = 200
	cfg.BucketMinSize = 10
	f := newFinder(t, cfg)
	for i := 0; i < 5000; i++ {
		if _, err := f.Update(Single(fmt.Sprintf("p%d", i), float64(i%1000), nil), t0); err != nil {
			t.Fatal(err)
		}
		if st := f.Stats(); st.Capacity > cfg.PlayerCacheSize || st.Entries > st.Capacity {
			t.Fatalf("after %d inserts capacity %d entries %d, cache %d", i, st.Capacity, st.Entries, cfg.PlayerCacheSize)
		}
	}
	st := f.Stats()
	if st.Buckets != 10 || st.Players != st.Entries {
		t.Fatalf("stats = %+v", st)
	}
	for _, b := range st.PerBucket {
		if b.Size < cfg.BucketMinSize {
			t.Fatalf("bucket %s has size %d below the minimum", b.Key, b.Size)
		}
	}
}
