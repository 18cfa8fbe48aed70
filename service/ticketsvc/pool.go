package ticketsvc

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/service/actor"
	"github.com/cupid-match/cupid/service/ticketsvc/canary"
	"github.com/cupid-match/cupid/service/ticketsvc/handoff"
)

// pool runs one engine.Pool on its own goroutine. Everything that touches
// the engine goes through the inbox as a function, so the engine needs no
// locks and its decisions happen in one order that could be replayed.
//
// The pool, not the engine, knows which tickets it owns until they end
// (live): a ticket the engine refused, or one out of the engine while its
// match is committed, still expires on time and is never forgotten.
type pool struct {
	// host is the service's steps the pool takes part in (poolHost); the
	// rest of what it uses of the service is set once, when it is made.
	host    poolHost
	now     func() time.Time
	log     *slog.Logger
	metrics *metrics
	trace   *tracing
	store   cupid.Store
	hub     *hub
	handoff *handoff.Service
	ready   *readiness
	idle    time.Duration // how long an empty pool lives on
	done    func()        // the pool's goroutine has ended

	key cupid.QueueKey
	// ctx is the pool's life: its store writes carry it, and stop ends the
	// pool's goroutine when the node gives the queue up. fence is the
	// node's lease on the queue when the store is shared (cluster.go): the
	// store refuses the pool's writes once the lease has passed on.
	ctx   context.Context
	stop  context.CancelFunc
	fence cupid.Fence

	q     *queue
	eng   *engine.Pool
	inbox *actor.Actor[func(*pool)] // the goroutine's loop; see run
	quit  <-chan struct{}           // closed when the goroutine has ended

	// refs counts tickets on their way to the pool and tickets live in it
	// (guarded by Service.mu); a pool with none may be freed.
	refs int

	// A live ticket is in exactly one place: the engine (waiting), out
	// (being ended, or its end refused by the store and tried again), or,
	// within a step, a proposal whose commit is under way. The engine
	// keeps a waiting ticket's data; the pool keeps nothing more of it
	// than its place in the expiry heap. live counts all three.
	live    int
	out     map[string]liveTicket
	expiry  expiryHeap
	pending []pendingEnd // ends the store refused, tried again
	// gone remembers tickets that ended before their add arrived (a match
	// in another queue cancelled them meanwhile), so the add is ignored;
	// goneOrder holds the same in the order they came, so that forgetting
	// the old ones looks at those alone. (On a shared store every matched
	// ticket comes back here from the change stream, so gone holds a
	// minute of the queue's traffic; scanning all of it at every drop had
	// made each drop cost as much as the whole minute.)
	gone      map[string]time.Time
	goneOrder []goneItem
	formed    int64
	quality   float64 // sum of scores of formed matches
	// retryAt delays the next step after the store failed.
	retryAt time.Time
	// idleSince is when the pool last became empty; zero while it holds
	// tickets.
	idleSince time.Time
	// waiting is the queue's gauge of waiting tickets.
	waiting prometheus.Gauge
	// acks are closed after the next step (Wake).
	acks []chan struct{}
	// recent feeds the engine's variety criterion.
	recent *recentPairs
	// sessions are the sessions this pool holds open to backfill;
	// closedAt the match event that closed a session it let go
	// (session.go).
	sessions map[string]*openSession
	// heldBack are tickets kept out of the engine until their HeldUntil
	// (held.go); they are live, in out, meanwhile.
	heldBack heldHeap
	// heldSessions is len(sessions), readable off the pool's goroutine.
	heldSessions atomic.Int32
	closedAt     map[string]int64
	// shadow is a shadow ruleset's engine beside this one (package
	// canary); nil without a shadow.
	shadow *canary.ShadowPool
}

// pendingEnd is a ticket the pool must end (refused by the engine) whose
// store write failed; it is tried again after a second.
type pendingEnd struct {
	id     string
	reason string
}

