package ticketsvc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// SharedStore is what a node needs of a store it shares with other nodes
// (PostgreSQL), beyond cupid.Store.
type SharedStore interface {
	// EventsAt reads ticket events by sequence number, in order, each with
	// its ticket as it is now.
	EventsAt(ctx context.Context, seqs []int64) ([]cupid.TicketChange, error)
	// WaitingTicketsOf returns a queue's waiting tickets, oldest first.
	WaitingTicketsOf(ctx context.Context, queue string) ([]*cupid.Ticket, error)
}

// Several nodes, one database. When Options.Shared is set, the service is one
// node of several that share the store, and it runs the pools of only the
// queues whose lease this node holds (package cluster decides which; it
// calls Gain and Lose). Every node serves the whole API:
//
//   - A ticket created on any node is stored there; the node that runs its
//     queue hears of it from the database's notification (Changed) and adds
//     it to its pool. Cancels work the same way: the store ends the ticket,
//     the owner's pool drops it when it hears.
//   - The owner's pool writes (matches, expiries, releases) carry the
//     lease's fence: the database refuses them once the lease has moved, and
//     the pool stops (checkFenced). No node can commit for a queue it no
//     longer holds, however long it was paused.
//   - Watchers on every node hear every event from the notifications, in
//     commit order (a ticket's events commit one after another, so this is
//     its sequence order), once each; the node's own publishing is silent.
//   - When a node takes a queue over it reads the queue's waiting tickets,
//     with their original age, and carries on.

// LeaseName is the lease that gives a node a queue's pools.
func LeaseName(queue string) string { return "queue/" + queue }

// LeaseNames lists the leases of every configured queue.
func (s *Service) LeaseNames() []string {
	qs := s.Queues()
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = LeaseName(q)
	}
	return out
}

// runsElsewhere reports whether another node runs the queue's pools (the
// store is shared and this node holds no lease on the queue).
func (s *Service) runsElsewhere(queue string) bool {
	if s.shared == nil {
		return false
	}
	_, ok := s.fenceOf(queue)
	return !ok
}

// fenceOf returns the fence of the node's lease on a queue.
func (s *Service) fenceOf(queue string) (cupid.Fence, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.fences[queue]
	return f, ok
}

// owned is the fence of the writes this node makes for a queue it runs:
// its lease's when the store is shared, none on a store of its own; ok is
// false when another node runs the queue.
func (s *Service) owned(queue string) (cupid.Fence, bool) {
	if s.shared == nil {
		return cupid.Fence{}, true
	}
	return s.fenceOf(queue)
}

// Owns reports whether this node runs the queue's pools: always with a
// store of its own, with a lease when the store is shared.
func (s *Service) Owns(queue string) bool { return !s.runsElsewhere(queue) }

// Gain starts running a queue's pools under the node's lease: its waiting
// tickets are read from the store with their original age. It implements
// cluster.Handler.
func (s *Service) Gain(name string, f cupid.Fence) {
	queue, ok := strings.CutPrefix(name, "queue/")
	if !ok || s.queue(queue) == nil {
		return
	}
	s.mu.Lock()
	s.fences[queue] = f
	s.mu.Unlock()
	// Tickets stored from here on are heard of (Changed) and added; the
	// read below finds every one stored before. A ticket both heard of and
	// read is added once.
	var waiting []*cupid.Ticket
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		var err error
		waiting, err = s.shared.WaitingTicketsOf(ctx, queue)
		cancel()
		if err == nil {
			break
		}
		if s.ctx.Err() != nil || attempt == 5 {
			s.log.Error("reading a queue's waiting tickets failed; giving the queue up", "queue", queue, "err", err)
			s.stopQueue(queue)
			s.noteFenced(name)
			return
		}
		time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
	}
	// Open sessions before the tickets, so backfill comes first (package handoff).
	if err := s.handoff.LoadSessions(s.ctx, queue); err != nil {
		s.log.Error("reading a queue's open sessions failed; they take no backfill until the queue is taken over again", "queue", queue, "err", err)
	}
	s.addWaiting(waiting)
	s.log.Info("running a queue's pools", "queue", queue, "token", f.Token, "waiting", len(waiting))
	s.metrics.takeovers.WithLabelValues(queue).Inc()
}

