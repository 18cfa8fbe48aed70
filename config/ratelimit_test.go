package config

import (
	"strings"
	"testing"
)

func TestRateLimitDefaultsAndValues(t *testing.T) {
	cfg, err := ParseConfig([]byte(oneQueue), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Server.RateLimits
	if r.ServerKeys.PerSecond() != DefaultKeyRate || r.ServerKeys.Burst != 2*DefaultKeyRate ||
		r.Players.PerSecond() != DefaultPlayerRate || r.Players.Burst != DefaultPlayerBurst ||
		r.Anonymous.PerSecond() != DefaultAnonymousRate || r.MaxBuckets != DefaultMaxRateBuckets {
		t.Fatalf("defaults: %+v %+v %+v", r.ServerKeys, r.Players, r.Anonymous)
	}
	cfg, err = ParseConfig([]byte(oneQueue+`
server:
  rate_limits:
    server_keys: {rate: 0}
    players: {rate: 0.5}
    anonymous: {burst: 7}
    max_buckets: 5000
`), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r = cfg.Server.RateLimits
	if r.ServerKeys.PerSecond() != 0 || r.ServerKeys.String() != "off" ||
		r.Players.PerSecond() != 0.5 || r.Players.Burst != 1 ||
		r.Anonymous.PerSecond() != DefaultAnonymousRate || r.Anonymous.Burst != 7 || r.MaxBuckets != 5000 {
		t.Fatalf("set: %+v %+v %+v %d", r.ServerKeys, r.Players, r.Anonymous, r.MaxBuckets)
	}
	for _, c := range []struct{ yaml, want string }{
		{"server: {rate_limits: {players: {rate: -1}}}", "server.rate_limits.players.rate: must be between 0 (no limit) and 1e+09 calls a second, got -1"},
		{"server: {rate_limits: {server_keys: {burst: -3}}}", "server.rate_limits.server_keys.burst: must be between 1 and"},
		{"server: {rate_limits: {anonymous: {rate: fast}}}", "server.rate_limits.anonymous.rate: must be a number"},
		{"server: {rate_limits: {max_buckets: 3}}", "server.rate_limits.max_buckets: must be between 16 and 16777216"},
		{"server: {rate_limits: {player: {rate: 1}}}", "server.rate_limits.player: unknown setting; did you mean players?"},
	} {
		_, err := ParseConfig([]byte(oneQueue+c.yaml), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.yaml, err, c.want)
		}
	}
}

// rateLimitRows are TestEverySettingIsRead's rows of server.rate_limits.
func rateLimitRows() []struct {
	setting string
	yaml    string
	read    func(*Config) bool
} {
	rl := func(c *Config) *RateLimits { return &c.Server.RateLimits }
	y := func(s string) string { return oneQueue + "server: {rate_limits: {" + s + "}}\n" }
	return []struct {
		setting string
		yaml    string
		read    func(*Config) bool
	}{
		{"server.rate_limits.server_keys.rate", y("server_keys: {rate: 11}"), func(c *Config) bool { return rl(c).ServerKeys.PerSecond() == 11 }},
		{"server.rate_limits.server_keys.burst", y("server_keys: {burst: 12}"), func(c *Config) bool { return rl(c).ServerKeys.Burst == 12 }},
		{"server.rate_limits.players.rate", y("players: {rate: 13}"), func(c *Config) bool { return rl(c).Players.PerSecond() == 13 }},
		{"server.rate_limits.players.burst", y("players: {burst: 14}"), func(c *Config) bool { return rl(c).Players.Burst == 14 }},
		{"server.rate_limits.anonymous.rate", y("anonymous: {rate: 15}"), func(c *Config) bool { return rl(c).Anonymous.PerSecond() == 15 }},
		{"server.rate_limits.anonymous.burst", y("anonymous: {burst: 16}"), func(c *Config) bool { return rl(c).Anonymous.Burst == 16 }},
		{"server.rate_limits.max_buckets", y("max_buckets: 17"), func(c *Config) bool { return rl(c).MaxBuckets == 17 }},
	}
}
