package opponent

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

// checkInvariants verifies the finder's internal bookkeeping: the lookup
// table and the dense rows agree, every entry is found from its hash, the index
// and the interned reference counts match what the buckets hold, and the
// cache never exceeds its size.
func checkInvariants(t *testing.T, f *Finder) {
	t.Helper()
	capacity, entries := 0, 0
	strRefs, listRefs := map[uint32]uint32{}, map[uint32]uint32{}
	perPlayer := map[string]int{}
	bucketOf := map[string]int32{}
	for bi, b := range f.buckets {
		capacity += b.size
		entries += b.n
		if b.n > b.size || len(b.table) != tableLen(b.size) || len(b.rows) != b.size*f.s.rowWords {
			t.Fatalf("bucket %s: n %d size %d", b.key, b.n, b.size)
		}
		occupied := 0
		pointed := map[uint32]bool{}
		for s, d := range b.table {
			if d == 0 {
				continue
			}
			occupied++
			if i := int(d - 1); i >= b.n || pointed[d] {
				t.Fatalf("bucket %s: slot %d points at %d", b.key, s, i)
			}
			pointed[d] = true
		}
		if occupied != b.n {
			t.Fatalf("bucket %s: %d occupied slots, n %d", b.key, occupied, b.n)
		}
		for i := 0; i < b.size; i++ {
			id := b.ids[i]
			if i >= b.n {
				for _, w := range b.row(i) {
					if w != 0 || id != "" {
						t.Fatalf("bucket %s: unused row %d not cleared", b.key, i)
					}
				}
				continue
			}
			if id == "" || b.hash(i) != hashID(id) || b.find(hashID(id), id) != i {
				t.Fatalf("bucket %s: entry %d (%q) is not found from its hash", b.key, i, id)
			}
			if m, _ := f.s.mmrIndex(b.mmrAt(i)); m != int(b.mmr) {
				t.Fatalf("bucket %s: entry %q has MMR %v", b.key, id, b.mmrAt(i))
			}
			if got, want := b.until(i), f.blockedUntil(id); got != want {
				t.Fatalf("bucket %s: entry %q unavailable until %d, its state says %d", b.key, id, got, want)
			}
			perPlayer[id]++
			bucketOf[id] = int32(bi)
			for c, kind := range f.s.refKind {
				if ref := b.ref(i, f.s.refOff+c); ref != 0 {
					if kind == cupid.KindStrings {
						listRefs[ref]++
					} else {
						strRefs[ref]++
					}
				}
			}
		}
	}
	if capacity != f.capacity || capacity > f.s.cfg.PlayerCacheSize || entries != f.entries {
		t.Fatalf("capacity %d (recorded %d, cache %d), entries %d (recorded %d)",
			capacity, f.capacity, f.s.cfg.PlayerCacheSize, entries, f.entries)
	}
	if len(f.index) != len(perPlayer) {
		t.Fatalf("index has %d players, buckets %d", len(f.index), len(perPlayer))
	}
	for id, n := range perPlayer {
		v := f.index[id]
		if f.s.cfg.AllowMultipleEntriesPerPlayer && int(v) != n ||
			!f.s.cfg.AllowMultipleEntriesPerPlayer && (n != 1 || v != bucketOf[id]) {
			t.Fatalf("index[%q] = %d, but %d entries in bucket %d", id, v, n, bucketOf[id])
		}
	}
	held, shielded, online := 0, 0, 0
	for id, st := range f.h.states {
		if st.empty() || st.PlayerID != id {
			t.Fatalf("state of %q: %+v", id, st)
		}
		if r := st.Reservation; r != nil {
			held++
			if f.h.reservations[r.ID] != r || r.Defender != id {
				t.Fatalf("reservation %+v of %q is not indexed", r, id)
			}
		}
		if !st.ShieldUntil.IsZero() {
			shielded++
		}
		if st.Online {
			online++
		}
	}
	if held != len(f.h.reservations) || shielded != f.h.shielded || online != f.h.online || len(f.h.states) > f.s.cfg.MaxPlayerStates {
		t.Fatalf("states: %d held (%d indexed), %d shielded (%d counted), %d online (%d counted)",
			held, len(f.h.reservations), shielded, f.h.shielded, online, f.h.online)
	}
	for _, c := range []struct {
		t    *interner
		refs map[uint32]uint32
	}{{f.strs, strRefs}, {f.lists, listRefs}} {
		if c.t.live() != len(c.refs) {
			t.Fatalf("interner holds %d values, entries use %d", c.t.live(), len(c.refs))
		}
		for id, n := range c.refs {
			if c.t.refs[id] != n {
				t.Fatalf("interned %d counted %d, used %d", id, c.t.refs[id], n)
			}
		}
	}
}