// addWaiting hands stored waiting tickets to their pools, key by key.
func (s *Service) addWaiting(ts []*cupid.Ticket) {
	byKey := map[cupid.QueueKey][]*cupid.Ticket{}
	for _, t := range ts {
		byKey[t.Key] = append(byKey[t.Key], t)
	}
	for key, ts := range byKey {
		p := s.reserve(key, len(ts), true)
		p.do(func(p *pool) {
			for _, t := range ts {
				p.add(t)
			}
		})
	}
}

// Lose stops running a queue's pools and returns once they have stopped:
// nothing more is written under the lease. Their tickets stay waiting in
// the store for the next owner. It implements cluster.Handler.
func (s *Service) Lose(name string) {
	queue, ok := strings.CutPrefix(name, "queue/")
	if !ok {
		return
	}
	fence, held := s.fenceOf(queue)
	s.stopQueue(queue)
	if held { // the canary's guard window, for the next runner (package canary)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s.roll.SaveWindow(ctx, queue, fence)
		cancel()
	}
	s.log.Info("stopped running a queue's pools", "queue", queue)
}

func (s *Service) stopQueue(queue string) {
	s.mu.Lock()
	delete(s.fences, queue)
	var stopping []*pool
	for key, p := range s.pools {
		if key.Queue == queue {
			stopping = append(stopping, p)
			delete(s.pools, key)
			if q := s.queues[queue]; q != nil {
				q.keys--
			}
			s.metrics.pools.WithLabelValues(queue).Dec()
		}
	}
	s.mu.Unlock()
	for _, p := range stopping {
		p.stop()
	}
	for _, p := range stopping {
		<-p.quit
		p.waiting.Sub(float64(p.live))
	}
}

// SetFencedHandler names who to tell when the database refuses a pool's
// write for its fence (the cluster node, which gives the lease up).
func (s *Service) SetFencedHandler(f func(lease string)) {
	s.mu.Lock()
	s.onFenced = f
	s.mu.Unlock()
}

// checkFenced stops a queue's pools when the store refused a write for the
// node's fence on it.
func (s *Service) checkFenced(queue string, err error) {
	if queue == "" || !errors.Is(err, cupid.ErrFenced) {
		return
	}
	s.log.Warn("the database refused a write: another node runs the queue now", "queue", queue)
	// Not on the pool's own goroutine, which stopQueue waits for.
	go func() {
		s.stopQueue(queue)
		s.noteFenced(LeaseName(queue))
	}()
}

func (s *Service) noteFenced(name string) {
	s.mu.Lock()
	f := s.onFenced
	s.mu.Unlock()
	if f != nil {
		f(name)
	}
}

// queueOf is the queue of a pool, "" for none.
func queueOf(p *pool) string {
	if p == nil {
		return ""
	}
	return p.key.Queue
}

// Changed acts on ticket events other nodes (or this one) stored, named by
// a notification: watchers hear them, and the pools this node runs take in
// new and requeued tickets and drop those that ended elsewhere.
func (s *Service) Changed(ctx context.Context, seqs []int64) error {
	if s.shared == nil {
		return errors.New("ticketsvc: Changed needs a shared store")
	}
	own, rest := s.hub.takeOwn(seqs)
	var chs []cupid.TicketChange
	if len(rest) > 0 {
		var err error
		if chs, err = s.shared.EventsAt(ctx, rest); err != nil {
			return fmt.Errorf("ticketsvc: read the events of a notification: %w", err)
		}
	}
	s.hub.deliver(bySeq(own, chs)...)
	for _, c := range chs {
		t := c.Ticket
		if s.runsElsewhere(t.Key.Queue) || s.queue(t.Key.Queue) == nil {
			continue
		}
		switch c.Event.Kind {
		case cupid.EventCreated, cupid.EventRequeued:
			if t.State == cupid.StateWaiting {
				p := s.reserve(t.Key, 1, true)
				p.do(func(p *pool) { p.add(t) })
			}
		case cupid.EventMatched, cupid.EventCancelled, cupid.EventExpired:
			s.ended(nil, t)
		}
	}
	return nil
}

