package opponent

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// distinctSlots returns n ids that occupy n different slots of a table of
// size, so a test can fill a small bucket exactly.
func distinctSlots(prefix string, size, n int) []string {
	used := map[int]bool{}
	var ids []string
	for i := 0; len(ids) < n; i++ {
		id := fmt.Sprintf("%s%d", prefix, i)
		if s := slotOf(hashID(id), size); !used[s] {
			used[s] = true
			ids = append(ids, id)
		}
	}
	return ids
}

func TestExclusionHonoured(t *testing.T) {
	f := newFinder(t, baseConfig())
	ids := []string{"attacker", "a", "b", "c"}
	for _, id := range ids {
		put(t, f, id, 500, nil)
	}
	many := []string{"a", "b"}
	for i := 0; i < 20; i++ {
		many = append(many, fmt.Sprintf("ghost%d", i)) // forces the sorted path
	}
	cases := []struct {
		name    string
		exclude []string
		want    []string // acceptable answers; nil for NONE_FOUND
	}{
		{"never the attacker itself", nil, []string{"a", "b", "c"}},
		{"short list", []string{"a", "c"}, []string{"b"}},
		{"long list", many, []string{"c"}},
		{"everyone", []string{"a", "b", "c"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i := 0; i < 30; i++ {
				res := query(t, f, Query{AttackerID: "attacker", MMR: 500, Exclude: c.exclude})
				if c.want == nil {
					if res.Type != ResultNoneFound {
						t.Fatalf("got %+v, want NONE_FOUND", res)
					}
					continue
				}
				ok := false
				for _, w := range c.want {
					ok = ok || res.PlayerID == w
				}
				if !ok {
					t.Fatalf("got %q, want one of %v", res.PlayerID, c.want)
				}
			}
		})
	}
}

func TestRetriesWiden(t *testing.T) {
	cases := []struct {
		name      string
		base, wid int
		found     int // the fewest retries that find the player five buckets away
	}{
		{"one bucket per retry", 0, 1, 5},
		{"two buckets per retry", 0, 2, 3},
		{"base radius of one", 1, 1, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.BaseBucketRadius = c.base
			cfg.RetryBucketWidening = c.wid
			f := newFinder(t, cfg)
			put(t, f, "far", 750, nil)
			for r := 0; r <= 6; r++ {
				res := query(t, f, Query{MMR: 250, Retries: r})
				if got, want := res.Type == ResultSuccess, r >= c.found; got != want {
					t.Fatalf("retries %d: found %v, want %v", r, got, want)
				}
			}
		})
	}
}

func TestBoundaryAlternation(t *testing.T) {
	cfg := baseConfig()
	f := newFinder(t, cfg)
	put(t, f, "next", 410, nil)
	for _, c := range []struct {
		mmr   float64
		found bool
	}{
		{390, true},  // near the upper edge of bucket 3: bucket 4 is searched too
		{350, false}, // middle of bucket 3
		{320, false}, // near the lower edge: bucket 2 is the neighbour
		{505, true},  // near the lower edge of bucket 5
		{999, false}, // top bucket, no neighbour above
	} {
		res := query(t, f, Query{MMR: c.mmr})
		if got := res.Type == ResultSuccess; got != c.found {
			t.Errorf("attacker at %v: found %v, want %v", c.mmr, got, c.found)
		}
	}

	// With a budget of two candidates, the search takes one from each
	// adjacent bucket in turn, so the good one next door is always seen.
	cfg.MaxCandidates = 2
	f = newFinder(t, cfg)
	for i := 0; i < 10; i++ {
		put(t, f, fmt.Sprintf("low%d", i), 300, nil)
		put(t, f, fmt.Sprintf("near%d", i), 401, nil)
	}
	for i := 0; i < 50; i++ {
		res := query(t, f, Query{MMR: 390})
		if !strings.HasPrefix(res.PlayerID, "near") || res.Examined != 2 {
			t.Fatalf("query %d = %+v, want a near player after 2 candidates", i, res)
		}
	}
}

