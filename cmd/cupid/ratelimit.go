package main

import (
	"log/slog"
	"time"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/config"
)

// apiRateLimits are the handler's rate limits from server.rate_limits
// (checked, defaults filled), logged once at start.
func apiRateLimits(s config.Server, auth bool, now func() time.Time, log *slog.Logger) api.RateLimits {
	r := s.RateLimits
	if auth {
		log.Info("rate limits", "server_keys", r.ServerKeys.String(), "players", r.Players.String(), "max_buckets", r.MaxBuckets)
	} else {
		log.Info("rate limits", "anonymous", r.Anonymous.String(), "max_buckets", r.MaxBuckets)
	}
	return api.RateLimits{
		ServerKeys: api.RateLimit{Rate: r.ServerKeys.PerSecond(), Burst: r.ServerKeys.Burst},
		Players:    api.RateLimit{Rate: r.Players.PerSecond(), Burst: r.Players.Burst},
		Anonymous:  api.RateLimit{Rate: r.Anonymous.PerSecond(), Burst: r.Anonymous.Burst},
		MaxBuckets: r.MaxBuckets,
		Now:        now,
	}
}
