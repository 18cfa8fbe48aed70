package config

import (
	"strings"
	"testing"
	"time"
)

const ratingsYAML = `
ratings:
  - name: ranked-1v1
    model: openskill-pl
    mu: 1500
    sigma: 500
    leagues:
      margin: 25
      divisions: [{name: bronze}, {name: silver, min: 1200}, {name: gold, min: 1600}]
    fairplay: {tanking_factor: 3, streak_ease: 100, flagged: {raise: 200, route: true}, leaver_low_priority_games: 3}
  - name: classic
    model: glicko2
    k: 0
    glicko: {tau: 0.4, period: 24h}
queues:
  - name: ranked
    rating: {name: ranked-1v1, attribute: mmr, division_attribute: division, low_priority: pool}
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule: [{attribute: mmr, criteria: distance, reference: 200}]
`

func TestRatingsParse(t *testing.T) {
	cfg, err := ParseConfig([]byte(ratingsYAML), ".")
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Ratings[0]
	if r.Name != "ranked-1v1" || r.Mu != 1500 || len(r.League().Divisions) != 3 || r.FairPlay.Flagged.Raise != 200 || !r.FairPlay.Flagged.Route {
		t.Fatalf("rating %+v", r)
	}
	if g := cfg.Ratings[1]; g.K == nil || *g.K != 0 || time.Duration(g.Glicko.Period) != 24*time.Hour {
		t.Fatalf("glicko rating %+v", g)
	}
	if q := cfg.Queues[0].Rating; q == nil || q.Attribute != "mmr" || q.LowPriority != "pool" {
		t.Fatalf("queue rating %+v", q)
	}
}

