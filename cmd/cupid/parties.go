package main

import (
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
func partyService(cfg *config.Config, docs cupid.DocumentStore, mm *ticketsvc.Service, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*partysvc.Service, error) {
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
	return partysvc.New(partysvc.Options{Docs: docs, Tickets: mm, Queues: queues, Logger: log, Registry: reg, Now: now})
}
