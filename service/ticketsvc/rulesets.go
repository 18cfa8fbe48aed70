package ticketsvc

import (
	"context"
	"fmt"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/ticketsvc/replace"
)

// Run-time ruleset replacements: package replace checks, stores and notes
// them (Service.Rulesets); this file is the queues' side of it — a
// replacement compiled as the pools run it, installed in the queue and its
// pools.

// rulesetQueues is this service's side of replace.Queues.
type rulesetQueues struct{ s *Service }

var _ replace.Queues = rulesetQueues{}

// Current is a queue's ruleset now.
func (r rulesetQueues) Current(queue string) ([]byte, int, bool) {
	q := r.s.queue(queue)
	if q == nil {
		return nil, 0, false
	}
	return q.source, q.version, true
}

// Check compiles a ruleset as the queue's engine runs it.
func (r rulesetQueues) Check(queue string, src []byte) (*ruleset.Compiled, ruleset.Problems) {
	q, probs := compileQueue(queue, src, nil, 0)
	if len(probs) > 0 {
		return nil, probs
	}
	return q.rules, nil
}

// Install makes the compiled rules the queue's, with the queue's other
// settings kept.
func (r rulesetQueues) Install(queue string, src []byte, rules *ruleset.Compiled, version int) {
	cur := r.s.queue(queue)
	if cur == nil {
		return
	}
	q, probs := compileQueue(queue, src, rules, version)
	if len(probs) > 0 {
		// Check compiled the same rules with the same engine.
		r.s.log.Error("a checked ruleset did not compile again; keeping the old one", "queue", queue, "err", probs)
		return
	}
	q.keepSettings(cur)
	r.s.installRuleset(queue, q)
}

// keepSettings gives a queue compiled from a new ruleset the settings of the
// queue it replaces: everything but the ruleset is the configuration's (the
// hand-off's settings are package handoff's, by queue name, and stay).
func (q *queue) keepSettings(cur *queue) {
	q.ttl, q.maxKeys = cur.ttl, cur.maxKeys
}

// installRuleset makes q the queue's ruleset on this node: tickets are
// checked against it from now on and the queue's pools switch to it.
func (s *Service) installRuleset(name string, q *queue) {
	s.mu.Lock()
	q.keys = s.queues[name].keys
	s.queues[name] = q
	var pools []*pool
	for k, p := range s.pools {
		if k.Queue == name && s.roll.Candidate(k) == nil { // a running canary keeps its candidate
			pools = append(pools, p)
		}
	}
	s.mu.Unlock()
	for _, p := range pools {
		p.do(func(p *pool) { p.setRuleset(q) })
	}
}

// RulesetChanged installs the queue's stored ruleset if it is newer than
// the one this node runs: a ruleset replaced through another node sharing
// the store (the cluster's notification; Resync; a rollout's promotion).
func (s *Service) RulesetChanged(ctx context.Context, name string) error {
	return s.replace.Changed(ctx, name)
}

// setRuleset runs on the pool's goroutine. Tickets the new rules can never
// match are cancelled with the reason.
func (p *pool) setRuleset(q *queue) {
	evicted, err := p.eng.SetRuleset(q.rules)
	if err != nil {
		p.log.Error("pool refused a validated ruleset; keeping the old one", "pool", p.key.String(), "err", err)
		return
	}
	p.q = q
	now := p.now().UTC()
	for _, ev := range evicted {
		p.end(ev.Ticket.ID, cupid.StateCancelled, fmt.Sprintf("the queue's ruleset changed to version %d, which cannot match it: %v", q.version, ev.Err), now)
	}
}
