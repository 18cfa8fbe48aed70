// Package canary runs candidate rulesets beside a queue's live one before
// they replace it: a shadow runs the candidate on the same arrivals in
// pools that commit nothing and reports both sides' figures; a canary sends
// a share of the queue's new tickets to the candidate for real, with
// guards (package rollout) that roll it back when it does worse than the
// live side, until it is promoted (a run-time replacement, package
// replace) or rolled back.
//
// Shadows and canaries in progress are documents, so a restart keeps them
// going and every node of a cluster follows them (Sync). The node that
// runs a queue's pools runs its shadow's pools and its canary's guards,
// and saves the guard window for the node that runs the queue next.
//
// It never touches a pool: package ticketsvc runs the pools and reaches
// this package through a few hooks (ShadowPool, Candidate, Route,
// LiveMatched, SaveWindow); this package asks the pools for what it needs
// through the small Pools interface below.
package canary

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/rollout"
	"github.com/cupid-match/cupid/ruleset"
)

// Pools is what shadows and canaries ask of the pools' owner (package
// ticketsvc).
type Pools interface {
	// Configured reports whether a queue is configured.
	Configured(queue string) bool
	// Compile compiles a candidate ruleset as the queue's engine would
	// run it: the rules and an engine that checks tickets against them,
	// or every problem.
	Compile(queue string, src []byte) (*ruleset.Compiled, *engine.Pool, ruleset.Problems)
	// Owned is the fence of this node's writes for a queue it runs; ok is
	// false when another node runs the queue.
	Owned(queue string) (fence cupid.Fence, ok bool)
	// AttachShadow gives each running live-side pool of the queue its
	// pool of sh (sh.Pool), unless it holds one already; DetachShadow
	// takes sh's pools off them.
	AttachShadow(queue string, sh *Shadow)
	DetachShadow(queue string, sh *Shadow)
	// SetCanaryRules switches the running canary-side pools of a queue to
	// the candidate, with the queue's other settings; nil switches them to
	// the queue's own ruleset.
	SetCanaryRules(queue string, c *Candidate)
}

// Rulesets is what a canary's promotion and the history ask of the
// run-time replacement (package replace's Service).
type Rulesets interface {
	// Put replaces a queue's ruleset (expected 0: whatever is there); via
	// names who put it.
	Put(ctx context.Context, queue string, src []byte, expected int, via string) (int, error)
	// Changed installs the queue's stored ruleset if it is newer than the
	// one this node runs.
	Changed(ctx context.Context, queue string) error
	// NoteDecision notes a shadow's or a canary's decision in the queue's
	// ruleset history.
	NoteDecision(ctx context.Context, queue, via string, candidate []byte, reason string)
}

// Candidate is the ruleset a canary's side runs.
type Candidate struct {
	Source []byte
	Rules  *ruleset.Compiled
	// Check is an engine that never holds tickets: it tells whether the
	// candidate can take a ticket.
	Check *engine.Pool
}