func TestInvariantsUnderRandomOperations(t *testing.T) {
	for _, multi := range []bool{false, true} {
		t.Run(fmt.Sprintf("multi=%v", multi), func(t *testing.T) {
			cfg := baseConfig()
			cfg.PlayerCacheSize = 300
			cfg.BucketMinSize = 4
			cfg.BucketInitialSize = 48
			cfg.Sizing.MinSamples = 50
			cfg.AllowMultipleEntriesPerPlayer = multi
			cfg.PlayerRemoveAfterCandidateOfferThreshold = "0.5"
			cfg.PlayerIgnoreUpdateInsertThreshold = "0.95"
			cfg.Attributes = []Attribute{
				{Name: "arena", Type: TypeString}, {Name: "guild", Type: TypeString},
				{Name: "heroes", Type: TypeStrings}, {Name: "power", Type: TypeNumber},
			}
			cfg.QueryAttributes = []Attribute{{Name: "arena", Type: TypeString}}
			cfg.Strategies = []Strategy{{Name: "arena", Kind: KindDistinct, Attribute: "arena"}}
			cfg.Reservations = Reservations{Enabled: true, Hold: Duration(time.Minute)}
			cfg.Shield = Duration(10 * time.Minute)
			cfg.MaxPlayerStates = 150
			f := newFinder(t, cfg)
			rng := rand.New(rand.NewPCG(11, 12))
			var rsv []string
			entry := func() Entry {
				return Entry{MMR: rng.Float64()*1200 - 100, Attributes: attrs{
					"arena":  str(fmt.Sprintf("a%d", rng.IntN(3))),
					"guild":  str(fmt.Sprintf("g%d", rng.IntN(10))),
					"heroes": strs(fmt.Sprintf("h%d", rng.IntN(3)), fmt.Sprintf("h%d", rng.IntN(3))),
					"power":  num(float64(rng.IntN(100))),
				}}
			}
			for op := 0; op < 4000; op++ {
				now := t0.Add(time.Duration(op) * 100 * time.Millisecond)
				id := fmt.Sprintf("p%d", rng.IntN(400))
				switch k := rng.IntN(100); {
				case k < 60:
					m := Model{PlayerID: id, Entries: []Entry{entry()}}
					if multi && rng.IntN(2) == 0 {
						m.Entries = append(m.Entries, entry())
					}
					if _, err := f.Update(m, t0); err != nil {
						t.Fatal(err)
					}
				case k < 65:
					f.Update(Model{PlayerID: id}, t0)
				case k < 72:
					f.Remove(id)
				case k < 90:
					q := Query{AttackerID: id, MMR: rng.Float64() * 1000, Retries: rng.IntN(4),
						Exclude:    []string{fmt.Sprintf("p%d", rng.IntN(400))},
						Attributes: attrs{"arena": str(fmt.Sprintf("a%d", rng.IntN(3)))}}
					q.Reserve = rng.IntN(2) == 0
					r, err := f.Query(q, now)
					if err != nil && !(q.Reserve && cupid.ErrorCode(err) == cupid.CodeExhausted) {
						t.Fatal(err)
					}
					if r.Reservation != nil {
						rsv = append(rsv, r.Reservation.ID)
					}
				case k < 96 && len(rsv) > 0:
					i := rng.IntN(len(rsv))
					if rng.IntN(2) == 0 {
						f.Confirm(rsv[i], "", now)
					} else {
						f.Release(rsv[i], "", now)
					}
					rsv = append(rsv[:i], rsv[i+1:]...)
				case k < 97:
					f.SetOnline(id, rng.IntN(2) == 0, now)
					f.Sweep(now)
				case k < 98:
					f.Rebalance(t0)
				default:
					if m, ok := f.SizingModel(); ok {
						if err := f.LoadSizingModel(m); err != nil {
							t.Fatal(err)
						}
					}
				}
				checkInvariants(t, f)
			}
			st := f.Stats()
			if st.Evicted == 0 || st.Rebalances == 0 || st.OfferRemoved == 0 || st.Resizes == 0 ||
				st.Reserved == 0 || st.Confirmed == 0 || st.Released == 0 || st.Expired == 0 {
				t.Fatalf("the run did not exercise everything: %+v", st.Counters)
			}
		})
	}
}
