package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// duelRuleset is a small valid ruleset, written inline.
const duelRuleset = `{alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}}`

// oneQueue is the smallest configuration: one queue.
const oneQueue = "queues:\n  - {name: duel, ruleset: " + duelRuleset + "}\n"

// finderYAML is a configuration of one finder with its required settings,
// followed by extra settings of that finder (indented by four spaces).
func finderYAML(extra ...string) string {
	var b strings.Builder
	b.WriteString("opponents:\n  - name: f\n    player_cache_size: 1000\n    min_mmr: 0\n    max_mmr: 3000\n    mmr_bucket_count: 30\n")
	for _, e := range extra {
		for _, line := range strings.Split(strings.TrimRight(e, "\n"), "\n") {
			b.WriteString("    " + line + "\n")
		}
	}
	return b.String()
}

// problemAt is the problem of err about field, or its first problem when
// none is; nil when err holds no *Error. A file may hold problems besides
// the one a test is about: every one is reported.
func problemAt(err error, field string) *Error {
	var es Errors
	if errors.As(err, &es) {
		for _, e := range es {
			if e.Field == field {
				return e
			}
		}
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

func mustParse(t *testing.T, text string) *Config {
	t.Helper()
	cfg, err := ParseConfig([]byte(text), t.TempDir())
	if err != nil {
		t.Fatalf("ParseConfig:\n%s\nerr: %v", text, err)
	}
	return cfg
}

func TestDemoConfigLoads(t *testing.T) {
	cfg, err := DemoConfig()
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Queues) != 2 || cfg.Queues[0].Name != "duel" || cfg.Queues[1].Name != "squad5v5" {
		t.Fatalf("queues %+v, want duel and squad5v5", cfg.Queues)
	}
	for _, q := range cfg.Queues {
		if time.Duration(q.TicketTTL) != 10*time.Minute || len(q.RulesetJSON()) == 0 {
			t.Fatalf("queue %s: ttl %v, ruleset %s", q.Name, time.Duration(q.TicketTTL), q.RulesetJSON())
		}
	}
	if len(cfg.Opponents) != 1 {
		t.Fatalf("opponents %+v, want raid", cfg.Opponents)
	}
	raid := cfg.Opponents[0]
	if raid.Name != "raid" || !raid.Stores() || raid.Table() != "raid" || raid.Finder.PlayerCacheSize != 100000 ||
		raid.Finder.MmrBucketCount != 30 || !raid.Finder.Scan.Enabled || raid.Finder.Quality.Filter == "" {
		t.Fatalf("raid = %+v", raid)
	}
	if cfg.Pairing != (Pairing{}) {
		t.Fatalf("pairing %+v, want every limit left to the service's default", cfg.Pairing)
	}
}

// TestEverySettingIsRead gives every setting a value other than its
// default and checks that the value arrives in the Config. A setting that
// parses but goes nowhere would fail here; so would a new setting without
// a row (see TestEverySettingHasARowAndIsDocumented).
func TestEverySettingIsRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "duel.json"),
		[]byte(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	q := func(c *Config) *QueueConfig { return &c.Queues[0] }
	f := func(c *Config) *OpponentFinder { return &c.Opponents[0] }
	o := func(c *Config) opponent.Config { return c.Opponents[0].Finder }
	st := func(c *Config) opponent.Strategy { return c.Opponents[0].Finder.Strategies[0] }
	strategy := func(lines ...string) string {
		extra := []string{"attributes: [{name: league, type: string}]",
			"query_attributes: [{name: tier, type: string}]",
			"strategies:", "  - name: by_league", "    kind: ranged", "    attribute: league", "    query_attribute: tier",
			"    order: [bronze, silver, gold]"}
		for _, l := range lines {
			extra = append(extra, "    "+l)
		}
		return finderYAML(extra...)
	}
	rows := []struct {
		setting string
		yaml    string
		read    func(*Config) bool
	}{
		{"queues[].name", oneQueue, func(c *Config) bool { return q(c).Name == "duel" }},
		{"queues[].ticket_ttl", "queues:\n  - {name: d, ticket_ttl: 90s, ruleset: " + duelRuleset + "}\n",
			func(c *Config) bool { return time.Duration(q(c).TicketTTL) == 90*time.Second }},
		{"queues[].ruleset", oneQueue, func(c *Config) bool {
			return strings.Contains(string(q(c).RulesetJSON()), `"player_max_number":1`)
		}},
		{"queues[].max_keys", "queues:\n  - {name: d, max_keys: 5, ruleset: " + duelRuleset + "}\n",
			func(c *Config) bool { return q(c).MaxKeys == 5 }},
		{"queues[].assign_timeout", "queues:\n  - {name: d, assign_timeout: 30s, ruleset: " + duelRuleset + "}\n",
			func(c *Config) bool { return time.Duration(q(c).AssignTimeout) == 30*time.Second }},
		{"queues[].on_assign_timeout", "queues:\n  - {name: d, assign_timeout: 30s, on_assign_timeout: cancel, ruleset: " + duelRuleset + "}\n",
			func(c *Config) bool { return q(c).OnAssignTimeout == "cancel" }},
		{"queues[].leaver_window", "queues:\n  - {name: d, leaver_window: 45s, ruleset: " + duelRuleset + "}\n",
			func(c *Config) bool { return time.Duration(q(c).LeaverWindow) == 45*time.Second }},
		{"queues[].max_session", "queues:\n  - {name: d, max_session: 45m, ruleset: " + duelRuleset + "}\n",
			func(c *Config) bool { return q(c).Session() == 45*time.Minute }},
		{"queues[].party.all_ready", "queues:\n  - {name: d, party: {all_ready: true}, ruleset: " + duelRuleset + "}\n",
			func(c *Config) bool { return q(c).Party != nil && q(c).Party.AllReady }},
		{"queues[].acceptance.timeout", "queues:\n  - {name: d, acceptance: {timeout: 20s}, ruleset: " + duelRuleset + "}\n",
			func(c *Config) bool { return time.Duration(q(c).Acceptance.Timeout) == 20*time.Second }},
		{"queues[].acceptance.on_decline", "queues:\n  - {name: d, acceptance: {timeout: 20s, on_decline: requeue_last}, ruleset: " + duelRuleset + "}\n",
			func(c *Config) bool { return q(c).Acceptance.OnDecline == "requeue_last" }},
		{"queues[].ruleset_file", "queues:\n  - {name: d, ruleset_file: duel.json}\n", func(c *Config) bool {
			return q(c).RulesetFile == "duel.json" && strings.Contains(string(q(c).RulesetJSON()), `"player_max_number": 1`)
		}},

		{"opponents[].name", finderYAML(), func(c *Config) bool { return f(c).Name == "f" }},
		{"opponents[].seed", finderYAML("seed: 7"), func(c *Config) bool { return f(c).Seed == 7 }},
		{"opponents[].store_players", finderYAML("store_players: false"), func(c *Config) bool { return !f(c).Stores() }},
		{"opponents[].player_table", finderYAML("player_table: shared"), func(c *Config) bool { return f(c).Table() == "shared" }},
		{"opponents[].player_cache_size", finderYAML(), func(c *Config) bool { return o(c).PlayerCacheSize == 1000 }},
		{"opponents[].min_mmr", strings.Replace(finderYAML(), "min_mmr: 0", "min_mmr: -10", 1), func(c *Config) bool { return o(c).MinMMR == -10 }},
		{"opponents[].max_mmr", finderYAML(), func(c *Config) bool { return o(c).MaxMMR == 3000 }},
		{"opponents[].mmr_bucket_count", finderYAML(), func(c *Config) bool { return o(c).MmrBucketCount == 30 }},
		{"opponents[].bucket_min_size", finderYAML("bucket_min_size: 8"), func(c *Config) bool { return o(c).BucketMinSize == 8 }},
		{"opponents[].bucket_initial_size", finderYAML("bucket_initial_size: 64"), func(c *Config) bool { return o(c).BucketInitialSize == 64 }},
		{"opponents[].max_buckets", finderYAML("max_buckets: 40"), func(c *Config) bool { return o(c).MaxBuckets == 40 }},
		{"opponents[].max_candidates", finderYAML("max_candidates: 5"), func(c *Config) bool { return o(c).MaxCandidates == 5 }},
		{"opponents[].base_bucket_radius", finderYAML("base_bucket_radius: 2"), func(c *Config) bool { return o(c).BaseBucketRadius == 2 }},
		{"opponents[].retry_bucket_widening", finderYAML("retry_bucket_widening: 3"), func(c *Config) bool { return o(c).RetryBucketWidening == 3 }},
		{"opponents[].boundary_fraction", finderYAML("boundary_fraction: 0.5"), func(c *Config) bool { return o(c).BoundaryFraction == 0.5 }},
		{"opponents[].max_excluded", finderYAML("max_excluded: 9"), func(c *Config) bool { return o(c).MaxExcluded == 9 }},
		{"opponents[].player_remove_after_candidate_offer_threshold", finderYAML("player_remove_after_candidate_offer_threshold: 0.5"),
			func(c *Config) bool { return o(c).PlayerRemoveAfterCandidateOfferThreshold == "0.5" }},
		{"opponents[].player_ignore_update_insert_threshold", finderYAML("player_ignore_update_insert_threshold: never"),
			func(c *Config) bool { return o(c).PlayerIgnoreUpdateInsertThreshold == opponent.ThresholdNever }},
		{"opponents[].allow_multiple_entries_per_player", finderYAML("allow_multiple_entries_per_player: true"),
			func(c *Config) bool { return o(c).AllowMultipleEntriesPerPlayer }},
		{"opponents[].max_entries_per_player", finderYAML("allow_multiple_entries_per_player: true", "max_entries_per_player: 3"),
			func(c *Config) bool { return o(c).MaxEntriesPerPlayer == 3 }},
		{"opponents[].return_model", finderYAML("return_model: true"), func(c *Config) bool { return o(c).ReturnModel }},
		{"opponents[].attributes[].name", finderYAML("attributes: [{name: guild, type: string}]"),
			func(c *Config) bool { return o(c).Attributes[0].Name == "guild" }},
		{"opponents[].attributes[].type", finderYAML("attributes: [{name: guild, type: strings}]"),
			func(c *Config) bool { return o(c).Attributes[0].Type == "strings" }},
		{"opponents[].query_attributes[].name", finderYAML("query_attributes: [{name: streak, type: number}]"),
			func(c *Config) bool { return o(c).QueryAttributes[0].Name == "streak" }},
		{"opponents[].query_attributes[].type", finderYAML("query_attributes: [{name: streak, type: number}]"),
			func(c *Config) bool { return o(c).QueryAttributes[0].Type == "number" }},
		{"opponents[].strategies[].name", strategy("hard: false"), func(c *Config) bool { return st(c).Name == "by_league" }},
		{"opponents[].strategies[].kind", strategy("hard: false"), func(c *Config) bool { return st(c).Kind == opponent.KindRanged }},
		{"opponents[].strategies[].hard", strategy("hard: true"), func(c *Config) bool { return st(c).Hard }},
		{"opponents[].strategies[].attribute", strategy("hard: false"), func(c *Config) bool { return st(c).Attribute == "league" }},
		{"opponents[].strategies[].query_attribute", strategy("hard: false"), func(c *Config) bool { return st(c).QueryAttribute == "tier" }},
		{"opponents[].strategies[].max_distance", strategy("hard: true", "max_distance: 1"),
			func(c *Config) bool { return st(c).MaxDistance == 1 }},
		{"opponents[].strategies[].order", strategy("hard: false"), func(c *Config) bool {
			return reflect.DeepEqual(st(c).Order, []string{"bronze", "silver", "gold"})
		}},
		{"opponents[].quality.filter", finderYAML("quality: {filter: 'player.mmr > 0'}"),
			func(c *Config) bool { return o(c).Quality.Filter == "player.mmr > 0" }},
		{"opponents[].quality.score", finderYAML("quality: {score: '-player.mmr'}"),
			func(c *Config) bool { return o(c).Quality.Score == "-player.mmr" }},
		{"opponents[].quality.max_nodes", finderYAML("quality: {max_nodes: 64}"), func(c *Config) bool { return o(c).Quality.MaxNodes == 64 }},
		{"opponents[].fake_opponents.enabled", finderYAML("fake_opponents: {enabled: true}"), func(c *Config) bool { return o(c).FakeOpponents.Enabled }},
		{"opponents[].fake_opponents.mmr_jitter", finderYAML("fake_opponents: {mmr_jitter: 25}"),
			func(c *Config) bool { return o(c).FakeOpponents.MMRJitter == 25 }},
		{"opponents[].scan.enabled", finderYAML("scan: {enabled: true}"), func(c *Config) bool { return o(c).Scan.Enabled }},
		{"opponents[].scan.tick", finderYAML("scan: {tick: 250ms}"), func(c *Config) bool { return o(c).Scan.Tick == opponent.Duration(250*time.Millisecond) }},
		{"opponents[].scan.min_fetch", finderYAML("scan: {min_fetch: 7}"), func(c *Config) bool { return o(c).Scan.MinFetch == 7 }},
		{"opponents[].scan.max_fetch", finderYAML("scan: {min_fetch: 7, max_fetch: 70}"), func(c *Config) bool { return o(c).Scan.MaxFetch == 70 }},
		{"opponents[].sizing.interval", finderYAML("sizing: {interval: 3m}"),
			func(c *Config) bool { return o(c).Sizing.Interval == opponent.Duration(3*time.Minute) }},
		{"opponents[].sizing.min_samples", finderYAML("sizing: {min_samples: 12}"), func(c *Config) bool { return o(c).Sizing.MinSamples == 12 }},

		{"pairing.max_events", oneQueue + "pairing: {max_events: 3}\n", func(c *Config) bool { return c.Pairing.MaxEvents == 3 }},
		{"pairing.max_participants", oneQueue + "pairing: {max_participants: 30}\n", func(c *Config) bool { return c.Pairing.MaxParticipants == 30 }},
		{"pairing.defaults.round", oneQueue + "pairing: {defaults: {round: 7m}}\n",
			func(c *Config) bool { return time.Duration(c.Pairing.Defaults.Round) == 7*time.Minute }},
		{"pairing.defaults.countdown", oneQueue + "pairing: {defaults: {countdown: 4s}}\n",
			func(c *Config) bool { return time.Duration(c.Pairing.Defaults.Countdown) == 4*time.Second }},
		{"pairing.defaults.min_lobby", oneQueue + "pairing: {defaults: {min_lobby: 6}}\n",
			func(c *Config) bool { return c.Pairing.Defaults.MinLobby == 6 }},

		{"server.read_header_timeout", oneQueue + "server: {read_header_timeout: 3s}\n",
			func(c *Config) bool { return time.Duration(c.Server.ReadHeaderTimeout) == 3*time.Second }},
		{"server.read_timeout", oneQueue + "server: {read_timeout: 4s}\n", func(c *Config) bool { return time.Duration(c.Server.ReadTimeout) == 4*time.Second }},
		{"server.write_timeout", oneQueue + "server: {write_timeout: 5s}\n", func(c *Config) bool { return time.Duration(c.Server.WriteTimeout) == 5*time.Second }},
		{"server.idle_timeout", oneQueue + "server: {idle_timeout: 6s}\n", func(c *Config) bool { return time.Duration(c.Server.IdleTimeout) == 6*time.Second }},
		{"server.max_connections", oneQueue + "server: {max_connections: 7}\n", func(c *Config) bool { return c.Server.MaxConnections == 7 }},
		{"server.max_request_bytes", oneQueue + "server: {max_request_bytes: 8192}\n", func(c *Config) bool { return c.Server.MaxRequestBytes == 8192 }},
		{"server.max_connections_per_address", oneQueue + "server: {max_connections: 50, max_connections_per_address: 7}\n",
			func(c *Config) bool {
				return c.Server.MaxConnectionsPerAddress == 7 && c.Server.ConnectionsPerAddress() == 7
			}},
		{"server.max_header_bytes", oneQueue + "server: {max_header_bytes: 8192}\n", func(c *Config) bool { return c.Server.MaxHeaderBytes == 8192 }},
		{"server.max_watchers_per_ticket", oneQueue + "server: {max_watchers_per_ticket: 9}\n", func(c *Config) bool { return c.Server.MaxWatchersPerTicket == 9 }},
		{"server.max_watchers", oneQueue + "server: {max_watchers: 10}\n", func(c *Config) bool { return c.Server.MaxWatchers == 10 }},
		{"server.cors.allowed_origins", oneQueue + "server: {cors: {allowed_origins: ['https://a.example']}}\n",
			func(c *Config) bool {
				return reflect.DeepEqual(c.Server.CORS.AllowedOrigins, []string{"https://a.example"})
			}},
		{"server.tls.cert_file", oneQueue + "server: {tls: {cert_file: c.pem, key_file: k.pem}}\n",
			func(c *Config) bool { return c.Server.TLS.CertFile == filepath.Join(dir, "c.pem") }},
		{"server.tls.key_file", oneQueue + "server: {tls: {cert_file: c.pem, key_file: /k.pem}}\n",
			func(c *Config) bool { return c.Server.TLS.KeyFile == "/k.pem" }},
	}
	rows = append(rows, authRows(t, dir)...)
	rows = append(rows, rateLimitRows()...)
	rows = append(rows, opponentHoldRows()...)
	rows = append(rows, ratingRows()...)
	rows = append(rows, retentionRows()...)
	rows = append(rows, encounterRows()...)
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.setting] = true
		t.Run(r.setting, func(t *testing.T) {
			cfg, err := ParseConfig([]byte(r.yaml), dir)
			if err != nil {
				t.Fatalf("%s\nerr: %v", r.yaml, err)
			}
			if !r.read(cfg) {
				t.Fatalf("%s is not read from\n%s\ngot %+v", r.setting, r.yaml, cfg)
			}
		})
	}
	for _, s := range allSettings(reflect.TypeFor[Config](), "") {
		if !covered[s] {
			t.Errorf("setting %s has no row in this test", s)
		}
	}
}