// recentPairsPerPool bounds the memory of who faced whom: about 100 bytes
// a pair.
const recentPairsPerPool = 200_000

// poolHost is what a pool asks of its service: the steps that reach beyond
// one pool (reservations, other pools, the lease, the statistics). Writing
// them down here keeps the pool's reach to this list; *Service is the one
// implementation. The hand-off (package handoff) the pool calls directly:
// a match's ready-check deadline, and waking the match log's watchers.
type poolHost interface {
	// release gives back n reservations; retire frees an idle pool when
	// nothing refers to it and reports whether it is gone.
	release(p *pool, n int)
	retire(p *pool) bool
	// finish ends a ticket without a match (cancel, expiry, refusal);
	// ended tells the other pools of tickets that left them.
	finish(ctx context.Context, f cupid.Fence, id string, state cupid.TicketState, reason string, from *pool) (*cupid.Ticket, error)
	ended(from *pool, ts ...*cupid.Ticket)
	// checkFenced gives the queue up when a write was refused for a lease
	// another node holds now.
	checkFenced(queue string, err error)
	// recordMatch feeds the statistics.
	recordMatch(key cupid.QueueKey, m *cupid.Match, pr *engine.Proposal, now time.Time)
}

func newPool(s *Service, key cupid.QueueKey, q *queue) *pool {
	q = s.poolQueue(key, q) // a running canary's side runs its candidate (rollout_pools.go)
	recent := newRecentPairs(recentPairsPerPool)
	eng, err := engine.New(key, q.rules, engine.Options{Seed: int64(s.seed), Met: recent.met})
	if err != nil {
		// The same ruleset built the queue's check engine, so this cannot
		// fail for a configured queue.
		panic("ticketsvc: engine refused a ruleset it accepted before: " + err.Error())
	}
	ctx, stop := context.WithCancel(s.ctx)
	f := s.fences[key.Queue] // s.mu is held (reserve); none on a store of its own
	inbox := actor.New[func(*pool)](ctx, 1024)
	p := &pool{
		host:    s,
		now:     s.now,
		log:     s.log,
		metrics: s.metrics,
		trace:   s.trace,
		store:   s.store,
		hub:     s.hub,
		handoff: s.handoff,
		ready:   &s.ready,
		idle:    s.idlePool,
		done:    s.wg.Done,
		key:     key,
		ctx:     ctx,
		fence:   f,
		stop:    stop,
		q:       q,
		eng:     eng,
		inbox:   inbox,
		quit:    inbox.Done(),
		out:     map[string]liveTicket{},
		gone:    map[string]time.Time{},
		recent:  recent,
		waiting: s.metrics.waiting.WithLabelValues(key.Queue),
	}
	p.shadow = s.roll.ShadowPool(key)
	return p
}

// do runs f on the pool's goroutine, without waiting for it. After the pool
// has ended, f is dropped: nothing refers to an ended pool's tickets.
func (p *pool) do(f func(*pool)) {
	if p == nil {
		return // the queue runs on another node (reserve)
	}
	p.inbox.Do(f)
}

// maxOpsPerStep bounds how many inbox operations run before the engine gets
// a step, so a flood of arrivals cannot starve matching.
const maxOpsPerStep = 4096

// run is the pool's goroutine. The context is the service's, which the
// pool's actor was made with: it ends the loop.
func (p *pool) run() {
	defer p.done()
	p.idleSince = p.now()
	p.inbox.Run(actor.Loop[func(*pool)]{
		MaxBatch: maxOpsPerStep,
		Apply:    func(f func(*pool)) bool { f(p); return false },
		After:    p.afterOps,
		Next:     p.nextWake,
		Now:      p.now,
	})
}

