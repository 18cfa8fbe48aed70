package ticketsvc

import (
	"context"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/rollout"
	"github.com/cupid-match/cupid/ruleset"
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
	source  []byte
	rules   *ruleset.Compiled
	check   *engine.Pool
	share   float64
	guard   rollout.Guard
	started time.Time

	// The rest is guarded by rollouts.mu.
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

func canaryFromDoc(d rolloutDoc, cq *queue) *canaryRun {
	c := &canaryRun{queue: d.Queue, source: []byte(d.Ruleset), rules: cq.rules, check: cq.check, share: d.Share,
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
	return rolloutDoc{Kind: canaryKind, Queue: c.queue, Ruleset: string(c.source), Share: c.share, Guard: &g,
		Started: c.started, State: c.state, Reason: c.reason, Decided: c.decided}
}

// runningCanary returns a queue's canary if it is running.
func (r *rollouts) runningCanary(queue string) *canaryRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.canaries[queue]; c != nil && c.state == canaryRunning {
		return c
	}
	return nil
}

// poolQueue is the queue a new pool of key runs: its queue, or for the
// canary side of a running canary the candidate with the queue's settings.
func (s *Service) poolQueue(key cupid.QueueKey, q *queue) *queue {
	if key.Side != rollout.Canary {
		return q
	}
	if c := s.roll.runningCanary(key.Queue); c != nil {
		return c.candidateQueue(q)
	}
	return q
}

// routeCanary picks a new ticket's side: the server sets it, whatever the
// caller sent. It runs after the live ruleset's check.
func (s *Service) routeCanary(t *cupid.Ticket) {
	t.Key.Side = ""
	c := s.roll.runningCanary(t.Key.Queue)
	if c == nil || len(t.Players) == 0 || !rollout.InCanary(t.Key.Queue, t.Players[0].ID, c.share) {
		return
	}
	if c.check.Check(t) != nil {
		return // the candidate cannot take it: it stays live
	}
	t.Key.Side = rollout.Canary
}

// canaryMatched feeds a running canary's rings with a committed match of
// its queue (stats.go, through liveMatched).
func (s *Service) canaryMatched(key cupid.QueueKey, m *cupid.Match, waits []time.Duration, now time.Time) {
	s.roll.mu.Lock()
	defer s.roll.mu.Unlock()
	c := s.roll.canaries[key.Queue]
	if c == nil || c.state != canaryRunning || now.Before(c.started) {
		return
	}
	ring := &c.live
	if key.Side == rollout.Canary {
		ring = &c.canary
	}
	ring.Match(now, m.Quality.Score, waits)
}

// keepsCandidate says whether a pool keeps its ruleset when its queue's is
// replaced: a running canary's side keeps the candidate.
func (s *Service) keepsCandidate(key cupid.QueueKey) bool {
	return key.Side == rollout.Canary && s.roll.runningCanary(key.Queue) != nil
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
	q := s.queue(o.Queue)
	if q == nil {
		return nil, cupid.NotFound("queue", "no queue %q", o.Queue)
	}
	if len(o.Ruleset) == 0 {
		return nil, cupid.Invalid("ruleset", "required: the candidate ruleset document")
	}
	if len(o.Ruleset) > ruleset.MaxSourceBytes {
		return nil, cupid.Invalid("ruleset", "%d bytes, more than the limit of %d", len(o.Ruleset), ruleset.MaxSourceBytes)
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
	cq, probs := compileQueue(o.Queue, o.Ruleset, nil, 0)
	if len(probs) > 0 {
		return nil, cupid.Invalid("ruleset", "%s", probs.Error())
	}
	s.roll.change.Lock()
	defer s.roll.change.Unlock()
	now := s.now().UTC()
	c := &canaryRun{queue: o.Queue, source: o.Ruleset, rules: cq.rules, check: cq.check, share: o.Share, guard: o.Guard,
		started: now, state: canaryRunning}
	s.roll.mu.Lock()
	if cur := s.roll.canaries[o.Queue]; cur != nil && cur.state == canaryRunning {
		s.roll.mu.Unlock()
		return nil, cupid.Errorf(cupid.CodeAlreadyExists, "queue", "queue %q already runs a canary (started %s); promote or roll it back first",
			o.Queue, cur.started.Format(time.RFC3339))
	}
	prev := s.roll.canaries[o.Queue]
	s.roll.canaries[o.Queue] = c
	s.roll.mu.Unlock()
	if err := s.roll.save(ctx, c.doc()); err != nil {
		s.roll.mu.Lock()
		s.roll.canaries[o.Queue] = prev
		s.roll.mu.Unlock()
		return nil, storeerr.Domain(s.log, err)
	}
	// Canary pools left from an earlier canary take the new candidate.
	s.setSideRules(o.Queue, rollout.Canary, c.candidateQueue(q))
	s.replace.NoteDecision(ctx, o.Queue, "canary-start", o.Ruleset,
		reasonOr(o.Reason, "a canary sends its share of new tickets to the candidate ruleset"))
	s.log.Info("canary started", "queue", o.Queue, "share", o.Share)
	return s.CanaryStatus(ctx, o.Queue)
}

// setSideRules switches the running pools of one side of a queue to q's
// ruleset.
func (s *Service) setSideRules(queue, side string, q *queue) {
	for _, p := range s.livePools(queue, side) {
		p.do(func(p *pool) { p.setRuleset(q) })
	}
}

// candidateQueue is the queue a canary's pools run: the candidate's rules
// with the live queue's settings and version.
func (c *canaryRun) candidateQueue(live *queue) *queue {
	cq := &queue{name: c.queue, rules: c.rules, source: c.source, check: c.check, version: live.version}
	cq.keepSettings(live)
	return cq
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
	if s.queue(queue) == nil {
		return nil, cupid.NotFound("queue", "no queue %q", queue)
	}
	now := s.now().UTC()
	s.roll.mu.Lock()
	defer s.roll.mu.Unlock()
	c := s.roll.canaries[queue]
	if c == nil {
		return nil, cupid.NotFound("queue", "queue %q has no canary; start one with StartCanary", queue)
	}
	return c.status(now), nil
}

// status is the canary's status at now. Called with rollouts.mu held.
func (c *canaryRun) status(now time.Time) *CanaryStatus {
	from := now.Add(-c.guard.Window)
	if c.state != canaryRunning {
		from = c.decided.Add(-c.guard.Window)
		now = c.decided
	}
	if from.Before(c.started) {
		from = c.started.Add(-1) // the window's start is exclusive
	}
	return &CanaryStatus{Queue: c.queue, Ruleset: string(c.source), Share: c.share, Guard: c.guard, Started: c.started,
		State: c.state, Reason: c.reason, Decided: c.decided, Live: c.live.Figures(from), Canary: c.canary.Figures(from)}
}

// CheckCanaries evaluates every running canary's guards now, on the node
// that runs its queue's pools, and rolls back those a guard trips. The
// service runs it every second; tests call it after moving their clock.
func (s *Service) CheckCanaries(ctx context.Context) {
	now := s.now().UTC()
	type trip struct{ queue, reason string }
	var trips []trip
	// Whether this node runs a queue is read without the roll-outs' lock
	// (the service's lock comes first: newPool holds it and asks them).
	s.roll.mu.Lock()
	var queues []string
	for q, c := range s.roll.canaries {
		if c.state == canaryRunning {
			queues = append(queues, q)
		}
	}
	s.roll.mu.Unlock()
	for _, q := range queues {
		if s.runsElsewhere(q) {
			s.roll.mu.Lock()
			if c := s.roll.canaries[q]; c != nil {
				c.owned = false
			}
			s.roll.mu.Unlock()
			continue
		}
		s.loadWindow(ctx, q)
		s.roll.mu.Lock()
		c := s.roll.canaries[q]
		if c == nil || c.state != canaryRunning {
			s.roll.mu.Unlock()
			continue
		}
		from := now.Add(-c.guard.Window)
		v := rollout.Evaluate(c.guard, c.live.Figures(from), c.canary.Figures(from))
		if v.Rollback {
			trips = append(trips, trip{q, v.Reason})
		} else {
			c.reason = v.Reason
		}
		s.roll.mu.Unlock()
	}
	for _, t := range trips {
		if _, err := s.decideCanary(ctx, t.queue, canaryRolledBack, "guard: "+t.reason); err != nil {
			s.log.Error("rolling a canary back failed", "queue", t.queue, "err", err)
		}
	}
}

// RollbackCanary ends a queue's running canary: new tickets all go live.
func (s *Service) RollbackCanary(ctx context.Context, queue, reason string) (*CanaryStatus, error) {
	if err := checkReason(reason); err != nil {
		return nil, err
	}
	return s.decideCanary(ctx, queue, canaryRolledBack, "by the operator: "+reasonOr(reason, "rolled back"))
}

// PromoteCanary makes a running canary's candidate the queue's ruleset (a
// run-time replacement, noted in the history via "canary"); new tickets all
// go live, under it.
func (s *Service) PromoteCanary(ctx context.Context, queue, reason string) (*CanaryStatus, error) {
	if err := checkReason(reason); err != nil {
		return nil, err
	}
	return s.decideCanary(ctx, queue, canaryPromoted, reasonOr(reason, "promoted by the operator"))
}

// decideCanary takes a running canary's decision: the state changes first
// (routing stops), then the rules follow, the document is stored and the
// decision is noted in the ruleset history.
func (s *Service) decideCanary(ctx context.Context, queue, state, reason string) (*CanaryStatus, error) {
	if s.queue(queue) == nil {
		return nil, cupid.NotFound("queue", "no queue %q", queue)
	}
	s.roll.change.Lock()
	defer s.roll.change.Unlock()
	now := s.now().UTC()
	s.roll.mu.Lock()
	c := s.roll.canaries[queue]
	if c == nil || c.state != canaryRunning {
		s.roll.mu.Unlock()
		return nil, cupid.Errorf(cupid.CodeConflict, "queue", "queue %q has no running canary", queue)
	}
	c.state, c.reason, c.decided = state, reason, now
	s.roll.mu.Unlock()

	via := "canary-rollback"
	if state == canaryPromoted {
		via = "canary-promote"
		// The replacement reaches every pool of the queue, the canary's
		// side too: it no longer keeps the candidate (keepsCandidate).
		if _, err := s.replace.Put(ctx, queue, c.source, 0, "canary"); err != nil {
			s.roll.mu.Lock()
			c.state, c.reason, c.decided = canaryRunning, "", time.Time{}
			s.roll.mu.Unlock()
			return nil, err
		}
	} else {
		live := s.queue(queue)
		s.setSideRules(queue, rollout.Canary, live)
	}
	s.roll.mu.Lock()
	d := c.doc()
	s.roll.mu.Unlock()
	if err := s.roll.save(context.WithoutCancel(ctx), d); err != nil {
		// The decision stands on this node; after a restart the canary
		// would run again, so say so.
		s.log.Error("a canary's decision was not stored", "queue", queue, "state", state, "err", err)
	}
	s.replace.NoteDecision(ctx, queue, via, c.source, reason)
	s.log.Info("canary decided", "queue", queue, "state", state, "reason", reason)
	return s.CanaryStatus(ctx, queue)
}