// allSettings lists every setting a type reads, as "opponents[].scan.tick".
func allSettings(t reflect.Type, path string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case reflect.PointerTo(t).Implements(yamlUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler):
		return []string{path}
	case t.Kind() == reflect.Struct:
		var out []string
		for name, ft := range settingsOf(t) {
			out = append(out, allSettings(ft, joinField(path, name))...)
		}
		return out
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		return allSettings(t.Elem(), path+"[]")
	}
	return []string{path}
}

// TestEverySettingHasARowAndIsDocumented: each setting is named in the
// documentation of its section (README.md for queues, docs/opponents.md,
// docs/pairing.md).
func TestEverySettingIsDocumented(t *testing.T) {
	docs := map[string]string{"queues": "../README.md", "opponents": "../docs/opponents.md", "pairing": "../docs/pairing.md",
		"server": "../docs/configuration.md", "auth": "../docs/configuration.md", "ratings": "../docs/ratings.md",
		"retention": "../docs/configuration.md", "encounters": "../docs/encounters.md"}
	text := map[string]string{}
	for section, path := range docs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text[section] = string(b)
	}
	for _, s := range allSettings(reflect.TypeFor[Config](), "") {
		section, _, _ := strings.Cut(s, "[")
		section, _, _ = strings.Cut(section, ".")
		name := s[strings.LastIndexAny(s, ".]")+1:]
		if !containsWord(text[section], name) {
			t.Errorf("setting %s: %q is not in %s", s, name, docs[section])
		}
	}
}

