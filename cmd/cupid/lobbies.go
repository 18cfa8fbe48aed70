package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cupid-match/cupid/service/lobbysvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// lobbyService builds the custom-game lobbies over the store and the
// ticket service (their starts become the queue's matches), with the
// documented limits (lobby.DefaultLimits).
func lobbyService(s store, mm *ticketsvc.Service, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*lobbysvc.Service, error) {
	return lobbysvc.New(lobbysvc.Options{Docs: s, Matches: mm, Logger: log, Registry: reg, Now: now})
}

// sweepLobbies forgets finished lobbies once a minute, until ctx ends, so a
// quiet server does not keep them past their retention.
func sweepLobbies(ctx context.Context, svc *lobbysvc.Service) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			svc.Sweep(ctx)
		}
	}
}
