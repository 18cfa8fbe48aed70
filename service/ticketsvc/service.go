// Package ticketsvc is the real-time ticket service behind the API: it makes
// tickets durable, runs one goroutine per pool around the pure engine,
// commits the matches the engine proposes, ends tickets (cancel, expiry,
// refusal) and tells watchers.
//
// The order of every change is persist, then publish: a caller hears "yes"
// only once the store holds the ticket, and a watcher hears "matched" only
// once the match is committed. A restart reloads the waiting tickets with
// their original age. Every acknowledged ticket reaches a final state: one
// the engine refuses (a new ruleset, a restart with another configuration)
// is cancelled with a reason, and expiry is kept by the pool, not the engine.
package ticketsvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/ticketsvc/canary"
	"github.com/cupid-match/cupid/service/ticketsvc/handoff"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
	"github.com/cupid-match/cupid/service/ticketsvc/replace"
	"github.com/cupid-match/cupid/service/ticketsvc/rulesets"
	"github.com/cupid-match/cupid/service/ticketsvc/stats"
	"github.com/cupid-match/cupid/waitest"
)

// Queue is one configured queue, as plain values.
type Queue struct {
	Name string
	// TTL is how long a ticket waits before it expires.
	TTL time.Duration
	// Ruleset is the ruleset document (JSON); Rules, when set, is the same
	// document compiled already (the configuration's), so it is not
	// compiled again.
	Ruleset []byte
	Rules   *ruleset.Compiled
	// MaxKeys bounds the queue keys (version and custom key pairs) that
	// may have live tickets at once; DefaultMaxKeys when zero. A create
	// that would open one more is refused with resource_exhausted.
	MaxKeys int
	// AssignTimeout releases a match no backend assigned within it (zero:
	// never); OnAssignTimeout says what becomes of its tickets.
	AssignTimeout   time.Duration
	OnAssignTimeout OnTimeout
	// Acceptance asks the players of each match to accept it (package
	// handoff); zero: matches form at once.
	Acceptance Acceptance
	// LeaverWindow is how long after a session's assignment a player who
	// leaves it is replaced by backfill (package handoff); zero: never.
	LeaverWindow time.Duration
	// MaxSession ends a match's session this long after the match formed
	// when its backend has not (package handoff); zero: never.
	MaxSession time.Duration
}

// The hand-off's settings, named where a queue is configured.
type (
	OnTimeout  = handoff.OnTimeout
	Acceptance = handoff.Acceptance
	OnDecline  = handoff.OnDecline
)

// The choices of OnTimeout and OnDecline (package handoff).
const (
	Requeue            = handoff.Requeue
	CancelTickets      = handoff.CancelTickets
	DeclineCancel      = handoff.DeclineCancel
	DeclineRequeueLast = handoff.DeclineRequeueLast
)

// DefaultMaxKeys is a queue's limit on live queue keys when it sets none.
const DefaultMaxKeys = 1000

// DefaultIdlePool is how long a pool with no tickets lives on before its
// goroutine and engine are freed.
const DefaultIdlePool = time.Minute

// Options configure a Service.
type Options struct {
	Store  cupid.Store
	Queues []Queue
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Registry receives the metrics; none are registered when nil.
	Registry prometheus.Registerer
	// Seed feeds the engines' random sources.
	Seed uint64
	// Documents keeps run-time ruleset replacements; optional.
	Documents cupid.DocumentStore
	// IdlePool is how long an empty pool lives; DefaultIdlePool when zero.
	IdlePool time.Duration
	// Intake fills or refuses server-owned values of a ticket before the
	// queue's rules check it (the ratings service: skill from a stored
	// rating, low-priority routing); optional.
	Intake Intake
	// Shared makes the service one node of several sharing Store (which
	// must then be the same database): it runs the pools of the queues it
	// is given (Gain) and hears of other nodes' writes (Changed). See
	// cluster.go.
	Shared SharedStore
	// Tracer makes the spans that follow tickets and matches (trace.go);
	// none when nil.
	Tracer trace.Tracer
	// CommitWindow is the longest a batch of new tickets waits for
	// company before it is stored, when other creates are on their way
	// (intake.go): DefaultCommitWindow when zero, never when negative.
	CommitWindow time.Duration
}

