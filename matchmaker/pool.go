package matchmaker

import (
	"container/heap"
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
)

// pool runs one engine.Pool on its own goroutine. Everything that touches
// the engine goes through the inbox as a function, so the engine needs no
// locks and its decisions happen in one order that could be replayed.
type pool struct {
	s       *Service
	key     cupid.QueueKey
	q       *queue
	eng     *engine.Pool
	inbox   chan func(*pool)
	expiry  expiryHeap
	formed  int64
	quality float64 // sum of scores of formed matches
	gauge   interface{ Set(float64) }
	// retryAt delays the next step after the store failed.
	retryAt time.Time
	// recent feeds the engine's variety criterion.
	recent *recentPairs
}

// recentPairsPerPool bounds the memory of who faced whom: about 100 bytes
// a pair.
const recentPairsPerPool = 200_000

func newPool(s *Service, key cupid.QueueKey, q *queue) *pool {
	recent := newRecentPairs(recentPairsPerPool)
	eng, err := engine.New(key, q.rules, engine.Options{Seed: int64(s.seed), Met: recent.met})
	if err != nil {
		// The ruleset was accepted by the same constructor when the queue
		// was configured, so this cannot fail for a valid configuration.
		panic("matchmaker: engine refused a ruleset it accepted before: " + err.Error())
	}
	return &pool{
		s:      s,
		key:    key,
		q:      q,
		eng:    eng,
		inbox:  make(chan func(*pool), 1024),
		recent: recent,
		gauge:  s.metrics.poolSize.WithLabelValues(key.Queue, key.String()),
	}
}

// do runs f on the pool's goroutine, without waiting for it.
func (p *pool) do(f func(*pool)) {
	select {
	case p.inbox <- f:
	case <-p.s.ctx.Done():
	}
}

// maxOpsPerStep bounds how many inbox operations run before the engine gets
// a step, so a flood of arrivals cannot starve matching.
const maxOpsPerStep = 4096

func (p *pool) run(ctx context.Context) {
	defer p.s.wg.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		p.resetTimer(timer)
		select {
		case f := <-p.inbox:
			f(p)
		drain:
			for i := 0; i < maxOpsPerStep; i++ {
				select {
				case f := <-p.inbox:
					f(p)
				default:
					break drain
				}
			}
		case <-timer.C:
		case <-ctx.Done():
			return
		}
		now := p.s.now().UTC()
		p.expire(now)
		if !now.Before(p.retryAt) {
			p.step(now)
		}
		p.gauge.Set(float64(p.eng.Len()))
	}
}

// resetTimer arms the timer for the earliest of: the engine's next
// relaxation, the next expiry, a retry after a store failure.
func (p *pool) resetTimer(t *time.Timer) {
	now := p.s.now()
	wake := now.Add(time.Hour)
	if w, ok := p.eng.NextWake(now); ok && w.Before(wake) {
		wake = w
	}
	if len(p.expiry) > 0 && p.expiry[0].at.Before(wake) {
		wake = p.expiry[0].at
	}
	if !p.retryAt.IsZero() && p.retryAt.Before(wake) {
		wake = p.retryAt
	}
	d := wake.Sub(now)
	if d < 0 {
		d = 0
	}
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	t.Reset(d)
}

func (p *pool) add(t *cupid.Ticket) {
	if err := p.eng.Add(t); err != nil {
		// Check ran before the ticket was stored; a ticket reloaded after a
		// ruleset change may no longer fit. It waits until it expires.
		p.s.log.Warn("engine refused a stored ticket", "ticket", t.ID, "pool", p.key.String(), "err", err)
	}
	heap.Push(&p.expiry, expiryItem{at: t.ExpiresAt, id: t.ID})
}

func (p *pool) remove(id string) { p.eng.Remove(id) }

// expire finishes every ticket whose time to live has passed.
func (p *pool) expire(now time.Time) {
	for len(p.expiry) > 0 && !p.expiry[0].at.After(now) {
		it := heap.Pop(&p.expiry).(expiryItem)
		if !p.eng.Remove(it.id) {
			continue // matched or cancelled already
		}
		ctx, cancel := context.WithTimeout(p.s.ctx, 10*time.Second)
		_, ev, err := p.s.store.FinishTicket(ctx, it.id, cupid.StateExpired, now)
		cancel()
		if err != nil {
			if cupid.ErrorCode(err) != cupid.CodeConflict {
				p.s.log.Error("expiring a ticket failed", "ticket", it.id, "err", err)
			}
			continue
		}
		p.s.metrics.tickets.WithLabelValues(p.key.Queue, string(cupid.StateExpired)).Inc()
		p.s.hub.publish(ev)
	}
}