func TestFakeOpponents(t *testing.T) {
	cfg := strategyConfig(Strategy{Name: "arena", Kind: KindDistinct, Hard: true, Attribute: "arena"})
	cfg.FakeOpponents.MMRJitter = 25
	disabled := newFinder(t, cfg)
	cfg.FakeOpponents.Enabled = true
	cfg.ReturnModel = true
	enabled := newFinder(t, cfg)
	for _, f := range []*Finder{disabled, enabled} {
		put(t, f, "real", 500, attrs{"arena": str("forest")})
	}
	q := Query{AttackerID: "att", MMR: 500, Attributes: attrs{"arena": str("forest")}}

	// Something real fits: never a fake.
	if res := query(t, enabled, q); res.Type != ResultSuccess || res.PlayerID != "real" {
		t.Fatalf("real fit: %+v", res)
	}
	// Nothing fits: a fake when enabled, none otherwise.
	q.Attributes = attrs{"arena": str("desert")}
	if res := query(t, disabled, q); res.Type != ResultNoneFound {
		t.Fatalf("disabled: %+v", res)
	}
	for seq := 0; seq < 3; seq++ {
		res := query(t, enabled, q)
		if res.Type != ResultFakeOpponent || res.PlayerID != fmt.Sprintf("fake:att:%d", seq) {
			t.Fatalf("enabled: %+v", res)
		}
		e := res.Model.Entries[0]
		if math.Abs(e.MMR-500) > 25 || e.Attributes["arena"].String != "desert" {
			t.Fatalf("fake entry = %+v, want MMR within 25 of 500 in the desert", e)
		}
	}
	if st := enabled.Stats(); st.Fakes != 3 || st.Successes != 1 {
		t.Fatalf("stats = %+v", st.Counters)
	}
}

func TestRemoveAfterOfferThreshold(t *testing.T) {
	cases := []struct {
		threshold Threshold
		players   int // in a bucket of 16
		removed   bool
	}{
		{ThresholdAlways, 1, true},
		{ThresholdNever, 16, false},
		{"0.5", 4, false},
		{"0.5", 8, true},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s with %d of 16", c.threshold, c.players), func(t *testing.T) {
			cfg := baseConfig()
			cfg.BucketInitialSize, cfg.BucketMinSize = 16, 16
			cfg.PlayerRemoveAfterCandidateOfferThreshold = c.threshold
			f := newFinder(t, cfg)
			for _, id := range distinctSlots("p", 16, c.players) {
				put(t, f, id, 500, nil)
			}
			res := query(t, f, Query{MMR: 500})
			if res.Type != ResultSuccess || res.RemovedAfterOffer != c.removed {
				t.Fatalf("got %+v, want removed=%v", res, c.removed)
			}
			want := c.players
			if c.removed {
				want--
			}
			if f.Len() != want {
				t.Fatalf("Len = %d, want %d", f.Len(), want)
			}
		})
	}
}

func TestIgnoreInsertThreshold(t *testing.T) {
	// Two buckets of 16 fill the cache of 32, so neither can grow.
	cfg := baseConfig()
	cfg.PlayerCacheSize, cfg.BucketInitialSize, cfg.BucketMinSize = 32, 16, 16
	cfg.PlayerIgnoreUpdateInsertThreshold = "0.5"
	f := newFinder(t, cfg)
	put(t, f, "first", 150, nil)
	ids := distinctSlots("p", 16, 9)
	for _, id := range ids[:8] {
		put(t, f, id, 500, nil)
	}
	// The bucket is half full: a new player is ignored...
	r, err := f.Update(Single(ids[8], 500, nil), t0)
	if err != nil || r.Ignored != 1 || f.Len() != 9 {
		t.Fatalf("new player = %+v, %v, len %d; want ignored", r, err, f.Len())
	}
	// ...but a cached player's update applies,
	r, err = f.Update(Single(ids[0], 510, nil), t0)
	if err != nil || r.Updated != 1 {
		t.Fatalf("update = %+v, %v", r, err)
	}
	// and a new player into an emptier bucket is taken.
	r, err = f.Update(Single(ids[8], 150, nil), t0)
	if err != nil || r.Inserted != 1 {
		t.Fatalf("other bucket = %+v, %v", r, err)
	}
	// "never" takes everyone.
	cfg.PlayerIgnoreUpdateInsertThreshold = ThresholdNever
	f = newFinder(t, cfg)
	for _, id := range ids {
		put(t, f, id, 500, nil)
	}
}