// afterOps runs after each batch of operations and when the timer fires:
// the pool expires what is due, steps (unless a store failure asked it to
// wait), and retires when it has been empty for its grace time. It reports
// whether the pool retired.
func (p *pool) afterOps() (retired bool) {
	now := p.now().UTC()
	p.expire(now)
	p.releaseHeld(now)
	if p.shadow != nil {
		// On the same clock and the same tickets as the live step, just
		// before it: what both would match, both do (package canary).
		p.shadow.Step(now)
	}
	if !now.Before(p.retryAt) {
		p.retryEnds(now)
		p.step(now)
	}
	p.compactExpiry()
	if p.live == 0 && len(p.sessions) == 0 { // a pool holding sessions open stays for them
		if p.idleSince.IsZero() {
			p.idleSince = now
		}
		retired = now.Sub(p.idleSince) >= p.idle && p.inbox.Len() == 0 && p.host.retire(p)
	} else {
		p.idleSince = time.Time{}
	}
	// Wake's callers hear after the step and the idle check, so what
	// they look at next reflects both.
	for _, a := range p.acks {
		close(a)
	}
	p.acks = p.acks[:0]
	return retired
}

// nextWake is the earliest of: the engine's next relaxation, the next
// expiry, a retry after a store failure, the end of an idle pool's grace
// time. The actor sleeps until then (at most an hour).
func (p *pool) nextWake(now time.Time) (time.Time, bool) {
	wake := now.Add(actor.MaxSleep)
	if w, ok := p.eng.NextWake(now); ok && w.Before(wake) {
		wake = w
	}
	if p.shadow != nil {
		if w, ok := p.shadow.NextWake(now); ok && w.Before(wake) {
			wake = w
		}
	}
	if len(p.expiry) > 0 && p.expiry[0].at < wake.UnixNano() {
		wake = time.Unix(0, p.expiry[0].at)
	}
	if len(p.heldBack) > 0 && p.heldBack[0].until < wake.UnixNano() {
		wake = time.Unix(0, p.heldBack[0].until)
	}
	if !p.retryAt.IsZero() && p.retryAt.Before(wake) {
		wake = p.retryAt
	}
	if p.live == 0 && !p.idleSince.IsZero() {
		if w := p.idleSince.Add(p.idle); w.Before(wake) {
			wake = w
		}
	}
	return wake, true
}

// add takes a stored waiting ticket into the pool. The engine may refuse
// it (a ruleset replaced since the ticket was checked, a reload under
// another configuration, a region table full): then it is cancelled with
// the engine's reason, so it never waits unseen.
func (p *pool) add(t *cupid.Ticket) {
	if _, ok := p.gone[t.ID]; ok {
		delete(p.gone, t.ID)
		p.host.release(p, 1)
		return
	}
	if p.isLive(t.ID) {
		p.host.release(p, 1) // the same ticket twice: its reservation once
		return
	}
	p.live++
	p.waiting.Inc()
	heap.Push(&p.expiry, expiryItem{at: t.ExpiresAt.UnixNano(), id: t.ID})
	if p.shadow != nil {
		p.shadow.Add(t)
	}
	if t.HeldUntil.After(p.now()) {
		p.holdBack(t)
		return
	}
	if err := p.eng.Add(t); err != nil {
		p.out[t.ID] = liveOf(t)
		p.end(t.ID, cupid.StateCancelled, "the queue's ruleset cannot match it: "+err.Error(), p.now().UTC())
	}
}

// isLive reports whether a ticket is live in the pool outside a step's
// proposals.
func (p *pool) isLive(id string) bool {
	if _, ok := p.out[id]; ok {
		return true
	}
	return p.eng.Contains(id)
}

// drop forgets a ticket that ended elsewhere.
func (p *pool) drop(id string) {
	switch {
	case p.eng.Remove(id):
	case p.takeOut(id):
	default:
		p.markGone(id)
		return
	}
	p.shadowLeave(id)
	p.forget()
}

// takeOut removes a ticket from out and reports whether it was there.
func (p *pool) takeOut(id string) bool {
	if _, ok := p.out[id]; !ok {
		return false
	}
	delete(p.out, id)
	return true
}

// forget counts a live ticket gone (already out of the engine and of out)
// and gives back its reservation.
func (p *pool) forget() {
	p.live--
	p.waiting.Dec()
	p.host.release(p, 1)
}