// step asks the engine for matches and commits them. Tickets of a match the
// store refuses (one of them was cancelled meanwhile) go back to the engine
// if they still wait.
func (p *pool) step(now time.Time) {
	start := time.Now()
	props := p.eng.Step(now)
	p.s.metrics.passSeconds.WithLabelValues(p.key.Queue).Observe(time.Since(start).Seconds())
	if len(props) == 0 {
		return
	}
	ms := make([]*cupid.Match, len(props))
	for i := range props {
		m := props[i].Match
		id, err := uuid.NewV7()
		if err != nil {
			id = uuid.New()
		}
		m.ID = id.String()
		m.Key = p.key
		m.CreatedAt = now
		ms[i] = &m
	}
	ctx, cancel := context.WithTimeout(p.s.ctx, 30*time.Second)
	ok, events, err := p.s.store.CommitMatches(ctx, ms)
	cancel()
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			p.s.log.Error("committing matches failed; tickets return to the pool", "pool", p.key.String(), "matches", len(ms), "err", err)
		}
		for _, pr := range props {
			p.eng.Return(pr.Tickets)
		}
		p.retryAt = now.Add(time.Second)
		return
	}
	p.retryAt = time.Time{}
	for i, pr := range props {
		if ok[i] {
			p.formed++
			p.quality += ms[i].Quality.Score
			p.s.metrics.matches.WithLabelValues(p.key.Queue).Inc()
			p.s.metrics.quality.WithLabelValues(p.key.Queue).Observe(ms[i].Quality.Score)
			teams := make([][]string, len(ms[i].Teams))
			for ti, team := range ms[i].Teams {
				teams[ti] = team.PlayerIDs
			}
			p.recent.addMatch(teams)
			for _, part := range ms[i].Quality.Parts {
				p.s.metrics.qualityPart.WithLabelValues(p.key.Queue, part.Name).Observe(part.Score)
			}
			for _, t := range pr.Tickets {
				p.s.metrics.tickets.WithLabelValues(p.key.Queue, string(cupid.StateMatched)).Inc()
				p.s.metrics.timeToMatch.WithLabelValues(p.key.Queue).Observe(now.Sub(t.CreatedAt).Seconds())
			}
			continue
		}
		p.returnStillWaiting(pr.Tickets)
	}
	p.s.hub.publish(events...)
}

func (p *pool) returnStillWaiting(ts []*cupid.Ticket) {
	var back []*cupid.Ticket
	for _, t := range ts {
		ctx, cancel := context.WithTimeout(p.s.ctx, 10*time.Second)
		cur, err := p.s.store.Ticket(ctx, t.ID)
		cancel()
		if err == nil && cur.State == cupid.StateWaiting {
			back = append(back, t)
		}
	}
	if len(back) > 0 {
		p.eng.Return(back)
	}
}

// explain asks the pool why a ticket waits; nil if the pool is too busy to
// answer within a short time.
func (p *pool) explain(ctx context.Context, id string) *engine.Explanation {
	ch := make(chan *engine.Explanation, 1)
	p.do(func(p *pool) {
		if e, ok := p.eng.Explain(id, p.s.now()); ok {
			ch <- &e
			return
		}
		ch <- nil
	})
	select {
	case e := <-ch:
		return e
	case <-ctx.Done():
		return nil
	case <-time.After(2 * time.Second):
		return nil
	}
}

func (p *pool) stats(ctx context.Context) (PoolStats, bool) {
	ch := make(chan PoolStats, 1)
	p.do(func(p *pool) {
		st := p.eng.Stats()
		ps := PoolStats{
			Key: p.key, Waiting: st.Tickets, Players: st.Players, MatchesFormed: p.formed,
			RulesetVersion: p.q.version,
		}
		if ts := p.eng.Tickets(); len(ts) > 0 {
			oldest := ts[0].CreatedAt
			for _, t := range ts[1:] {
				if t.CreatedAt.Before(oldest) {
					oldest = t.CreatedAt
				}
			}
			ps.OldestWait = p.s.now().Sub(oldest)
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
		return PoolStats{}, false
	case <-time.After(2 * time.Second):
		return PoolStats{}, false
	}
}

type expiryItem struct {
	at time.Time
	id string
}

// expiryHeap orders tickets by expiry time, earliest first.
type expiryHeap []expiryItem

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiryItem)) }
func (h *expiryHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
