package canary

import (
	"context"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/rollout"
)

// A canary sends a share of a queue's new tickets to a candidate ruleset
// for real. Which ticket goes is decided by a stable hash of its first
// player's id (rollout.InCanary), so a player stays on one side for the
// canary's life. Canary tickets carry the queue key side "canary": they
// form pools of their own, under the candidate, and never meet live
// tickets (a canary of 10 % therefore matches from a tenth of the
// population, which lengthens its waits on a thin queue; a guard's margin
// must allow for it). A ticket the candidate cannot take stays live.
//
// Guards (rollout.Guard) compare the canary's matches with the live side's
// over a window and roll the canary back when it is worse by more than a
// margin; PromoteCanary makes the candidate the queue's ruleset through
// the run-time replacement, which notes it in the history. After a
// decision, new tickets all go live; canary tickets already waiting stay
// in their pools (under the live ruleset after a roll-back, the candidate,
// now live, after a promotion) until matched or expired.

// The states of a canary.
const (
	canaryRunning    = "running"
	canaryRolledBack = "rolled_back"
	canaryPromoted   = "promoted"
)

// canaryRun is one queue's canary.
type canaryRun struct {
	queue   string
	cand    Candidate
	share   float64
	guard   rollout.Guard
	started time.Time

	// The rest is guarded by Service.mu.
	state   string
	reason  string // the decision's, or the guard's last word while running
	decided time.Time
	// live and canary are both sides' matches since started.
	live, canary rollout.Ring
	// owned is whether this node ran the queue at the guards' last pass,
	// under the fence ownedBy: when it starts to (or its lease changed
	// hands meanwhile), it reads the rings' saved window (window.go);
	// saved is the rings' record count when they were last saved.
	owned   bool
	ownedBy cupid.Fence
	saved   uint64
}

func canaryFromDoc(d rolloutDoc, cand Candidate) *canaryRun {
	c := &canaryRun{queue: d.Queue, cand: cand, share: d.Share,
		guard: rollout.DefaultGuard, started: d.Started, state: d.State, reason: d.Reason, decided: d.Decided}
	if d.Guard != nil {
		c.guard = *d.Guard
	}
	if c.state == "" {
		c.state = canaryRunning
	}
	return c
}

func (c *canaryRun) doc() rolloutDoc {
	g := c.guard
	return rolloutDoc{Kind: canaryKind, Queue: c.queue, Ruleset: string(c.cand.Source), Share: c.share, Guard: &g,
		Started: c.started, State: c.state, Reason: c.reason, Decided: c.decided}
}

// runningCanary returns a queue's canary if it is running.
func (s *Service) runningCanary(queue string) *canaryRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.canaries[queue]; c != nil && c.state == canaryRunning {
		return c
	}
	return nil
}

// canaryMatched feeds a running canary's rings with a committed match of
// its queue.
func (s *Service) canaryMatched(key cupid.QueueKey, m *cupid.Match, waits []time.Duration, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.canaries[key.Queue]
	if c == nil || c.state != canaryRunning || now.Before(c.started) {
		return
	}
	ring := &c.live
	if key.Side == rollout.Canary {
		ring = &c.canary
	}
	ring.Match(now, m.Quality.Score, waits)
}

// CanaryOptions start a canary.
type CanaryOptions struct {
	Queue   string
	Ruleset []byte
	// Share is the part of new tickets (0 < share ≤ 0.5) sent to the
	// candidate.
	Share float64
	// Guard rolls the canary back; rollout.DefaultGuard when zero.
	Guard  rollout.Guard
	Reason string
}

// MaxCanaryShare bounds a canary's share: past half, the candidate is no
// longer the smaller side.
const MaxCanaryShare = 0.5

