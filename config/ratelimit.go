package config

import (
	"fmt"
	"math"

	cupid "github.com/cupid-match/cupid"
)

// RateLimits give each caller a token bucket: a server key by its name, a
// player by his token's sub and, when auth is off, a client by its IP
// address. A call past its bucket is refused with resource_exhausted and
// a Retry-After; a CreateTickets counts as its number of tickets.
//
//	server:
//	  rate_limits:
//	    server_keys: {rate: 20000, burst: 40000}
//	    players: {rate: 10, burst: 40}
//	    anonymous: {rate: 0}      # 0 turns a limit off
//	    max_buckets: 100000
type RateLimits struct {
	// ServerKeys is each server key's bucket.
	ServerKeys RateLimit `yaml:"server_keys"`
	// Players is each player token's player's bucket.
	Players RateLimit `yaml:"players"`
	// Anonymous is each IP address's bucket when auth is off.
	Anonymous RateLimit `yaml:"anonymous"`
	// MaxBuckets bounds the buckets of each kind held at once; past it the
	// least recently seen caller's bucket is dropped.
	MaxBuckets int `yaml:"max_buckets"`
}

// RateLimit is one kind of caller's bucket: Rate calls a second refill it,
// it holds Burst. Rate absent takes the kind's default; 0 turns the limit
// off. Burst absent is the kind's default burst when the rate is absent
// too, else twice the rate (at least 1).
type RateLimit struct {
	Rate  *float64 `yaml:"rate"`
	Burst int      `yaml:"burst"`
}

// PerSecond is the checked rate; 0 when the limit is off.
func (r RateLimit) PerSecond() float64 {
	if r.Rate == nil {
		return 0
	}
	return *r.Rate
}

// The defaults of server.rate_limits: generous for the studio's trusted
// backends (above what one server takes: a runaway loop is what they
// catch), modest for game clients.
const (
	DefaultKeyRate        = 20_000
	DefaultPlayerRate     = 10
	DefaultPlayerBurst    = 40
	DefaultAnonymousRate  = 20_000
	DefaultMaxRateBuckets = 100_000
	maxRate               = 1e9
	maxBurst              = 1 << 30
)

// check fills the defaults and refuses bad values, naming the setting and
// reporting them to doc.
func (r *RateLimits) check(doc *document) {
	for _, l := range []struct {
		field string
		v     *RateLimit
		def   float64
		burst int
	}{
		{"server.rate_limits.server_keys", &r.ServerKeys, DefaultKeyRate, 2 * DefaultKeyRate},
		{"server.rate_limits.players", &r.Players, DefaultPlayerRate, DefaultPlayerBurst},
		{"server.rate_limits.anonymous", &r.Anonymous, DefaultAnonymousRate, 2 * DefaultAnonymousRate},
	} {
		if l.v.Rate == nil {
			d := l.def
			l.v.Rate = &d
			if l.v.Burst == 0 {
				l.v.Burst = l.burst
			}
		}
		rate := *l.v.Rate
		rateOK := !math.IsNaN(rate) && rate >= 0 && rate <= maxRate
		if !rateOK {
			doc.report(cupid.Invalid(l.field+".rate", "must be between 0 (no limit) and %g calls a second, got %v", float64(maxRate), rate))
		}
		if l.v.Burst < 0 || l.v.Burst > maxBurst {
			doc.report(cupid.Invalid(l.field+".burst", "must be between 1 and %d (absent: twice the rate), got %d", maxBurst, l.v.Burst))
			continue
		}
		if !rateOK {
			continue
		}
		if rate == 0 {
			l.v.Burst = 0
			continue
		}
		if l.v.Burst == 0 {
			l.v.Burst = int(min(math.Ceil(2*rate), maxBurst))
		}
	}
	switch {
	case r.MaxBuckets == 0:
		r.MaxBuckets = DefaultMaxRateBuckets
	case r.MaxBuckets < 16 || r.MaxBuckets > 1<<24:
		doc.report(cupid.Invalid("server.rate_limits.max_buckets", "must be between 16 and %d (0 or absent means %d), got %d", 1<<24, DefaultMaxRateBuckets, r.MaxBuckets))
	}
}

// String describes a limit for logs: "20000/s, burst 40000" or "off".
func (r RateLimit) String() string {
	if r.PerSecond() == 0 {
		return "off"
	}
	return fmt.Sprintf("%g/s, burst %d", r.PerSecond(), r.Burst)
}
