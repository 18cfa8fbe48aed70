package ticketsvc

import (
	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/rollout"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/ticketsvc/canary"
)

// Shadows and canaries (package canary, Service.Rollouts) reach the pools
// only through canary.Pools; rolloutPools is this service's side of it.
// The pools call the package's hooks: a new pool's shadow pool and
// candidate (newPool), a new ticket's side (Create), a committed match
// (recordMatch), the guard window as the node gives a queue up (Lose).
type rolloutPools struct{ s *Service }

var _ canary.Pools = rolloutPools{}

// Configured reports whether the queue is configured.
func (r rolloutPools) Configured(queue string) bool { return r.s.queue(queue) != nil }

// Compile compiles a candidate as the queue's engine runs it.
func (r rolloutPools) Compile(queue string, src []byte) (*ruleset.Compiled, *engine.Pool, ruleset.Problems) {
	q, probs := compileQueue(queue, src, nil, 0)
	if len(probs) > 0 {
		return nil, nil, probs
	}
	return q.rules, q.check, nil
}

// Owned is the fence of this node's writes for a queue it runs.
func (r rolloutPools) Owned(queue string) (cupid.Fence, bool) { return r.s.owned(queue) }

// AttachShadow gives every running live pool of the queue its shadow pool.
func (r rolloutPools) AttachShadow(queue string, sh *canary.Shadow) {
	for _, p := range r.s.livePools(queue, "") {
		p.do(func(p *pool) {
			if p.shadow == nil || p.shadow.Shadow() != sh {
				p.shadow = sh.Pool(p.key)
			}
		})
	}
}

// DetachShadow takes a shadow's pools off the live ones.
func (r rolloutPools) DetachShadow(queue string, sh *canary.Shadow) {
	for _, p := range r.s.livePools(queue, "") {
		p.do(func(p *pool) {
			if p.shadow != nil && p.shadow.Shadow() == sh {
				p.shadow = nil
			}
		})
	}
}

// SetCanaryRules switches the running canary-side pools of the queue to
// the candidate (nil: the queue's own ruleset).
func (r rolloutPools) SetCanaryRules(queue string, c *canary.Candidate) {
	live := r.s.queue(queue)
	if live == nil {
		return
	}
	q := live
	if c != nil {
		q = candidateQueue(c, live)
	}
	for _, p := range r.s.livePools(queue, rollout.Canary) {
		p.do(func(p *pool) { p.setRuleset(q) })
	}
}

// candidateQueue is the queue a canary's pools run: the candidate's rules
// with the live queue's settings and version.
func candidateQueue(c *canary.Candidate, live *queue) *queue {
	cq := &queue{name: live.name, rules: c.Rules, source: c.Source, check: c.Check, version: live.version}
	cq.keepSettings(live)
	return cq
}

// poolQueue is the queue a new pool of key runs: its queue, or for the
// canary side of a running canary the candidate with the queue's settings.
// Called with s.mu held.
func (s *Service) poolQueue(key cupid.QueueKey, q *queue) *queue {
	if c := s.roll.Candidate(key); c != nil {
		return candidateQueue(c, q)
	}
	return q
}

// livePools lists the running pools of one side of a queue.
func (s *Service) livePools(queue string, side string) []*pool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*pool
	for k, p := range s.pools {
		if k.Queue == queue && k.Side == side {
			out = append(out, p)
		}
	}
	return out
}

// shadowLeave follows tickets out of the live pool into the shadow's.
func (p *pool) shadowLeave(ids ...string) {
	if p.shadow == nil {
		return
	}
	now := p.now()
	for _, id := range ids {
		p.shadow.Leave(id, now)
	}
}

// shadowExpired counts a live ticket's expiry for the shadow's live side.
func (p *pool) shadowExpired(id string) {
	if p.shadow == nil {
		return
	}
	created, _, ok := p.eng.Times(id)
	if lt, out := p.out[id]; out {
		created, ok = lt.created, true
	}
	if ok {
		p.shadow.LiveExpired(created)
	}
}