// containsWord reports whether name appears in text with no letter, digit
// or '_' on either side.
func containsWord(text, name string) bool {
	word := func(b byte) bool {
		return b == '_' || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9')
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !word(text[start-1])) && (end == len(text) || !word(text[end])) {
			return true
		}
		i = start + 1
	}
}

// TestBadValuesNameTheLineAndTheSetting: every kind of mistake is reported
// with the line and column of the setting to fix and its path.
func TestBadValuesNameTheLineAndTheSetting(t *testing.T) {
	cases := []struct {
		name        string
		yaml        string
		line, col   int
		field, text string
	}{
		{"not a number", finderYAML("max_candidates: many"), 7, 21, "opponents[0].max_candidates", `must be a whole number, got "many"`},
		{"not whole", finderYAML("max_candidates: 2.5"), 7, 21, "opponents[0].max_candidates", "not whole"},
		{"negative seed", finderYAML("seed: -1"), 7, 11, "opponents[0].seed", "0 or more"},
		{"not a bool", finderYAML("return_model: maybe"), 7, 19, "opponents[0].return_model", "true or false"},
		{"list for text", finderYAML("quality: {filter: [a]}"), 7, 23, "opponents[0].quality.filter", "must be text, got a list"},
		{"text for a section", finderYAML("scan: on"), 7, 11, "opponents[0].scan", `must be a mapping of settings, got "on"`},
		{"bad duration", finderYAML("sizing: {interval: soon}"), 7, 24, "opponents[0].sizing.interval", "not a duration"},
		{"bad ttl", "queues:\n  - name: d\n    ticket_ttl: later\n", 3, 17, "queues[0].ticket_ttl", "must be a duration"},
		{"ttl too long", "queues:\n  - name: d\n    ticket_ttl: 1e300\n", 3, 17, "queues[0].ticket_ttl", "at most"},
		{"set twice", finderYAML("max_candidates: 4", "max_candidates: 5"), 8, 5, "opponents[0].max_candidates", "is set twice (first on line 7)"},
		{"empty list item", "queues:\n  - \n  - {name: d, ruleset: " + duelRuleset + "}\n", 2, 4, "queues[0]", "is empty"},
		{"zero cache", strings.Replace(finderYAML(), "player_cache_size: 1000", "player_cache_size: 0", 1), 3, 5,
			"opponents[0].player_cache_size", "must be greater than 0, got 0"},
		{"required setting left out", "opponents:\n  - name: f\n    min_mmr: 0\n", 2, 5, "opponents[0].player_cache_size", "must be greater than 0"},
		{"bad label type", finderYAML("attributes: [{name: league, type: string}]", "query_attributes: [{name: league, type: string}]",
			"strategies:", "  - {name: league, kind: sorted, attribute: league}"), 10, 24,
			"opponents[0].strategies[0].kind", `unknown label type "sorted"`},
		{"bad expression", finderYAML("quality:", "  score: player.nope +"), 8, 7, "opponents[0].quality.score", ""},
		{"bad threshold", finderYAML("player_ignore_update_insert_threshold: sometimes"), 7, 5,
			"opponents[0].player_ignore_update_insert_threshold", "sometimes"},
		{"scan without a table", finderYAML("store_players: false", "scan: {enabled: true}"), 8, 12, "opponents[0].scan.enabled", "store_players"},
		{"duplicate finder", finderYAML() + "  - {name: f, player_cache_size: 10, min_mmr: 0, max_mmr: 1, mmr_bucket_count: 1}\n", 7, 6,
			"opponents[1].name", "defined twice"},
		{"bad finder name", "opponents:\n  - {name: 'a b', player_cache_size: 10, min_mmr: 0, max_mmr: 1, mmr_bucket_count: 1}\n", 2, 6,
			"opponents[0].name", "letters, digits"},
		{"instances disagree", finderYAML("player_table: t") + "  - {name: g, player_table: t, store_players: false, player_cache_size: 10, min_mmr: 0, max_mmr: 1, mmr_bucket_count: 1}\n",
			8, 32, "opponents[1].store_players", "must agree"},
		{"queue without a name", "queues:\n  - {ruleset: " + duelRuleset + "}\n", 2, 5, "queues[0].name", "a queue needs a name"},
		{"queue twice", "queues:\n  - {name: d, ruleset: " + duelRuleset + "}\n  - {name: d, ruleset: " + duelRuleset + "}\n", 3, 6,
			"queues[1].name", "defined twice"},
		{"two rulesets", "queues:\n  - {name: d, ruleset_file: x.json, ruleset: " + duelRuleset + "}\n", 2, 5, "queues[0]", "not both"},
		{"no ruleset", "queues:\n  - name: d\n", 2, 5, "queues[0].ruleset", "a queue needs a ruleset"},
		{"missing ruleset file", "queues:\n  - name: d\n    ruleset_file: nope.json\n", 3, 5, "queues[0].ruleset_file", "nope.json"},
		{"bad inline ruleset", "queues:\n  - name: d\n    ruleset:\n      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}\n" +
			"      matching_rule:\n        - {attribute: mmr, criteria: distanse, reference: 100}\n", 6, 28,
			"queues[0].ruleset.matching_rule[0].criteria", `"distanse"`},
		{"negative max events", oneQueue + "pairing:\n  max_events: -1\n", 4, 3, "pairing.max_events", "must not be negative"},
		{"too many participants", oneQueue + "pairing: {max_participants: 100001}\n", 3, 11, "pairing.max_participants", "between 1 and 100000"},
		{"default lobby of one", oneQueue + "pairing:\n  defaults:\n    min_lobby: 1\n", 5, 5, "pairing.defaults.min_lobby", "between 2"},
		{"default round over a day", oneQueue + "pairing: {defaults: {round: 25h}}\n", 3, 22, "pairing.defaults.round", "at most 24h"},
		{"negative default countdown", oneQueue + "pairing: {defaults: {countdown: -1s}}\n", 3, 22, "pairing.defaults.countdown", "between 0"},
		{"syntax", "queues:\n  - name: d\n    ruleset: {alliance: [\n", 3, 1, "", "did not find expected"},
		{"tab indentation", "queues:\n\t- name: d\n", 2, 1, "", "YAML needs spaces"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.yaml), t.TempDir())
			e := problemAt(err, c.field)
			if e == nil {
				t.Fatalf("err = %v (%T), want an *Error", err, err)
			}
			if e.Line != c.line || e.Column != c.col || e.Field != c.field || !strings.Contains(e.Message, c.text) {
				t.Fatalf("err = %q (line %d, column %d, field %q), want line %d, column %d, field %q and %q",
					err, e.Line, e.Column, e.Field, c.line, c.col, c.field, c.text)
			}
			prefix := "line "
			if c.field != "" {
				prefix = c.field + ": "
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "line ") || !strings.Contains(msg, prefix) {
				t.Fatalf("message %q does not say the line and the setting", msg)
			}
		})
	}
}

