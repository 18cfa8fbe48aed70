package config

import (
	"slices"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

func TestRetention(t *testing.T) {
	const queue = oneQueue
	for _, c := range []struct {
		name, yaml string
		want       map[cupid.RetentionKind]time.Duration
		batch      int
		err        string
	}{
		{name: "defaults", want: map[cupid.RetentionKind]time.Duration{
			cupid.RetainTickets: 7 * 24 * time.Hour, cupid.RetainMatches: 30 * 24 * time.Hour, cupid.RetainEncounters: 30 * 24 * time.Hour}, batch: DefaultRetentionBatch},
		{name: "days, hours and forever", yaml: "retention:\n  tickets: 2d\n  matches: forever\n  rating_history: 8760h\n  encounters: forever\n  batch: 100\n",
			want: map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: 48 * time.Hour, cupid.RetainRatingHistory: 8760 * time.Hour}, batch: 100},
		{name: "encounters as long as the history looks back", yaml: "encounters:\n  horizon: 48h\n",
			want: map[cupid.RetentionKind]time.Duration{
				cupid.RetainTickets: 7 * 24 * time.Hour, cupid.RetainMatches: 30 * 24 * time.Hour, cupid.RetainEncounters: 48 * time.Hour}, batch: DefaultRetentionBatch},
		{name: "too short", yaml: "retention:\n  tickets: 10s\n", err: "retention.tickets: must be at least 1m0s"},
		{name: "not a duration", yaml: "retention:\n  matches: always\n", err: "retention.matches: must be a duration such as 7d"},
		{name: "batch too large", yaml: "retention:\n  batch: 1000000\n", err: "retention.batch: must be between 1 and 10000"},
		{name: "interval too short", yaml: "retention:\n  interval: 10ms\n", err: "retention.interval: must be between 1s and 24h0m0s"},
		{name: "unknown kind", yaml: "retention:\n  sessions: 1d\n", err: "retention.sessions"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := parseOrRefuse(t, queue+c.yaml, ".", c.err)
			if cfg == nil {
				return
			}
			got := cfg.Retention.Rules()
			if len(got) != len(c.want) {
				t.Fatalf("rules %v, want %v", got, c.want)
			}
			for k, d := range c.want {
				if got[k] != d {
					t.Errorf("%s kept %v, want %v", k, got[k], d)
				}
			}
			if cfg.Retention.Batch != c.batch || time.Duration(cfg.Retention.Pause) != DefaultRetentionPause || time.Duration(cfg.Retention.Interval) != time.Minute {
				t.Errorf("batch %d pause %v interval %v", cfg.Retention.Batch, cfg.Retention.Pause, cfg.Retention.Interval)
			}
		})
	}
}

// retentionRows are the retention settings' rows of
// TestEverySettingHasARow.
func retentionRows() []struct {
	setting string
	yaml    string
	read    func(*Config) bool
} {
	r := func(c *Config) Retention { return c.Retention }
	return []struct {
		setting string
		yaml    string
		read    func(*Config) bool
	}{
		{"retention.tickets", oneQueue + "retention: {tickets: 3d}\n", func(c *Config) bool { return r(c).Tickets.D == 72*time.Hour }},
		{"retention.matches", oneQueue + "retention: {matches: forever}\n", func(c *Config) bool { return r(c).Matches.Forever }},
		{"retention.rating_history", oneQueue + "retention: {rating_history: 400d}\n", func(c *Config) bool { return r(c).RatingHistory.D == 400*24*time.Hour }},
		{"retention.rating_results", oneQueue + "retention: {rating_results: 90d}\n", func(c *Config) bool { return r(c).RatingResults.D == 90*24*time.Hour }},
		{"retention.encounters", oneQueue + "retention: {encounters: 10d}\n", func(c *Config) bool { return r(c).Encounters.D == 10*24*time.Hour }},
		{"retention.batch", oneQueue + "retention: {batch: 50}\n", func(c *Config) bool { return r(c).Batch == 50 }},
		{"retention.pause", oneQueue + "retention: {pause: 1s}\n", func(c *Config) bool { return time.Duration(r(c).Pause) == time.Second }},
		{"retention.interval", oneQueue + "retention: {interval: 5m}\n", func(c *Config) bool { return time.Duration(r(c).Interval) == 5*time.Minute }},
		{"retention.export.dir", oneQueue + "retention: {export: {dir: /var/lib/cupid/export}}\n", func(c *Config) bool {
			return r(c).Export.Dir == "/var/lib/cupid/export" && slices.Equal(r(c).Export.Kinds, []cupid.RetentionKind{cupid.RetainTickets, cupid.RetainMatches})
		}},
		{"retention.export.kinds", oneQueue + "retention: {export: {dir: x, kinds: [matches]}}\n", func(c *Config) bool {
			return slices.Equal(r(c).Export.Kinds, []cupid.RetentionKind{cupid.RetainMatches})
		}},
	}
}

// TestRetentionExport: the export's directory is resolved against the
// configuration's; its kinds default to the exported kinds retention
// removes; an export that would not write what it says is refused naming
// the field.
func TestRetentionExport(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		dir        string
		kinds      []cupid.RetentionKind
		err        string
	}{
		{name: "off by default", yaml: ""},
		{name: "a directory, every kind removed", yaml: "retention:\n  rating_results: 90d\n  export: {dir: export}\n",
			dir: "/etc/cupid/export", kinds: []cupid.RetentionKind{cupid.RetainTickets, cupid.RetainMatches, cupid.RetainRatingResults}},
		{name: "an absolute directory, some kinds", yaml: "retention:\n  export: {dir: /data/export, kinds: [tickets]}\n",
			dir: "/data/export", kinds: []cupid.RetentionKind{cupid.RetainTickets}},
		{name: "kinds without a directory", yaml: "retention:\n  export: {kinds: [tickets]}\n", err: "retention.export.dir: required"},
		{name: "no kind", yaml: "retention:\n  export: {dir: x, kinds: []}\n", err: "retention.export.kinds: name at least one"},
		{name: "an unknown kind", yaml: "retention:\n  export: {dir: x, kinds: [tickets, sessions]}\n", err: `retention.export.kinds[1]: no kind of data "sessions"`},
		{name: "a kind not exported", yaml: "retention:\n  export: {dir: x, kinds: [encounters]}\n", err: "retention.export.kinds[0]: encounters are not exported"},
		{name: "twice", yaml: "retention:\n  export: {dir: x, kinds: [matches, matches]}\n", err: "retention.export.kinds[1]: matches is named twice"},
		{name: "kept for ever", yaml: "retention:\n  export: {dir: x, kinds: [rating_results]}\n", err: "retention.export.kinds[0]: retention.rating_results keeps rating_results for ever"},
		{name: "an unknown setting", yaml: "retention:\n  export: {directory: x}\n", err: "retention.export.directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := parseOrRefuse(t, oneQueue+c.yaml, "/etc/cupid", c.err)
			if cfg == nil {
				return
			}
			if e := cfg.Retention.Export; e.Dir != c.dir || !slices.Equal(e.Kinds, c.kinds) {
				t.Errorf("export %+v, want %s %v", e, c.dir, c.kinds)
			}
		})
	}
}

// parseOrRefuse parses a configuration that should load when wantErr is
// empty, and otherwise checks that it is refused with an error holding
// wantErr (returning nil).
func parseOrRefuse(t *testing.T, text, dir, wantErr string) *Config {
	t.Helper()
	cfg, err := ParseConfig([]byte(text), dir)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want %q", err, wantErr)
		}
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
