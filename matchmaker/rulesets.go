package matchmaker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// rulesetDoc is how a run-time ruleset replacement is stored, so it
// survives a restart.
type rulesetDoc struct {
	Version int             `json:"version"`
	Ruleset json.RawMessage `json:"ruleset"`
}

const rulesetKind = "ruleset"

// ValidateRuleset reports every problem of a ruleset document. An empty
// result means the ruleset would load.
func (s *Service) ValidateRuleset(data []byte) ruleset.Problems {
	if probs := ruleset.Check(data); len(probs) > 0 {
		return probs
	}
	// The engine may refuse what the language allows (a combination it
	// cannot run); say so in the same form.
	rs, err := ruleset.Load(data)
	if err == nil {
		_, err = newQueue("check", 0, rs, data, 0)
	}
	if err != nil {
		return ruleset.Problems{{Message: err.Error()}}
	}
	return nil
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
// if the current version is expected. Waiting tickets stay and are tried
// again under the new rules; a ticket the new rules can never match is
// cancelled, and its watchers are told.
func (s *Service) PutRuleset(ctx context.Context, name string, data []byte, expected int) (int, error) {
	old := s.queue(name)
	if old == nil {
		return 0, cupid.NotFound("queue", "no queue %q", name)
	}
	if probs := s.ValidateRuleset(data); len(probs) > 0 {
		return 0, cupid.Invalid("ruleset", "%s", probs.Error())
	}
	rs, err := ruleset.Load(data)
	if err != nil {
		return 0, cupid.Invalid("ruleset", "%v", err)
	}
	s.mu.Lock()
	cur := s.queues[name]
	if expected > 0 && cur.version != expected {
		s.mu.Unlock()
		return 0, cupid.Conflict("expected_version", "the ruleset is at version %d, not %d", cur.version, expected)
	}
	q, err := newQueue(name, cur.ttl, rs, data, cur.version+1)
	if err != nil {
		s.mu.Unlock()
		return 0, cupid.Invalid("ruleset", "%v", err)
	}
	if s.docs != nil {
		body, _ := json.Marshal(rulesetDoc{Version: q.version, Ruleset: json.RawMessage(compactJSON(data))})
		if err := s.docs.PutDocument(ctx, rulesetKind, name, body, s.now().UTC()); err != nil {
			s.mu.Unlock()
			return 0, fmt.Errorf("matchmaker: store ruleset: %w", err)
		}
	}
	s.queues[name] = q
	var pools []*pool
	for k, p := range s.pools {
		if k.Queue == name {
			pools = append(pools, p)
		}
	}
	s.mu.Unlock()
	for _, p := range pools {
		p.do(func(p *pool) { p.setRuleset(q) })
	}
	s.log.Info("ruleset replaced", "queue", name, "version", q.version)
	return q.version, nil
}

// setRuleset runs on the pool's goroutine.
func (p *pool) setRuleset(q *queue) {
	evicted, err := p.eng.SetRuleset(q.rules)
	if err != nil {
		p.s.log.Error("pool refused a validated ruleset; keeping the old one", "pool", p.key.String(), "err", err)
		return
	}
	p.q = q
	for _, ev := range evicted {
		ctx, cancel := context.WithTimeout(p.s.ctx, 10*time.Second)
		_, e, err := p.s.store.FinishTicket(ctx, ev.Ticket.ID, cupid.StateCancelled, p.s.now().UTC())
		cancel()
		if err != nil {
			continue
		}
		p.s.log.Info("ticket cancelled: the new ruleset cannot match it", "ticket", ev.Ticket.ID, "reason", ev.Err)
		p.s.hub.publish(e)
	}
}

// loadRulesets applies run-time replacements stored before a restart.
func (s *Service) loadRulesets(ctx context.Context) error {
	if s.docs == nil {
		return nil
	}
	docs, err := s.docs.Documents(ctx, rulesetKind, "", 0)
	if err != nil {
		return fmt.Errorf("matchmaker: load rulesets: %w", err)
	}
	for _, d := range docs {
		cur := s.queues[d.ID]
		if cur == nil {
			continue
		}
		var doc rulesetDoc
		if err := json.Unmarshal(d.Body, &doc); err != nil {
			return fmt.Errorf("matchmaker: stored ruleset of %s: %w", d.ID, err)
		}
		rs, err := ruleset.Load(doc.Ruleset)
		if err != nil {
			s.log.Warn("stored ruleset no longer parses; using the configured one", "queue", d.ID, "err", err)
			continue
		}
		q, err := newQueue(d.ID, cur.ttl, rs, doc.Ruleset, doc.Version)
		if err != nil {
			s.log.Warn("stored ruleset refused; using the configured one", "queue", d.ID, "err", err)
			continue
		}
		s.queues[d.ID] = q
		s.log.Info("using the ruleset replaced at run time", "queue", d.ID, "version", doc.Version)
	}
	return nil
}

func compactJSON(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}