// TestUnknownSettingsAreRefused: a misspelt or made-up setting at any level
// is an error naming it and its line, never silently dropped; so is a
// second YAML document.
func TestUnknownSettingsAreRefused(t *testing.T) {
	cases := []struct {
		name      string
		yaml      string
		line, col int
		field     string
		hint      string
	}{
		{"top level", oneQueue + "queue:\n  - x\n", 3, 1, "queue", "did you mean queues?"},
		{"top level, far off", oneQueue + "matchmaking: {}\n", 3, 1, "matchmaking", "opponents, pairing, queues"},
		{"queue", "queues:\n  - name: d\n    ttl: 5m\n    ruleset: " + duelRuleset + "\n", 3, 5, "queues[0].ttl", ""},
		{"finder", finderYAML("cache_size: 10"), 7, 5, "opponents[0].cache_size", "did you mean player_cache_size?"},
		{"finder, misspelt", finderYAML("retry_bucket_widenning: 2"), 7, 5, "opponents[0].retry_bucket_widenning", "did you mean retry_bucket_widening?"},
		{"attribute", finderYAML("attributes: [{name: a, type: number, default: 1}]"), 7, 42, "opponents[0].attributes[0].default", ""},
		{"strategy", finderYAML("attributes: [{name: a, type: string}]", "strategies: [{name: a, kind: distinct, attribute: a, weight: 2}]"),
			8, 58, "opponents[0].strategies[0].weight", ""},
		{"quality", finderYAML("quality: {filtre: x}"), 7, 15, "opponents[0].quality.filtre", "did you mean filter?"},
		{"fake opponents", finderYAML("fake_opponents: {enable: true}"), 7, 22, "opponents[0].fake_opponents.enable", "did you mean enabled?"},
		{"scan", finderYAML("scan:", "  enabled: true", "  interval: 1s"), 9, 7, "opponents[0].scan.interval", ""},
		{"sizing", finderYAML("sizing: {samples: 3}"), 7, 14, "opponents[0].sizing.samples", "did you mean min_samples?"},
		{"pairing", oneQueue + "pairing: {max_event: 3}\n", 3, 11, "pairing.max_event", "did you mean max_events?"},
		{"pairing defaults", oneQueue + "pairing:\n  defaults:\n    rounds: 5m\n", 5, 5, "pairing.defaults.rounds", "did you mean round?"},
		{"merged in", "queues:\n  - &q {name: a, ruleset: " + duelRuleset + "}\n  - <<: *q\n    nam: b\n", 4, 5, "queues[1].nam", "did you mean name?"},
		{"ruleset", "queues:\n  - name: d\n    ruleset:\n      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}\n      bogus: 1\n",
			5, 7, "queues[0].ruleset.bogus", "unknown field"},
		{"second document", oneQueue + "---\npairing: {max_events: 3}\n", 3, 1, "", "second YAML document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(c.yaml), ".")
			e := problemAt(err, c.field)
			if e == nil {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if e.Line != c.line || e.Column != c.col || e.Field != c.field || !strings.Contains(err.Error(), c.hint) {
				t.Fatalf("err = %q (line %d, column %d, field %q), want line %d, column %d, field %q, %q",
					err, e.Line, e.Column, e.Field, c.line, c.col, c.field, c.hint)
			}
		})
	}
}

