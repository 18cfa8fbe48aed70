// Package handoff is what becomes of a match once its pool has committed
// it: the match log backends follow (WatchMatches), the assignment of a
// game server, the release of a match nobody assigned in time, the ready
// check in which the players accept or decline a match, and the game
// session a match becomes (backfill, leavers, its end).
//
// It owns no goroutine per pool and no ticket while it waits: the pools
// belong to package ticketsvc, which the hand-off reaches only through the
// small Pools interface below (hand requeued tickets back, tell a pool of a
// session's change, the queue's ruleset and the node's fence). Every rule
// about what may happen to a match is the lifecycle's (package lifecycle);
// this package reads what a step needs, calls the step under the right
// fence, then tells watchers — persist, then publish, as for tickets.
//
// Its tests run over the in-memory store (package memstore) with a
// stand-in for the pools, so each rule is checked without a pool's timing.
package handoff

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/ruleset"
)

// Store is what the hand-off reads and writes: the lifecycle's steps run
// through Update; the rest are reads. A store that also implements
// cupid.Pruner has its match log's horizon checked by WatchMatches.
type Store interface {
	cupid.Updater
	Tickets(ctx context.Context, f cupid.TicketFilter) ([]*cupid.Ticket, error)
	MatchRecord(ctx context.Context, id string) (*cupid.MatchRecord, error)
	Matches(ctx context.Context, f cupid.MatchFilter) ([]*cupid.MatchRecord, error)
	MatchEvents(ctx context.Context, queue string, afterSeq int64, limit int) ([]cupid.MatchEvent, error)
	MatchAnswers(ctx context.Context, id string) ([]cupid.Answer, error)
	OpenSessions(ctx context.Context) ([]*cupid.MatchRecord, error)
}

// Pools is what the hand-off asks of the pools that run its queues. It is
// an interface so that this package need not know how pools work; package
// ticketsvc provides it.
type Pools interface {
	// Owned is the fence of the writes this node makes for a queue it runs
	// (none on a store of its own); ok is false when another node runs
	// the queue, which then also runs its deadlines and sessions.
	Owned(queue string) (f cupid.Fence, ok bool)
	// Requeue hands tickets a release put back to waiting to their pools,
	// before anyone hears of them (as new tickets reach their pool before
	// their creation is told). Tickets of a queue no longer configured
	// stay in the store, for the next start to cancel.
	Requeue(ts []*cupid.Ticket)
	// SetSession tells the pool of a session's queue key what the store
	// holds after the change whose match event is seq: a session open to
	// backfill is held open with its players' data; any other is let go
	// (players is then nil). It does not wait for the pool.
	SetSession(rec *cupid.MatchRecord, seq int64, players map[string]cupid.Player, at time.Time)
	// LoadSession gives an open session back to its pool at start or when
	// the node takes its queue over, and returns once the pool holds it;
	// false when another node runs the queue now.
	LoadSession(rec *cupid.MatchRecord, players map[string]cupid.Player) (bool, error)
	// Rules is a queue's ruleset now (it may be replaced at run time) and
	// the engine that checks against it; nil, nil for an unknown queue.
	Rules(queue string) (*ruleset.Compiled, *engine.Pool)
}

// Publisher tells the watchers of tickets their events (package
// ticketsvc's hub), once they are stored.
type Publisher interface {
	Publish(evs ...cupid.Event)
}

// Policy is a queue's hand-off settings, from the configuration; a zero
// Policy has no deadlines and no ready check.
type Policy struct {
	// AssignTimeout releases a match no backend assigned within it (zero:
	// never); OnAssignTimeout says what becomes of its tickets.
	AssignTimeout   time.Duration
	OnAssignTimeout OnTimeout
	// Acceptance asks the players of each match to accept it (accept.go).
	Acceptance Acceptance
	// LeaverWindow is how long after a session's assignment a player who
	// leaves it is replaced by backfill (session.go); zero: never.
	LeaverWindow time.Duration
	// MaxSession ends a match's session this long after the match formed
	// when its backend has not (session.go); zero: never.
	MaxSession time.Duration
}