func TestMaxCandidatesBoundsWork(t *testing.T) {
	cfg := baseConfig()
	cfg.MaxCandidates = 5
	f := newFinder(t, cfg)
	for _, id := range distinctSlots("p", 1024, 200) {
		put(t, f, id, 520, nil)
	}
	if res := query(t, f, Query{MMR: 520}); res.Examined != 5 {
		t.Fatalf("examined %d, want 5", res.Examined)
	}
}

func TestRandomOrderFavoursNoSlot(t *testing.T) {
	cfg := baseConfig()
	cfg.MaxCandidates = 1
	f := newFinder(t, cfg)
	for i := 0; i < 20; i++ {
		put(t, f, fmt.Sprintf("p%d", i), 500, nil)
	}
	seen := map[string]int{}
	for i := 0; i < 400; i++ {
		seen[query(t, f, Query{MMR: 500}).PlayerID]++
	}
	if len(seen) != 20 {
		t.Fatalf("only %d of 20 equal players were ever offered: %v", len(seen), seen)
	}
}

func TestDeterminism(t *testing.T) {
	run := func(seed uint64) []Result {
		cfg := strategyConfig(Strategy{Name: "arena", Kind: KindDistinct, Attribute: "arena"})
		cfg.PlayerCacheSize = 2000
		cfg.BucketInitialSize = 64
		cfg.MaxCandidates = 8
		cfg.PlayerRemoveAfterCandidateOfferThreshold = "0.3"
		cfg.FakeOpponents = FakeOpponents{Enabled: true, MMRJitter: 10}
		cfg.ReturnModel = true
		f, err := New(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		arenas := []string{"a", "b", "c"}
		for i := 0; i < 3000; i++ {
			full := attrs{"arena": str(arenas[i%3]), "tier": num(0), "league": str("gold")}
			if _, err := f.Update(Single(fmt.Sprintf("p%d", i), float64(i*7%1000), full), t0); err != nil {
				t.Fatal(err)
			}
		}
		f.Rebalance(t0)
		var out []Result
		for i := 0; i < 300; i++ {
			q := Query{AttackerID: fmt.Sprintf("p%d", i), MMR: float64(i * 13 % 1000), Retries: i % 3,
				Attributes: attrs{"arena": str(arenas[i%3])}, Exclude: []string{fmt.Sprintf("p%d", i+1)}}
			res, err := f.Query(q, t0)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res)
		}
		return out
	}
	a, b := run(7), run(7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed and calls gave different answers")
	}
	if reflect.DeepEqual(a, run(8)) {
		t.Fatal("another seed gave exactly the same answers; the seed is not used")
	}
}

func TestQueryValidation(t *testing.T) {
	cfg := baseConfig()
	cfg.QueryAttributes = []Attribute{{Name: "guild", Type: TypeString}}
	cfg.MaxExcluded = 2
	f := newFinder(t, cfg)
	put(t, f, "p", 500, nil)
	cases := []struct {
		q     Query
		field string
	}{
		{Query{MMR: math.NaN()}, "mmr"},
		{Query{MMR: math.Inf(1)}, "mmr"},
		{Query{MMR: 1, Retries: -1}, "retries"},
		{Query{MMR: 1, Exclude: []string{"a", "b", "c"}}, "exclude"},
		{Query{MMR: 1, Attributes: attrs{"guild": num(3)}}, "attributes.guild"},
		{Query{MMR: 1, Attributes: attrs{"zzz": num(3), "aaa": num(1)}}, "attributes.aaa"},
		{Query{MMR: 1, AttackerID: strings.Repeat("x", 200)}, "attacker_id"},
	}
	for _, c := range cases {
		before := f.Stats()
		q := c.q
		if q.AttackerID == "" {
			q.AttackerID = "att"
		}
		_, err := f.Query(q, t0)
		wantField(t, err, "invalid", c.field)
		after := f.Stats()
		if after.Queries != before.Queries || after.Entries != before.Entries || after.InvalidQueries != before.InvalidQueries+1 {
			t.Fatalf("%s: a rejected query changed the finder", c.field)
		}
	}
	_, err := f.Query(Query{MMR: 1}, t0)
	wantField(t, err, "invalid", "attacker_id")
}