// TestEmptyFilesAreRefused: a file with nothing in it names what it lacks.
func TestEmptyFilesAreRefused(t *testing.T) {
	for _, text := range []string{"", "# nothing yet\n", "---\n", "~\n", "pairing: {max_events: 3}\n", "queues: []\nopponents: []\n"} {
		_, err := ParseConfig([]byte(text), ".")
		if err == nil || !strings.Contains(err.Error(), "at least one queue") {
			t.Errorf("%q: err = %v, want one asking for a queue", text, err)
		}
	}
	if _, err := ParseConfig([]byte("[1, 2]\n"), "."); err == nil || !strings.Contains(err.Error(), "must be a mapping of settings") {
		t.Errorf("a list: err = %v", err)
	}
}

// TestInvalidErrorsKeepTheirCode: a value the program refuses stays a
// *cupid.Error inside the *Error, for callers that sort errors by code.
func TestInvalidErrorsKeepTheirCode(t *testing.T) {
	_, err := ParseConfig([]byte(oneQueue+"pairing: {max_events: -1}\n"), ".")
	var ce *cupid.Error
	if !errors.As(err, &ce) || ce.Code != cupid.CodeInvalid || ce.Field != "pairing.max_events" {
		t.Fatalf("err = %v, want a *cupid.Error on pairing.max_events inside", err)
	}
}

