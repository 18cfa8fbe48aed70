// Package matchmaker is the service behind the API: it makes tickets durable,
// runs one goroutine per pool around the pure engine, commits the matches the
// engine proposes, expires old tickets and tells watchers.
//
// The order of every change is persist, then publish: a caller hears "yes"
// only once the store holds the ticket, and a watcher hears "matched" only
// once the match is committed. A restart reloads the waiting tickets with
// their original age.
package matchmaker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/ruleset"
)

// Options configure a Service.
type Options struct {
	Store  cupid.Store
	Config *config.Config
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Registry receives the metrics; none are registered when nil.
	Registry prometheus.Registerer
	// Seed feeds the engines' random sources.
	Seed uint64
	// Documents keeps run-time ruleset replacements; optional.
	Documents cupid.DocumentStore
}

// Service is the matchmaker.
type Service struct {
	store   cupid.Store
	docs    cupid.DocumentStore
	log     *slog.Logger
	now     func() time.Time
	seed    uint64
	hub     *hub
	metrics *metrics
	intake  chan *createReq

	mu     sync.Mutex
	queues map[string]*queue
	pools  map[cupid.QueueKey]*pool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// queue is a configured queue and its current ruleset.
type queue struct {
	name    string
	ttl     time.Duration
	version int
	rules   *ruleset.Compiled
	source  []byte
	// check is an engine that never holds tickets; it answers Check for
	// the API before a ticket is stored.
	check *engine.Pool
}

// New builds a service; Start loads the waiting tickets and starts the
// goroutines.
func New(o Options) (*Service, error) {
	if o.Store == nil || o.Config == nil {
		return nil, errors.New("matchmaker: a store and a config are required")
	}
	s := &Service{
		store:  o.Store,
		docs:   o.Documents,
		log:    o.Logger,
		now:    o.Now,
		seed:   o.Seed,
		hub:    newHub(historyTickets),
		intake: make(chan *createReq, 4096),
		queues: map[string]*queue{},
		pools:  map[cupid.QueueKey]*pool{},
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.metrics = newMetrics(o.Registry, func() float64 { return float64(s.hub.watchers()) })
	for i := range o.Config.Queues {
		qc := &o.Config.Queues[i]
		rs, err := ruleset.Load(qc.RulesetJSON())
		if err != nil {
			return nil, fmt.Errorf("queue %s: %w", qc.Name, err)
		}
		q, err := newQueue(qc.Name, time.Duration(qc.TicketTTL), rs, qc.RulesetJSON(), 1)
		if err != nil {
			return nil, fmt.Errorf("queue %s: %w", qc.Name, err)
		}
		s.queues[qc.Name] = q
	}
	return s, nil
}

func newQueue(name string, ttl time.Duration, rs *ruleset.Compiled, src []byte, version int) (*queue, error) {
	check, err := engine.New(cupid.QueueKey{Queue: name}, rs, engine.Options{})
	if err != nil {
		return nil, err
	}
	return &queue{name: name, ttl: ttl, version: version, rules: rs, source: src, check: check}, nil
}

// Start reloads waiting tickets into their pools and starts the intake. It
// returns once every reloaded ticket is in its pool.
func (s *Service) Start(ctx context.Context) error {
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if err := s.loadRulesets(ctx); err != nil {
		return err
	}
	waiting, err := s.store.WaitingTickets(ctx)
	if err != nil {
		return fmt.Errorf("matchmaker: reload waiting tickets: %w", err)
	}
	byKey := map[cupid.QueueKey][]*cupid.Ticket{}
	for _, t := range waiting {
		if _, ok := s.queues[t.Key.Queue]; !ok {
			s.log.Warn("waiting ticket of a queue no longer configured stays untouched", "ticket", t.ID, "queue", t.Key.Queue)
			continue
		}
		byKey[t.Key] = append(byKey[t.Key], t)
	}
	for key, ts := range byKey {
		p := s.pool(key)
		done := make(chan struct{})
		p.do(func(p *pool) {
			for _, t := range ts {
				p.add(t)
			}
			close(done)
		})
		<-done
	}
	s.log.Info("reloaded waiting tickets", "tickets", len(waiting), "pools", len(byKey))
	s.wg.Add(1)
	go s.runIntake()
	return nil
}

// Close stops every goroutine. Tickets stay in the store.
func (s *Service) Close() {
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

// pool returns the pool of a key, starting it if needed.
func (s *Service) pool(key cupid.QueueKey) *pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pools[key]; p != nil {
		return p
	}
	q := s.queues[key.Queue]
	p := newPool(s, key, q)
	s.pools[key] = p
	s.wg.Add(1)
	go p.run(s.ctx)
	return p
}

// existingPool returns the pool of a key if it runs.
func (s *Service) existingPool(key cupid.QueueKey) *pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pools[key]
}

// CreateTicket validates a ticket, stores it durably and hands it to its
// pool. The returned bool is true when the request id matched an earlier
// ticket, which is returned instead.
func (s *Service) CreateTicket(ctx context.Context, t *cupid.Ticket) (*cupid.Ticket, bool, error) {
	q := s.queue(t.Key.Queue)
	if q == nil {
		return nil, false, cupid.NotFound("queue", "no queue %q; configured queues: %v", t.Key.Queue, s.Queues())
	}
	if err := validateTicket(t); err != nil {
		return nil, false, err
	}
	now := s.now().UTC()
	id, err := uuid.NewV7()
	if err != nil {
		return nil, false, fmt.Errorf("matchmaker: ticket id: %w", err)
	}
	t.ID = id.String()
	t.CreatedAt = now
	if err := q.check.Check(t); err != nil {
		return nil, false, err
	}
	t.State = cupid.StateWaiting
	t.CreatedAt = now
	t.UpdatedAt = now
	t.ExpiresAt = now.Add(q.ttl)
	req := &createReq{t: t, done: make(chan createRes, 1)}
	select {
	case s.intake <- req:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	case <-s.ctx.Done():
		return nil, false, cupid.Errorf(cupid.CodeUnavailable, "", "the server is shutting down")
	}
	select {
	case res := <-req.done:
		if res.err != nil {
			return nil, false, res.err
		}
		return res.t, res.t.ID != t.ID, nil
	case <-s.ctx.Done():
		return nil, false, cupid.Errorf(cupid.CodeUnavailable, "", "the server is shutting down")
	}
}

// GetTicket returns a ticket, its match when matched, and why it waits
// when waiting.
func (s *Service) GetTicket(ctx context.Context, id string) (*TicketView, error) {
	if id == "" {
		return nil, cupid.Invalid("id", "required")
	}
	t, err := s.store.Ticket(ctx, id)
	if err != nil {
		return nil, err
	}
	v := &TicketView{Ticket: t}
	switch t.State {
	case cupid.StateMatched:
		m, err := s.store.Match(ctx, t.MatchID)
		if err != nil {
			return nil, err
		}
		v.Match = m
	case cupid.StateWaiting:
		if p := s.existingPool(t.Key); p != nil {
			v.Why = p.explain(ctx, id)
		}
	}
	return v, nil
}

// TicketView is a ticket with what a caller wants to know about it.
type TicketView struct {
	Ticket *cupid.Ticket
	Match  *cupid.Match
	Why    *engine.Explanation
}

// CancelTicket takes a waiting ticket out of its pool.
func (s *Service) CancelTicket(ctx context.Context, id string) (*cupid.Ticket, error) {
	if id == "" {
		return nil, cupid.Invalid("id", "required")
	}
	t, ev, err := s.store.FinishTicket(ctx, id, cupid.StateCancelled, s.now().UTC())
	if err != nil {
		return nil, err
	}
	if p := s.existingPool(t.Key); p != nil {
		p.do(func(p *pool) { p.remove(id) })
	}
	s.metrics.tickets.WithLabelValues(t.Key.Queue, string(cupid.StateCancelled)).Inc()
	s.hub.publish(ev)
	return t, nil
}

// ListTickets lists tickets oldest first.
func (s *Service) ListTickets(ctx context.Context, f cupid.TicketFilter) ([]*cupid.Ticket, error) {
	if f.Queue != "" && s.queue(f.Queue) == nil {
		return nil, cupid.NotFound("queue", "no queue %q", f.Queue)
	}
	switch {
	case f.Limit < 0:
		return nil, cupid.Invalid("limit", "must not be negative")
	case f.Limit == 0:
		f.Limit = 100
	case f.Limit > 1000:
		return nil, cupid.Invalid("limit", "at most 1000, got %d", f.Limit)
	}
	return s.store.Tickets(ctx, f)
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
}

// Stats reports every pool, or those of one queue.
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
	names := cupid.SortedKeys(s.queues)
	s.mu.Unlock()
	var out []PoolStats
	seen := map[string]bool{}
	for _, p := range pools {
		st, ok := p.stats(ctx)
		if ok {
			out = append(out, st)
			seen[p.key.Queue] = true
		}
	}
	// Queues without a pool yet still show, empty.
	for _, n := range names {
		if (queueName == "" || n == queueName) && !seen[n] {
			out = append(out, PoolStats{Key: cupid.QueueKey{Queue: n}, RulesetVersion: s.queue(n).version})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key.String() < out[j].Key.String() })
	return out, nil
}