// Intake is a step of every ticket's way in, after the ticket's own
// checks and before the queue's engine checks it: it may set attributes
// the server owns (and refuse a ticket that sends them), or move the ticket
// to another queue key. An error refuses that ticket alone; nothing is
// stored. It is an interface so that this package need not know the
// services that provide it.
type Intake interface {
	PrepareTicket(ctx context.Context, t *cupid.Ticket) error
}

// Service is the real-time ticket service.
type Service struct {
	// statsRec holds the queue statistics people watch (stats.go feeds
	// it); stats answers with it (package stats).
	statsRec *queuestats.Recorder
	stats    *stats.Service
	// trace follows tickets and matches in spans (trace.go).
	trace *tracing
	store cupid.Store
	// replace replaces rulesets at run time (package replace).
	replace  *replace.Service
	log      *slog.Logger
	now      func() time.Time
	seed     uint64
	idlePool time.Duration
	hub      *hub
	// handoff follows each committed match: assignment, release, ready
	// checks, sessions (package handoff).
	handoff *handoff.Service
	metrics *metrics
	intake  chan []*createReq // one call's tickets, kept together in one store write
	window  commitWindow      // the intake's group commit (intake.go)
	ready   readiness

	// ticketHook is Options.Intake.
	ticketHook Intake
	// roll runs the shadows and canaries (package canary).
	roll *canary.Service

	// mu guards queues and pools; it is never held across a store call or
	// a send to a pool.
	mu     sync.Mutex
	queues map[string]*queue
	pools  map[cupid.QueueKey]*pool

	// shared, fences and onFenced are the node's part when several nodes
	// share the store (cluster.go); fences is guarded by mu.
	shared   SharedStore
	fences   map[string]cupid.Fence
	onFenced func(lease string)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// queue is a configured queue and its current ruleset.
type queue struct {
	name    string
	ttl     time.Duration
	maxKeys int

	version int
	rules   *ruleset.Compiled
	source  []byte
	// check is an engine that never holds tickets; it answers Check
	// before a ticket is stored.
	check *engine.Pool
	// keys counts the pools of this queue (guarded by Service.mu).
	keys int
}

// New builds a service; Start loads the waiting tickets and starts the
// goroutines.
func New(o Options) (*Service, error) {
	if o.Store == nil {
		return nil, errors.New("ticketsvc: a store is required")
	}
	s := &Service{
		store:    o.Store,
		log:      o.Logger,
		now:      o.Now,
		seed:     o.Seed,
		idlePool: o.IdlePool,
		hub:      newHub(historyTickets),
		intake:   make(chan []*createReq, 1024),
		queues:   map[string]*queue{},
		pools:    map[cupid.QueueKey]*pool{},
		shared:   o.Shared,
		fences:   map[string]cupid.Fence{},
	}
	s.hub.shared = o.Shared != nil
	if s.hub.shared {
		s.hub.own = newOwnEvents(ownEventsMax)
	}
	s.window = commitWindow{max: o.CommitWindow, enough: commitEnough}
	switch {
	case o.CommitWindow == 0:
		s.window.max = DefaultCommitWindow
	case o.CommitWindow < 0:
		s.window.max = 0
	}
	var stored *rulesets.Store // run-time replacements and their history; none without documents
	if o.Documents != nil {
		stored = rulesets.New(o.Documents)
	}
	s.ticketHook = o.Intake
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.idlePool <= 0 {
		s.idlePool = DefaultIdlePool
	}
	s.statsRec = queuestats.New()
	s.trace = newTracing(o.Tracer)
	s.metrics = newMetrics(o.Registry, func() float64 { return float64(s.hub.watchers()) })
	policies := map[string]handoff.Policy{}
	for _, qc := range o.Queues {
		if qc.Name == "" {
			return nil, errors.New("ticketsvc: a queue needs a name")
		}
		if _, dup := s.queues[qc.Name]; dup {
			return nil, fmt.Errorf("ticketsvc: queue %q given twice", qc.Name)
		}
		if qc.TTL <= 0 {
			return nil, fmt.Errorf("ticketsvc: queue %s: the ticket time to live must be positive", qc.Name)
		}
		if qc.MaxKeys < 0 {
			return nil, fmt.Errorf("ticketsvc: queue %s: max_keys must not be negative", qc.Name)
		}
		q, probs := compileQueue(qc.Name, qc.Ruleset, qc.Rules, 1)
		if len(probs) > 0 {
			return nil, fmt.Errorf("ticketsvc: queue %s: %w", qc.Name, probs)
		}
		q.ttl, q.maxKeys = qc.TTL, qc.MaxKeys
		pol := handoff.Policy{AssignTimeout: qc.AssignTimeout, OnAssignTimeout: qc.OnAssignTimeout,
			Acceptance: qc.Acceptance, LeaverWindow: qc.LeaverWindow, MaxSession: qc.MaxSession}
		if err := pol.Check(); err != nil {
			return nil, fmt.Errorf("ticketsvc: queue %s: %w", qc.Name, err)
		}
		policies[qc.Name] = pol
		if q.maxKeys == 0 {
			q.maxKeys = DefaultMaxKeys
		}
		s.queues[qc.Name] = q
	}
	h, err := handoff.New(handoff.Options{
		Store: o.Store, Pools: handoffPools{s}, Events: s.hub, Queues: policies,
		Logger: s.log, Now: s.now, Tracer: o.Tracer,
		Tickets: s.metrics.tickets, ReadyChecks: s.metrics.readyChecks,
	})
	if err != nil {
		return nil, fmt.Errorf("ticketsvc: %w", err)
	}
	s.handoff = h
	s.stats, err = stats.New(stats.Options{Recorder: s.statsRec, Store: o.Store, Pools: statsPools{s},
		Queues: cupid.SortedKeys(s.queues), Tickets: s.metrics.tickets, Logger: s.log, Now: s.now})
	if err != nil {
		return nil, fmt.Errorf("ticketsvc: %w", err)
	}
	s.replace, err = replace.New(replace.Options{Queues: rulesetQueues{s}, Names: cupid.SortedKeys(s.queues), Store: stored, Logger: s.log, Now: s.now})
	if err != nil {
		return nil, fmt.Errorf("ticketsvc: %w", err)
	}
	s.roll, err = canary.New(canary.Options{Pools: rolloutPools{s}, Rulesets: s.replace, Documents: o.Documents,
		Follow: o.Shared != nil, Seed: int64(s.seed), Logger: s.log, Now: s.now})
	if err != nil {
		return nil, fmt.Errorf("ticketsvc: %w", err)
	}
	return s, nil
}

// Rollouts runs candidate rulesets beside a queue's live one: shadows,
// canaries and their decisions (package canary).
func (s *Service) Rollouts() *canary.Service { return s.roll }

// Rulesets replaces a queue's ruleset at run time, and reads it and its
// history (package replace).
func (s *Service) Rulesets() *replace.Service { return s.replace }

// Statistics answers for the queue statistics people watch: each queue's
// figures, its recent matches, a player's tickets, each minute's figures
// (package stats).
func (s *Service) Statistics() *stats.Service { return s.stats }

// Handoff is what follows a committed match: its assignment, its release,
// its ready check and the session it becomes (package handoff). Callers
// use it directly; the service runs its deadlines while it runs.
func (s *Service) Handoff() *handoff.Service { return s.handoff }

// compileQueue parses, validates and compiles a ruleset once, and makes the
// engine that checks tickets against it; problems say what is wrong, with
// positions where the ruleset has them.
func compileQueue(name string, src []byte, rs *ruleset.Compiled, version int) (*queue, ruleset.Problems) {
	var err error
	if rs == nil {
		rs, err = ruleset.Load(src)
	}
	if err != nil {
		var ps ruleset.Problems
		if errors.As(err, &ps) {
			return nil, ps
		}
		return nil, ruleset.Problems{{Message: err.Error()}}
	}
	// The engine may refuse what the language allows (a combination it
	// cannot run); that is a problem of the ruleset too.
	check, err := engine.New(cupid.QueueKey{Queue: name}, rs, engine.Options{})
	if err != nil {
		return nil, ruleset.Problems{{Message: err.Error()}}
	}
	return &queue{name: name, version: version, rules: rs, source: src, check: check}, nil
}

// Start reloads waiting tickets into their pools and starts the intake. It
// returns once every reloaded ticket is in its pool. A waiting ticket of a
// queue that is no longer configured is cancelled with that reason.
func (s *Service) Start(ctx context.Context) error {
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if err := s.replace.Load(ctx); err != nil {
		return err
	}
	// The shadows and canaries before the waiting tickets, so that canary
	// tickets find their candidate.
	if err := s.roll.Sync(ctx); err != nil {
		return fmt.Errorf("ticketsvc: load shadows and canaries: %w", err)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.roll.Run(s.ctx)
	}()
	if s.shared != nil {
		// Pools start as the node gains their queues (cluster.go).
		s.wg.Add(1)
		go s.runIntake()
		s.handoff.Start()
		return nil
	}
	// Open sessions first: the pools fill them before forming new
	// matches from the tickets reloaded next.
	if err := s.handoff.LoadSessions(ctx, ""); err != nil {
		return err
	}
	waiting, err := s.store.WaitingTickets(ctx)
	if err != nil {
		return fmt.Errorf("ticketsvc: reload waiting tickets: %w", err)
	}
	byKey := map[cupid.QueueKey][]*cupid.Ticket{}
	var orphans int
	for _, t := range waiting {
		if s.queue(t.Key.Queue) == nil {
			reason := fmt.Sprintf("queue %q is no longer configured", t.Key.Queue)
			if _, err := s.finish(ctx, cupid.Fence{}, t.ID, cupid.StateCancelled, reason, nil); err != nil && cupid.ErrorCode(err) != cupid.CodeConflict {
				return fmt.Errorf("ticketsvc: cancel ticket %s of an unconfigured queue: %w", t.ID, err)
			}
			orphans++
			continue
		}
		byKey[t.Key] = append(byKey[t.Key], t)
	}
	for key, ts := range byKey {
		// Reloading is not bound by MaxKeys: these tickets were accepted
		// already, and refusing them now would strand them.
		p := s.reserve(key, len(ts), true)
		done := make(chan struct{})
		p.do(func(p *pool) {
			for _, t := range ts {
				p.add(t)
			}
			close(done)
		})
		select {
		case <-done:
		case <-p.quit:
			return errors.New("ticketsvc: the service was closed while starting")
		}
	}
	s.log.Info("reloaded waiting tickets", "tickets", len(waiting)-orphans, "pools", len(byKey), "cancelled_unconfigured", orphans)
	s.wg.Add(1)
	go s.runIntake()
	s.handoff.Start()
	return nil
}

// Close stops every goroutine. Tickets stay in the store.
func (s *Service) Close() {
	// The hand-off's deadlines first: a release hands tickets to pools.
	s.handoff.Close()
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
}

// Queues lists the configured queue names in order.
func (s *Service) Queues() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cupid.SortedKeys(s.queues)
}

