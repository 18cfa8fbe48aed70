package handoff

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/lifecycle"
)

// The hand-off of matches to game servers. A backend (a director, an
// allocator) follows a queue's match log with WatchMatches, places each
// formed match on a server and calls AssignMatch; the players' ticket
// watchers hear "assigned" with the server's address. A queue may release
// a match nobody assigned in time (AssignTimeout): its tickets go back to
// their pool with their original age, or are cancelled.
//
// Order is persist, then publish, as for tickets. The match log lives in
// the store; the wakers below only wake watchers, which then read the
// store after the last sequence number they sent. So a watcher never sends
// an event twice or skips one, even when two pools of a queue commit at
// once and publish in another order than their numbers.

// OnTimeout says what becomes of the tickets of a match released because
// no backend assigned it in time.
type OnTimeout string

// The choices of OnTimeout.
const (
	// Requeue puts the tickets back to waiting with their original age.
	Requeue OnTimeout = "requeue"
	// CancelTickets cancels them, with the reason.
	CancelTickets OnTimeout = "cancel"
)

// checkAssignTimeout checks the release policy; an assign timeout without
// a choice requeues.
func (p *Policy) checkAssignTimeout() error {
	d, on := p.AssignTimeout, p.OnAssignTimeout
	switch {
	case d < 0:
		return errors.New("assign_timeout must not be negative")
	case d == 0 && on != "":
		return fmt.Errorf("on_assign_timeout %q needs an assign_timeout", on)
	case d > 0 && on == "":
		p.OnAssignTimeout = Requeue
	case d > 0 && on != Requeue && on != CancelTickets:
		return fmt.Errorf("on_assign_timeout must be requeue or cancel, not %q", on)
	}
	return nil
}

// wakers wake the watchers of a queue's match log. Each watcher has a
// channel of one: a wake that finds it full is already pending.
type wakers struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

func newWakers() *wakers {
	return &wakers{subs: map[string]map[chan struct{}]struct{}{}}
}

func (h *wakers) subscribe(queue string) chan struct{} {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs[queue] == nil {
		h.subs[queue] = map[chan struct{}]struct{}{}
	}
	h.subs[queue][ch] = struct{}{}
	return ch
}

func (h *wakers) unsubscribe(queue string, ch chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs[queue], ch)
	if len(h.subs[queue]) == 0 {
		delete(h.subs, queue)
	}
}

