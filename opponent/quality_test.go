package opponent

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// The seed's CheckPossibleMatchForQuery, as configuration.
const (
	seedFilter = `player.guild != query.guild`
	seedScore  = `300 - abs(query.mmr - player.mmr)
		+ (player.guild in query.rivals ? 100 : 0)
		- (query.hero == player.hero ? 20 : 0)
		+ (query.lose_streak >= 3 && query.mmr > player.mmr ? 30 : 0)`
)

// seedQuality is the same judgement in Go, for embedders.
func seedQuality(q *Query, c *Candidate) (float64, bool) {
	qa := q.Attributes
	if qa["guild"].String == c.Text("guild") {
		return 0, false // never one's own guild
	}
	score := 300 - math.Abs(q.MMR-c.MMR())
	if slices.Contains(qa["rivals"].Strings, c.Text("guild")) {
		score += 100 // prefer rivals
	}
	if qa["hero"].String == c.Text("hero") {
		score -= 20 // avoid mirror matches
	}
	if qa["lose_streak"].Number >= 3 && q.MMR > c.MMR() {
		score += 30 // easier opponents after a losing streak
	}
	return score, true
}

func qualityConfig() Config {
	cfg := baseConfig()
	cfg.Attributes = []Attribute{{Name: "guild", Type: TypeString}, {Name: "hero", Type: TypeString}}
	cfg.QueryAttributes = []Attribute{
		{Name: "guild", Type: TypeString},
		{Name: "rivals", Type: TypeStrings},
		{Name: "hero", Type: TypeString},
		{Name: "lose_streak", Type: TypeNumber},
	}
	return cfg
}

func TestSeedQuality(t *testing.T) {
	type defender struct {
		id          string
		mmr         float64
		guild, hero string
	}
	cases := []struct {
		name      string
		defenders []defender
		query     attrs // the attacker is at MMR 550, guild "mine"
		want      string
	}{
		{"nearer MMR is better",
			[]defender{{"near", 560, "g1", "h1"}, {"far", 595, "g2", "h2"}},
			attrs{}, "near"},
		{"never one's own guild",
			[]defender{{"guildmate", 551, "mine", "h1"}, {"stranger", 595, "g2", "h2"}},
			attrs{}, "stranger"},
		{"own guild only: nobody",
			[]defender{{"guildmate", 551, "mine", "h1"}},
			attrs{}, ""},
		{"rivals preferred",
			[]defender{{"near", 555, "g1", "h1"}, {"rival", 599, "enemies", "h2"}},
			attrs{"rivals": strs("enemies", "others")}, "rival"},
		{"no rivals: nearer",
			[]defender{{"near", 555, "g1", "h1"}, {"rival", 599, "enemies", "h2"}},
			attrs{}, "near"},
		{"mirror match penalised",
			[]defender{{"mirror", 555, "g1", "knight"}, {"other", 570, "g2", "mage"}},
			attrs{"hero": str("knight")}, "other"},
		{"no mirror: nearer",
			[]defender{{"mirror", 555, "g1", "knight"}, {"other", 570, "g2", "mage"}},
			attrs{"hero": str("archer")}, "mirror"},
		{"losing streak: a weaker opponent",
			[]defender{{"stronger", 560, "g1", "h1"}, {"weaker", 535, "g2", "h2"}},
			attrs{"lose_streak": num(3)}, "weaker"},
		{"no streak: nearer",
			[]defender{{"stronger", 560, "g1", "h1"}, {"weaker", 535, "g2", "h2"}},
			attrs{"lose_streak": num(0)}, "stronger"},
	}
	engines := map[string]func() Config{
		"expression": func() Config {
			cfg := qualityConfig()
			cfg.Quality = Quality{Filter: seedFilter, Score: seedScore}
			return cfg
		},
		"go func": func() Config {
			cfg := qualityConfig()
			cfg.QualityFunc = seedQuality
			return cfg
		},
	}
	for engine, mk := range engines {
		for _, c := range cases {
			t.Run(engine+"/"+c.name, func(t *testing.T) {
				f := newFinder(t, mk())
				for _, d := range c.defenders {
					put(t, f, d.id, d.mmr, attrs{"guild": str(d.guild), "hero": str(d.hero)})
				}
				qa := attrs{"guild": str("mine")}
				for k, v := range c.query {
					qa[k] = v
				}
				res := query(t, f, Query{MMR: 550, Attributes: qa})
				got := res.PlayerID
				if res.Type != ResultSuccess {
					got = ""
				}
				if got != c.want {
					t.Fatalf("got %q (%+v), want %q", got, res, c.want)
				}
			})
		}
	}
}