// Check checks the settings and fills their defaults (requeue on an
// assign timeout, cancel on a decline); errors name the setting.
func (p *Policy) Check() error {
	if err := p.checkAssignTimeout(); err != nil {
		return err
	}
	if err := p.checkAcceptance(); err != nil {
		return err
	}
	if p.LeaverWindow < 0 {
		return errors.New("leaver_window must not be negative")
	}
	if p.MaxSession < 0 {
		return errors.New("max_session must not be negative")
	}
	return nil
}

// Options configure a Service.
type Options struct {
	Store  Store
	Pools  Pools
	Events Publisher
	// Queues are the configured queues' policies by name: the hand-off
	// knows no other queue. A queue's policy stays as configured when its
	// ruleset is replaced.
	Queues map[string]Policy
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Tracer makes the span of AssignMatch; none when nil.
	Tracer trace.Tracer
	// Tickets counts tickets by queue and the state they entered (a
	// release cancels some); ReadyChecks counts ready checks by queue and
	// outcome. Unregistered counters are made when nil.
	Tickets     *prometheus.CounterVec
	ReadyChecks *prometheus.CounterVec
}

// Service is the hand-off of committed matches and their sessions.
type Service struct {
	store       Store
	pools       Pools
	events      Publisher
	policies    map[string]Policy
	log         *slog.Logger
	now         func() time.Time
	tracer      trace.Tracer
	tickets     *prometheus.CounterVec
	readyChecks *prometheus.CounterVec
	wakers      *wakers

	// ctx ends with Close: match watches end and the deadlines stop.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New builds the hand-off; Start starts its deadlines.
func New(o Options) (*Service, error) {
	if o.Store == nil || o.Pools == nil || o.Events == nil {
		return nil, errors.New("handoff: a store, the pools and a publisher are required")
	}
	s := &Service{
		store:       o.Store,
		pools:       o.Pools,
		events:      o.Events,
		policies:    make(map[string]Policy, len(o.Queues)),
		log:         o.Logger,
		now:         o.Now,
		tracer:      o.Tracer,
		tickets:     o.Tickets,
		readyChecks: o.ReadyChecks,
		wakers:      newWakers(),
	}
	for name, p := range o.Queues {
		if err := p.Check(); err != nil {
			return nil, fmt.Errorf("handoff: queue %s: %w", name, err)
		}
		s.policies[name] = p
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.tracer == nil {
		s.tracer = noop.NewTracerProvider().Tracer("")
	}
	if s.tickets == nil {
		s.tickets = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_tickets_total"}, []string{"queue", "state"})
	}
	if s.readyChecks == nil {
		s.readyChecks = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_ready_checks_total"}, []string{"queue", "outcome"})
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// Start starts, for each queue with a deadline (assign timeout, ready
// check, session length), the goroutine that keeps it. The pools are
// given their open sessions separately (LoadSessions), as the service
// that runs them decides when.
func (s *Service) Start() {
	s.runDeadlines(func(p Policy) bool { return p.AssignTimeout > 0 }, s.releaseDue)
	s.runDeadlines(func(p Policy) bool { return p.Acceptance.Timeout > 0 }, s.acceptDue)
	s.runDeadlines(func(p Policy) bool { return p.MaxSession > 0 }, s.endDue)
}

// Close stops the deadlines and ends the match watches, and returns once
// the deadlines' goroutines have ended.
func (s *Service) Close() {
	s.cancel()
	s.wg.Wait()
}

// policy returns a configured queue's policy.
func (s *Service) policy(queue string) (Policy, bool) {
	p, ok := s.policies[queue]
	return p, ok
}

// checkQueue refuses a missing or unconfigured queue name.
func (s *Service) checkQueue(name string) error {
	if name == "" {
		return cupid.Invalid("queue", "required")
	}
	if _, ok := s.policies[name]; !ok {
		return cupid.NotFound("queue", "no queue %q", name)
	}
	return nil
}