func (s *Service) queue(name string) *queue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queues[name]
}

// reserve returns the pool of a key, starting it if needed, and counts n
// more tickets on their way to it, so that it is not freed before they
// arrive. Without force a new pool past the queue's MaxKeys is refused (nil).
func (s *Service) reserve(key cupid.QueueKey, n int, force bool) *pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pools[key]
	if p == nil {
		if _, mine := s.fences[key.Queue]; s.shared != nil && !mine {
			// Another node runs the queue: its pools hear of the
			// tickets from the database (cluster.go). A nil pool takes
			// nothing (do) and gives nothing back (release).
			return nil
		}
		q := s.queues[key.Queue]
		if !force && q.keys >= q.maxKeys {
			return nil
		}
		q.keys++
		s.metrics.pools.WithLabelValues(key.Queue).Inc()
		p = newPool(s, key, q)
		s.pools[key] = p
		s.wg.Add(1)
		go p.run()
	}
	p.refs += n
	return p
}

// release gives back n reservations of a pool (tickets that did not go to
// it, or that left it).
func (s *Service) release(p *pool, n int) {
	if p == nil {
		return // a ticket for a pool another node runs
	}
	s.mu.Lock()
	p.refs -= n
	s.mu.Unlock()
}

// retire frees an idle pool when nothing refers to it; it reports whether
// the pool is gone. The pool's goroutine calls it.
func (s *Service) retire(p *pool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.refs > 0 || s.pools[p.key] != p {
		return false
	}
	delete(s.pools, p.key)
	if q := s.queues[p.key.Queue]; q != nil {
		q.keys--
	}
	s.metrics.pools.WithLabelValues(p.key.Queue).Dec()
	return true
}

