package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/cluster"
	"github.com/cupid-match/cupid/service/lobbysvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// lobbyService builds the custom-game lobbies over the store and the
// ticket service (their starts become the queue's matches), with the
// documented limits (lobby.DefaultLimits).
func lobbyService(s store, mm *ticketsvc.Service, blocks lobbysvc.Blocks, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*lobbysvc.Service, error) {
	return lobbysvc.New(lobbysvc.Options{Docs: s, Matches: lobbysvc.FromTickets(mm), Blocks: blocks, Logger: log, Registry: reg, Now: now})
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

// lobbySingleton runs the lobbies as one of the cluster's singletons: on
// the node that holds cluster.LobbiesLease, under its fence. Until a node
// takes the lease its lobbies are stopped (the Forwarder hands their calls
// to the holder).
func lobbySingleton(svc *lobbysvc.Service, log *slog.Logger) cluster.Singleton {
	svc.StopEvents()
	return lobbyLease{svc, log}
}

type lobbyLease struct {
	svc *lobbysvc.Service
	log *slog.Logger
}

func (l lobbyLease) Start(f cupid.Fence) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := l.svc.RunEvents(ctx, f); err != nil {
		l.log.Error("loading the lobbies failed; they run on no node until the lease moves", "err", err)
	}
}

func (l lobbyLease) Stop() { l.svc.StopEvents() }
