package ticketsvc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// rulesetDoc is how a run-time ruleset replacement is stored, so it
// survives a restart. Over is the hash of the configuration's ruleset it
// replaced: the replacement wins over the configuration while the
// configuration's ruleset is that one, and loses once the file changes
// (empty in replacements stored before Cupid recorded it: they win).
type rulesetDoc struct {
	Version int             `json:"version"`
	Ruleset json.RawMessage `json:"ruleset"`
	Over    string          `json:"over,omitempty"`
}

// rulesetHash identifies a ruleset document by its compact form, so that
// spacing alone is not a change.
func rulesetHash(src []byte) string {
	sum := sha256.Sum256(compactJSON(src))
	return hex.EncodeToString(sum[:])
}

// RulesetPrecedence says, for a queue whose configuration's ruleset is
// configured, whether a stored run-time replacement (a ruleset document's
// body) is used over it, and why, in words for the log and config check.
func RulesetPrecedence(configured, stored []byte) (replacementWins bool, why string, err error) {
	var doc rulesetDoc
	if err := json.Unmarshal(stored, &doc); err != nil {
		return false, "", err
	}
	switch {
	case doc.Over == "":
		return true, fmt.Sprintf("the ruleset replaced at run time (version %d) is used over the configuration's: it was stored before Cupid recorded which configuration it replaced, so it wins until the next replacement", doc.Version), nil
	case doc.Over == rulesetHash(configured):
		return true, fmt.Sprintf("the ruleset replaced at run time (version %d) is used over the configuration's, which has not changed since", doc.Version), nil
	default:
		return false, fmt.Sprintf("the configuration's ruleset is used: it changed after the run-time replacement (version %d), which is set aside", doc.Version), nil
	}
}

const rulesetKind = "ruleset"

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

// putRuleset is PutRuleset, noting the new version in the queue's history
// (stats_rulesets.go) as put via the API or the dashboard's editor. The
// history is the dashboard's: failing to note a version is logged and does
// not undo the replacement.
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
	if s.docs != nil {
		body, err := json.Marshal(rulesetDoc{Version: q.version, Ruleset: json.RawMessage(compactJSON(data)), Over: s.configuredHash(name, cur)})
		if err != nil {
			return 0, cupid.Invalid("ruleset", "%v", err)
		}
		if err := s.docs.PutDocument(ctx, cupid.Fence{}, rulesetKind, name, body, s.now().UTC()); err != nil {
			return 0, s.storeError(err)
		}
	}
	s.installRuleset(name, q)
	s.log.Info("ruleset replaced", "queue", name, "version", q.version)
	now := s.now().UTC()
	s.noteReplacement(ctx, name,
		RulesetVersion{Version: cur.version, At: now, Ruleset: string(cur.source), Via: "seen"},
		RulesetVersion{Version: q.version, At: now, Ruleset: string(data), Via: via})
	return q.version, nil
}

// keepSettings gives a queue compiled from a new ruleset the settings of the
// queue it replaces: everything but the ruleset is the configuration's.
func (q *queue) keepSettings(cur *queue) {
	q.ttl, q.maxKeys = cur.ttl, cur.maxKeys
	q.assignTimeout, q.onTimeout, q.leaverWindow, q.accept = cur.assignTimeout, cur.onTimeout, cur.leaverWindow, cur.accept
}

// installRuleset makes q the queue's ruleset on this node: tickets are
// checked against it from now on and the queue's pools switch to it.
func (s *Service) installRuleset(name string, q *queue) {
	s.mu.Lock()
	q.keys = s.queues[name].keys
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
}

// RulesetChanged reads the queue's stored ruleset and installs it if it is
// newer than the one this node runs: a ruleset replaced through another
// node sharing the store (cluster.go).
func (s *Service) RulesetChanged(ctx context.Context, name string) error {
	if s.docs == nil || s.queue(name) == nil {
		return nil
	}
	docs, err := s.docs.Documents(ctx, rulesetKind, "", 0)
	if err != nil {
		return fmt.Errorf("ticketsvc: read the rulesets: %w", err)
	}
	s.putMu.Lock()
	defer s.putMu.Unlock()
	for _, d := range docs {
		if d.ID != name {
			continue
		}
		var doc rulesetDoc
		if err := json.Unmarshal(d.Body, &doc); err != nil {
			return fmt.Errorf("ticketsvc: stored ruleset of %s: %w", name, err)
		}
		cur := s.queue(name)
		if doc.Version <= cur.version {
			return nil
		}
		q, probs := compileQueue(name, doc.Ruleset, nil, doc.Version)
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
		p.s.log.Error("pool refused a validated ruleset; keeping the old one", "pool", p.key.String(), "err", err)
		return
	}
	p.q = q
	now := p.s.now().UTC()
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
	return rulesetHash(cur.source)
}

// loadRulesets applies run-time replacements stored before a restart,
// unless the configuration's ruleset of their queue changed since
// (RulesetPrecedence); the log says which ruleset each queue runs.
func (s *Service) loadRulesets(ctx context.Context) error {
	s.mu.Lock()
	s.configured = make(map[string]string, len(s.queues))
	for name, q := range s.queues {
		s.configured[name] = rulesetHash(q.source)
	}
	s.mu.Unlock()
	if s.docs == nil {
		return nil
	}
	docs, err := s.docs.Documents(ctx, rulesetKind, "", 0)
	if err != nil {
		return fmt.Errorf("matchmaker: load rulesets: %w", err)
	}
	for _, d := range docs {
		cur := s.queue(d.ID)
		if cur == nil {
			continue
		}
		var doc rulesetDoc
		if err := json.Unmarshal(d.Body, &doc); err != nil {
			return fmt.Errorf("matchmaker: stored ruleset of %s: %w", d.ID, err)
		}
		wins, why, _ := RulesetPrecedence(cur.source, d.Body)
		if !wins {
			s.log.Warn(why, "queue", d.ID)
			continue
		}
		q, probs := compileQueue(d.ID, doc.Ruleset, nil, doc.Version)
		if len(probs) > 0 {
			s.log.Warn("stored ruleset no longer loads; using the configured one", "queue", d.ID, "err", probs)
			continue
		}
		q.keepSettings(cur)
		s.mu.Lock()
		s.queues[d.ID] = q
		s.mu.Unlock()
		s.log.Info(why, "queue", d.ID, "version", doc.Version)
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