// existingPool returns the pool of a key if it runs.
func (s *Service) existingPool(key cupid.QueueKey) *pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pools[key]
}

// CreateTicket validates a ticket, stores it durably and hands it to its
// pool. The returned bool is true when the request id matched an earlier
// ticket with the same body, which is returned instead. With replace, the
// ticket takes the place of its players' live tickets in the queue.
func (s *Service) CreateTicket(ctx context.Context, t *cupid.Ticket, replace bool) (*cupid.Ticket, bool, error) {
	res := s.CreateTickets(ctx, []NewTicket{{Ticket: t, Replace: replace}})
	return res[0].Ticket, res[0].Existed, res[0].Err
}

// NewTicket is one ticket of a CreateTickets call.
type NewTicket struct {
	Ticket  *cupid.Ticket
	Replace bool
}

// Created is what became of one ticket of a CreateTickets call: the stored
// ticket, whether it existed (an idempotent retry), or the error that
// refused it alone.
type Created struct {
	Ticket  *cupid.Ticket
	Existed bool
	Err     error
}

// CreateTickets creates several tickets in one durable write, each with its
// own result; one refused ticket does not refuse the others. Errors name
// fields within their ticket (the caller places them under its own
// numbering, see cupid.Within). It is the way
// in for every ticket: the ruleset-independent limits (Ticket.Validate),
// then the queue's engine (Check), then the store; nothing is acknowledged
// that a pool would refuse.
func (s *Service) CreateTickets(ctx context.Context, ts []NewTicket) []Created {
	ctx, span := s.trace.start(ctx, "cupid.CreateTickets", nil, attribute.Int("cupid.tickets", len(ts)))
	defer span.End()
	out := make([]Created, len(ts))
	var reqs []*createReq
	for i, nt := range ts {
		r, err := s.prepare(ctx, nt.Ticket, nt.Replace)
		if err != nil {
			out[i].Err = err
			continue
		}
		r.index, r.span = i, span.SpanContext()
		reqs = append(reqs, r)
	}
	if len(reqs) == 0 {
		return out
	}
	// The call's tickets travel together: the intake stores them in one
	// transaction, so none is matched (and its players freed) while
	// another of the same call is still being checked against them.
	var refused error
	reqs[0].sent = time.Now()
	select {
	case s.intake <- reqs:
	case <-ctx.Done():
		refused = ctx.Err()
	case <-s.ctx.Done():
		refused = cupid.Errorf(cupid.CodeUnavailable, "", "the server is shutting down")
	}
	if refused != nil {
		for _, r := range reqs {
			r.res = Created{Err: refused}
			s.release(r.pool, 1)
			close(r.done)
		}
	}
	for _, r := range reqs {
		select {
		case <-r.done:
		case <-s.ctx.Done():
			r.res = Created{Err: cupid.Errorf(cupid.CodeUnavailable, "", "the server is shutting down")}
		}
		out[r.index] = r.res
	}
	return out
}

