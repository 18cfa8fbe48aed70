package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"

	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/party"
	"github.com/cupid-match/cupid/service/partysvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// partyService builds the party service over the ticket service: each
// queue's largest party is its ruleset's player_max_number (the most a
// team holds, at any step of its alliance flexing), and whether it wants
// every member ready comes from its party section.
func partyService(cfg *config.Config, docs cupid.DocumentStore, mm *ticketsvc.Service, blocks partysvc.Blocks, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*partysvc.Service, error) {
	queues := map[string]party.QueueRules{}
	for i := range cfg.Queues {
		qc := &cfg.Queues[i]
		var r party.QueueRules
		if rules := qc.Rules(); rules != nil {
			for _, step := range rules.Alliance {
				r.MaxParty = max(r.MaxParty, step.PlayerMaxNumber)
			}
		}
		if qc.Party != nil {
			r.AllReady = qc.Party.AllReady
		}
		queues[qc.Name] = r
	}
	return partysvc.New(partysvc.Options{Docs: docs, Tickets: mm, Queues: queues, Blocks: blocks, Logger: log, Registry: reg, Now: now})
}

// partiesLease runs the parties while this node holds their lease (a
// cluster.Singleton): they load from the store with the lease's fence.
type partiesLease struct {
	parties *partysvc.Service
	log     *slog.Logger
}

func (p partiesLease) Start(f cupid.Fence) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.parties.RunParties(ctx, f); err != nil {
		p.log.Error("loading the parties failed; they run on no node until the lease moves", "err", err)
	}
}

func (p partiesLease) Stop() { p.parties.StopParties() }
