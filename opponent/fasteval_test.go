package opponent

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFastPathAgreesWithVM evaluates every candidate of random caches and
// queries both ways — compiled closures and expr's VM — and requires the same
// verdict and score, so the fast path can never change a ruleset's meaning.
func TestFastPathAgreesWithVM(t *testing.T) {
	cases := []struct {
		filter, score string
		fast          bool // whether the closures cover it
	}{
		{filter: seedFilter, score: seedScore, fast: true},
		{filter: `abs(query.mmr - player.mmr) <= 50 + 100 * retries`, fast: true},
		{score: `player.hero in ["h1", "h2"] ? 1.5 : -2`, fast: true},
		{filter: `not (player.guild in query.rivals) && len(query.rivals) >= 2`, fast: true},
		{score: `max(player.power, query.lose_streak * 10, 3) - min(player.power, 7)`, fast: true},
		{filter: `player.guild < query.guild || player.hero startsWith "h1"`, fast: true},
		{score: `int(player.power / 3) % 4 + float(retries) ** 2`, fast: true},
		{filter: `player.power == 3 || player.mmr != query.mmr`, fast: true},
		{score: `-player.power + (player.guild contains "1" ? 10 : 0) + (player.guild endsWith "2" ? 1 : 0)`, fast: true},
		{filter: `query.hero in player.heroes`, fast: true},
		{filter: `player.guild == "g1" and player.power > 2 or player.arena == query.arena`, fast: true},
		{score: `player.power / (query.lose_streak - 2)`, fast: true}, // ±Inf and NaN
		{filter: `player.id != query.id && player.guild not in ["g0"]`, fast: true},
		{filter: `query.guild == player.guild || player.hero != query.hero`, fast: true},
		{filter: `query.guild != query.hero && player.guild not in query.rivals`, fast: true},
		{filter: `player.guild matches "^g[12]"`, fast: false},
		{score: `float(len(player.guild))`, fast: false},
	}
	for _, c := range cases {
		t.Run(c.filter+c.score, func(t *testing.T) {
			cfg := qualityConfig()
			cfg.Attributes = append(cfg.Attributes,
				Attribute{Name: "power", Type: TypeNumber},
				Attribute{Name: "heroes", Type: TypeStrings},
				Attribute{Name: "arena", Type: TypeString})
			cfg.QueryAttributes = append(cfg.QueryAttributes, Attribute{Name: "arena", Type: TypeString})
			cfg.Strategies = []Strategy{{Name: "arena", Kind: KindDistinct, Attribute: "arena"}}
			cfg.Quality = Quality{Filter: c.filter, Score: c.score}
			f := newFinder(t, cfg)
			xq := f.s.quality
			if fast := (c.filter == "" || xq.fastFilter != nil) && (c.score == "" || xq.fastScore != nil); fast != c.fast {
				t.Fatalf("fast path = %v, want %v", fast, c.fast)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			pick := func(p string, n int) string { return fmt.Sprintf("%s%d", p, rng.IntN(n)) }
			for i := 0; i < 60; i++ {
				f.Update(Single(fmt.Sprintf("p%d", i), rng.Float64()*1000, attrs{
					"guild": str(pick("g", 4)), "hero": str(pick("h", 4)), "power": num(float64(rng.IntN(9))),
					"heroes": strs(pick("h", 4), pick("h", 4)), "arena": str(pick("a", 2)),
				}), t0)
			}
			for k := 0; k < 40; k++ {
				q := Query{AttackerID: pick("p", 60), MMR: rng.Float64() * 1000, Retries: rng.IntN(3), Attributes: attrs{
					// g4 and g5 are held by no entry: compared by interned id, they must
					// still equal nothing.
					"guild": str(pick("g", 6)), "hero": str(pick("h", 5)), "rivals": strs(pick("g", 6), pick("g", 6)),
					"lose_streak": num(float64(rng.IntN(5))), "arena": str(pick("a", 2)),
				}}
				f.prepareCtx(&q)
				f.prepareEnv(&q)
				for _, b := range f.buckets {
					for i := 0; i < b.n; i++ {
						s1, ok1 := f.judge(&q, b, i)
						saved := *xq
						xq.fastFilter, xq.fastScore = nil, nil
						s2, ok2 := f.judge(&q, b, i)
						*xq = saved
						same := ok1 == ok2 && (!ok1 || s1 == s2 || math.Abs(s1-s2) < 1e-9)
						if !same {
							t.Fatalf("candidate %s: fast (%v, %v), VM (%v, %v)", b.ids[i], s1, ok1, s2, ok2)
						}
					}
				}
			}
		})
	}
}