// MatchLogGrew acts on a queue's match events numbered from to to, stored
// by any node: it wakes the queue's match watchers here, and, when this
// node runs the queue, gives its pools the sessions those events changed (a
// backend may open backfill or report leavers through any node; a ready
// check may form a match on any node).
func (s *Service) MatchLogGrew(ctx context.Context, queue string, from, to int64, kinds []string) {
	s.handoff.Wake(queue)
	if s.runsElsewhere(queue) || !s.sessionNews(queue, kinds) {
		return
	}
	for after := from - 1; after < to; {
		evs, err := s.store.MatchEvents(ctx, queue, after, matchPage)
		if err != nil {
			s.log.Error("reading match events failed; their sessions take backfill once they change again or the queue moves", "queue", queue, "err", err)
			return
		}
		if len(evs) == 0 {
			return
		}
		for _, ev := range evs {
			if ev.Seq > to {
				return
			}
			after = ev.Seq
			if ev.Match == nil || !ev.Match.Backfill {
				// Not open to backfill (the event carries the match as it
				// is now): the pool lets the session go if it holds it,
				// with nothing to read. Most matches are never open.
				if ev.Match != nil {
					if p := s.existingPool(ev.Match.Key); p != nil {
						id, seq := ev.MatchID, ev.Seq
						p.do(func(p *pool) {
							if _, held := p.sessions[id]; held {
								p.closeSession(id, seq)
							}
						})
					}
				}
				continue
			}
			rec, err := s.store.MatchRecord(ctx, ev.MatchID)
			if err != nil {
				s.log.Error("reading a changed session failed", "match", ev.MatchID, "err", err)
				continue
			}
			s.handoff.SyncSession(ctx, rec, ev.Seq)
		}
	}
}

// matchPage is how many match events MatchLogGrew reads at a time.
const matchPage = 256

// sessionNews reports whether match events of these kinds in a queue this
// node runs may change what its pools hold open to backfill: when they can
// open a session (formed under auto_backfill, backfill opened, a leaver's
// seat reopened) or when a pool holds sessions that they may close. Most
// queues take no backfill, and their match log is then not read.
func (s *Service) sessionNews(queue string, kinds []string) bool {
	q := s.queue(queue)
	if q == nil {
		return false
	}
	for _, k := range kinds {
		switch cupid.MatchEventKind(k) {
		case cupid.MatchEventBackfillOpened, cupid.MatchEventLeft:
			return true
		case cupid.MatchEventFormed:
			if q.rules.AutoBackfill {
				return true
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, p := range s.pools {
		if key.Queue == queue && p.heldSessions.Load() > 0 {
			return true
		}
	}
	return false
}

// Resync catches up after notifications were missed (the listening
// connection was lost): watchers re-read their tickets' events, rulesets
// replaced meanwhile are installed, and the queues this node runs are
// reloaded from the store.
func (s *Service) Resync(ctx context.Context) {
	for _, id := range s.hub.watched() {
		evs, err := s.store.Events(ctx, id, 0)
		if err != nil {
			s.log.Error("catching a watcher up failed", "ticket", id, "err", err)
			continue
		}
		s.hub.deliver(evs...)
	}
	for _, q := range s.Queues() {
		if err := s.RulesetChanged(ctx, q); err != nil {
			s.log.Error("catching up with a replaced ruleset failed", "queue", q, "err", err)
		}
	}
	s.mu.Lock()
	owned := make(map[string]cupid.Fence, len(s.fences))
	for q, f := range s.fences {
		owned[q] = f
	}
	s.mu.Unlock()
	for q, f := range owned {
		s.stopQueue(q)
		s.Gain(LeaseName(q), f)
	}
}
