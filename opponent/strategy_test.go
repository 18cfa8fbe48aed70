package opponent

import (
	"testing"
)

// strategyConfig buckets by arena (distinct), tier (ranged numbers) and
// league (ranged, ordered strings); each test sets which are hard.
func strategyConfig(s ...Strategy) Config {
	cfg := baseConfig()
	decl := []Attribute{
		{Name: "arena", Type: TypeString},
		{Name: "tier", Type: TypeNumber},
		{Name: "league", Type: TypeString},
	}
	cfg.Attributes = decl
	cfg.QueryAttributes = decl
	cfg.Strategies = s
	return cfg
}

var leagues = []string{"bronze", "silver", "gold", "platinum"}

func TestStrategies(t *testing.T) {
	type player struct {
		id    string
		mmr   float64
		attrs attrs
	}
	type ask struct {
		attrs   attrs
		exclude []string
		retries int
		want    string // "" for NONE_FOUND
	}
	cases := []struct {
		name       string
		strategies []Strategy
		players    []player
		asks       []ask
	}{
		{
			name:       "hard distinct labels are never crossed",
			strategies: []Strategy{{Name: "arena", Kind: KindDistinct, Hard: true, Attribute: "arena"}},
			players: []player{
				{"forest1", 500, attrs{"arena": str("forest")}},
				{"desert1", 500, attrs{"arena": str("desert")}},
			},
			asks: []ask{
				{attrs: attrs{"arena": str("desert")}, want: "desert1"},
				{attrs: attrs{"arena": str("desert")}, exclude: []string{"desert1"}, retries: 100, want: ""},
				{attrs: attrs{"arena": str("ice")}, retries: 100, want: ""},
			},
		},
		{
			name:       "soft distinct labels are preferred but crossable",
			strategies: []Strategy{{Name: "arena", Kind: KindDistinct, Attribute: "arena"}},
			players: []player{
				{"forest1", 500, attrs{"arena": str("forest")}},
				{"desert1", 590, attrs{"arena": str("desert")}},
			},
			asks: []ask{
				// The same arena wins though its MMR is further.
				{attrs: attrs{"arena": str("desert")}, want: "desert1"},
				{attrs: attrs{"arena": str("desert")}, exclude: []string{"desert1"}, want: "forest1"},
				// Without a label the query has no preference.
				{attrs: attrs{}, want: "forest1"},
			},
		},
		{
			name:       "ranged labels prefer nearer",
			strategies: []Strategy{{Name: "tier", Kind: KindRanged, Attribute: "tier"}},
			players: []player{
				{"t1", 500, attrs{"tier": num(1)}},
				{"t3", 500, attrs{"tier": num(3)}},
				{"t6", 500, attrs{"tier": num(6)}},
			},
			asks: []ask{
				{attrs: attrs{"tier": num(4)}, want: "t3"},
				{attrs: attrs{"tier": num(4)}, exclude: []string{"t3"}, want: "t6"},
				{attrs: attrs{"tier": num(4)}, exclude: []string{"t3", "t6"}, want: "t1"},
			},
		},
		{
			name: "hard ranged labels stay within max distance",
			strategies: []Strategy{{Name: "league", Kind: KindRanged, Hard: true, Attribute: "league",
				MaxDistance: 1, Order: leagues}},
			players: []player{
				{"bronze1", 500, attrs{"league": str("bronze")}},
				{"plat1", 500, attrs{"league": str("platinum")}},
			},
			asks: []ask{
				{attrs: attrs{"league": str("silver")}, want: "bronze1"},
				{attrs: attrs{"league": str("silver")}, exclude: []string{"bronze1"}, retries: 100, want: ""},
				{attrs: attrs{"league": str("gold")}, want: "plat1"},
			},
		},
		{
			name: "strategies rank lexicographically: first strategy first",
			strategies: []Strategy{
				{Name: "arena", Kind: KindDistinct, Attribute: "arena"},
				{Name: "tier", Kind: KindRanged, Attribute: "tier"},
			},
			players: []player{
				{"same-arena-far-tier", 500, attrs{"arena": str("a"), "tier": num(9)}},
				{"other-arena-same-tier", 500, attrs{"arena": str("b"), "tier": num(1)}},
			},
			asks: []ask{
				{attrs: attrs{"arena": str("a"), "tier": num(1)}, want: "same-arena-far-tier"},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFinder(t, strategyConfig(c.strategies...))
			for _, p := range c.players {
				full := attrs{"arena": str("x"), "tier": num(0), "league": str("bronze")}
				for k, v := range p.attrs {
					full[k] = v
				}
				put(t, f, p.id, p.mmr, full)
			}
			for i, a := range c.asks {
				res := query(t, f, Query{MMR: 500, Attributes: a.attrs, Exclude: a.exclude, Retries: a.retries})
				got := res.PlayerID
				if res.Type != ResultSuccess {
					got = ""
				}
				if got != a.want {
					t.Errorf("ask %d: got %q (%s), want %q", i, got, res.Type, a.want)
				}
			}
		})
	}
}

func TestStrategyLabelErrors(t *testing.T) {
	f := newFinder(t, strategyConfig(
		Strategy{Name: "arena", Kind: KindDistinct, Hard: true, Attribute: "arena"},
		Strategy{Name: "league", Kind: KindRanged, Attribute: "league", Order: leagues},
	))
	_, err := f.Update(Single("p", 1, attrs{"league": str("gold")}), t0)
	wantField(t, err, "invalid", "entries[0].attributes.arena")
	_, err = f.Update(Single("p", 1, attrs{"arena": str("a"), "league": str("wood")}), t0)
	wantField(t, err, "invalid", "entries[0].attributes.league")
	_, err = f.Query(Query{AttackerID: "q", MMR: 1}, t0)
	wantField(t, err, "invalid", "attributes.arena")
	_, err = f.Query(Query{AttackerID: "q", MMR: 1, Attributes: attrs{"arena": str("a"), "league": str("wood")}}, t0)
	wantField(t, err, "invalid", "attributes.league")
	if f.Len() != 0 || f.Stats().Buckets != 0 {
		t.Fatal("rejected input changed the cache")
	}
}

func TestBucketKeysAreStableText(t *testing.T) {
	f := newFinder(t, strategyConfig(
		Strategy{Name: "arena", Kind: KindDistinct, Attribute: "arena"},
		Strategy{Name: "tier", Kind: KindRanged, Attribute: "tier"},
	))
	put(t, f, "p", 512, attrs{"arena": str("forest"), "tier": num(2.5)})
	got := f.Stats().PerBucket[0]
	if want := `mmr=5|arena="forest"|tier=2.5`; got.Key != want {
		t.Fatalf("key = %s, want %s", got.Key, want)
	}
	if got.MMRLow != 500 || got.MMRHigh != 600 {
		t.Fatalf("range = %v..%v", got.MMRLow, got.MMRHigh)
	}
}
