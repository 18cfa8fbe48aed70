package handoff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/lifecycle"
)

// The ready check (FlexMatch's acceptance), per queue: every player of a
// match must accept it within a timeout. The pool commits such a match
// pending, with its deadline (Match.AcceptBy); the players' watchers hear
// "proposed". AcceptMatch records each answer: the last acceptance forms
// the match (the backend's "formed", the players' "matched"); a decline,
// or the deadline, releases it in the same store transaction as the answer
// — the others go back to their pool with their age, the decliners'
// tickets are cancelled or put at the back of the queue. The deadline
// lives in the stored match, so a restart finds it: the goroutine that
// watches it starts by reading the pending matches.

// OnDecline says what becomes of the ticket of a player who declined a
// match or did not accept it in time.
type OnDecline string

// The choices of OnDecline.
const (
	// DeclineCancel cancels the decliner's ticket, with a reason.
	DeclineCancel OnDecline = "cancel"
	// DeclineRequeueLast puts it back to waiting as if created now: it
	// loses its age (a penalty), not its place in the game.
	DeclineRequeueLast OnDecline = "requeue_last"
)

// Acceptance is a queue's ready check; a zero Timeout means none.
type Acceptance struct {
	// Timeout is how long the players have to accept a match.
	Timeout time.Duration
	// OnDecline is DeclineCancel (the default) or DeclineRequeueLast.
	OnDecline OnDecline
}

// checkAcceptance checks the ready check; a timeout without a choice
// cancels a decliner's ticket.
func (p *Policy) checkAcceptance() error {
	a := p.Acceptance
	switch {
	case a.Timeout < 0:
		return errors.New("acceptance timeout must not be negative")
	case a.Timeout == 0 && a.OnDecline != "":
		return fmt.Errorf("acceptance on_decline %q needs a timeout", a.OnDecline)
	case a.Timeout > 0 && a.OnDecline == "":
		p.Acceptance.OnDecline = DeclineCancel
	case a.Timeout > 0 && a.OnDecline != DeclineCancel && a.OnDecline != DeclineRequeueLast:
		return fmt.Errorf("acceptance on_decline must be cancel or requeue_last, not %q", a.OnDecline)
	}
	return nil
}

// AcceptBy is the deadline of a match the queue proposes at now: zero
// when the queue has no ready check. A pool gives it to each match it
// commits.
func (s *Service) AcceptBy(queue string, now time.Time) time.Time {
	if q, ok := s.policy(queue); ok && q.Acceptance.Timeout > 0 {
		return now.Add(q.Acceptance.Timeout)
	}
	return time.Time{}
}

// declineRelease is how a match ends when players decline it (or did not
// accept it in time): the others requeued with their age, the decliners
// as the queue says.
func (s *Service) declineRelease(m *cupid.Match, decliners []string, timedOut bool) cupid.Release {
	r := cupid.Release{Requeue: true, Decliners: decliners, DeclinerReason: cupid.DeclinerReason(m.ID, timedOut)}
	if q, ok := s.policy(m.Key.Queue); ok && q.Acceptance.OnDecline == DeclineRequeueLast {
		r.RequeueLast = true
	}
	if timedOut {
		r.Reason = cupid.NotAcceptedReason(decliners)
	} else {
		r.Reason = cupid.DeclinedReason(decliners[0])
	}
	return r
}

// AcceptMatch records a player's answer to a pending match: accept, or
// decline. Whoever may answer for the player is the caller's business (the
// API lets a player answer only for himself). The same answer twice is
// harmless; a changed answer, or an answer to a match that no longer
// waits for answers, is refused with failed_precondition; a player not in
// the match with invalid_argument naming player_id. Nothing changes when
// the answer is refused or the store fails.
func (s *Service) AcceptMatch(ctx context.Context, id, player string, accept bool) (*cupid.Answered, error) {
	if id == "" {
		return nil, cupid.Invalid("match_id", "required")
	}
	if player == "" {
		return nil, cupid.Invalid("player_id", "required")
	}
	r, err := s.store.MatchRecord(ctx, id)
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	out, err := lifecycle.Answer(ctx, s.store, cupid.Fence{}, id, player, accept, s.declineRelease(r.Match, []string{player}, false), s.now().UTC())
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	queue := r.Match.Key.Queue
	switch {
	case out.Formed != nil:
		s.readyChecks.WithLabelValues(queue, "accepted").Inc()
		s.events.Publish(out.Events...)
		s.wakers.wake(queue)
		// Formed, the match is a session: open to backfill if it has
		// room under auto_backfill (session.go).
		s.SyncSession(ctx, out.Match, out.Formed.Seq)
	case out.Released != nil:
		s.readyChecks.WithLabelValues(queue, "declined").Inc()
		s.afterRelease(out.Released)
	}
	return out, nil
}

