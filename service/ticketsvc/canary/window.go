package canary

import (
	"context"
	"encoding/json"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/rollout"
)

// A running canary's guard window — both sides' recent matches — is saved
// beside its document every WindowSaveEvery and when the service closes,
// by the node that runs the queue (under its lease's fence). The node that
// runs the queue next (after a restart, or when the queue moves to another
// node) reads it back the first time its guards look at the canary, so the
// guards go on judging over the whole window instead of starting again. A
// crash loses at most the last WindowSaveEvery of samples.

// windowKind is the document kind of the saved windows; ids are
// "canary/QUEUE", as the canaries'.
const windowKind = "rollout_window"

// WindowSaveEvery is how often a changed window is saved.
const WindowSaveEvery = 10 * time.Second

// windowDoc is a canary's saved window.
type windowDoc struct {
	// Started names the canary the window is of.
	Started time.Time     `json:"started"`
	Live    rollout.Saved `json:"live"`
	Canary  rollout.Saved `json:"canary"`
}

// loadWindow reads a running canary's saved window the first time this
// node's guards look at it as the queue's runner, and again whenever the
// queue's lease changed hands since (other nodes may have added to it).
func (s *Service) loadWindow(ctx context.Context, queue string) {
	fence, ok := s.pools.Owned(queue)
	if !ok {
		return
	}
	s.mu.Lock()
	c := s.canaries[queue]
	if c == nil || (c.owned && c.ownedBy == fence) || c.state != canaryRunning {
		s.mu.Unlock()
		return
	}
	c.owned, c.ownedBy = true, fence
	s.mu.Unlock()
	if s.docs == nil {
		return
	}
	d, err := s.windowDocument(ctx, queue)
	if err != nil {
		s.log.Warn("a canary's saved guard window was not read; its guards start again", "queue", queue, "err", err)
		return
	}
	if d == nil || !d.Started.Equal(c.started) {
		return // none, or an earlier canary's
	}
	s.mu.Lock()
	c.live.Restore(d.Live)
	c.canary.Restore(d.Canary)
	c.saved = c.live.Records() + c.canary.Records()
	s.mu.Unlock()
	s.log.Info("a canary's guard window was read back", "queue", queue,
		"live", len(d.Live.Waits), "canary", len(d.Canary.Waits))
}

// windowDocument reads a queue's saved window; nil when there is none.
func (s *Service) windowDocument(ctx context.Context, queue string) (*windowDoc, error) {
	// A queue has one window at most, so there are no more of them than
	// queues: they are listed and the queue's picked.
	docs, err := s.docs.Documents(ctx, windowKind, "", 0)
	if err != nil {
		return nil, err
	}
	for _, doc := range docs {
		if doc.ID != canaryKind+"/"+queue {
			continue
		}
		var d windowDoc
		if err := json.Unmarshal(doc.Body, &d); err != nil {
			return nil, err
		}
		return &d, nil
	}
	return nil, nil
}

// saveWindows saves the windows of the running canaries this node runs
// that changed since they were last saved.
func (s *Service) saveWindows(ctx context.Context) {
	s.mu.Lock()
	queues := make([]string, 0, len(s.canaries))
	for q := range s.canaries {
		queues = append(queues, q)
	}
	s.mu.Unlock()
	for _, q := range queues {
		if fence, ok := s.pools.Owned(q); ok {
			s.SaveWindow(ctx, q, fence)
		}
	}
}

// SaveWindow saves a queue's running canary's window under fence, if this
// node read it back under that fence (it holds every sample) and it
// changed since it was last saved. The pools' owner calls it as the node
// gives the queue up, before the lease is released.
func (s *Service) SaveWindow(ctx context.Context, queue string, fence cupid.Fence) {
	if s.docs == nil {
		return
	}
	s.mu.Lock()
	c := s.canaries[queue]
	if c == nil || c.state != canaryRunning || !c.owned || c.ownedBy != fence {
		s.mu.Unlock()
		return
	}
	recs := c.live.Records() + c.canary.Records()
	if recs == c.saved {
		s.mu.Unlock()
		return
	}
	from := s.now().UTC().Add(-c.guard.Window)
	d := windowDoc{Started: c.started, Live: c.live.Save(from), Canary: c.canary.Save(from)}
	s.mu.Unlock()
	body, err := json.Marshal(d)
	if err == nil {
		err = s.docs.PutDocument(ctx, fence, windowKind, canaryKind+"/"+queue, body, time.Now())
	}
	if err != nil {
		s.log.Warn("a canary's guard window was not saved", "queue", queue, "err", err)
		return
	}
	s.mu.Lock()
	if c.saved < recs {
		c.saved = recs
	}
	s.mu.Unlock()
}