// compactExpiry rebuilds the expiry heap when the ended tickets it still
// holds outnumber the live ones, so that a busy pool's heap stays the size
// of what waits. It runs between steps, when every live ticket is in the
// engine or in out: within a step, a proposal's tickets are in neither and
// would lose their expiry.
func (p *pool) compactExpiry() {
	if len(p.expiry) <= 2*p.live+1024 {
		return
	}
	p.expiry = p.expiry[:0]
	p.eng.EachTimes(func(id string, _, expires int64) {
		p.expiry = append(p.expiry, expiryItem{at: expires, id: id})
	})
	for id, lt := range p.out {
		p.expiry = append(p.expiry, expiryItem{at: lt.expires, id: id})
	}
	heap.Init(&p.expiry)
}

type goneItem struct {
	id string
	at time.Time
}

// markGone remembers that ticket id ended before its add arrived.
func (p *pool) markGone(id string) {
	now := p.now()
	p.gone[id] = now
	p.goneOrder = append(p.goneOrder, goneItem{id: id, at: now})
	p.pruneGone(now)
}

// pruneGone bounds gone: an add arrives within moments of its ticket's
// store write, so a minute-old entry will never be asked for. The oldest
// come first in goneOrder; an entry whose ticket was marked again later
// (or taken by its add) leaves the order without touching the map's.
func (p *pool) pruneGone(now time.Time) {
	cut := now.Add(-time.Minute)
	n := 0
	for n < len(p.goneOrder) && p.goneOrder[n].at.Before(cut) {
		g := p.goneOrder[n]
		if at, ok := p.gone[g.id]; ok && at.Equal(g.at) {
			delete(p.gone, g.id)
		}
		n++
	}
	if n > 0 {
		// Shift only when the dead prefix is most of the slice, so
		// each entry is moved a bounded number of times.
		p.goneOrder = p.goneOrder[n:]
		if cap(p.goneOrder) > 1024 && len(p.goneOrder) < cap(p.goneOrder)/4 {
			p.goneOrder = append([]goneItem(nil), p.goneOrder...)
		}
	}
}

// end finishes a live ticket from the pool's goroutine (expiry, refusal).
// When the store fails, the ticket stays live and out of the engine, and
// ending it is tried again later: it is never left waiting unseen.
func (p *pool) end(id string, state cupid.TicketState, reason string, now time.Time) {
	if created, expires, ok := p.eng.Times(id); ok {
		p.eng.Remove(id)
		p.out[id] = liveTicket{created: created, expires: expires}
	}
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	_, err := p.host.finish(ctx, p.fence, id, state, reason, p)
	cancel()
	switch {
	case err == nil:
	case cupid.ErrorCode(err) == cupid.CodeConflict || cupid.ErrorCode(err) == cupid.CodeNotFound:
		if p.takeOut(id) { // ended already (matched, cancelled) by someone else
			p.shadowLeave(id)
			p.forget()
		}
	default:
		if !errors.Is(err, context.Canceled) {
			p.log.Error("ending a ticket failed; trying again", "ticket", id, "state", state, "err", err)
		}
		p.pending = append(p.pending, pendingEnd{id: id, reason: reason})
		p.retryAt = now.Add(time.Second)
	}
}

// retryEnds tries again the ends the store refused. An expired ticket is
// ended as expired even if its first try was a refusal.
func (p *pool) retryEnds(now time.Time) {
	if len(p.pending) == 0 {
		return
	}
	todo := p.pending
	p.pending = nil
	for _, pe := range todo {
		lt, ok := p.out[pe.id]
		if !ok {
			continue
		}
		state := cupid.StateCancelled
		if lt.expires <= now.UnixNano() {
			state = cupid.StateExpired
		}
		p.end(pe.id, state, pe.reason, now)
	}
}

