// Package ratingsvc closes the loop from match results back into
// matchmaking: a backend reports a match's result once, the service rates
// its players (Glicko-2 or the Weng-Lin OpenSkill models, package rating),
// places them in their league's divisions, runs the fair-play checks
// (tanking, smurfing, losing streaks, leavers) and keeps an operator's
// low-priority marks. At ticket intake it fills a rating-backed queue's
// skill attribute (and division) from the stored rating, so clients
// neither need to nor can send their own.
//
// Everything one result changes — the result, every player's new rating,
// history lines, flags, league counts, low-priority games left — is stored
// in one transaction (cupid.RatingStore.SaveResults), and results reported
// together share it: a group commit, one durable write for the batch, as
// ticket intake has. No lock is held across the store's reads and writes:
// every row a result rewrites is guarded by the body it was read with, so
// services sharing a store (servers sharing a database) never lose an
// update: a batch whose rows another writer changed meanwhile is worked out
// again from the new rows.
package ratingsvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/rating"
)

// Model names a rating system.
type Model string

// The rating systems a rating may use.
const (
	OpenSkillPL Model = "openskill-pl" // Weng-Lin Plackett-Luce
	OpenSkillBT Model = "openskill-bt" // Weng-Lin Bradley-Terry (full pairing)
	Glicko2     Model = "glicko2"
)

// Rating is one named rating, as plain values.
type Rating struct {
	Name  string
	Model Model
	// K is how many deviations the conservative estimate (the value
	// matchmaking and leagues read) lies below the mean: μ−kσ, R−k·RD.
	// Default 3 for OpenSkill, 2 for Glicko-2; set it with KSet to use 0.
	K    float64
	KSet bool
	// OpenSkill: a new player's Mu and Sigma (defaults 25 and 25/3),
	// Beta and Tau (see rating.WengLin).
	Mu, Sigma, Beta, Tau float64
	// Glicko-2: Tau (the volatility constraint; default 0.5) and Period:
	// zero rates every game at once (Lichess-style), otherwise games are
	// collected and rated together at the end of each period.
	GlickoTau float64
	Period    time.Duration
	// League is the rating's divisions, empty for none; the bands are
	// over the conservative value.
	League rating.League
	// FairPlay are the checks' thresholds; Flagged what a tanking or
	// smurf flag does to the player's tickets.
	FairPlay rating.FairPlay
	Flagged  FlagAction
	// LeaverLowPriorityGames marks a player reported as a leaver low
	// priority for this many games (0: leaving only costs rating).
	LeaverLowPriorityGames int
}

// FlagAction is what a tanking or smurf flag does to the player's
// tickets: Raise adds to his matchmaking skill (he meets stronger players,
// so losing on purpose buys nothing), Route sends his tickets to a pool of
// their own (the queue key's custom part gets FlaggedSuffix).
type FlagAction struct {
	Raise float64
	Route bool
}

// QueueRating ties a queue to a rating: its tickets' skill comes from it
// and its matches' results update it.
type QueueRating struct {
	Queue  string
	Rating string
	// Attribute is the player attribute the skill goes into ("mmr");
	// DivisionAttribute, when set, receives the division's index.
	Attribute         string
	DivisionAttribute string
	// LowPriority routes a low-priority player's tickets: "pool" (a pool
	// of their own: the custom key gets LowPrioritySuffix), "wait" (held
	// out of matching for LowPriorityWait, in the same pool: Ticket's
	// HeldUntil) or "" (not routed: the mark then only counts).
	LowPriority     string
	LowPriorityWait time.Duration
}

// DefaultLowPriorityWait is how long a low-priority player's ticket is held
// back under low_priority: wait when the queue sets no time.
const DefaultLowPriorityWait = time.Minute

// The suffixes of the custom key that route tickets to a pool of their own.
const (
	LowPrioritySuffix = "low-priority"
	FlaggedSuffix     = "fair-play"
)

// MatchReader reads committed matches: the ticket store.
type MatchReader interface {
	MatchRecord(ctx context.Context, id string) (*cupid.MatchRecord, error)
}

