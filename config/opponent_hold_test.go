package config

import (
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid/opponent"
)

// opponentHoldRows are TestEverySettingIsRead's rows for the reservation,
// shield and player-state settings of a finder.
func opponentHoldRows() []struct {
	setting string
	yaml    string
	read    func(*Config) bool
} {
	o := func(c *Config) *opponent.Config { return &c.Opponents[0].Finder }
	return []struct {
		setting string
		yaml    string
		read    func(*Config) bool
	}{
		{"opponents[].reservations.enabled", finderYAML("reservations: {enabled: true}"), func(c *Config) bool { return o(c).Reservations.Enabled }},
		{"opponents[].reservations.hold", finderYAML("reservations: {enabled: true, hold: 90s}"),
			func(c *Config) bool { return o(c).Reservations.Hold == opponent.Duration(90*time.Second) }},
		{"opponents[].reservations.always", finderYAML("reservations: {enabled: true, always: true}"), func(c *Config) bool { return o(c).Reservations.Always }},
		{"opponents[].shield", finderYAML("reservations: {enabled: true}", "shield: 8h"),
			func(c *Config) bool { return o(c).Shield == opponent.Duration(8*time.Hour) }},
		{"opponents[].max_player_states", finderYAML("max_player_states: 77"), func(c *Config) bool { return o(c).MaxPlayerStates == 77 }},
	}
}

// TestOpponentHoldProblems: every bad reservation setting is refused at
// load, named by its path.
func TestOpponentHoldProblems(t *testing.T) {
	two := "opponents:\n" +
		"  - {name: a, player_table: t, player_cache_size: 10, min_mmr: 0, max_mmr: 1, mmr_bucket_count: 1, reservations: {enabled: true}}\n" +
		"  - {name: b, player_table: t, player_cache_size: 10, min_mmr: 0, max_mmr: 1, mmr_bucket_count: 1}\n"
	cases := []struct {
		yaml, field string
	}{
		{finderYAML("shield: 1h"), "opponents[0].shield"},
		{finderYAML("reservations: {always: true}"), "opponents[0].reservations.always"},
		{finderYAML("reservations: {enabled: true, hold: 25h}"), "opponents[0].reservations.hold"},
		{finderYAML("reservations: {enabled: true, hold: soon}"), "opponents[0].reservations.hold"},
		{finderYAML("max_player_states: -3"), "opponents[0].max_player_states"},
		{finderYAML("reservations: {enabled: true, holdd: 1m}"), "opponents[0].reservations.holdd"},
		{two, "opponents[0].reservations.enabled"},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.yaml), t.TempDir())
			if err == nil {
				t.Fatalf("accepted:\n%s", c.yaml)
			}
			if !strings.Contains(err.Error(), c.field+":") {
				t.Fatalf("err = %v, want a problem on %s", err, c.field)
			}
		})
	}
}