// expire ends every live ticket whose time to live has passed, whether or
// not the engine holds it.
func (p *pool) expire(now time.Time) {
	for len(p.expiry) > 0 && p.expiry[0].at <= now.UnixNano() {
		it := heap.Pop(&p.expiry).(expiryItem)
		if !p.isLive(it.id) {
			continue // matched or cancelled already
		}
		p.shadowExpired(it.id)
		p.end(it.id, cupid.StateExpired, "", now)
	}
}

// step asks the engine for matches and commits them. A match the store
// refuses because some of its tickets no longer wait gives the others back
// to the engine.
func (p *pool) step(now time.Time) {
	start := time.Now()
	props := p.eng.Step(now)
	p.metrics.passSeconds.WithLabelValues(p.key.Queue).Observe(time.Since(start).Seconds())
	props, backfills := splitBackfills(props)
	if len(backfills) > 0 {
		p.commitBackfills(backfills, now) // session.go
	}
	if len(props) == 0 {
		return
	}
	ms := make([]*cupid.Match, len(props))
	acceptBy := p.handoff.AcceptBy(p.key.Queue, now) // zero without a ready check (package handoff)
	for i := range props {
		m := props[i].Match()
		m.ID = newID()
		m.Key = p.key
		m.CreatedAt = now
		m.AcceptBy = acceptBy
		p.sessionize(&m)
		ms[i] = &m
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.TicketIDs()...)
	}
	tctx, span := p.trace.start(p.ctx, "cupid.commit", p.trace.links(ids, false),
		attribute.String("cupid.queue", p.key.Queue), attribute.Int("cupid.matches", len(ms)))
	defer span.End()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	results, events, err := p.store.CommitMatches(ctx, p.fence, ms)
	cancel()
	if err != nil {
		p.host.checkFenced(p.key.Queue, err)
		if !errors.Is(err, context.Canceled) {
			p.log.Error("committing matches failed; tickets return to the pool", "pool", p.key.String(), "matches", len(ms), "err", err)
		}
		span.SetStatus(codes.Error, err.Error())
		p.ready.failed()
		for i := range props {
			p.giveBack(props[i].Tickets(), nil, now)
		}
		p.retryAt = now.Add(time.Second)
		return
	}
	p.retryAt = time.Time{}
	for i, pr := range props {
		res := results[i]
		if !res.OK && len(res.Busy) > 0 {
			p.holdBusy(pr.Tickets(), res.Busy, now)
			continue
		}
		if !res.OK {
			p.giveBack(pr.Tickets(), res.NotWaiting, now)
			continue
		}
		p.committed(ms[i], &props[i], now)
		p.trace.links(ms[i].TicketIDs(), true) // matched: their spans are no longer needed
		p.formedSession(ms[i], &props[i], res.Formed)
		for _, t := range res.Cancelled {
			p.metrics.tickets.WithLabelValues(t.Key.Queue, string(cupid.StateCancelled)).Inc()
		}
		p.host.ended(p, res.Cancelled...)
	}
	// Bookkeeping and metrics first, then the events: a watcher told
	// "matched" finds the match counted.
	_, notify := p.trace.start(tctx, "cupid.notify", nil, attribute.Int("cupid.events", len(events)))
	p.hub.Publish(events...)
	// This pool took its matched tickets out already; the cancelled
	// tickets of other queues go round the database as before.
	p.hub.rememberOwn(events, func(ev cupid.Event) bool { return ev.Kind == cupid.EventMatched })
	notify.End()
	p.handoff.MatchesFormed(results)
}