// Options configure a Service.
type Options struct {
	Store   cupid.RatingStore
	Matches MatchReader
	Ratings []Rating
	Queues  []QueueRating
	Logger  *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Registry receives the metrics; none are registered when nil.
	Registry prometheus.Registerer
	// JSONRows writes players' states and history lines as JSON, the form
	// the releases before the binary one (codec.go) read, instead of the
	// binary form; both are read either way. Set on a store several nodes
	// share: in a rolling upgrade the old nodes, still running, must read
	// what the new ones write. A later release writes the binary form there
	// too, once every release it may run beside reads it.
	JSONRows bool
}

// Service is the ratings service.
type Service struct {
	store   cupid.RatingStore
	matches MatchReader
	ratings map[string]*Rating
	names   []string
	queues  map[string]QueueRating
	log     *slog.Logger
	now     func() time.Time
	metrics *metrics
	// jsonRows is Options.JSONRows.
	jsonRows bool

	// The group commit's queue (commit.go): reports checked and waiting
	// to be rated, and whether a goroutine is committing them. commitMu
	// guards only these, never a store call.
	commitMu   sync.Mutex
	queue      []*request
	committing bool
	// known holds the rows being written and the players' rows written
	// last (known.go).
	known *known
}

// New checks the configuration and builds the service.
func New(o Options) (*Service, error) {
	if o.Store == nil || o.Matches == nil {
		return nil, errors.New("ratingsvc: a rating store and a match reader are required")
	}
	s := &Service{store: o.Store, matches: o.Matches, ratings: map[string]*Rating{}, queues: map[string]QueueRating{}, log: o.Logger, now: o.Now, known: newKnown(), jsonRows: o.JSONRows}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	for i := range o.Ratings {
		r := o.Ratings[i]
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("ratingsvc: rating %q: %w", r.Name, err)
		}
		if _, dup := s.ratings[r.Name]; dup {
			return nil, fmt.Errorf("ratingsvc: rating %q given twice", r.Name)
		}
		s.ratings[r.Name] = &r
		s.names = append(s.names, r.Name)
	}
	for _, q := range o.Queues {
		if s.ratings[q.Rating] == nil {
			return nil, fmt.Errorf("ratingsvc: queue %q reads rating %q, which is not configured", q.Queue, q.Rating)
		}
		if q.Attribute == "" {
			return nil, fmt.Errorf("ratingsvc: queue %q: the attribute the skill goes into is required", q.Queue)
		}
		switch q.LowPriority {
		case "", "pool":
		case "wait":
			if q.LowPriorityWait <= 0 {
				q.LowPriorityWait = DefaultLowPriorityWait
			}
		default:
			return nil, fmt.Errorf("ratingsvc: queue %q: low_priority must be pool, wait or empty, got %q", q.Queue, q.LowPriority)
		}
		s.queues[q.Queue] = q
	}
	s.metrics = newMetrics(o.Registry)
	return s, nil
}

// check reports a rating that cannot work.
func (r *Rating) check() error {
	if r.Name == "" {
		return errors.New("name: required")
	}
	switch r.Model {
	case OpenSkillPL, OpenSkillBT:
		if !r.KSet {
			r.K = 3
		}
	case Glicko2:
		if !r.KSet {
			r.K = 2
		}
	default:
		return fmt.Errorf("model: must be openskill-pl, openskill-bt or glicko2, got %q", r.Model)
	}
	for _, v := range []float64{r.K, r.Mu, r.Sigma, r.Beta, r.Tau, r.GlickoTau, r.Flagged.Raise} {
		if !cupid.Finite(v) || v < 0 {
			return fmt.Errorf("k, mu, sigma, beta, tau and raise must be non-negative numbers")
		}
	}
	if r.Period < 0 {
		return errors.New("period: must not be negative")
	}
	if len(r.League.Divisions) > 0 {
		if err := r.League.Validate(); err != nil {
			return fmt.Errorf("leagues: %w", err)
		}
	}
	if r.LeaverLowPriorityGames < 0 {
		return errors.New("leaver_low_priority_games: must not be negative")
	}
	return nil
}

// wengLin is the rating's Weng-Lin model.
func (r *Rating) wengLin() rating.WengLin {
	m := rating.PlackettLuce
	if r.Model == OpenSkillBT {
		m = rating.BradleyTerry
	}
	return rating.WengLin{Model: m, Mu: r.Mu, Sigma: r.Sigma, Beta: r.Beta, Tau: r.Tau}
}

func (r *Rating) glicko() rating.Glicko2Config { return rating.Glicko2Config{Tau: r.GlickoTau} }

