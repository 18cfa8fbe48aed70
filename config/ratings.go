package config

import (
	"fmt"
	"strings"

	cupid "github.com/cupid-match/cupid"
)

// RatingConfig is one named rating, kept per player and updated from the
// results of its queues' matches (see docs/ratings.md):
//
//	ratings:
//	  - name: ranked-1v1
//	    model: openskill-pl
//	    mu: 1500
//	    sigma: 500
//	    leagues:
//	      margin: 25
//	      divisions: [{name: bronze}, {name: silver, min: 1200}, {name: gold, min: 1600}]
//	    fairplay: {tanking_factor: 3, streak_ease: 100, flagged: {raise: 200}}
type RatingConfig struct {
	Name string `yaml:"name"`
	// Model is openskill-pl (Weng-Lin Plackett-Luce), openskill-bt
	// (Weng-Lin Bradley-Terry) or glicko2.
	Model string `yaml:"model"`
	// K: the value matchmaking and leagues read is the mean less K
	// deviations; 3 for OpenSkill, 2 for Glicko-2 when absent.
	K *float64 `yaml:"k"`
	// OpenSkill's start (mu, sigma; defaults 25 and 25/3), performance
	// spread (beta; default sigma/2) and dynamics (tau; default 0).
	Mu    float64 `yaml:"mu"`
	Sigma float64 `yaml:"sigma"`
	Beta  float64 `yaml:"beta"`
	Tau   float64 `yaml:"tau"`
	// Glicko holds Glicko-2's settings.
	Glicko GlickoConfig `yaml:"glicko"`
	// Leagues are bands over the rating's value, with hysteresis.
	Leagues *LeaguesConfig `yaml:"leagues"`
	// FairPlay sets the fair-play checks and what their flags do.
	FairPlay FairPlayConfig `yaml:"fairplay"`
}

// GlickoConfig is Glicko-2's volatility constraint and rating period:
// no period (the default) rates each game at once, as Lichess does.
type GlickoConfig struct {
	Tau    float64  `yaml:"tau"`
	Period Duration `yaml:"period"`
}

// LeaguesConfig is a ladder of divisions: each from its min (the first
// from anywhere), promotion past the next floor plus margin, demotion
// below the own floor less margin.
type LeaguesConfig struct {
	Margin    float64          `yaml:"margin"`
	Divisions []DivisionConfig `yaml:"divisions"`
}

// DivisionConfig is one band of a league.
type DivisionConfig struct {
	Name string  `yaml:"name"`
	Min  float64 `yaml:"min"`
}

// FairPlayConfig holds the thresholds of rating.FairPlay (zero: its
// default) and the actions.
type FairPlayConfig struct {
	TankingFactor    float64 `yaml:"tanking_factor"`
	TankingMinLosses int     `yaml:"tanking_min_losses"`
	SmurfWindow      int     `yaml:"smurf_window"`
	SmurfExcess      float64 `yaml:"smurf_excess"`
	StreakLength     int     `yaml:"streak_length"`
	StreakEase       float64 `yaml:"streak_ease"`
	StreakGames      int     `yaml:"streak_games"`
	// Flagged is what a tanking or smurf flag does: raise the player's
	// matchmaking skill, route his tickets to a pool of their own.
	Flagged FlaggedConfig `yaml:"flagged"`
	// LeaverLowPriorityGames marks a reported leaver low priority for
	// this many games.
	LeaverLowPriorityGames int `yaml:"leaver_low_priority_games"`
}

// FlaggedConfig is what a fair-play flag does to the player's tickets.
type FlaggedConfig struct {
	Raise float64 `yaml:"raise"`
	Route bool    `yaml:"route"`
}

// QueueRatingConfig ties a queue to a rating: the server fills each
// player's Attribute (and DivisionAttribute) from it and refuses tickets
// that send them, and the queue's match results update it.
type QueueRatingConfig struct {
	Name              string `yaml:"name"`
	Attribute         string `yaml:"attribute"`
	DivisionAttribute string `yaml:"division_attribute"`
	// LowPriority is "pool" to send low-priority players' tickets to a
	// pool of their own, "wait" to hold them out of matching for
	// LowPriorityWait (one minute by default) in the same pool; empty
	// leaves them where they are.
	LowPriority     string   `yaml:"low_priority"`
	LowPriorityWait Duration `yaml:"low_priority_wait"`
}