// committed records a committed match: its tickets leave the pool.
func (p *pool) committed(m *cupid.Match, pr *engine.Proposal, now time.Time) {
	p.formed++
	p.quality += m.Quality.Score
	p.host.recordMatch(p.key, m, pr, now) // the dashboard's statistics (stats.go)
	p.metrics.matches.WithLabelValues(p.key.Queue).Inc()
	p.metrics.quality.WithLabelValues(p.key.Queue).Observe(m.Quality.Score)
	teams := make([][]string, len(m.Teams))
	for ti, team := range m.Teams {
		teams[ti] = team.PlayerIDs
	}
	p.recent.addMatch(teams)
	if p.shadow != nil {
		p.shadowLeave(m.TicketIDs()...)
	}
	for _, part := range m.Quality.Parts {
		p.metrics.qualityPart.WithLabelValues(p.key.Queue, part.Name).Observe(part.Score)
	}
	for i := range pr.Len() {
		p.metrics.tickets.WithLabelValues(p.key.Queue, string(cupid.StateMatched)).Inc()
		p.metrics.timeToMatch.WithLabelValues(p.key.Queue).Observe(now.Sub(pr.CreatedAt(i)).Seconds())
		p.forget()
	}
}

// giveBack returns to the engine the tickets of a match that was not
// committed (all of them when the store failed) that still wait; those
// that do not were ended elsewhere and leave the pool. A
// ticket the engine will not take back is ended with its reason.
func (p *pool) giveBack(ts []*cupid.Ticket, notWaiting []string, now time.Time) {
	gone := make(map[string]bool, len(notWaiting))
	for _, id := range notWaiting {
		gone[id] = true
	}
	var back []*cupid.Ticket
	for _, t := range ts {
		if gone[t.ID] {
			p.shadowLeave(t.ID)
			p.forget()
			continue
		}
		back = append(back, t)
	}
	for _, ev := range p.eng.Return(back) {
		p.out[ev.Ticket.ID] = liveOf(ev.Ticket)
		p.end(ev.Ticket.ID, cupid.StateCancelled, fmt.Sprintf("the queue's ruleset cannot match it: %v", ev.Err), now)
	}
}

// explain asks the pool why a ticket waits; nil if the pool is too busy to
// answer within a short time.
func (p *pool) explain(ctx context.Context, id string) *engine.Explanation {
	ch := make(chan *engine.Explanation, 1)
	p.do(func(p *pool) {
		if e, ok := p.eng.Explain(id, p.now()); ok {
			ch <- &e
			return
		}
		ch <- p.explainHeld(id)
	})
	select {
	case e := <-ch:
		return e
	case <-ctx.Done():
	case <-p.quit:
	case <-time.After(2 * time.Second):
	}
	return nil
}

func (p *pool) stats(ctx context.Context) (PoolStats, bool) {
	ch := make(chan PoolStats, 1)
	p.do(func(p *pool) {
		st := p.eng.Stats()
		ps := PoolStats{
			Key: p.key, Waiting: p.live, Players: st.Players, MatchesFormed: p.formed,
			RulesetVersion: p.q.version,
		}
		oldest, found := p.eng.Oldest()
		for _, lt := range p.out {
			if c := time.Unix(0, lt.created); !found || c.Before(oldest) {
				oldest, found = c, true
			}
		}
		if found {
			ps.OldestWait = p.now().Sub(oldest)
		}
		if p.formed > 0 {
			ps.MeanQuality = p.quality / float64(p.formed)
		}
		ch <- ps
	})
	select {
	case st := <-ch:
		return st, true
	case <-ctx.Done():
	case <-p.quit:
	case <-time.After(2 * time.Second):
	}
	return PoolStats{}, false
}

// liveTicket is what the pool keeps of a live ticket out of the engine:
// its creation and expiry times in Unix nanoseconds.
type liveTicket struct {
	created, expires int64
}

func liveOf(t *cupid.Ticket) liveTicket {
	return liveTicket{created: t.CreatedAt.UnixNano(), expires: t.ExpiresAt.UnixNano()}
}

// expiryItem is a ticket's id and its expiry in Unix nanoseconds. An item
// whose ticket is no longer live, or live with another expiry, is stale and
// skipped.
type expiryItem struct {
	at int64
	id string
}

// expiryHeap orders tickets by expiry time, earliest first.
type expiryHeap []expiryItem

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiryItem)) }
func (h *expiryHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