// prepare checks a ticket and reserves its pool; the request is ready for
// the intake.
func (s *Service) prepare(ctx context.Context, t *cupid.Ticket, replace bool) (*createReq, error) {
	if t == nil {
		return nil, cupid.Invalid("ticket", "required")
	}
	q := s.queue(t.Key.Queue)
	if q == nil {
		return nil, cupid.NotFound("queue", "no queue %q; configured queues: %s", t.Key.Queue, strings.Join(s.Queues(), ", "))
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if s.ticketHook != nil {
		if err := s.ticketHook.PrepareTicket(ctx, t); err != nil {
			return nil, storeerr.Domain(s.log, err)
		}
	}
	now := s.now().UTC()
	t.ID = newID()
	t.CreatedAt = now
	if err := q.check.Check(t); err != nil {
		return nil, err
	}
	s.roll.Route(t) // the side of a running canary (package canary)
	t.State = cupid.StateWaiting
	t.UpdatedAt = now
	t.ExpiresAt = now.Add(q.ttl)
	t.MatchID, t.Reason = "", ""
	if s.runsElsewhere(t.Key.Queue) {
		// Another node runs the queue's pools: it hears of the ticket
		// from the database once it is stored.
		return &createReq{t: t, replace: replace, done: make(chan struct{})}, nil
	}
	p := s.reserve(t.Key, 1, false)
	if p == nil && s.runsElsewhere(t.Key.Queue) {
		// The node gave the queue up since the check above.
		return &createReq{t: t, replace: replace, done: make(chan struct{})}, nil
	}
	if p == nil {
		field := "custom_key"
		if t.Key.Custom == "" {
			field = "version"
		}
		return nil, cupid.Errorf(cupid.CodeExhausted, field,
			"queue %q already has %d live queue keys (version and custom key pairs), its limit; reuse a key or try again when one empties", q.name, q.maxKeys)
	}
	return &createReq{t: t, replace: replace, pool: p, done: make(chan struct{})}, nil
}

// GetTicket returns a ticket, its match when matched, and why it waits
// when waiting.
func (s *Service) GetTicket(ctx context.Context, id string) (*TicketView, error) {
	if id == "" {
		return nil, cupid.Invalid("id", "required")
	}
	t, err := s.store.Ticket(ctx, id)
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	v := &TicketView{Ticket: t}
	switch t.State {
	case cupid.StateMatched:
		m, err := s.store.Match(ctx, t.MatchID)
		if err != nil {
			return nil, storeerr.Domain(s.log, err)
		}
		v.Match = m
	case cupid.StateWaiting:
		if p := s.existingPool(t.Key); p != nil {
			v.Why = p.explain(ctx, id)
		}
		now := s.now()
		if e, ok := s.statsRec.Estimate(t.Key, max(now.Sub(t.CreatedAt), 0), now); ok {
			v.Estimate = &e
		}
		v.OfferWaits = s.offerWaits(v.Why, t.Key, now) // offers.go
	}
	return v, nil
}

// TicketView is a ticket with what a caller wants to know about it.
type TicketView struct {
	Ticket *cupid.Ticket
	Match  *cupid.Match
	Why    *engine.Explanation
	// Estimate is how much longer a waiting ticket may wait, from its
	// queue key's recent tickets on the node that runs its pool; nil when
	// that history is too thin (package waitest).
	Estimate *waitest.Estimate
	// OfferWaits is the wait to expect after accepting each of Why's
	// offers, in order; nil where it is not known (offers.go).
	OfferWaits []*time.Duration
}

// CancelTicket ends a waiting ticket at its owner's request.
func (s *Service) CancelTicket(ctx context.Context, id string) (*cupid.Ticket, error) {
	return s.CancelTicketBecause(ctx, id, "")
}

// CancelTicketBecause ends a waiting ticket for a part of the server that
// acts for its players (a party a member left), with the reason its
// watchers hear on the final event.
func (s *Service) CancelTicketBecause(ctx context.Context, id, reason string) (*cupid.Ticket, error) {
	if id == "" {
		return nil, cupid.Invalid("id", "required")
	}
	return s.finish(ctx, cupid.Fence{}, id, cupid.StateCancelled, reason, nil)
}

// Cancelled is what became of one ticket of CancelTickets.
type Cancelled struct {
	Ticket *cupid.Ticket
	Err    error
}

// CancelTickets cancels several tickets, each with its own result in
// request order: one that cannot be cancelled does not stop the others.
// Each is its own store write, as CancelTicket's: a cancel is rare next to
// a create, and a failed write then concerns one ticket alone.
func (s *Service) CancelTickets(ctx context.Context, ids []string) []Cancelled {
	out := make([]Cancelled, len(ids))
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			out[i].Err = cupid.Errorf(cupid.CodeUnavailable, "", "the call ended before this ticket was cancelled")
			continue
		}
		out[i].Ticket, out[i].Err = s.CancelTicket(ctx, id)
	}
	return out
}

