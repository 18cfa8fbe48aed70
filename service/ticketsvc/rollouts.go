package ticketsvc

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/rollout"
)

// Shadows (shadow.go) and canaries (canary.go) in progress are documents,
// reloaded at start: a restart keeps them going (their figures start
// again). On a cluster every node follows them — a canary's routing happens
// where a ticket is created — by reading them again every guardEvery
// (syncRollouts), so a start, stop, promotion or roll-back through one node
// reaches the others within about a second; the node that runs a queue's
// pools (it holds the queue's lease) runs the queue's shadow pools and
// guards.

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

	// change serialises the changes of shadows and canaries (start, stop,
	// decide) with syncRollouts, so a sync never sees a change half made
	// (in memory but not yet stored). Taken before mu.
	change sync.Mutex
	// setAside are stored documents that do not load, by id, with what
	// was said about them: each is warned of once.
	setAside map[string]string

	mu       sync.Mutex
	shadows  map[string]*shadowRun
	canaries map[string]*canaryRun // running, or the last one's decision
}

func newRollouts(docs cupid.DocumentStore) *rollouts {
	return &rollouts{docs: docs, setAside: map[string]string{}, shadows: map[string]*shadowRun{}, canaries: map[string]*canaryRun{}}
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
// candidate).
func (s *Service) loadRollouts(ctx context.Context) error {
	return s.syncRollouts(ctx)
}

// syncRollouts makes this node's shadows and canaries those stored: at
// start, and on a shared store every guardEvery, so that what was started
// or decided through another node takes effect here. A stored one whose
// queue is gone or whose ruleset no longer compiles is set aside with a
// warning (once).
func (s *Service) syncRollouts(ctx context.Context) error {
	if s.roll.docs == nil {
		return nil
	}
	s.roll.change.Lock()
	defer s.roll.change.Unlock()
	docs, err := s.roll.docs.Documents(ctx, rolloutKind, "", 0)
	if err != nil {
		return err
	}
	shadows := map[string]bool{}
	for _, d := range docs {
		var rd rolloutDoc
		if err := json.Unmarshal(d.Body, &rd); err != nil {
			s.setAside(d.ID, "a stored shadow or canary does not read; set aside", err)
			continue
		}
		if s.queue(rd.Queue) == nil {
			s.setAside(d.ID, "a stored shadow or canary's queue is no longer configured; set aside", nil)
			continue
		}
		switch rd.Kind {
		case shadowKind:
			shadows[rd.Queue] = true
			if cur := s.roll.shadow(rd.Queue); cur != nil {
				if cur.started.Equal(rd.Started) {
					continue
				}
				s.detachShadow(cur) // replaced through another node
			}
			cq, ok := s.compileStored(d.ID, rd)
			if !ok {
				continue
			}
			sr := newShadowRun(rd.Queue, []byte(rd.Ruleset), cq.rules, rd.SkillAttribute, rd.Started, int64(s.seed))
			if s.roll.addShadow(sr) == nil {
				s.attachShadow(sr)
				s.log.Info("shadow running", "queue", rd.Queue, "started", rd.Started)
			}
		case canaryKind:
			s.syncCanary(ctx, d.ID, rd)
		}
	}
	s.roll.mu.Lock()
	var gone []*shadowRun
	for q, sr := range s.roll.shadows {
		if !shadows[q] {
			gone = append(gone, sr)
		}
	}
	s.roll.mu.Unlock()
	for _, sr := range gone {
		s.detachShadow(sr) // stopped through another node
		s.log.Info("shadow stopped through another node", "queue", sr.queue)
	}
	return nil
}

// syncCanary makes a queue's canary the stored one: a new one replaces
// this node's, and a decision taken through another node is applied here
// (routing stops, the canary's pools take the live rules).
func (s *Service) syncCanary(ctx context.Context, id string, rd rolloutDoc) {
	s.roll.mu.Lock()
	cur := s.roll.canaries[rd.Queue]
	s.roll.mu.Unlock()
	if cur != nil && cur.started.Equal(rd.Started) {
		if cur.state != canaryRunning || rd.State == "" || rd.State == canaryRunning {
			return // nothing new (or decided here, and the store missed it)
		}
		s.roll.mu.Lock()
		cur.state, cur.reason, cur.decided = rd.State, rd.Reason, rd.Decided
		s.roll.mu.Unlock()
		if rd.State == canaryPromoted {
			// The promotion replaced the queue's ruleset: install it
			// now if its own notification has not come yet.
			if err := s.RulesetChanged(ctx, rd.Queue); err != nil {
				s.log.Error("reading a promoted canary's ruleset failed", "queue", rd.Queue, "err", err)
			}
		}
		if live := s.queue(rd.Queue); live != nil {
			s.setSideRules(rd.Queue, rollout.Canary, live)
		}
		s.log.Info("canary decided through another node", "queue", rd.Queue, "state", rd.State, "reason", rd.Reason)
		return
	}
	cq, ok := s.compileStored(id, rd)
	if !ok {
		return
	}
	c := canaryFromDoc(rd, cq)
	s.roll.mu.Lock()
	s.roll.canaries[rd.Queue] = c
	s.roll.mu.Unlock()
	if c.state == canaryRunning {
		if live := s.queue(rd.Queue); live != nil {
			s.setSideRules(rd.Queue, rollout.Canary, c.candidateQueue(live))
		}
	}
	s.log.Info("canary loaded", "queue", rd.Queue, "state", c.state, "share", rd.Share)
}

// compileStored compiles a stored shadow's or canary's ruleset; one that
// no longer compiles is set aside.
func (s *Service) compileStored(id string, rd rolloutDoc) (*queue, bool) {
	cq, probs := compileQueue(rd.Queue, []byte(rd.Ruleset), nil, 0)
	if len(probs) > 0 {
		s.setAside(id+"@"+rd.Started.String(), "a stored shadow or canary's ruleset no longer compiles; set aside", probs)
		return nil, false
	}
	return cq, true
}

// setAside warns once of a stored document that does not load.
func (s *Service) setAside(id, msg string, err error) {
	if s.roll.setAside[id] == msg {
		return
	}
	s.roll.setAside[id] = msg
	s.log.Warn(msg, "id", id, "err", err)
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
		lastSave := time.Now()
		for {
			select {
			case <-s.ctx.Done():
				// The last word of the guard windows, for whoever runs
				// the queues next.
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				s.saveWindows(ctx)
				cancel()
				return
			case <-t.C:
				if time.Since(lastSave) >= windowSaveEvery {
					s.saveWindows(s.ctx)
					lastSave = time.Now()
				}
				if s.shared != nil {
					if err := s.syncRollouts(s.ctx); err != nil && s.ctx.Err() == nil {
						s.log.Warn("reading the stored shadows and canaries failed; trying again", "err", err)
					}
				}
				s.CheckCanaries(s.ctx)
			}
		}
	}()
}