// Options configure a Service.
type Options struct {
	Pools    Pools
	Rulesets Rulesets
	// Documents keep the shadows, the canaries and the canaries' guard
	// windows; without them nothing survives a restart.
	Documents cupid.DocumentStore
	// Follow reads the stored shadows and canaries again every
	// GuardEvery (Run), for a store shared with other nodes.
	Follow bool
	// Seed seeds the shadows' engines, as the live pools' seed theirs.
	Seed   int64
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Service runs the shadows and canaries of a node's queues.
type Service struct {
	pools    Pools
	rulesets Rulesets
	docs     cupid.DocumentStore // nil: nothing survives a restart
	follow   bool
	seed     int64
	log      *slog.Logger
	now      func() time.Time

	// change serialises the changes of shadows and canaries (start, stop,
	// decide) with Sync, so a sync never sees a change half made (in
	// memory but not yet stored). Taken before mu.
	change sync.Mutex
	// setAside are stored documents that do not load, by id, with what
	// was said about them: each is warned of once. Guarded by change.
	setAside map[string]string

	// mu guards the maps and the canaries' state. The pools' owner calls
	// the hooks with its own lock held, so mu is never held while the
	// Pools are asked for anything.
	mu       sync.Mutex
	shadows  map[string]*Shadow
	canaries map[string]*canaryRun // running, or the last one's decision
}

// New builds the service; Sync loads what was stored, Run keeps it going.
func New(o Options) (*Service, error) {
	if o.Pools == nil {
		return nil, errors.New("canary: the pools are required")
	}
	if o.Rulesets == nil {
		return nil, errors.New("canary: the run-time rulesets are required")
	}
	s := &Service{pools: o.Pools, rulesets: o.Rulesets, docs: o.Documents, follow: o.Follow, seed: o.Seed,
		log: o.Logger, now: o.Now, setAside: map[string]string{}, shadows: map[string]*Shadow{}, canaries: map[string]*canaryRun{}}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// GuardEvery is how often Run evaluates the canaries' guards (and, with
// Follow, reads the stored shadows and canaries again).
const GuardEvery = time.Second

// Run evaluates the canaries' guards every GuardEvery and saves their
// windows every WindowSaveEvery until ctx ends; then it saves the windows
// a last time, for whoever runs the queues next.
func (s *Service) Run(ctx context.Context) {
	t := time.NewTicker(GuardEvery)
	defer t.Stop()
	lastSave := time.Now()
	for {
		select {
		case <-ctx.Done():
			last, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			s.saveWindows(last)
			cancel()
			return
		case <-t.C:
			if time.Since(lastSave) >= WindowSaveEvery {
				s.saveWindows(ctx)
				lastSave = time.Now()
			}
			if s.follow {
				if err := s.Sync(ctx); err != nil && ctx.Err() == nil {
					s.log.Warn("reading the stored shadows and canaries failed; trying again", "err", err)
				}
			}
			s.CheckCanaries(ctx)
		}
	}
}

// ShadowPool is the shadow pool a new live pool of key gets: nil for the
// canary's side or a queue without a shadow. The pools' owner may hold its
// lock.
func (s *Service) ShadowPool(key cupid.QueueKey) *ShadowPool {
	if key.Side != "" {
		return nil
	}
	sh := s.shadow(key.Queue)
	if sh == nil {
		return nil
	}
	return sh.Pool(key)
}

// Candidate is the ruleset a pool of key runs instead of its queue's: a
// running canary's candidate for the canary's side, nil otherwise (a
// decided canary's side runs the queue's ruleset). A replacement of the
// queue's ruleset leaves the pools with a candidate alone. The pools'
// owner may hold its lock.
func (s *Service) Candidate(key cupid.QueueKey) *Candidate {
	if key.Side != rollout.Canary {
		return nil
	}
	if c := s.runningCanary(key.Queue); c != nil {
		return &c.cand
	}
	return nil
}

// Route picks a new ticket's side: the server sets it, whatever the
// caller sent. It runs after the live ruleset's check; a ticket the
// candidate cannot take stays live.
func (s *Service) Route(t *cupid.Ticket) {
	t.Key.Side = ""
	c := s.runningCanary(t.Key.Queue)
	if c == nil || len(t.Players) == 0 || !rollout.InCanary(t.Key.Queue, t.Players[0].ID, c.share) {
		return
	}
	if c.cand.Check.Check(t) != nil {
		return
	}
	t.Key.Side = rollout.Canary
}

// LiveMatched is a committed match of a pool, for a shadow's live figures
// and a canary's rings. It runs on the pool's goroutine beside the
// statistics; waits are the tickets' in the match's order (-1 unknown), pr
// the engine's proposal (nil when unknown).
func (s *Service) LiveMatched(key cupid.QueueKey, m *cupid.Match, pr *engine.Proposal, waits []time.Duration, now time.Time) {
	if key.Side == "" {
		if sh := s.shadow(key.Queue); sh != nil && !now.Before(sh.started) {
			sh.matched(sideLive, key, m, pr, shadowWaits(pr, waits, sh.started), now)
		}
	}
	s.canaryMatched(key, m, waits, now)
}

// checkReason bounds a decision's reason, which the history keeps.
func checkReason(reason string) error {
	if len(reason) > 500 {
		return cupid.Invalid("reason", "at most 500 bytes, got %d", len(reason))
	}
	return nil
}

func reasonOr(reason, dflt string) string {
	if reason == "" {
		return dflt
	}
	return reason
}