func TestExpressionSeesRetries(t *testing.T) {
	cfg := baseConfig()
	cfg.Quality.Filter = `abs(query.mmr - player.mmr) <= 50 + 100 * retries`
	f := newFinder(t, cfg)
	put(t, f, "p", 590, nil)
	if res := query(t, f, Query{MMR: 510}); res.Type != ResultNoneFound {
		t.Fatalf("retries 0: %+v", res)
	}
	if res := query(t, f, Query{MMR: 510, Retries: 1}); res.PlayerID != "p" {
		t.Fatalf("retries 1: %+v", res)
	}
}

func TestExpressionRuntimeErrorMeansImpossible(t *testing.T) {
	cfg := qualityConfig()
	cfg.Quality.Score = `float(int(player.guild))`
	f := newFinder(t, cfg)
	put(t, f, "p", 500, attrs{"guild": str("not a number")})
	if res := query(t, f, Query{MMR: 500}); res.Type != ResultNoneFound {
		t.Fatalf("got %+v", res)
	}
	if f.Stats().EvalErrors != 1 {
		t.Fatalf("eval errors = %d", f.Stats().EvalErrors)
	}
}

func TestExpressionErrors(t *testing.T) {
	cases := []struct {
		name   string
		q      Quality
		field  string
		reason string
	}{
		{"unknown player attribute", Quality{Score: `player.level`}, "quality.score", "player.level"},
		{"unknown query attribute", Quality{Filter: `query.level > 1`}, "quality.filter", "query.level"},
		{"filter must be bool", Quality{Filter: `player.guild`}, "quality.filter", ""},
		{"types are checked", Quality{Score: `player.guild + 1`}, "quality.score", ""},
		{"ranges are refused", Quality{Score: `float(sum(1..1000000))`}, "quality.score", "ranges"},
		{"no wall clock", Quality{Filter: `now().Year() > 2000`}, "quality.filter", ""},
		{"constant names only", Quality{Score: `player["gu" + "ild"] == "x" ? 1 : 0`}, "quality.score", "constant"},
		{"size is bounded", Quality{Score: strings.Repeat("1 + ", 300) + "1", MaxNodes: 100}, "quality.score", ""},
		{"syntax", Quality{Score: `300 -`}, "quality.score", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := qualityConfig()
			cfg.Quality = c.q
			err := cfg.Validate()
			wantField(t, err, "invalid", c.field)
			if !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("error %q does not mention %q", err, c.reason)
			}
		})
	}
}

func TestCandidateAccessors(t *testing.T) {
	cfg := strategyConfig(Strategy{Name: "arena", Kind: KindDistinct, Attribute: "arena"})
	cfg.Attributes = append(cfg.Attributes, Attribute{Name: "heroes", Type: TypeStrings})
	var seen []string
	cfg.QualityFunc = func(q *Query, c *Candidate) (float64, bool) {
		seen = append(seen, fmt.Sprintln(c.PlayerID(), c.MMR(), c.Text("arena"), c.Number("tier"),
			c.Text("league"), c.List("heroes"), c.Number("unknown"), c.Text("tier")))
		return 0, true
	}
	f := newFinder(t, cfg)
	put(t, f, "p", 512, attrs{"arena": str("forest"), "tier": num(3), "league": str("gold"), "heroes": strs("a", "b")})
	query(t, f, Query{MMR: 512})
	if want := "p 512 forest 3 gold [a b] 0 \n"; len(seen) != 1 || seen[0] != want {
		t.Fatalf("seen %q, want %q", seen, want)
	}
}