// finish is the one way a ticket ends without a match — cancel, expiry,
// refusal by the engine, an unconfigured queue: the store records the state
// and reason, then watchers hear it, then the ticket leaves its pool. from
// is the pool whose goroutine calls (nil elsewhere), which drops the ticket
// itself.
func (s *Service) finish(ctx context.Context, f cupid.Fence, id string, state cupid.TicketState, reason string, from *pool) (*cupid.Ticket, error) {
	t, ev, err := lifecycle.Finish(ctx, s.store, f, id, state, reason, s.now().UTC())
	if err != nil {
		s.checkFenced(queueOf(from), err)
		return nil, storeerr.Domain(s.log, err)
	}
	s.metrics.tickets.WithLabelValues(t.Key.Queue, string(state)).Inc()
	s.hub.Publish(ev)
	s.ended(from, t)
	return t, nil
}

// ended tells a ticket's pool that the ticket left the waiting state
// elsewhere (cancelled by its owner, replaced, matched in another queue).
func (s *Service) ended(from *pool, ts ...*cupid.Ticket) {
	s.trace.forget(ts...)
	now := s.now()
	for _, t := range ts {
		if t.State != cupid.StateMatched && !s.runsElsewhere(t.Key.Queue) {
			// The wait estimates count it as waiting until now.
			s.statsRec.Left(t.Key, t.UpdatedAt.Sub(t.CreatedAt), now)
		}
		if from != nil && from.key == t.Key {
			from.drop(t.ID)
			continue
		}
		if p := s.existingPool(t.Key); p != nil {
			id := t.ID
			p.do(func(p *pool) { p.drop(id) })
		}
	}
}