// TestLoadConfig: errors name the file; ruleset files are found beside the
// configuration, and their problems are placed in them.
func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cupid.yaml")
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("rulesets/duel.json", `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`)
	write("cupid.yaml", "queues:\n  - name: duel\n    ruleset_file: rulesets/duel.json\n")
	cfg, err := LoadConfig(path)
	if err != nil || len(cfg.Queues) != 1 || len(cfg.Queues[0].RulesetJSON()) == 0 {
		t.Fatalf("LoadConfig = %+v, %v", cfg, err)
	}

	write("cupid.yaml", "queues:\n  - name: duel\n    ruleset_file: rulesets/duel.json\n    ticket_ttl: -1m\n")
	_, err = LoadConfig(path)
	if err == nil || err.Error() != path+":4:5: queues[0].ticket_ttl: must not be negative" {
		t.Fatalf("err = %v", err)
	}

	write("rulesets/duel.json", "{\n  \"alliance\": {\"min_number\": 2, \"max_number\": 2, \"player_min_number\": 1, \"player_max_number\": 1},\n  \"bogus\": true\n}\n")
	write("cupid.yaml", "queues:\n  - name: duel\n    ruleset_file: rulesets/duel.json\n")
	_, err = LoadConfig(path)
	var e *Error
	if !errors.As(err, &e) || e.File != filepath.Join(dir, "rulesets/duel.json") || e.Line != 3 || e.Field != "bogus" ||
		!strings.Contains(e.Message, `queue "duel"`) {
		t.Fatalf("err = %v, want the problem placed in the ruleset file", err)
	}

	if _, err := LoadConfig(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("missing file: err = %v", err)
	}
}