// newPlayer is a player's state before his first rated game.
func (r *Rating) newPlayer(id string) *PlayerRating {
	p := &PlayerRating{Rating: r.Name, Player: id}
	if r.Model == Glicko2 {
		g := rating.NewGlicko2()
		p.Glicko = &g
	} else {
		sk := r.wengLin().New()
		p.Skill = &sk
	}
	p.Value = p.conservative(r.K)
	if len(r.League.Divisions) > 0 {
		p.Division = r.League.Initial(p.Value)
		p.League = r.League.Divisions[p.Division].Name
	}
	return p
}

// PlayerRating is a player's state under one rating, as stored (kind
// "player", id rating/player) and shown.
type PlayerRating struct {
	Rating string `json:"rating"`
	Player string `json:"player"`
	// Skill (OpenSkill) or Glicko is set, as the model says.
	Skill  *rating.Skill   `json:"skill,omitempty"`
	Glicko *rating.Glicko2 `json:"glicko,omitempty"`
	// Value is the conservative estimate leagues and matchmaking read.
	Value float64 `json:"value"`
	// League and Division name and number the player's division.
	League   string `json:"league,omitempty"`
	Division int    `json:"division"`
	Games    int    `json:"games"`
	Wins     int    `json:"wins"`
	Losses   int    `json:"losses"`
	Draws    int    `json:"draws"`
	Leaves   int    `json:"leaves"`
	// Day and LossesToday feed the tanking check (UTC days).
	Day         string `json:"day,omitempty"`
	LossesToday int    `json:"losses_today"`
	// Recent are the last games as the fair-play checks read them.
	Recent recentGames  `json:"recent,omitempty"`
	Flags  rating.Flags `json:"flags"`
	// PeriodStart and Pending are a Glicko-2 rating period in progress.
	PeriodStart time.Time     `json:"period_start,omitzero"`
	Pending     []rating.Game `json:"pending,omitempty"`
	UpdatedAt   time.Time     `json:"updated_at,omitzero"`

	// read is the stored body this state was read from (nil: none), the
	// guard of its rewrite.
	read []byte
}

func (p *PlayerRating) conservative(k float64) float64 {
	if p.Glicko != nil {
		return p.Glicko.Conservative(k)
	}
	return p.Skill.Conservative(k)
}

// Matchmaking is the skill a ticket carries: the conservative value, less
// a losing streak's ease, plus the raise of a fair-play flag.
func (p *PlayerRating) Matchmaking(a FlagAction) float64 {
	v := p.Value - p.Flags.Ease
	if p.Flags.Tanking || p.Flags.Smurf {
		v += a.Raise
	}
	return v
}

// LowPriority is an operator's mark (kind "low-priority", id player): the
// player's tickets in queues that route low priority go to a pool of their
// own until Until, for Games more rated games, or both (whichever ends
// first).
type LowPriority struct {
	Player string    `json:"player"`
	Until  time.Time `json:"until,omitzero"`
	Games  int       `json:"games,omitempty"`
	Reason string    `json:"reason,omitempty"`
	SetAt  time.Time `json:"set_at"`

	read []byte // the stored body, the guard of its rewrite
}

// Active reports whether the mark holds at now.
func (l *LowPriority) Active(now time.Time) bool {
	if l == nil {
		return false
	}
	if !l.Until.IsZero() && !now.Before(l.Until) {
		return false
	}
	if l.Until.IsZero() && l.Games <= 0 {
		return false
	}
	return true
}

// Row kinds of the rating store.
const (
	kindPlayer      = "player"
	kindLowPriority = "low-priority"
	kindLeagueDay   = "league-day"
)

func playerKey(ratingName, player string) string { return ratingName + "/" + player }

// leagueDay counts a division's players and losses on one UTC day (kind
// "league-day", id rating/division/day), for the tanking check.
type leagueDay struct {
	Players int `json:"players"`
	Losses  int `json:"losses"`

	read []byte // the stored body, the guard of its rewrite
}

// storeError makes a store failure a domain error, as ticketsvc does:
// unavailable, with the details in the log.
func (s *Service) storeError(err error) error {
	var e *cupid.Error
	if err == nil || errors.As(err, &e) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	s.log.Error("the rating store failed", "err", err)
	return cupid.Errorf(cupid.CodeUnavailable, "", "the store could not do this now; try again")
}

// Names lists the configured ratings in configuration order.
func (s *Service) Names() []string { return append([]string(nil), s.names...) }
