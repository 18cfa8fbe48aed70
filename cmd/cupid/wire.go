package main

import (
	"time"

	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// The services take plain values; only the command reads the
// configuration file. The functions below turn its sections into those
// values, setting by setting. A zero value stays zero: the service gives
// it its default.

// opponentFinders turns the configuration's opponent finders into the
// opponent service's Finders.
func opponentFinders(cfg *config.Config) []opponentsvc.Finder {
	out := make([]opponentsvc.Finder, 0, len(cfg.Opponents))
	for i := range cfg.Opponents {
		o := &cfg.Opponents[i]
		out = append(out, opponentsvc.Finder{
			Name:        o.Name,
			Seed:        o.Seed,
			PlayerTable: o.PlayerTable,
			MemoryOnly:  !o.Stores(),
			Opponent:    o.Finder,
		})
	}
	return out
}

// pairingLimits turns the configuration's pairing section into the
// pairing service's Limits.
func pairingLimits(cfg *config.Config) pairingsvc.Limits {
	p := cfg.Pairing
	return pairingsvc.Limits{
		MaxEvents:       p.MaxEvents,
		MaxParticipants: p.MaxParticipants,
		Defaults: pairingsvc.Defaults{
			Round:     time.Duration(p.Defaults.Round),
			Countdown: time.Duration(p.Defaults.Countdown),
			MinLobby:  p.Defaults.MinLobby,
		},
	}
}

// queueHandoff turns a queue's assign_timeout and on_assign_timeout into
// the ticket service's release policy.
func queueHandoff(qc *config.QueueConfig) (time.Duration, ticketsvc.OnTimeout) {
	return time.Duration(qc.AssignTimeout), ticketsvc.OnTimeout(qc.OnAssignTimeout)
}
