package opponent

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// snapshotConfig has several entries per player, a league label, a string,
// a list and a number attribute, and a cache small enough to be full.
func snapshotConfig() Config {
	cfg := baseConfig()
	cfg.PlayerCacheSize = 600
	cfg.BucketMinSize = 8
	cfg.BucketInitialSize = 32
	cfg.AllowMultipleEntriesPerPlayer = true
	cfg.Attributes = []Attribute{
		{Name: "league", Type: TypeString}, {Name: "guild", Type: TypeString},
		{Name: "heroes", Type: TypeStrings}, {Name: "power", Type: TypeNumber},
	}
	cfg.QueryAttributes = []Attribute{{Name: "league", Type: TypeString}}
	cfg.Strategies = []Strategy{{Name: "league", Kind: KindDistinct, Attribute: "league"}}
	return cfg
}

func fillForSnapshot(t *testing.T, f *Finder) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 900 {
		var entries []Entry
		for range 1 + rng.IntN(3) {
			entries = append(entries, Entry{MMR: rng.Float64() * 1000, Attributes: attrs{
				"league": str([]string{"bronze", "gold"}[rng.IntN(2)]),
				"guild":  str(fmt.Sprintf("g%d", rng.IntN(5))),
				"heroes": strs(fmt.Sprintf("h%d", rng.IntN(3)), "h9"),
				"power":  num(float64(rng.IntN(100))),
			}})
		}
		if _, err := f.Update(Model{PlayerID: fmt.Sprintf("p%d", i), Entries: entries}, t0); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 50 {
		f.Remove(fmt.Sprintf("p%d", i*7))
	}
}

func TestSnapshotRestoresTheCacheExactly(t *testing.T) {
	f := newFinder(t, snapshotConfig())
	fillForSnapshot(t, f)
	before := f.Snapshot(t0)
	body, err := json.Marshal(before)
	if err != nil {
		t.Fatal(err)
	}
	var decoded Snapshot
	if err := json.Unmarshal(body, &decoded); err != nil {
		t.Fatal(err)
	}

	g := newFinder(t, snapshotConfig())
	if err := g.Restore(decoded, t0); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	checkInvariants(t, g)
	after := g.Snapshot(t0)
	if !reflect.DeepEqual(before, after) {
		t.Fatal("the restored cache differs from the snapshot")
	}
	fs, gs := f.Stats(), g.Stats()
	if fs.Entries != gs.Entries || fs.Players != gs.Players || fs.Capacity != gs.Capacity || fs.Buckets != gs.Buckets {
		t.Fatalf("stats before %+v, after %+v", fs, gs)
	}
	if !reflect.DeepEqual(fs.PerBucket, withoutSamples(gs.PerBucket, fs.PerBucket)) {
		t.Fatalf("buckets before %+v, after %+v", fs.PerBucket, gs.PerBucket)
	}
	// Several entries of one player came back, each in its own bucket.
	multi := 0
	for _, n := range g.index {
		if n > 1 {
			multi++
		}
	}
	if multi == 0 {
		t.Fatal("no player has several entries; the test proves nothing")
	}
}

// withoutSamples copies the samples of want into got: samples are counted
// while players arrive and are not part of the cache.
func withoutSamples(got, want []BucketStats) []BucketStats {
	out := make([]BucketStats, len(got))
	for i := range got {
		out[i] = got[i]
		if i < len(want) {
			out[i].Samples = want[i].Samples
		}
	}
	return out
}

func TestRestoreRefusesBadSnapshots(t *testing.T) {
	f := newFinder(t, snapshotConfig())
	fillForSnapshot(t, f)
	good := func() Snapshot {
		s := f.Snapshot(t0)
		body, _ := json.Marshal(s)
		var c Snapshot
		json.Unmarshal(body, &c)
		return c
	}
	cases := []struct {
		name  string
		edit  func(s *Snapshot)
		code  string
		field string
	}{
		{"version", func(s *Snapshot) { s.Version = 9 }, "invalid", "snapshot.version"},
		{"layout", func(s *Snapshot) { s.MmrBucketCount = 20 }, "conflict", "snapshot.mmr_bucket_count"},
		{"multi", func(s *Snapshot) { s.Multi = false }, "conflict", "snapshot.multi"},
		{"size", func(s *Snapshot) { s.Buckets[0].Size = len(s.Buckets[0].Entries) - 1 }, "invalid", "snapshot.buckets[0].size"},
		{"too big", func(s *Snapshot) { s.Buckets[1].Size = 600 }, "invalid", "snapshot.buckets[1].size"},
		{"key", func(s *Snapshot) { s.Buckets[0].Key = "mmr=99" }, "invalid", "snapshot.buckets[0].key"},
		{"label", func(s *Snapshot) { s.Buckets[0].Labels["league"] = num(3) }, "invalid", "snapshot.buckets[0].labels.league"},
		{"entry mmr", func(s *Snapshot) { s.Buckets[0].Entries[0].MMR += 500 }, "invalid", "snapshot.buckets[0].entries[0].mmr"},
		{"entry label", func(s *Snapshot) {
			e := &s.Buckets[0].Entries[0]
			if e.Attributes["league"].String == "gold" {
				e.Attributes["league"] = str("bronze")
			} else {
				e.Attributes["league"] = str("gold")
			}
		}, "invalid", "snapshot.buckets[0].entries[0].attributes.league"},
		{"twice", func(s *Snapshot) {
			s.Buckets[0].Entries[1].PlayerID = s.Buckets[0].Entries[0].PlayerID
		}, "invalid", "snapshot.buckets[0].entries[1].player_id"},
		{"bad value", func(s *Snapshot) { s.Buckets[0].Entries[0].Attributes["power"] = str("x") }, "invalid", "snapshot.buckets[0].entries[0].attributes.power"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := good()
			c.edit(&s)
			g := newFinder(t, snapshotConfig())
			err := g.Restore(s, t0)
			wantField(t, err, codeOf(c.code), c.field)
			if g.Len() != 0 || len(g.buckets) != 0 || g.Stats().Capacity != 0 {
				t.Fatalf("a refused snapshot changed the finder: %+v", g.Stats())
			}
		})
	}
	// A finder that holds anything refuses a snapshot.
	wantField(t, f.Restore(good(), t0), codeOf("conflict"), "snapshot")
}
