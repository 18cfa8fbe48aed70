package ticketsvc

import (
	"context"
	"fmt"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/ticketsvc/rulesets"
)

// Run-time ruleset replacements: the service compiles and installs them;
// package rulesets stores them (and each queue's version history) so they
// survive a restart and reach the other nodes.

// ValidateRuleset reports every problem of a ruleset document. An empty
// result means the ruleset would load.
func (s *Service) ValidateRuleset(data []byte) ruleset.Problems {
	_, probs := compileQueue("check", data, nil, 0)
	return probs
}

// Ruleset returns a queue's current ruleset document and version.
func (s *Service) Ruleset(name string) ([]byte, int, error) {
	q := s.queue(name)
	if q == nil {
		return nil, 0, cupid.NotFound("queue", "no queue %q", name)
	}
	return q.source, q.version, nil
}

// PutRuleset replaces a queue's ruleset. With expected > 0 it succeeds only
// if the current version is expected; 0 replaces whatever is there. The
// ruleset is parsed once. Waiting tickets stay and are tried again under
// the new rules; a ticket the new rules can never match is cancelled with
// the reason, and its watchers are told.
func (s *Service) PutRuleset(ctx context.Context, name string, data []byte, expected int) (int, error) {
	return s.putRuleset(ctx, name, data, expected, "api")
}

// PutRulesetNoted replaces a queue's ruleset like PutRuleset, noting the
// new version as put from the dashboard's editor.
func (s *Service) PutRulesetNoted(ctx context.Context, name string, data []byte, expected int) (int, error) {
	return s.putRuleset(ctx, name, data, expected, "editor")
}

// putRuleset is PutRuleset, noting the new version in the queue's history
// as put via the API or the dashboard's editor.
func (s *Service) putRuleset(ctx context.Context, name string, data []byte, expected int, via string) (int, error) {
	if expected < 0 {
		return 0, cupid.Invalid("expected_version", "must be 0 (replace whatever is there) or a version, got %d", expected)
	}
	if s.queue(name) == nil {
		return 0, cupid.NotFound("queue", "no queue %q", name)
	}
	q, probs := compileQueue(name, data, nil, 0)
	if len(probs) > 0 {
		return 0, cupid.Invalid("ruleset", "%s", probs.Error())
	}
	// One replacement at a time; the service lock is not held while the
	// store writes.
	s.putMu.Lock()
	defer s.putMu.Unlock()
	cur := s.queue(name)
	if expected > 0 && cur.version != expected {
		return 0, cupid.Conflict("expected_version", "the ruleset is at version %d, not %d", cur.version, expected)
	}
	q.version = cur.version + 1
	q.keepSettings(cur)
	if s.rulesets != nil {
		if err := s.rulesets.Put(ctx, name, q.version, data, s.configuredHash(name, cur), s.now().UTC()); err != nil {
			return 0, s.storeError(err)
		}
	}
	s.installRuleset(name, q)
	s.log.Info("ruleset replaced", "queue", name, "version", q.version)
	now := s.now().UTC()
	if s.rulesets != nil {
		// The history is the dashboard's: failing to note a version is
		// logged and does not undo the replacement.
		err := s.rulesets.NoteReplacement(ctx, name,
			rulesets.Version{Version: cur.version, At: now, Ruleset: string(cur.source), Via: "seen"},
			rulesets.Version{Version: q.version, At: now, Ruleset: string(data), Via: via})
		if err != nil {
			s.log.Warn("the ruleset's version history was not updated", "queue", name, "version", q.version, "err", err)
		}
	}
	return q.version, nil
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
		if k.Queue == name && !s.keepsCandidate(k) { // a running canary keeps its candidate
			pools = append(pools, p)
		}
	}
	s.mu.Unlock()
	for _, p := range pools {
		p.do(func(p *pool) { p.setRuleset(q) })
	}
}

// RulesetChanged reads the queue's stored ruleset and installs it if it is
// newer than the one this node runs: a ruleset replaced through another
// node sharing the store (cluster.go).
func (s *Service) RulesetChanged(ctx context.Context, name string) error {
	if s.rulesets == nil || s.queue(name) == nil {
		return nil
	}
	stored, err := s.rulesets.All(ctx)
	if err != nil {
		return fmt.Errorf("ticketsvc: read the rulesets: %w", err)
	}
	s.putMu.Lock()
	defer s.putMu.Unlock()
	for _, d := range stored {
		if d.Queue != name {
			continue
		}
		if d.Err != nil {
			return fmt.Errorf("ticketsvc: stored ruleset of %s: %w", name, d.Err)
		}
		cur := s.queue(name)
		if d.Version <= cur.version {
			return nil
		}
		q, probs := compileQueue(name, d.Source(), nil, d.Version)
		if len(probs) > 0 {
			return fmt.Errorf("ticketsvc: stored ruleset of %s: %w", name, probs)
		}
		q.keepSettings(cur)
		s.installRuleset(name, q)
		s.log.Info("ruleset replaced through another node", "queue", name, "version", q.version)
	}
	return nil
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

// configuredHash is the hash of the configuration's ruleset of a queue;
// cur, the queue now, stands for it before Start recorded them.
func (s *Service) configuredHash(name string, cur *queue) string {
	if h, ok := s.configured[name]; ok {
		return h
	}
	return rulesets.Hash(cur.source)
}

// loadRulesets applies run-time replacements stored before a restart,
// unless the configuration's ruleset of their queue changed since
// (rulesets.Precedence); the log says which ruleset each queue runs. A
// stored replacement that no longer reads or compiles is set aside with a
// warning: the configuration's ruleset runs, and nothing is lost.
func (s *Service) loadRulesets(ctx context.Context) error {
	s.mu.Lock()
	s.configured = make(map[string]string, len(s.queues))
	for name, q := range s.queues {
		s.configured[name] = rulesets.Hash(q.source)
	}
	s.mu.Unlock()
	if s.rulesets == nil {
		return nil
	}
	stored, err := s.rulesets.All(ctx)
	if err != nil {
		return fmt.Errorf("matchmaker: load rulesets: %w", err)
	}
	for _, d := range stored {
		cur := s.queue(d.Queue)
		if cur == nil {
			continue
		}
		if d.Err != nil {
			s.log.Warn("stored ruleset does not read; using the configured one", "queue", d.Queue, "err", d.Err)
			continue
		}
		wins, why, _ := rulesets.Precedence(cur.source, d.Body)
		if !wins {
			s.log.Warn(why, "queue", d.Queue)
			continue
		}
		q, probs := compileQueue(d.Queue, d.Source(), nil, d.Version)
		if len(probs) > 0 {
			s.log.Warn("stored ruleset no longer loads; using the configured one", "queue", d.Queue, "err", probs)
			continue
		}
		q.keepSettings(cur)
		s.mu.Lock()
		s.queues[d.Queue] = q
		s.mu.Unlock()
		s.log.Info(why, "queue", d.Queue, "version", d.Version)
	}
	return nil
}

// RulesetHistory returns a queue's noted versions, oldest first, with the
// current one noted first if it was not.
func (s *Service) RulesetHistory(ctx context.Context, name string) ([]rulesets.Version, error) {
	src, version, err := s.Ruleset(name)
	if err != nil {
		return nil, err
	}
	cur := rulesets.Version{Version: version, At: s.now().UTC(), Ruleset: string(src), Via: "seen"}
	if s.rulesets == nil {
		return []rulesets.Version{cur}, nil
	}
	hist, err := s.rulesets.NoteCurrent(ctx, name, cur)
	if err != nil {
		return nil, s.storeError(err)
	}
	return hist, nil
}
