package config

import (
	"strings"
	"testing"
	"time"
)

// encounterRows are TestEverySettingIsRead's rows of the encounters
// section.
func encounterRows() []struct {
	setting string
	yaml    string
	read    func(*Config) bool
} {
	enc := func(s string) string { return oneQueue + "encounters: " + s + "\n" }
	return []struct {
		setting string
		yaml    string
		read    func(*Config) bool
	}{
		{"encounters.recent", enc("{recent: 50}"), func(c *Config) bool { return c.Encounters.Window().Recent == 50 }},
		{"encounters.horizon", enc("{horizon: 48h}"), func(c *Config) bool { return c.Encounters.Window().Horizon == 48*time.Hour }},
		{"encounters.reports.reasons[].name", enc("{reports: {reasons: [{name: cheating, threshold: 3}]}}"), func(c *Config) bool { _, ok := c.Encounters.Reports.Rules().Thresholds["cheating"]; return ok }},
		{"encounters.reports.reasons[].threshold", enc("{reports: {reasons: [{name: cheating, threshold: 3}]}}"), func(c *Config) bool { return c.Encounters.Reports.Rules().Thresholds["cheating"] == 3 }},
		{"encounters.reports.within", enc("{reports: {reasons: [{name: cheating, threshold: 3}], within: 48h}}"), func(c *Config) bool { return c.Encounters.Reports.Rules().Within == 48*time.Hour }},
		{"encounters.reports.low_priority_games", enc("{reports: {reasons: [{name: cheating, threshold: 3}], low_priority_games: 9}}"), func(c *Config) bool { return c.Encounters.Reports.Games() == 9 }},
		{"encounters.rematch_window", enc("{rematch_window: 5m}"), func(c *Config) bool { return time.Duration(c.Encounters.RematchWindow) == 5*time.Minute }},
		{"encounters.queues[].name", enc("{queues: [{name: duel}]}"), func(c *Config) bool { return c.Encounters.Queues[0].Name == "duel" }},
		{"encounters.queues[].met_within", enc("{queues: [{name: duel, met_within: 1h}]}"),
			func(c *Config) bool { return time.Duration(c.Encounters.Queues[0].MetWithin) == time.Hour }},
		{"encounters.opponents[].name", finderYAML() + "encounters: {opponents: [{name: f}]}\n",
			func(c *Config) bool { return c.Encounters.Opponents[0].Name == "f" }},
		{"encounters.opponents[].not_same_defender_within", finderYAML() + "encounters: {opponents: [{name: f, not_same_defender_within: 12h}]}\n",
			func(c *Config) bool {
				return time.Duration(c.Encounters.Opponents[0].NotSameDefenderWithin) == 12*time.Hour
			}},
	}
}

// TestEncounterProblems: each mistake is named by its field.
func TestEncounterProblems(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"{recent: 0, horizon: 1h, queues: [{name: nope}]}", "encounters.queues[0].name: no queue \"nope\" under queues"},
		{"{recent: 100000}", "encounters.recent: must be between 1 and 10000"},
		{"{horizon: 10000h}", "encounters.horizon: must be more than 0"},
		{"{rematch_window: 2h}", "encounters.rematch_window: must be between 0 and 1h0m0s"},
		{"{reports: {}}", "encounters.reports.reasons: required"},
		{"{reports: {reasons: [{name: cheating, threshold: 0}]}}", "encounters.reports.reasons.cheating: a threshold between 1 and 1000"},
		{"{reports: {reasons: [{name: cheating, threshold: 1}], low_priority_games: -1}}", "encounters.reports.low_priority_games: must be between 1 and 10000"},
		{"{queues: [{name: duel}, {name: duel}]}", "encounters.queues[1].name: queue \"duel\" is named twice"},
		{"{queues: [{}]}", "encounters.queues[0].name: required"},
		{"{opponents: [{name: raid}]}", "encounters.opponents[0].name: no opponent finder \"raid\" under opponents"},
		{"{horizon: 1h, queues: [{name: duel, met_within: 2h}]}", "encounters.queues[0].met_within: must be between 0 and the history's horizon (1h0m0s)"},
	}
	for _, c := range cases {
		_, err := ParseConfig([]byte(oneQueue+"encounters: "+c.yaml+"\n"), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.yaml, err, c.want)
		}
	}
}
