package opponent

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(c *Config)
		field string
	}{
		{"zero cache", func(c *Config) { c.PlayerCacheSize = 0 }, "player_cache_size"},
		{"negative cache", func(c *Config) { c.PlayerCacheSize = -5 }, "player_cache_size"},
		{"NaN min", func(c *Config) { c.MinMMR = math.NaN() }, "min_mmr"},
		{"infinite max", func(c *Config) { c.MaxMMR = math.Inf(1) }, "max_mmr"},
		{"min equals max", func(c *Config) { c.MinMMR, c.MaxMMR = 5, 5 }, "max_mmr"},
		{"min above max", func(c *Config) { c.MinMMR, c.MaxMMR = 9, 5 }, "max_mmr"},
		{"no buckets", func(c *Config) { c.MmrBucketCount = 0 }, "mmr_bucket_count"},
		{"negative bucket size", func(c *Config) { c.BucketMinSize = -1 }, "bucket_min_size"},
		{"initial below min", func(c *Config) { c.BucketMinSize, c.BucketInitialSize = 64, 32 }, "bucket_initial_size"},
		{"initial above cache", func(c *Config) { c.BucketInitialSize = 1 << 20 }, "bucket_initial_size"},
		{"too many buckets", func(c *Config) { c.MaxBuckets = 1 << 20 }, "max_buckets"},
		{"negative candidates", func(c *Config) { c.MaxCandidates = -1 }, "max_candidates"},
		{"negative widening", func(c *Config) { c.RetryBucketWidening = -1 }, "retry_bucket_widening"},
		{"negative radius", func(c *Config) { c.BaseBucketRadius = -1 }, "base_bucket_radius"},
		{"boundary too wide", func(c *Config) { c.BoundaryFraction = 0.7 }, "boundary_fraction"},
		{"threshold above 1", func(c *Config) { c.PlayerRemoveAfterCandidateOfferThreshold = "1.5" }, "player_remove_after_candidate_offer_threshold"},
		{"threshold negative", func(c *Config) { c.PlayerIgnoreUpdateInsertThreshold = "-0.1" }, "player_ignore_update_insert_threshold"},
		{"threshold word", func(c *Config) { c.PlayerIgnoreUpdateInsertThreshold = "sometimes" }, "player_ignore_update_insert_threshold"},
		{"several entries without the switch", func(c *Config) { c.MaxEntriesPerPlayer = 3 }, "max_entries_per_player"},
		{"bad attribute type", func(c *Config) { c.Attributes = []Attribute{{Name: "x", Type: "blob"}} }, "attributes[0].type"},
		{"reserved attribute", func(c *Config) { c.Attributes = []Attribute{{Name: "mmr", Type: TypeNumber}} }, "attributes[0].name"},
		{"duplicate attribute", func(c *Config) {
			c.QueryAttributes = []Attribute{{Name: "a", Type: TypeNumber}, {Name: "a", Type: TypeNumber}}
		}, "query_attributes[1].name"},
		{"unknown strategy label type", func(c *Config) {
			c.Attributes = []Attribute{{Name: "arena", Type: TypeString}}
			c.QueryAttributes = c.Attributes
			c.Strategies = []Strategy{{Name: "arena", Kind: "fuzzy", Attribute: "arena"}}
		}, "strategies[0].kind"},
		{"strategy without attribute", func(c *Config) {
			c.Strategies = []Strategy{{Name: "arena", Kind: KindDistinct, Attribute: "arena"}}
		}, "strategies[0].attribute"},
		{"ranged strings without order", func(c *Config) {
			c.Attributes = []Attribute{{Name: "league", Type: TypeString}}
			c.QueryAttributes = c.Attributes
			c.Strategies = []Strategy{{Name: "league", Kind: KindRanged, Attribute: "league"}}
		}, "strategies[0].order"},
		{"both quality kinds", func(c *Config) {
			c.Quality.Score = "1"
			c.QualityFunc = func(*Query, *Candidate) (float64, bool) { return 0, true }
		}, "quality"},
		{"negative jitter", func(c *Config) { c.FakeOpponents.MMRJitter = -1 }, "fake_opponents.mmr_jitter"},
		{"scan fetch order", func(c *Config) { c.Scan.MinFetch, c.Scan.MaxFetch = 50, 10 }, "scan.max_fetch"},
		{"negative tick", func(c *Config) { c.Scan.Tick = Duration(-time.Second) }, "scan.tick"},
	}
	if err := baseConfig().Validate(); err != nil {
		t.Fatalf("base config: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := baseConfig()
			c.edit(&cfg)
			wantField(t, cfg.Validate(), "invalid", c.field)
			if _, err := New(cfg, 1); err == nil {
				t.Fatal("New accepted an invalid config")
			}
		})
	}
}