// TestDurations: a duration is Go duration text or a number of seconds.
func TestDurations(t *testing.T) {
	for text, want := range map[string]time.Duration{"90s": 90 * time.Second, "10m": 10 * time.Minute, "90": 90 * time.Second,
		"1.5": 1500 * time.Millisecond, "1h30m": 90 * time.Minute} {
		cfg := mustParse(t, "queues:\n  - {name: d, ticket_ttl: "+text+", ruleset: "+duelRuleset+"}\n")
		if got := time.Duration(cfg.Queues[0].TicketTTL); got != want {
			t.Errorf("ticket_ttl %s = %v, want %v", text, got, want)
		}
	}
	cfg := mustParse(t, oneQueue)
	if time.Duration(cfg.Queues[0].TicketTTL) != DefaultTicketTTL {
		t.Errorf("default ticket_ttl = %v", time.Duration(cfg.Queues[0].TicketTTL))
	}
	for _, bad := range []string{"soon", ".nan", ".inf", "-.inf", "1e300", "[1]", "{a: 1}"} {
		if _, err := ParseConfig([]byte("queues:\n  - {name: d, ticket_ttl: "+bad+", ruleset: "+duelRuleset+"}\n"), "."); err == nil ||
			!strings.Contains(err.Error(), "queues[0].ticket_ttl") {
			t.Errorf("ticket_ttl %s: err = %v", bad, err)
		}
	}
}