// checkRatings validates the ratings and the queues' references to them.
func (c *Config) checkRatings(doc *document) {
	seen := map[string]bool{}
	for i := range c.Ratings {
		r := &c.Ratings[i]
		field := fmt.Sprintf("ratings[%d]", i)
		switch {
		case r.Name == "":
			doc.report(cupid.Invalid(field+".name", "a rating needs a name"))
		case seen[r.Name]:
			doc.report(cupid.Invalid(field+".name", "rating %q is defined twice", r.Name))
		}
		seen[r.Name] = true
		glicko := r.Model == "glicko2"
		switch r.Model {
		case "openskill-pl", "openskill-bt", "glicko2":
		default:
			doc.report(cupid.Invalid(field+".model", "must be openskill-pl, openskill-bt or glicko2, got %q", r.Model))
		}
		nonNegative := func(name string, v float64) {
			if !cupid.Finite(v) || v < 0 {
				doc.report(cupid.Invalid(field+"."+name, "must be a non-negative number, got %v", v))
			}
		}
		if r.K != nil {
			nonNegative("k", *r.K)
		}
		for name, v := range map[string]float64{"mu": r.Mu, "sigma": r.Sigma, "beta": r.Beta, "tau": r.Tau,
			"glicko.tau": r.Glicko.Tau, "fairplay.tanking_factor": r.FairPlay.TankingFactor, "fairplay.smurf_excess": r.FairPlay.SmurfExcess,
			"fairplay.streak_ease": r.FairPlay.StreakEase, "fairplay.flagged.raise": r.FairPlay.Flagged.Raise} {
			nonNegative(name, v)
		}
		for name, v := range map[string]int{"fairplay.tanking_min_losses": r.FairPlay.TankingMinLosses, "fairplay.smurf_window": r.FairPlay.SmurfWindow,
			"fairplay.streak_length": r.FairPlay.StreakLength, "fairplay.streak_games": r.FairPlay.StreakGames,
			"fairplay.leaver_low_priority_games": r.FairPlay.LeaverLowPriorityGames} {
			if v < 0 {
				doc.report(cupid.Invalid(field+"."+name, "must not be negative, got %d", v))
			}
		}
		if r.Glicko.Period < 0 {
			doc.report(cupid.Invalid(field+".glicko.period", "must not be negative (0: rate every game at once)"))
		}
		if !glicko && (r.Glicko != GlickoConfig{}) {
			doc.report(cupid.Invalid(field+".glicko", "only a glicko2 rating takes these settings"))
		}
		if glicko && (r.Mu != 0 || r.Sigma != 0 || r.Beta != 0 || r.Tau != 0) {
			doc.report(cupid.Invalid(field+".model", "mu, sigma, beta and tau are OpenSkill's settings; Glicko-2 starts at 1500 (its settings are under glicko)"))
		}
		if r.Leagues != nil && doc.known(field+".leagues") {
			if err := r.League().Validate(); err != nil {
				sub, msg, _ := strings.Cut(err.Error(), ": ")
				doc.report(cupid.Invalid(field+".leagues."+sub, "%s", msg))
			}
		}
	}
	for i := range c.Queues {
		q := &c.Queues[i]
		if q.Rating == nil {
			continue
		}
		field := fmt.Sprintf("queues[%d].rating", i)
		switch {
		case q.Rating.Name == "":
			doc.report(cupid.Invalid(field+".name", "required: the rating the queue reads and writes"))
		case !seen[q.Rating.Name]:
			doc.report(cupid.Invalid(field+".name", "no rating %q under ratings", q.Rating.Name))
		}
		if q.Rating.Attribute == "" {
			doc.report(cupid.Invalid(field+".attribute", "required: the player attribute the skill goes into (as mmr)"))
		}
		if q.Rating.DivisionAttribute != "" && q.Rating.DivisionAttribute == q.Rating.Attribute {
			doc.report(cupid.Invalid(field+".division_attribute", "must differ from attribute"))
		}
		switch q.Rating.LowPriority {
		case "", "pool", "wait":
		default:
			doc.report(cupid.Invalid(field+".low_priority", "must be pool or wait (or absent), got %q", q.Rating.LowPriority))
		}
		switch {
		case q.Rating.LowPriorityWait < 0:
			doc.report(cupid.Invalid(field+".low_priority_wait", "must not be negative"))
		case q.Rating.LowPriorityWait > 0 && q.Rating.LowPriority != "wait":
			doc.report(cupid.Invalid(field+".low_priority_wait", "needs low_priority: wait"))
		}
	}
}