func TestConfigFromJSON(t *testing.T) {
	src := `{
		"player_cache_size": 100000, "min_mmr": 0, "max_mmr": 3000, "mmr_bucket_count": 30,
		"player_remove_after_candidate_offer_threshold": 0.75,
		"player_ignore_update_insert_threshold": "never",
		"scan": {"enabled": true, "tick": "500ms"},
		"sizing": {"interval": "1h"},
		"attributes": [{"name": "guild", "type": "string"}],
		"query_attributes": [{"name": "guild", "type": "string"}],
		"quality": {"filter": "player.guild != query.guild"}
	}`
	var cfg Config
	if err := json.Unmarshal([]byte(src), &cfg); err != nil {
		t.Fatal(err)
	}
	f, err := New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	eff := f.Config()
	if f.s.removeLevel != 0.75 || !math.IsInf(f.s.ignoreLevel, 1) {
		t.Fatalf("thresholds %v %v", f.s.removeLevel, f.s.ignoreLevel)
	}
	if time.Duration(eff.Scan.Tick) != 500*time.Millisecond || time.Duration(eff.Sizing.Interval) != time.Hour {
		t.Fatalf("durations %v %v", eff.Scan.Tick, eff.Sizing.Interval)
	}
	if eff.MaxCandidates != 32 || eff.BucketMinSize != 16 || eff.MaxBuckets != 100000/16 {
		t.Fatalf("defaults not applied: %+v", eff)
	}
	// The effective config writes back out and reads in the same.
	out, err := json.Marshal(eff)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"tick":"500ms"`) {
		t.Fatalf("tick not written as text: %s", out)
	}
	var again Config
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatal(err)
	}
	if err := again.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestUpdateValidationChangesNothing(t *testing.T) {
	cfg := baseConfig()
	cfg.Attributes = []Attribute{{Name: "guild", Type: TypeString}, {Name: "heroes", Type: TypeStrings}, {Name: "power", Type: TypeNumber}}
	f := newFinder(t, cfg)
	put(t, f, "keep", 500, nil)
	long := strings.Repeat("x", 300)
	many := make([]string, 100)
	cases := []struct {
		m     Model
		field string
	}{
		{Single("", 1, nil), "player_id"},
		{Single(long, 1, nil), "player_id"},
		{Single("p", math.NaN(), nil), "entries[0].mmr"},
		{Single("p", math.Inf(-1), nil), "entries[0].mmr"},
		{Single("p", 1, attrs{"level": num(1)}), "entries[0].attributes.level"},
		{Single("p", 1, attrs{"guild": num(1)}), "entries[0].attributes.guild"},
		{Single("p", 1, attrs{"guild": str(long)}), "entries[0].attributes.guild"},
		{Single("p", 1, attrs{"heroes": strs(many...)}), "entries[0].attributes.heroes"},
		{Single("p", 1, attrs{"power": num(math.NaN())}), "entries[0].attributes.power"},
		{Single("keep", math.NaN(), nil), "entries[0].mmr"},
	}
	for _, c := range cases {
		// CheckModel agrees with Update, without touching anything.
		wantField(t, f.CheckModel(c.m), "invalid", c.field)
		before := f.Stats()
		_, err := f.Update(c.m, t0)
		wantField(t, err, "invalid", c.field)
		after := f.Stats()
		if after.Entries != before.Entries || after.Buckets != before.Buckets || after.Inserted != before.Inserted {
			t.Fatalf("%s: a rejected update changed the cache", c.field)
		}
	}
	if res := query(t, f, Query{MMR: 500, ReturnModel: true}); res.PlayerID != "keep" || res.Model.Entries[0].MMR != 500 {
		t.Fatalf("the cached player changed: %+v", res)
	}
}