// StartCanary sends a share of a queue's new tickets to a candidate
// ruleset. A queue has one running canary at a time.
func (s *Service) StartCanary(ctx context.Context, o CanaryOptions) (*CanaryStatus, error) {
	if err := s.checkCandidate(o.Queue, o.Ruleset); err != nil {
		return nil, err
	}
	if !(o.Share > 0 && o.Share <= MaxCanaryShare) {
		return nil, cupid.Invalid("share", "must be more than 0 and at most %v (a fraction: 0.1 is 10 %%), got %v", MaxCanaryShare, o.Share)
	}
	if o.Guard == (rollout.Guard{}) {
		o.Guard = rollout.DefaultGuard
	}
	if field, problem := o.Guard.Check(); field != "" {
		return nil, cupid.Invalid("guard."+field, "%s", problem)
	}
	if err := checkReason(o.Reason); err != nil {
		return nil, err
	}
	rules, check, probs := s.pools.Compile(o.Queue, o.Ruleset)
	if len(probs) > 0 {
		return nil, cupid.Invalid("ruleset", "%s", probs.Error())
	}
	s.change.Lock()
	defer s.change.Unlock()
	now := s.now().UTC()
	c := &canaryRun{queue: o.Queue, cand: Candidate{Source: o.Ruleset, Rules: rules, Check: check}, share: o.Share, guard: o.Guard,
		started: now, state: canaryRunning}
	s.mu.Lock()
	if cur := s.canaries[o.Queue]; cur != nil && cur.state == canaryRunning {
		s.mu.Unlock()
		return nil, cupid.Errorf(cupid.CodeAlreadyExists, "queue", "queue %q already runs a canary (started %s); promote or roll it back first",
			o.Queue, cur.started.Format(time.RFC3339))
	}
	prev := s.canaries[o.Queue]
	s.canaries[o.Queue] = c
	s.mu.Unlock()
	if err := s.save(ctx, c.doc()); err != nil {
		s.mu.Lock()
		s.canaries[o.Queue] = prev
		s.mu.Unlock()
		return nil, storeerr.Domain(s.log, err)
	}
	// Canary pools left from an earlier canary take the new candidate.
	s.pools.SetCanaryRules(o.Queue, &c.cand)
	s.rulesets.NoteDecision(ctx, o.Queue, "canary-start", o.Ruleset,
		reasonOr(o.Reason, "a canary sends its share of new tickets to the candidate ruleset"))
	s.log.Info("canary started", "queue", o.Queue, "share", o.Share)
	return s.CanaryStatus(ctx, o.Queue)
}

// CanaryStatus is a canary's state and both sides' figures over its guard's
// window.
type CanaryStatus struct {
	Queue   string        `json:"queue"`
	Ruleset string        `json:"ruleset"`
	Share   float64       `json:"share"`
	Guard   rollout.Guard `json:"guard"`
	Started time.Time     `json:"started"`
	// State is running, rolled_back or promoted; Reason is the decision's
	// why, or while running the guard's last word.
	State   string          `json:"state"`
	Reason  string          `json:"reason"`
	Decided time.Time       `json:"decided,omitzero"`
	Live    rollout.Figures `json:"live"`
	Canary  rollout.Figures `json:"canary"`
}

// CanaryStatus returns a queue's canary, running or decided.
func (s *Service) CanaryStatus(_ context.Context, queue string) (*CanaryStatus, error) {
	if !s.pools.Configured(queue) {
		return nil, cupid.NotFound("queue", "no queue %q", queue)
	}
	now := s.now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.canaries[queue]
	if c == nil {
		return nil, cupid.NotFound("queue", "queue %q has no canary; start one with StartCanary", queue)
	}
	return c.status(now), nil
}

// status is the canary's status at now. Called with Service.mu held.
func (c *canaryRun) status(now time.Time) *CanaryStatus {
	from := now.Add(-c.guard.Window)
	if c.state != canaryRunning {
		from = c.decided.Add(-c.guard.Window)
		now = c.decided
	}
	if from.Before(c.started) {
		from = c.started.Add(-1) // the window's start is exclusive
	}
	return &CanaryStatus{Queue: c.queue, Ruleset: string(c.cand.Source), Share: c.share, Guard: c.guard, Started: c.started,
		State: c.state, Reason: c.reason, Decided: c.decided, Live: c.live.Figures(from), Canary: c.canary.Figures(from)}
}

