package canary

import (
	"context"
	"encoding/json"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/rollout"
)

// Shadows and canaries in progress are documents, reloaded at start: a
// restart keeps them going (their figures start again). On a cluster
// every node follows them — a canary's routing happens where a ticket is
// created — by reading them again every GuardEvery (Sync, from Run), so a
// start, stop, promotion or roll-back through one node reaches the others
// within about a second; the node that runs a queue's pools (it holds the
// queue's lease) runs the queue's shadow pools and guards.

// rolloutKind is the document kind; ids are "shadow/QUEUE" and
// "canary/QUEUE".
const rolloutKind = "rollout"

const (
	shadowKind = "shadow"
	canaryKind = "canary"
)

// rolloutDoc is a shadow or a canary as stored.
type rolloutDoc struct {
	Kind           string         `json:"kind"`
	Queue          string         `json:"queue"`
	Ruleset        string         `json:"ruleset"`
	SkillAttribute string         `json:"skill_attribute,omitempty"`
	Share          float64        `json:"share,omitempty"`
	Guard          *rollout.Guard `json:"guard,omitempty"`
	Started        time.Time      `json:"started"`
	State          string         `json:"state,omitempty"`
	Reason         string         `json:"reason,omitempty"`
	Decided        time.Time      `json:"decided,omitzero"`
}

func shadowDoc(sh *Shadow) rolloutDoc {
	return rolloutDoc{Kind: shadowKind, Queue: sh.queue, Ruleset: string(sh.source), SkillAttribute: sh.skill, Started: sh.started}
}

func (s *Service) save(ctx context.Context, d rolloutDoc) error {
	if s.docs == nil {
		return nil
	}
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return s.docs.PutDocument(ctx, cupid.Fence{}, rolloutKind, d.Kind+"/"+d.Queue, body, time.Now())
}

func (s *Service) remove(ctx context.Context, kind, queue string) error {
	if s.docs == nil {
		return nil
	}
	return s.docs.DeleteDocument(ctx, cupid.Fence{}, rolloutKind, kind+"/"+queue)
}

// Sync makes this node's shadows and canaries those stored: at start
// (before the waiting tickets are reloaded, so canary tickets find their
// candidate), and with Follow every GuardEvery, so that what was started
// or decided through another node takes effect here. A stored one whose
// queue is gone or whose ruleset no longer compiles is set aside with a
// warning (once).
func (s *Service) Sync(ctx context.Context) error {
	if s.docs == nil {
		return nil
	}
	s.change.Lock()
	defer s.change.Unlock()
	docs, err := s.docs.Documents(ctx, rolloutKind, "", 0)
	if err != nil {
		return err
	}
	shadows := map[string]bool{}
	for _, d := range docs {
		var rd rolloutDoc
		if err := json.Unmarshal(d.Body, &rd); err != nil {
			s.warnAside(d.ID, "a stored shadow or canary does not read; set aside", err)
			continue
		}
		if !s.pools.Configured(rd.Queue) {
			s.warnAside(d.ID, "a stored shadow or canary's queue is no longer configured; set aside", nil)
			continue
		}
		switch rd.Kind {
		case shadowKind:
			shadows[rd.Queue] = true
			if cur := s.shadow(rd.Queue); cur != nil {
				if cur.started.Equal(rd.Started) {
					continue
				}
				s.detachShadow(cur) // replaced through another node
			}
			cand, ok := s.compileStored(d.ID, rd)
			if !ok {
				continue
			}
			sh := newShadow(rd.Queue, []byte(rd.Ruleset), cand.Rules, rd.SkillAttribute, rd.Started, s.seed)
			if s.addShadow(sh) == nil {
				s.pools.AttachShadow(rd.Queue, sh)
				s.log.Info("shadow running", "queue", rd.Queue, "started", rd.Started)
			}
		case canaryKind:
			s.syncCanary(ctx, d.ID, rd)
		}
	}
	s.mu.Lock()
	var gone []*Shadow
	for q, sh := range s.shadows {
		if !shadows[q] {
			gone = append(gone, sh)
		}
	}
	s.mu.Unlock()
	for _, sh := range gone {
		s.detachShadow(sh) // stopped through another node
		s.log.Info("shadow stopped through another node", "queue", sh.queue)
	}
	return nil
}

// syncCanary makes a queue's canary the stored one: a new one replaces
// this node's, and a decision taken through another node is applied here
// (routing stops, the canary's pools take the live rules).
func (s *Service) syncCanary(ctx context.Context, id string, rd rolloutDoc) {
	s.mu.Lock()
	cur := s.canaries[rd.Queue]
	s.mu.Unlock()
	if cur != nil && cur.started.Equal(rd.Started) {
		if cur.state != canaryRunning || rd.State == "" || rd.State == canaryRunning {
			return // nothing new (or decided here, and the store missed it)
		}
		s.mu.Lock()
		cur.state, cur.reason, cur.decided = rd.State, rd.Reason, rd.Decided
		s.mu.Unlock()
		if rd.State == canaryPromoted {
			// The promotion replaced the queue's ruleset: install it
			// now if its own notification has not come yet.
			if err := s.rulesets.Changed(ctx, rd.Queue); err != nil {
				s.log.Error("reading a promoted canary's ruleset failed", "queue", rd.Queue, "err", err)
			}
		}
		s.pools.SetCanaryRules(rd.Queue, nil)
		s.log.Info("canary decided through another node", "queue", rd.Queue, "state", rd.State, "reason", rd.Reason)
		return
	}
	cand, ok := s.compileStored(id, rd)
	if !ok {
		return
	}
	c := canaryFromDoc(rd, cand)
	s.mu.Lock()
	s.canaries[rd.Queue] = c
	s.mu.Unlock()
	if c.state == canaryRunning {
		s.pools.SetCanaryRules(rd.Queue, &c.cand)
	}
	s.log.Info("canary loaded", "queue", rd.Queue, "state", c.state, "share", rd.Share)
}

// compileStored compiles a stored shadow's or canary's ruleset; one that
// no longer compiles is set aside.
func (s *Service) compileStored(id string, rd rolloutDoc) (Candidate, bool) {
	rules, check, probs := s.pools.Compile(rd.Queue, []byte(rd.Ruleset))
	if len(probs) > 0 {
		s.warnAside(id+"@"+rd.Started.String(), "a stored shadow or canary's ruleset no longer compiles; set aside", probs)
		return Candidate{}, false
	}
	return Candidate{Source: []byte(rd.Ruleset), Rules: rules, Check: check}, true
}

// warnAside warns once of a stored document that does not load. Called
// with change held.
func (s *Service) warnAside(id, msg string, err error) {
	if s.setAside[id] == msg {
		return
	}
	s.setAside[id] = msg
	s.log.Warn(msg, "id", id, "err", err)
}
