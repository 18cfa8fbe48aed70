package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/cluster"
	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/service/encountersvc"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/ratingsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// encounterService builds the history of who met whom. Every store keeps
// it; the configuration's encounters section says which queues' matches
// are recorded and whose tickets are filled. watch reads a queue's match
// log; it is called only once the followers run, after the ticket service
// exists.
func encounterService(cfg *config.Config, st store, watch encountersvc.WatchFunc, mm **ticketsvc.Service, ratings *ratingsvc.Service, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*encountersvc.Service, error) {
	o := encountersvc.Options{Store: st.(cupid.EncounterStore), Docs: st, Watch: watch, Matches: laterMatches{mm}, Logger: log, Registry: reg, Now: now}
	if e := cfg.Encounters; e != nil {
		o.Window = e.Window()
		o.RematchWindow = time.Duration(e.RematchWindow)
		if r := e.Reports; r != nil {
			o.Reports = r.Rules()
			if ratings != nil {
				games := r.Games()
				o.MarkLowPriority = func(ctx context.Context, player, reason string) error {
					_, err := ratings.SetLowPriority(ctx, player, 0, games, reason)
					return err
				}
			}
		}
		for _, q := range e.Queues {
			o.Queues = append(o.Queues, encountersvc.Queue{Name: q.Name, MetWithin: time.Duration(q.MetWithin)})
			o.Follow = append(o.Follow, q.Name)
		}
	} else {
		o.Window = encounter.DefaultWindow
	}
	return encountersvc.New(o)
}

var (
	_ opponentsvc.History   = (*encountersvc.Service)(nil)
	_ pairingsvc.Encounters = (*encountersvc.Service)(nil)
)

// laterMatches forms a rematch's match through the ticket service, which
// is built after the history (its intake reads the history).
type laterMatches struct{ mm **ticketsvc.Service }

func (l laterMatches) CommitFormed(ctx context.Context, f ticketsvc.FormedMatch) (*cupid.MatchRecord, error) {
	return (*l.mm).CommitFormed(ctx, f)
}

// encounterFinders lists the opponent finders that read and write the
// history, with their rules.
func encounterFinders(cfg *config.Config) map[string]opponentsvc.HistoryRules {
	if cfg.Encounters == nil {
		return nil
	}
	out := map[string]opponentsvc.HistoryRules{}
	for _, f := range cfg.Encounters.Opponents {
		out[f.Name] = opponentsvc.HistoryRules{NotSameDefenderWithin: time.Duration(f.NotSameDefenderWithin)}
	}
	return out
}

// intakes runs the ticket service's intake steps in order, the first
// refusal winning: the ratings' skill, then the encounters' lists.
type intakes []ticketsvc.Intake

func (in intakes) PrepareTicket(ctx context.Context, t *cupid.Ticket) error {
	for _, i := range in {
		if err := i.PrepareTicket(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// intakeSteps is the ticket service's intake: the ratings service when
// there is one, then the encounters.
func intakeSteps(ratings ticketsvc.Intake, enc *encountersvc.Service) ticketsvc.Intake {
	if ratings == nil {
		return enc
	}
	return intakes{ratings, enc}
}

// encounterLease is the lease of the node that follows the queues' match
// logs into the encounter history (a cluster.Singleton): one node records
// them, and a node taking over reads on from the stored cursors.
const encounterLease = "encounters"

// encounterSerialised are the encounter calls the lease's node serves:
// the rematch steps and reports, each a read-decide-write of one document.
var encounterSerialised = []string{
	cupidv1connect.EncounterServiceRequestRematchProcedure,
	cupidv1connect.EncounterServiceAnswerRematchProcedure,
	cupidv1connect.EncounterServiceReportPlayerProcedure,
}

// encounterSingleton runs the encounter followers under encounterLease.
func encounterSingleton(svc *encountersvc.Service) cluster.Singleton { return followers{svc} }

type followers struct{ svc *encountersvc.Service }

func (f followers) Start(fence cupid.Fence) { f.svc.RunFollowers(context.Background(), fence) }
func (f followers) Stop()                   { f.svc.StopFollowers() }
