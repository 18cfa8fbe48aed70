package ticketsvc

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/rollout"
	"github.com/cupid-match/cupid/service/ticketsvc/rulesets"
)

// Shadows (shadow.go) and canaries (canary.go) in progress are documents,
// reloaded at start: a restart keeps them going (their figures start
// again). On a cluster every node reads them — a canary's routing happens
// where a ticket is created — and the node that runs a queue's pools (it
// holds the queue's lease) runs the queue's shadow pools and guards.

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

func shadowDoc(r *shadowRun) rolloutDoc {
	return rolloutDoc{Kind: shadowKind, Queue: r.queue, Ruleset: string(r.source), SkillAttribute: r.skill, Started: r.started}
}

// rollouts are the service's shadows and canaries by queue.
type rollouts struct {
	docs cupid.DocumentStore // nil: nothing survives a restart

	mu       sync.Mutex
	shadows  map[string]*shadowRun
	canaries map[string]*canaryRun // running, or the last one's decision
}

func newRollouts(docs cupid.DocumentStore) *rollouts {
	return &rollouts{docs: docs, shadows: map[string]*shadowRun{}, canaries: map[string]*canaryRun{}}
}

func (r *rollouts) shadow(queue string) *shadowRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shadows[queue]
}

// addShadow takes a queue's one shadow.
func (r *rollouts) addShadow(sr *shadowRun) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur := r.shadows[sr.queue]; cur != nil {
		return cupid.Errorf(cupid.CodeAlreadyExists, "queue", "queue %q already runs a shadow (started %s); a queue has one at a time: stop it first",
			sr.queue, cur.started.Format(time.RFC3339))
	}
	r.shadows[sr.queue] = sr
	return nil
}

func (r *rollouts) removeShadow(queue string, sr *shadowRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shadows[queue] == sr {
		delete(r.shadows, queue)
	}
}

func (r *rollouts) save(ctx context.Context, d rolloutDoc) error {
	if r.docs == nil {
		return nil
	}
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return r.docs.PutDocument(ctx, cupid.Fence{}, rolloutKind, d.Kind+"/"+d.Queue, body, time.Now())
}

func (r *rollouts) remove(ctx context.Context, kind, queue string) error {
	if r.docs == nil {
		return nil
	}
	return r.docs.DeleteDocument(ctx, cupid.Fence{}, rolloutKind, kind+"/"+queue)
}

// loadRollouts restarts the shadows and canaries stored before a restart,
// before the waiting tickets are reloaded (so canary tickets find their
// candidate). One whose queue is gone or whose ruleset no longer compiles
// is set aside with a warning.
func (s *Service) loadRollouts(ctx context.Context) error {
	if s.roll.docs == nil {
		return nil
	}
	docs, err := s.roll.docs.Documents(ctx, rolloutKind, "", 0)
	if err != nil {
		return err
	}
	for _, d := range docs {
		var rd rolloutDoc
		if err := json.Unmarshal(d.Body, &rd); err != nil {
			s.log.Warn("a stored shadow or canary does not read; set aside", "id", d.ID, "err", err)
			continue
		}
		if s.queue(rd.Queue) == nil {
			s.log.Warn("a stored shadow or canary's queue is no longer configured; set aside", "id", d.ID)
			continue
		}
		cq, probs := compileQueue(rd.Queue, []byte(rd.Ruleset), nil, 0)
		if len(probs) > 0 {
			s.log.Warn("a stored shadow or canary's ruleset no longer compiles; set aside", "id", d.ID, "err", probs)
			continue
		}
		switch rd.Kind {
		case shadowKind:
			sr := newShadowRun(rd.Queue, []byte(rd.Ruleset), cq.rules, rd.SkillAttribute, rd.Started, int64(s.seed))
			if s.roll.addShadow(sr) == nil {
				s.attachShadow(sr)
				s.log.Info("shadow resumed", "queue", rd.Queue, "started", rd.Started)
			}
		case canaryKind:
			c := canaryFromDoc(rd, cq)
			s.roll.mu.Lock()
			s.roll.canaries[rd.Queue] = c
			s.roll.mu.Unlock()
			s.log.Info("canary resumed", "queue", rd.Queue, "state", rd.State, "share", rd.Share)
		}
	}
	return nil
}

// guardEvery is how often canaries' guards are evaluated.
const guardEvery = time.Second

// startGuards evaluates the canaries' guards every guardEvery until the
// service closes.
func (s *Service) startGuards() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(guardEvery)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
				s.CheckCanaries(s.ctx)
			}
		}
	}()
}

func rulesetsVersion(version int, at time.Time, candidate, via, reason string) rulesets.Version {
	return rulesets.Version{Version: version, At: at, Ruleset: candidate, Via: via, Reason: reason}
}