// afterRelease does what follows a stored release: counts the cancelled
// tickets, gives the requeued ones back to their pools, then tells the
// tickets' watchers and wakes the queue's match watchers.
func (s *Service) afterRelease(r *cupid.Released) {
	for _, t := range r.Cancelled {
		s.tickets.WithLabelValues(t.Key.Queue, string(cupid.StateCancelled)).Inc()
	}
	// The requeued tickets reach their pool before anyone hears of them,
	// as new tickets do.
	if len(r.Requeued) > 0 {
		s.pools.Requeue(r.Requeued)
	}
	s.events.Publish(r.Events...)
	if r.Event.Seq != 0 {
		s.wakers.wake(r.Event.Queue)
	}
}

// withAnswers adds the stored answers to a match that had a ready check.
func (s *Service) withAnswers(ctx context.Context, r *cupid.MatchRecord) error {
	if r.Match.AcceptBy.IsZero() {
		return nil
	}
	as, err := s.store.MatchAnswers(ctx, r.Match.ID)
	if err != nil {
		return storeerr.Domain(s.log, err)
	}
	r.Answers = as
	return nil
}

// acceptDue releases the queue's pending matches whose deadline has
// passed — whoever had not accepted counts as declining — and returns when
// it should look again. A match proposed after this look has a deadline
// at least a timeout away, which is when an empty look looks again.
func (s *Service) acceptDue(ctx context.Context, f cupid.Fence, queue string) time.Time {
	q, ok := s.policy(queue)
	if !ok || q.Acceptance.Timeout <= 0 {
		return s.now().Add(time.Hour)
	}
	for {
		now := s.now()
		next := now.Add(q.Acceptance.Timeout)
		rs, err := s.store.Matches(ctx, cupid.MatchFilter{Queue: queue, State: cupid.MatchPending, Limit: matchPage})
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("listing pending matches failed; trying again in a second", "queue", queue, "err", err)
			}
			return now.Add(time.Second)
		}
		for _, r := range rs {
			if r.Match.AcceptBy.After(now) {
				if r.Match.AcceptBy.Before(next) {
					next = r.Match.AcceptBy
				}
				continue
			}
			if err := s.expireReadyCheck(ctx, f, r.Match); err != nil {
				if ctx.Err() == nil {
					s.log.Error("releasing a match not accepted in time failed; trying again in a second", "match", r.Match.ID, "err", err)
				}
				return now.Add(time.Second)
			}
		}
		if len(rs) < matchPage {
			return next
		}
	}
}

// expireReadyCheck releases a pending match whose deadline passed. A match
// answered or released meanwhile is left alone.
func (s *Service) expireReadyCheck(ctx context.Context, f cupid.Fence, m *cupid.Match) error {
	answers, err := s.store.MatchAnswers(ctx, m.ID)
	if err != nil {
		return err
	}
	var late []string
	for _, p := range cupid.MatchPlayerIDs(m) {
		if !slices.ContainsFunc(answers, func(a cupid.Answer) bool { return a.PlayerID == p && a.Accept }) {
			late = append(late, p)
		}
	}
	if len(late) == 0 {
		return nil // everyone accepted: the match is formed already
	}
	r, err := lifecycle.Release(ctx, s.store, f, m.ID, s.declineRelease(m, late, true), s.now().UTC())
	if cupid.ErrorCode(err) == cupid.CodeConflict {
		return nil
	}
	if err != nil {
		return err
	}
	s.readyChecks.WithLabelValues(m.Key.Queue, "timed_out").Inc()
	s.afterRelease(r)
	return nil
}

// AcceptDue releases, in every queue with a ready check that this node
// runs, the pending matches whose deadline has passed, and returns once it
// has: for a clock that jumps, as ReleaseDue.
func (s *Service) AcceptDue(ctx context.Context) {
	for _, name := range cupid.SortedKeys(s.policies) {
		f, ok := s.pools.Owned(name)
		if ok && s.policies[name].Acceptance.Timeout > 0 {
			s.acceptDue(ctx, f, name)
		}
	}
}
