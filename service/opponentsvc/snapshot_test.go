package opponentsvc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// snapshotOf is the finder's cache as a snapshot, for comparing.
func snapshotOf(s *Service, name string) opponent.Snapshot {
	fd := s.finders[name]
	fd.mu.Lock()
	defer fd.mu.Unlock()
	return fd.f.Snapshot(t0)
}

// fillTeams gives 300 players one to three entries each (several in one
// MMR bucket collapse into that bucket's one entry, as the seed says), in a
// cache of 100 so that entries are replaced on insert too.
func fillTeams(t *testing.T, s *Service) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		m := opponent.Model{PlayerID: fmt.Sprintf("p%03d", i)}
		for range 1 + rng.IntN(3) {
			m.Entries = append(m.Entries, opponent.Entry{MMR: rng.Float64() * 1000})
		}
		mustUpdate(t, s, "teams", m)
	}
}

func TestRestartRestoresTheCacheExactly(t *testing.T) {
	docs := newMemDocs()
	before, _ := newService(t, docs, multiFinder())
	fillTeams(t, before)
	want := snapshotOf(before, "teams")
	if n := len(want.Buckets); n == 0 {
		t.Fatal("nothing cached")
	}
	before.Close()
	if !docs.has(SnapshotKindPrefix+"teams", snapshotHeadID) {
		t.Fatal("Close stored no snapshot")
	}

	after, _ := newService(t, docs, multiFinder())
	if got := snapshotOf(after, "teams"); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the restart the cache differs: %d buckets, want %d", len(got.Buckets), len(want.Buckets))
	}
	// The snapshot was consumed: a crash now would not bring it back.
	if n := docs.count(SnapshotKindPrefix + "teams"); n != 0 {
		t.Fatalf("%d snapshot documents left after loading", n)
	}
	// A second Close of the first service writes nothing over the new one's.
	before.Close()
	if n := docs.count(SnapshotKindPrefix + "teams"); n != 0 {
		t.Fatalf("a second Close wrote %d snapshot documents", n)
	}
}

func TestSnapshotIsChunked(t *testing.T) {
	docs := newMemDocs()
	cfg := multiFinder()
	cfg.Opponent.PlayerCacheSize = 5000
	before, _ := newService(t, docs, cfg)
	for i := range 4500 {
		mustUpdate(t, before, "teams", opponent.Single(fmt.Sprintf("p%04d", i), float64(i%1000), nil))
	}
	want := snapshotOf(before, "teams")
	before.Close()
	if n := docs.count(SnapshotKindPrefix + "teams"); n != 4 { // three chunks of up to 2,000 and the head
		t.Fatalf("%d snapshot documents, want 4", n)
	}
	after, _ := newService(t, docs, cfg)
	if got := snapshotOf(after, "teams"); !reflect.DeepEqual(got, want) {
		t.Fatal("after the restart the cache differs")
	}
}

func TestUnusableSnapshotsAreDroppedAndTheScanRefills(t *testing.T) {
	cases := []struct {
		name string
		edit func(d *memDocs)
		cfg  func(f *Finder)
	}{
		{name: "no head (stopped while writing)", edit: func(d *memDocs) {
			d.DeleteDocument(context.Background(), cupid.Fence{}, SnapshotKindPrefix+"teams", snapshotHeadID)
		}},
		{name: "a chunk lost", edit: func(d *memDocs) {
			d.DeleteDocument(context.Background(), cupid.Fence{}, SnapshotKindPrefix+"teams", snapshotChunkID(0))
		}},
		{name: "a chunk garbled", edit: func(d *memDocs) {
			d.PutDocument(context.Background(), cupid.Fence{}, SnapshotKindPrefix+"teams", snapshotChunkID(0), []byte("{"), t0)
		}},
		{name: "another MMR layout", cfg: func(f *Finder) { f.Opponent.MmrBucketCount = 20 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			docs := newMemDocs()
			cfg := multiFinder()
			cfg.Opponent.PlayerCacheSize = 1000 // room for a bucket per player in either layout
			cfg.Opponent.Scan.Enabled = true
			before, _ := newService(t, docs, cfg)
			for i := range 20 {
				mustUpdate(t, before, "teams", opponent.Single(fmt.Sprintf("p%02d", i), float64(i*50), nil))
			}
			before.Close()
			if c.edit != nil {
				c.edit(docs)
			}
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			after, _ := newService(t, docs, cfg)
			if st := stats(t, after, "teams"); st.Entries != 0 {
				t.Fatalf("an unusable snapshot restored %d entries", st.Entries)
			}
			if n := docs.count(SnapshotKindPrefix + "teams"); n != 0 {
				t.Fatalf("%d snapshot documents left", n)
			}
			after.scanOnce(context.Background(), after.finders["teams"])
			if st := stats(t, after, "teams"); st.Entries != 20 {
				t.Fatalf("the scan refilled %d entries, want 20", st.Entries)
			}
		})
	}
}

func TestMemoryOnlyFindersKeepNoSnapshot(t *testing.T) {
	docs := newMemDocs()
	cfg := multiFinder()
	cfg.MemoryOnly = true
	before, _ := newService(t, docs, cfg)
	mustUpdate(t, before, "teams", opponent.Single("p1", 100, nil))
	before.Close()
	for kind := range docs.docs {
		if strings.HasPrefix(kind, SnapshotKindPrefix) && docs.count(kind) > 0 {
			t.Fatalf("a memory-only finder stored %s", kind)
		}
	}
}