func TestRatingsProblems(t *testing.T) {
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"unknown model", "model: openskill-pl", "model: elo", "ratings[0].model: must be openskill-pl"},
		{"negative sigma", "sigma: 500", "sigma: -1", "ratings[0].sigma: must be a non-negative number"},
		{"division twice", "{name: gold, min: 1600}", "{name: silver, min: 1600}", "ratings[0].leagues.divisions[2].name"},
		{"floors too close", "{name: gold, min: 1600}", "{name: gold, min: 1230}", "ratings[0].leagues.divisions[2].min"},
		{"unknown rating", "rating: {name: ranked-1v1", "rating: {name: ranked-2v2", `queues[0].rating.name: no rating "ranked-2v2"`},
		{"no attribute", "attribute: mmr, division_attribute", "division_attribute", "queues[0].rating.attribute: required"},
		{"bad routing", "low_priority: pool", "low_priority: later", "queues[0].rating.low_priority"},
		{"wait without waiting", "low_priority: pool", "low_priority: pool, low_priority_wait: 30s", "queues[0].rating.low_priority_wait: needs low_priority: wait"},
		{"negative wait", "low_priority: pool", "low_priority: wait, low_priority_wait: -3s", "queues[0].rating.low_priority_wait: must not be negative"},
		{"glicko settings on openskill", "mu: 1500", "glicko: {tau: 1}", "ratings[0].glicko: only a glicko2 rating"},
		{"misspelt", "fairplay: {tanking_factor", "fairplay: {tanking_factr", "tanking_factr"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(ratingsYAML, c.from, c.to, 1)
			if src == ratingsYAML {
				t.Fatalf("the test's replacement %q did not apply", c.from)
			}
			_, err := ParseConfig([]byte(src), ".")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// ratingRows are TestEverySettingHasARow's rows for the ratings section
// and a queue's rating.
func ratingRows() []struct {
	setting string
	yaml    string
	read    func(*Config) bool
} {
	r := func(c *Config) *RatingConfig { return &c.Ratings[0] }
	rating := func(s string) string {
		return oneQueue + "ratings:\n  - {name: r, model: openskill-pl, " + s + "}\n"
	}
	glicko := func(s string) string {
		return oneQueue + "ratings:\n  - {name: r, model: glicko2, " + s + "}\n"
	}
	queue := func(s string) string {
		return "ratings: [{name: r, model: glicko2}]\nqueues:\n  - {name: d, rating: {name: r, attribute: mmr, " + s + "}, ruleset: " + duelRuleset + "}\n"
	}
	qr := func(c *Config) *QueueRatingConfig { return c.Queues[0].Rating }
	return []struct {
		setting string
		yaml    string
		read    func(*Config) bool
	}{
		{"ratings[].name", rating(""), func(c *Config) bool { return r(c).Name == "r" }},
		{"ratings[].model", glicko(""), func(c *Config) bool { return r(c).Model == "glicko2" }},
		{"ratings[].k", rating("k: 2.5"), func(c *Config) bool { return *r(c).K == 2.5 }},
		{"ratings[].mu", rating("mu: 1500"), func(c *Config) bool { return r(c).Mu == 1500 }},
		{"ratings[].sigma", rating("sigma: 400"), func(c *Config) bool { return r(c).Sigma == 400 }},
		{"ratings[].beta", rating("beta: 200"), func(c *Config) bool { return r(c).Beta == 200 }},
		{"ratings[].tau", rating("tau: 0.1"), func(c *Config) bool { return r(c).Tau == 0.1 }},
		{"ratings[].glicko.tau", glicko("glicko: {tau: 0.4}"), func(c *Config) bool { return r(c).Glicko.Tau == 0.4 }},
		{"ratings[].glicko.period", glicko("glicko: {period: 1h}"), func(c *Config) bool { return time.Duration(r(c).Glicko.Period) == time.Hour }},
		{"ratings[].leagues.margin", rating("leagues: {margin: 5, divisions: [{name: a}]}"), func(c *Config) bool { return r(c).Leagues.Margin == 5 }},
		{"ratings[].leagues.divisions[].name", rating("leagues: {divisions: [{name: a}]}"), func(c *Config) bool { return r(c).Leagues.Divisions[0].Name == "a" }},
		{"ratings[].leagues.divisions[].min", rating("leagues: {divisions: [{name: a}, {name: b, min: 9}]}"), func(c *Config) bool { return r(c).Leagues.Divisions[1].Min == 9 }},
		{"ratings[].fairplay.tanking_factor", rating("fairplay: {tanking_factor: 2}"), func(c *Config) bool { return r(c).FairPlay.TankingFactor == 2 }},
		{"ratings[].fairplay.tanking_min_losses", rating("fairplay: {tanking_min_losses: 4}"), func(c *Config) bool { return r(c).FairPlay.TankingMinLosses == 4 }},
		{"ratings[].fairplay.smurf_window", rating("fairplay: {smurf_window: 8}"), func(c *Config) bool { return r(c).FairPlay.SmurfWindow == 8 }},
		{"ratings[].fairplay.smurf_excess", rating("fairplay: {smurf_excess: 0.3}"), func(c *Config) bool { return r(c).FairPlay.SmurfExcess == 0.3 }},
		{"ratings[].fairplay.streak_length", rating("fairplay: {streak_length: 4}"), func(c *Config) bool { return r(c).FairPlay.StreakLength == 4 }},
		{"ratings[].fairplay.streak_ease", rating("fairplay: {streak_ease: 50}"), func(c *Config) bool { return r(c).FairPlay.StreakEase == 50 }},
		{"ratings[].fairplay.streak_games", rating("fairplay: {streak_games: 2}"), func(c *Config) bool { return r(c).FairPlay.StreakGames == 2 }},
		{"ratings[].fairplay.flagged.raise", rating("fairplay: {flagged: {raise: 100}}"), func(c *Config) bool { return r(c).FairPlay.Flagged.Raise == 100 }},
		{"ratings[].fairplay.flagged.route", rating("fairplay: {flagged: {route: true}}"), func(c *Config) bool { return r(c).FairPlay.Flagged.Route }},
		{"ratings[].fairplay.leaver_low_priority_games", rating("fairplay: {leaver_low_priority_games: 3}"),
			func(c *Config) bool { return r(c).FairPlay.LeaverLowPriorityGames == 3 }},
		{"queues[].rating.name", queue(""), func(c *Config) bool { return qr(c).Name == "r" }},
		{"queues[].rating.attribute", queue(""), func(c *Config) bool { return qr(c).Attribute == "mmr" }},
		{"queues[].rating.division_attribute", queue("division_attribute: div"), func(c *Config) bool { return qr(c).DivisionAttribute == "div" }},
		{"queues[].rating.low_priority", queue("low_priority: pool"), func(c *Config) bool { return qr(c).LowPriority == "pool" }},
		{"queues[].rating.low_priority_wait", queue("low_priority: wait, low_priority_wait: 45s"),
			func(c *Config) bool {
				return qr(c).LowPriority == "wait" && qr(c).LowPriorityWait == Duration(45*time.Second)
			}},
	}
}