// CheckCanaries evaluates every running canary's guards now, on the node
// that runs its queue's pools, and rolls back those a guard trips. Run
// calls it every GuardEvery; tests call it after moving their clock.
func (s *Service) CheckCanaries(ctx context.Context) {
	now := s.now().UTC()
	type trip struct{ queue, reason string }
	var trips []trip
	// Whether this node runs a queue is asked without mu (the pools'
	// owner's lock comes first: it holds it when it calls the hooks).
	s.mu.Lock()
	var queues []string
	for q, c := range s.canaries {
		if c.state == canaryRunning {
			queues = append(queues, q)
		}
	}
	s.mu.Unlock()
	for _, q := range queues {
		if _, ok := s.pools.Owned(q); !ok {
			s.mu.Lock()
			if c := s.canaries[q]; c != nil {
				c.owned = false
			}
			s.mu.Unlock()
			continue
		}
		s.loadWindow(ctx, q)
		s.mu.Lock()
		c := s.canaries[q]
		if c == nil || c.state != canaryRunning {
			s.mu.Unlock()
			continue
		}
		from := now.Add(-c.guard.Window)
		v := rollout.Evaluate(c.guard, c.live.Figures(from), c.canary.Figures(from))
		if v.Rollback {
			trips = append(trips, trip{q, v.Reason})
		} else {
			c.reason = v.Reason
		}
		s.mu.Unlock()
	}
	for _, t := range trips {
		if _, err := s.decide(ctx, t.queue, canaryRolledBack, "guard: "+t.reason); err != nil {
			s.log.Error("rolling a canary back failed", "queue", t.queue, "err", err)
		}
	}
}

// RollbackCanary ends a queue's running canary: new tickets all go live.
func (s *Service) RollbackCanary(ctx context.Context, queue, reason string) (*CanaryStatus, error) {
	if err := checkReason(reason); err != nil {
		return nil, err
	}
	return s.decide(ctx, queue, canaryRolledBack, "by the operator: "+reasonOr(reason, "rolled back"))
}

// PromoteCanary makes a running canary's candidate the queue's ruleset (a
// run-time replacement, noted in the history via "canary"); new tickets all
// go live, under it.
func (s *Service) PromoteCanary(ctx context.Context, queue, reason string) (*CanaryStatus, error) {
	if err := checkReason(reason); err != nil {
		return nil, err
	}
	return s.decide(ctx, queue, canaryPromoted, reasonOr(reason, "promoted by the operator"))
}

// decide takes a running canary's decision: the state changes first
// (routing stops), then the rules follow, the document is stored and the
// decision is noted in the ruleset history.
func (s *Service) decide(ctx context.Context, queue, state, reason string) (*CanaryStatus, error) {
	if !s.pools.Configured(queue) {
		return nil, cupid.NotFound("queue", "no queue %q", queue)
	}
	s.change.Lock()
	defer s.change.Unlock()
	now := s.now().UTC()
	s.mu.Lock()
	c := s.canaries[queue]
	if c == nil || c.state != canaryRunning {
		s.mu.Unlock()
		return nil, cupid.Errorf(cupid.CodeConflict, "queue", "queue %q has no running canary", queue)
	}
	c.state, c.reason, c.decided = state, reason, now
	s.mu.Unlock()

	via := "canary-rollback"
	if state == canaryPromoted {
		via = "canary-promote"
		// The replacement reaches every pool of the queue, the canary's
		// side too: it no longer keeps the candidate (Candidate).
		if _, err := s.rulesets.Put(ctx, queue, c.cand.Source, 0, "canary"); err != nil {
			s.mu.Lock()
			c.state, c.reason, c.decided = canaryRunning, "", time.Time{}
			s.mu.Unlock()
			return nil, err
		}
	} else {
		s.pools.SetCanaryRules(queue, nil)
	}
	s.mu.Lock()
	d := c.doc()
	s.mu.Unlock()
	if err := s.save(context.WithoutCancel(ctx), d); err != nil {
		// The decision stands on this node; after a restart the canary
		// would run again, so say so.
		s.log.Error("a canary's decision was not stored", "queue", queue, "state", state, "err", err)
	}
	s.rulesets.NoteDecision(ctx, queue, via, c.cand.Source, reason)
	s.log.Info("canary decided", "queue", queue, "state", state, "reason", reason)
	return s.CanaryStatus(ctx, queue)
}