// TestAliasesAndMerges: YAML's anchors, aliases and merge keys work, an
// alias inside its own anchor is refused, and so is a file whose aliases
// expand beyond reason.
func TestAliasesAndMerges(t *testing.T) {
	cfg := mustParse(t, "queues:\n  - &q {name: a, ticket_ttl: 1m, ruleset: "+duelRuleset+"}\n  - <<: *q\n    name: b\n")
	if len(cfg.Queues) != 2 || cfg.Queues[1].Name != "b" || time.Duration(cfg.Queues[1].TicketTTL) != time.Minute {
		t.Fatalf("queues = %+v", cfg.Queues)
	}
	if _, err := ParseConfig([]byte("queues: &x [*x]\n"), "."); err == nil {
		t.Fatal("a list holding itself was accepted")
	}
	// Each mapping merges ten of the one before: 10^14 settings.
	bomb := "queues:\n  - &m0 {ticket_ttl: 1m}\n"
	for i := 1; i < 15; i++ {
		bomb += fmt.Sprintf("  - &m%d\n    <<: [%s]\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*m%d,", i-1), 10), ","))
	}
	start := time.Now()
	if _, err := ParseConfig([]byte(bomb), "."); err == nil || !strings.Contains(err.Error(), "expands to more than") {
		t.Fatalf("alias bomb: err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("alias bomb took %v", d)
	}
}