// ListTickets lists tickets oldest first.
func (s *Service) ListTickets(ctx context.Context, f cupid.TicketFilter) ([]*cupid.Ticket, error) {
	if f.Queue != "" && s.queue(f.Queue) == nil {
		return nil, cupid.NotFound("queue", "no queue %q", f.Queue)
	}
	limit, err := cupid.ListLimit(f.Limit)
	if err != nil {
		return nil, err
	}
	f.Limit = limit
	ts, err := s.store.Tickets(ctx, f)
	return ts, storeerr.Domain(s.log, err)
}

// PoolStats describes one pool.
type PoolStats struct {
	Key            cupid.QueueKey
	Waiting        int
	Players        int
	OldestWait     time.Duration
	MatchesFormed  int64
	MeanQuality    float64
	RulesetVersion int
	// Estimate is the wait a ticket arriving now may expect (package
	// waitest); nil while the key's recent history is too thin.
	Estimate *waitest.Estimate
}

// Stats reports every pool, or those of one queue. The number of pools is
// bounded by each queue's MaxKeys, and idle pools are freed.
func (s *Service) Stats(ctx context.Context, queueName string) ([]PoolStats, error) {
	if queueName != "" && s.queue(queueName) == nil {
		return nil, cupid.NotFound("queue", "no queue %q", queueName)
	}
	s.mu.Lock()
	var pools []*pool
	for k, p := range s.pools {
		if queueName == "" || k.Queue == queueName {
			pools = append(pools, p)
		}
	}
	versions := map[string]int{}
	for n, q := range s.queues {
		versions[n] = q.version
	}
	s.mu.Unlock()
	var out []PoolStats
	seen := map[string]bool{}
	for _, p := range pools {
		if st, ok := p.stats(ctx); ok {
			out = append(out, st)
			seen[p.key.Queue] = true
		}
	}
	// Queues without a pool still show, empty.
	for _, n := range cupid.SortedKeys(versions) {
		if (queueName == "" || n == queueName) && !seen[n] {
			out = append(out, PoolStats{Key: cupid.QueueKey{Queue: n}, RulesetVersion: versions[n]})
		}
	}
	now := s.now()
	for i := range out {
		if e, ok := s.statsRec.Estimate(out[i].Key, 0, now); ok {
			out[i].Estimate = &e
		}
	}
	slices.SortFunc(out, func(a, b PoolStats) int { return strings.Compare(a.Key.String(), b.Key.String()) })
	return out, nil
}