func (h *wakers) wake(queue string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs[queue] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// MatchesFormed wakes the match watchers of the queues of a commit's
// stored matches (a pool's commit, a formed match of a lobby).
func (s *Service) MatchesFormed(results []cupid.Committed) {
	var last string
	for _, r := range results {
		if r.OK && r.Formed.Queue != last {
			last = r.Formed.Queue
			s.wakers.wake(last)
		}
	}
}

// Wake wakes a queue's match watchers after its match log grew outside
// this package: a pool committed backfills, or another node stored events.
func (s *Service) Wake(queue string) { s.wakers.wake(queue) }

// GetMatch returns a match with its hand-off state.
func (s *Service) GetMatch(ctx context.Context, id string) (*cupid.MatchRecord, error) {
	if id == "" {
		return nil, cupid.Invalid("match_id", "required")
	}
	r, err := s.store.MatchRecord(ctx, id)
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	return r, s.withAnswers(ctx, r)
}

// MatchPlayers returns the players of a match, for the permission check
// that lets a player read the matches he is in.
func (s *Service) MatchPlayers(ctx context.Context, id string) ([]string, error) {
	r, err := s.GetMatch(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range r.Match.Teams {
		out = append(out, t.PlayerIDs...)
	}
	return out, nil
}

// ListMatches lists a queue's matches oldest first (100 by default, 1,000
// at most).
func (s *Service) ListMatches(ctx context.Context, f cupid.MatchFilter) ([]*cupid.MatchRecord, error) {
	if err := s.checkQueue(f.Queue); err != nil {
		return nil, err
	}
	switch f.State {
	case "", cupid.MatchPending, cupid.MatchFormed, cupid.MatchAssigned, cupid.MatchReleased, cupid.MatchEnded:
	default:
		return nil, cupid.Invalid("state", "must be pending, formed, assigned, released or ended, not %q", f.State)
	}
	limit, err := cupid.ListLimit(f.Limit)
	if err != nil {
		return nil, err
	}
	f.Limit = limit
	rs, err := s.store.Matches(ctx, f)
	return rs, storeerr.Domain(s.log, err)
}

// AssignMatch records where a formed match is played; its players' ticket
// watchers hear it. Assigning a match twice, or one released, is refused
// with failed_precondition and changes nothing.
func (s *Service) AssignMatch(ctx context.Context, id string, a cupid.Assignment) (*cupid.MatchRecord, error) {
	ctx, span := s.tracer.Start(ctx, "cupid.AssignMatch", trace.WithAttributes(attribute.String("cupid.match_id", id)))
	defer span.End()
	if id == "" {
		return nil, cupid.Invalid("match_id", "required")
	}
	a.At = s.now().UTC()
	r, mev, evs, err := lifecycle.Assign(ctx, s.store, cupid.Fence{}, id, a)
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	s.events.Publish(evs...)
	s.wakers.wake(mev.Queue)
	return r, nil
}

// ReleaseMatch releases a formed match: its tickets go back to their pool
// with their original age (requeue) or are cancelled, with reason.
func (s *Service) ReleaseMatch(ctx context.Context, id string, requeue bool, reason string) (*cupid.Released, error) {
	return s.releaseMatch(ctx, cupid.Fence{}, id, requeue, reason)
}

// releaseMatch is ReleaseMatch under a fence: the assign timeout's, on the node
// that runs the queue.
func (s *Service) releaseMatch(ctx context.Context, f cupid.Fence, id string, requeue bool, reason string) (*cupid.Released, error) {
	if id == "" {
		return nil, cupid.Invalid("match_id", "required")
	}
	r, err := lifecycle.Release(ctx, s.store, f, id, cupid.Release{Requeue: requeue, Reason: reason}, s.now().UTC())
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	s.afterRelease(r) // accept.go
	// A released session takes no more backfill.
	s.SyncSession(ctx, r.Match, r.Event.Seq)
	return r, nil
}

// WatchMatches calls send with a queue's match events after afterSeq —
// stored ones, then new ones as they are stored — until ctx ends, the
// server stops or send fails. Each event is sent once, in sequence order.
func (s *Service) WatchMatches(ctx context.Context, queue string, afterSeq int64, send func(cupid.MatchEvent) error) error {
	if err := s.checkQueue(queue); err != nil {
		return err
	}
	if afterSeq < 0 {
		return cupid.Invalid("after_seq", "must not be negative")
	}
	// Subscribe before reading, so nothing stored meanwhile goes unseen.
	wake := s.wakers.subscribe(queue)
	defer s.wakers.unsubscribe(queue, wake)
	last := afterSeq
	check := true
	for {
		evs, err := s.store.MatchEvents(ctx, queue, last, matchPage)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return storeerr.Domain(s.log, err)
		}
		// A resume, or a reader catching up a full page at a time, may
		// start before what retention kept: checked after the read, so a
		// pass that removed events the read missed is seen.
		if check || len(evs) == matchPage {
			if err := s.pastHorizon(ctx, queue, last); err != nil {
				return err
			}
			check = false
		}
		for _, ev := range evs {
			if err := send(ev); err != nil {
				return err
			}
			last = ev.Seq
		}
		if len(evs) == matchPage {
			continue
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.ctx.Done():
			return cupid.Errorf(cupid.CodeUnavailable, "", "the server is shutting down; reconnect with after_seq=%d", last)
		}
	}
}

// pastHorizon refuses to go on after afterSeq when retention removed
// events of queue's match log after it (cupid.PastHorizon): the reader
// would miss them silently.
func (s *Service) pastHorizon(ctx context.Context, queue string, afterSeq int64) error {
	p, ok := s.store.(cupid.Pruner)
	if !ok {
		return nil
	}
	h, err := p.MatchLogHorizon(ctx, queue)
	if err != nil {
		return storeerr.Domain(s.log, err)
	}
	if afterSeq < h {
		return cupid.PastHorizon("after_seq", afterSeq, h)
	}
	return nil
}

// matchPage is how many match events a watcher reads at a time.
const matchPage = 256

// runDeadlines starts, for each queue pick accepts, a goroutine that calls
// due whenever the time due last returned comes: with the queue's fence
// (its lease's on a shared store) while this node runs the queue, and
// otherwise looks again a second later, in case it takes the queue over.
func (s *Service) runDeadlines(pick func(Policy) bool, due func(ctx context.Context, f cupid.Fence, queue string) time.Time) {
	for _, name := range cupid.SortedKeys(s.policies) {
		if !pick(s.policies[name]) {
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			t := time.NewTimer(0)
			defer t.Stop()
			for {
				select {
				case <-s.ctx.Done():
					return
				case <-t.C:
				}
				next := s.now().Add(time.Second)
				if f, ok := s.pools.Owned(name); ok {
					next = due(s.ctx, f, name)
				}
				t.Reset(max(next.Sub(s.now()), time.Millisecond))
			}
		}()
	}
}

// releaseDue releases the queue's formed matches whose assign timeout has
// passed, oldest first, and returns when it should look again. The
// deadline derives from the match's stored time, so a restart keeps it.
func (s *Service) releaseDue(ctx context.Context, f cupid.Fence, queue string) time.Time {
	q, ok := s.policy(queue)
	if !ok || q.AssignTimeout <= 0 {
		return s.now().Add(time.Hour)
	}
	reason := fmt.Sprintf("no server was assigned within the queue's assign_timeout (%s)", q.AssignTimeout)
	for {
		now := s.now()
		rs, err := s.store.Matches(ctx, cupid.MatchFilter{Queue: queue, State: cupid.MatchFormed, Limit: matchPage})
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("listing unassigned matches failed; trying again in a second", "queue", queue, "err", err)
			}
			return now.Add(time.Second)
		}
		for _, r := range rs {
			// A match that waited for its players' answers counts from its
			// ready check's deadline, so a backend always has the whole
			// timeout (accept.go).
			from := r.Match.CreatedAt
			if r.Match.AcceptBy.After(from) {
				from = r.Match.AcceptBy
			}
			due := from.Add(q.AssignTimeout)
			if due.After(now) {
				return due
			}
			_, err := s.releaseMatch(ctx, f, r.Match.ID, q.OnAssignTimeout == Requeue, reason)
			if err != nil && cupid.ErrorCode(err) != cupid.CodeConflict {
				if ctx.Err() == nil {
					s.log.Error("releasing an unassigned match failed; trying again in a second", "match", r.Match.ID, "err", err)
				}
				return now.Add(time.Second)
			}
		}
		if len(rs) < matchPage {
			return now.Add(q.AssignTimeout)
		}
	}
}

// ReleaseDue does, in every queue this node runs, what is due: it releases
// the matches whose assign timeout is up, the pending matches whose ready
// check's deadline has passed (accept.go) and ends the sessions past their
// queue's max_session (session.go), and returns once it has. The service
// does this by itself on timers; this serves a clock that jumps (tests, the
// simulator's virtual time).
func (s *Service) ReleaseDue(ctx context.Context) {
	for _, name := range cupid.SortedKeys(s.policies) {
		f, ok := s.pools.Owned(name)
		if !ok {
			continue // another node runs the queue, and its deadlines
		}
		q := s.policies[name]
		if q.AssignTimeout > 0 {
			s.releaseDue(ctx, f, name)
		}
		if q.Acceptance.Timeout > 0 {
			s.acceptDue(ctx, f, name) // accept.go
		}
		if q.MaxSession > 0 {
			s.endDue(ctx, f, name) // session.go
		}
	}
}