// Watch calls send with the ticket's events after afterSeq — stored ones
// first, then live ones — until the ticket reaches a final state, ctx ends
// or send fails.
func (s *Service) Watch(ctx context.Context, id string, afterSeq int64, send func(cupid.Event) error) error {
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
		if past, err = s.store.Events(ctx, id, afterSeq); err != nil {
			return err
		}
	}
	if len(past) == 0 && !known {
		// Every ticket has its created event, so no events at all after
		// 0 means no ticket; after a later seq, look the ticket up.
		if _, err := s.store.Ticket(ctx, id); err != nil {
			return err
		}
	}
	last := afterSeq
	for _, ev := range past {
		if err := send(ev); err != nil {
			return err
		}
		last = ev.Seq
		if final(ev.Kind) {
			return nil
		}
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
			if err := send(ev); err != nil {
				return err
			}
			last = ev.Seq
			if final(ev.Kind) {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-s.ctx.Done():
			return cupid.Errorf(cupid.CodeUnavailable, "", "the server is shutting down; reconnect with after_seq=%d", last)
		}
	}
}

// Wake makes every pool expire and step now, as if its timer had fired.
// Pools wake by themselves; this serves a clock that jumps (tests, the
// simulator's virtual time).
func (s *Service) Wake() {
	s.mu.Lock()
	pools := make([]*pool, 0, len(s.pools))
	for _, p := range s.pools {
		pools = append(pools, p)
	}
	s.mu.Unlock()
	for _, p := range pools {
		done := make(chan struct{})
		p.do(func(*pool) { close(done) })
		select {
		case <-done:
		case <-s.ctx.Done():
		}
	}
}

func final(k cupid.EventKind) bool { return k != cupid.EventCreated }