// watch calls send with the ticket's events after afterSeq — stored ones
// first, then live ones — until an event ends the watch (see Watch and
// WatchAssignment), ctx ends or send fails. A watch of a ticket whose last
// event ends it already, whatever afterSeq says, gets that event and ends
// at once.
func (s *Service) watch(ctx context.Context, id string, afterSeq int64, ends func(cupid.Event) bool, send func(cupid.Event) error) error {
	if id == "" {
		return cupid.Invalid("id", "required")
	}
	if afterSeq < 0 {
		return cupid.Invalid("after_seq", "must not be negative")
	}
	// Subscribe before reading the stored events, so nothing falls between.
	sub, past, known := s.hub.subscribe(id, afterSeq)
	defer s.hub.unsubscribe(sub)
	if !known {
		var err error
		if past, err = s.ticketEvents(ctx, id, afterSeq); err != nil {
			return storeerr.Domain(s.log, err)
		}
	}
	last := afterSeq
	for i, ev := range past {
		if i == len(past)-1 {
			ev = s.withEstimate(ctx, ev)
		}
		if err := send(ev); err != nil {
			return err
		}
		last = ev.Seq
		if ends(ev) {
			return nil
		}
	}
	// Nothing final after afterSeq so far: the ticket may be unknown, or
	// final at or before afterSeq (a client that saw the end and asks
	// again), which must not wait forever. A final event after what was
	// sent is not sent from here: the events between it and the last sent
	// are on their way through the subscription (published after it was
	// made), and the loop sends them in order, that one last.
	if fin, err := s.finalEvent(ctx, id, known, ends); err != nil {
		return err
	} else if fin != nil && fin.Seq <= last {
		return send(*fin)
	}
	for {
		select {
		case ev, ok := <-sub.ch:
			if !ok {
				return cupid.Errorf(cupid.CodeUnavailable, "", "watcher fell behind; reconnect with after_seq=%d", last)
			}
			if ev.Seq <= last {
				continue
			}
			if len(sub.ch) == 0 {
				ev = s.withEstimate(ctx, ev) // the ticket's last event so far
			}
			if err := send(ev); err != nil {
				return err
			}
			last = ev.Seq
			if ends(ev) {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-s.ctx.Done():
			return cupid.Errorf(cupid.CodeUnavailable, "", "the server is shutting down; reconnect with after_seq=%d", last)
		}
	}
}

// withEstimate gives a created or requeued event, sent while it is the
// ticket's last, the wait still to come (cupid.Event.Estimate); any other
// event, or one whose ticket no longer waits, goes as it is. A copy: the
// hub's history is shared by watchers.
func (s *Service) withEstimate(ctx context.Context, ev cupid.Event) cupid.Event {
	if ev.Kind != cupid.EventCreated && ev.Kind != cupid.EventRequeued {
		return ev
	}
	// Most watches start on a ticket just created here, which the hub
	// knows is still waiting, with its key and age; others (a requeue
	// may move a ticket to the back of its queue) ask the store.
	key, created, ok := cupid.QueueKey{}, time.Time{}, false
	if ev.Kind == cupid.EventCreated {
		key, created, ok = s.hub.waiting(ev.TicketID, ev.Seq)
	}
	if !ok {
		t, err := s.store.Ticket(ctx, ev.TicketID)
		if err != nil || t.State != cupid.StateWaiting {
			return ev
		}
		key, created = t.Key, t.CreatedAt
	}
	now := s.now()
	if e, ok := s.statsRec.Estimate(key, max(now.Sub(created), 0), now); ok {
		ev.Estimate = &e
	}
	return ev
}

// finalEvent returns a ticket's last event if it ends the watch, nil
// while the ticket waits (or its last event does not end the watch), and
// not_found for an unknown ticket.
func (s *Service) finalEvent(ctx context.Context, id string, known bool, ends func(cupid.Event) bool) (*cupid.Event, error) {
	if known {
		if ev, ok := s.hub.last(id); ok {
			if ends(ev) {
				return &ev, nil
			}
			return nil, nil
		}
	}
	t, err := s.store.Ticket(ctx, id)
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	if !t.State.Final() {
		return nil, nil
	}
	evs, err := s.ticketEvents(ctx, id, 0)
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	if len(evs) == 0 {
		return nil, fmt.Errorf("ticketsvc: ticket %s is %s but has no events", id, t.State)
	}
	if last := evs[len(evs)-1]; ends(last) {
		return &last, nil
	}
	return nil, nil
}

// Wake makes every pool expire and step now, as if its timer had fired,
// and returns once each has. Pools wake by themselves; this serves a clock
// that jumps (tests, the simulator's virtual time).
func (s *Service) Wake() {
	s.mu.Lock()
	pools := make([]*pool, 0, len(s.pools))
	for _, p := range s.pools {
		pools = append(pools, p)
	}
	s.mu.Unlock()
	for _, p := range pools {
		done := make(chan struct{})
		p.do(func(p *pool) { p.acks = append(p.acks, done) })
		select {
		case <-done:
		case <-p.quit:
		case <-s.ctx.Done():
		}
	}
}

// Ready reports whether the service can take tickets: the store must accept
// a durable write. A success is kept for readyFresh and a failure for a
// second, so that probes cost the store little (one write per 100 ms at
// most) while a store that stops taking writes is seen at once.
func (s *Service) Ready(ctx context.Context) error {
	return s.ready.check(ctx, s.now(), s.store.Ping)
}

// readyFresh is how long a successful write probe answers for the next
// ones.
const readyFresh = 100 * time.Millisecond

// readiness caches the result of the last write probe.
type readiness struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

func (r *readiness) check(ctx context.Context, now time.Time, ping func(context.Context) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	keep := readyFresh
	if r.err != nil {
		keep = time.Second
	}
	if !r.at.IsZero() && now.Sub(r.at) < keep && now.After(r.at) {
		return r.err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r.err = ping(ctx)
	if r.err != nil {
		r.err = fmt.Errorf("the store does not accept writes: %w", r.err)
	}
	r.at = now
	return r.err
}

// failed forgets the last probe after a write failed, so the next
// readiness check probes the store again instead of repeating "ready".
func (r *readiness) failed() {
	r.mu.Lock()
	r.at = time.Time{}
	r.mu.Unlock()
}
