package main

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/rating"
	"github.com/cupid-match/cupid/service/ratingsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// ratingService builds the ratings service from the configuration's
// ratings and rating-backed queues. Every store the server opens keeps
// ratings too; nil when none is configured.
func ratingService(cfg *config.Config, st store, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*ratingsvc.Service, error) {
	if len(cfg.Ratings) == 0 {
		return nil, nil
	}
	return ratingsvc.New(ratingsvc.Options{
		Store: st.(cupid.RatingStore), Matches: st, Ratings: ratings(cfg), Queues: ratingQueues(cfg),
		Logger: log, Registry: reg, Now: now,
		// Old nodes of a rolling upgrade read JSON only.
		JSONRows: sharedOf(st) != nil,
	})
}

// ratings turns the configuration's ratings into the service's values.
func ratings(cfg *config.Config) []ratingsvc.Rating {
	out := make([]ratingsvc.Rating, len(cfg.Ratings))
	for i := range cfg.Ratings {
		r := &cfg.Ratings[i]
		f := r.FairPlay
		out[i] = ratingsvc.Rating{
			Name: r.Name, Model: ratingsvc.Model(r.Model),
			Mu: r.Mu, Sigma: r.Sigma, Beta: r.Beta, Tau: r.Tau,
			GlickoTau: r.Glicko.Tau, Period: time.Duration(r.Glicko.Period),
			League: r.League(),
			FairPlay: rating.FairPlay{
				TankingFactor: f.TankingFactor, TankingMinLosses: f.TankingMinLosses,
				SmurfWindow: f.SmurfWindow, SmurfExcess: f.SmurfExcess,
				StreakLength: f.StreakLength, StreakEase: f.StreakEase, StreakGames: f.StreakGames,
			},
			Flagged:                ratingsvc.FlagAction{Raise: f.Flagged.Raise, Route: f.Flagged.Route},
			LeaverLowPriorityGames: f.LeaverLowPriorityGames,
		}
		if r.K != nil {
			out[i].K, out[i].KSet = *r.K, true
		}
	}
	return out
}

// ratingQueues lists the rating-backed queues.
func ratingQueues(cfg *config.Config) []ratingsvc.QueueRating {
	var out []ratingsvc.QueueRating
	for _, q := range cfg.Queues {
		if q.Rating == nil {
			continue
		}
		out = append(out, ratingsvc.QueueRating{
			Queue: q.Name, Rating: q.Rating.Name, Attribute: q.Rating.Attribute,
			DivisionAttribute: q.Rating.DivisionAttribute, LowPriority: q.Rating.LowPriority,
			LowPriorityWait: time.Duration(q.Rating.LowPriorityWait),
		})
	}
	return out
}

// ratingIntake is the ticket service's intake step: the ratings service,
// or none (a nil *ratingsvc.Service must not become a non-nil interface).
func ratingIntake(r *ratingsvc.Service) ticketsvc.Intake {
	if r == nil {
		return nil
	}
	return r
}
