package ticketsvc

import (
	"errors"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/ticketsvc/handoff"
)

// The hand-off of committed matches (package handoff) reaches the pools
// only through handoff.Pools; handoffPools is this service's side of it.
// Keeping it a type of its own, rather than methods of Service, keeps the
// seam to the five calls the interface lists.
type handoffPools struct{ s *Service }

var _ handoff.Pools = handoffPools{}

// Owned is the fence of this node's writes for a queue it runs.
func (h handoffPools) Owned(queue string) (cupid.Fence, bool) { return h.s.owned(queue) }

// Requeue hands released tickets back to their pools, key by key; a queue
// no longer configured keeps them in the store, for the next start to
// cancel as any waiting ticket of an unconfigured queue.
func (h handoffPools) Requeue(ts []*cupid.Ticket) {
	byKey := map[cupid.QueueKey][]*cupid.Ticket{}
	for _, t := range ts {
		byKey[t.Key] = append(byKey[t.Key], t)
	}
	for key, ts := range byKey {
		if h.s.queue(key.Queue) == nil {
			continue
		}
		p := h.s.reserve(key, len(ts), true)
		p.do(func(p *pool) {
			for _, t := range ts {
				p.add(t)
			}
		})
	}
}

// SetSession gives a session's pool the session as stored: one open to
// backfill starts the pool if need be; one closed concerns only a pool
// that runs (which may hold it).
func (h handoffPools) SetSession(rec *cupid.MatchRecord, seq int64, players map[string]cupid.Player, at time.Time) {
	key := rec.Match.Key
	if !rec.Live() || !rec.Match.Backfill {
		if p := h.s.existingPool(key); p != nil {
			id := rec.Match.ID
			p.do(func(p *pool) { p.closeSession(id, seq) })
		}
		return
	}
	p := h.s.reserve(key, 1, true)
	p.do(func(p *pool) {
		p.host.release(p, 1)
		p.setSession(rec, seq, players, at)
	})
}

// LoadSession gives a session back to its pool and waits for the pool to
// hold it.
func (h handoffPools) LoadSession(rec *cupid.MatchRecord, players map[string]cupid.Player) (bool, error) {
	p := h.s.reserve(rec.Match.Key, 1, true)
	if p == nil {
		return false, nil // the node gave the queue up meanwhile
	}
	done := make(chan struct{})
	p.do(func(p *pool) {
		p.host.release(p, 1)
		p.setSession(rec, 0, players, rec.UpdatedAt)
		close(done)
	})
	select {
	case <-done:
		return true, nil
	case <-p.quit:
		return false, errors.New("ticketsvc: the service was closed while starting")
	}
}

// Rules is a queue's ruleset now and its checking engine.
func (h handoffPools) Rules(queue string) (*ruleset.Compiled, *engine.Pool) {
	q := h.s.queue(queue)
	if q == nil {
		return nil, nil
	}
	return q.rules, q.check
}
