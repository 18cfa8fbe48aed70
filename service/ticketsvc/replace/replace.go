// Package replace replaces a queue's ruleset at run time: it checks the
// replacement (the expected version, the ruleset's problems), stores it
// with package rulesets so it survives a restart and reaches every node,
// installs it, and notes each version in the queue's history for the
// dashboard. At start it installs the replacements stored before, unless
// the configuration's ruleset changed since (rulesets.Precedence).
//
// It never touches a pool: package ticketsvc compiles a ruleset into what
// its pools run and switches them, through the small Queues interface
// below. One replacement runs at a time on a node.
package replace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/ticketsvc/rulesets"
)

// Queues is what a replacement asks of the queues' owner (package
// ticketsvc).
type Queues interface {
	// Current is a queue's ruleset now, its document and version; ok is
	// false for a queue that is not configured.
	Current(queue string) (src []byte, version int, ok bool)
	// Check compiles a ruleset as a queue's engine would run it: the
	// compiled rules, or every problem (with positions where the ruleset
	// has them).
	Check(queue string, src []byte) (*ruleset.Compiled, ruleset.Problems)
	// Install makes rules (compiled from src by Check) the queue's ruleset
	// at version: tickets are checked against it from then on and the
	// queue's pools switch to it.
	Install(queue string, src []byte, rules *ruleset.Compiled, version int)
}

// Options configure a Service.
type Options struct {
	Queues Queues
	// Names are the configured queues.
	Names []string
	// Store keeps the replacements and the histories; without it a
	// replacement lasts until the node stops and no history is kept.
	Store  *rulesets.Store
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Service replaces rulesets at run time.
type Service struct {
	queues Queues
	names  []string
	store  *rulesets.Store
	log    *slog.Logger
	now    func() time.Time

	// mu serialises replacements, which write to the store; it is never
	// held while the queues' owner is asked for anything but Current.
	mu sync.Mutex
	// configured is the hash of each queue's ruleset in the configuration
	// (Load): a replacement made over it wins until it changes.
	configured map[string]string
}

// New builds the replacement service; Load installs what was stored.
func New(o Options) (*Service, error) {
	if o.Queues == nil {
		return nil, errors.New("replace: the queues are required")
	}
	s := &Service{queues: o.Queues, names: slices.Clone(o.Names), store: o.Store, log: o.Logger, now: o.Now, configured: map[string]string{}}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Validate reports every problem of a ruleset document. An empty result
// means the ruleset would load.
func (s *Service) Validate(data []byte) ruleset.Problems {
	_, probs := s.queues.Check("check", data)
	return probs
}

// Ruleset returns a queue's current ruleset document and version.
func (s *Service) Ruleset(name string) ([]byte, int, error) {
	src, version, ok := s.queues.Current(name)
	if !ok {
		return nil, 0, cupid.NotFound("queue", "no queue %q", name)
	}
	return src, version, nil
}

// Put replaces a queue's ruleset and returns its new version. With
// expected > 0 it succeeds only if the current version is expected; 0
// replaces whatever is there. The ruleset is parsed once. Waiting tickets
// stay and are tried again under the new rules; a ticket the new rules can
// never match is cancelled with the reason, and its watchers are told. via
// names who put it in the queue's history: "api", "editor" (the
// dashboard's), "canary" (a promoted canary).
func (s *Service) Put(ctx context.Context, name string, data []byte, expected int, via string) (int, error) {
	if expected < 0 {
		return 0, cupid.Invalid("expected_version", "must be 0 (replace whatever is there) or a version, got %d", expected)
	}
	if _, _, ok := s.queues.Current(name); !ok {
		return 0, cupid.NotFound("queue", "no queue %q", name)
	}
	rules, probs := s.queues.Check(name, data)
	if len(probs) > 0 {
		return 0, cupid.Invalid("ruleset", "%s", probs.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	curSrc, curVersion, _ := s.queues.Current(name)
	if expected > 0 && curVersion != expected {
		return 0, cupid.Conflict("expected_version", "the ruleset is at version %d, not %d", curVersion, expected)
	}
	version := curVersion + 1
	if s.store != nil {
		if err := s.store.Put(ctx, name, version, data, s.configuredHash(name, curSrc), s.now().UTC()); err != nil {
			return 0, storeerr.Domain(s.log, err)
		}
	}
	s.queues.Install(name, data, rules, version)
	s.log.Info("ruleset replaced", "queue", name, "version", version)
	now := s.now().UTC()
	if s.store != nil {
		// The history is the dashboard's: failing to note a version is
		// logged and does not undo the replacement.
		err := s.store.NoteReplacement(ctx, name,
			rulesets.Version{Version: curVersion, At: now, Ruleset: string(curSrc), Via: "seen"},
			rulesets.Version{Version: version, At: now, Ruleset: string(data), Via: via})
		if err != nil {
			s.log.Warn("the ruleset's version history was not updated", "queue", name, "version", version, "err", err)
		}
	}
	return version, nil
}

// Changed reads the queue's stored ruleset and installs it if it is newer
// than the one this node runs: a ruleset replaced through another node
// sharing the store.
func (s *Service) Changed(ctx context.Context, name string) error {
	if s.store == nil {
		return nil
	}
	if _, _, ok := s.queues.Current(name); !ok {
		return nil
	}
	stored, err := s.store.All(ctx)
	if err != nil {
		return fmt.Errorf("ticketsvc: read the rulesets: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range stored {
		if d.Queue != name {
			continue
		}
		if d.Err != nil {
			return fmt.Errorf("ticketsvc: stored ruleset of %s: %w", name, d.Err)
		}
		if _, version, _ := s.queues.Current(name); d.Version <= version {
			return nil
		}
		rules, probs := s.queues.Check(name, d.Source())
		if len(probs) > 0 {
			return fmt.Errorf("ticketsvc: stored ruleset of %s: %w", name, probs)
		}
		s.queues.Install(name, d.Source(), rules, d.Version)
		s.log.Info("ruleset replaced through another node", "queue", name, "version", d.Version)
	}
	return nil
}

// configuredHash is the hash of the configuration's ruleset of a queue;
// cur, the queue's ruleset now, stands for it before Load recorded them.
func (s *Service) configuredHash(name string, cur []byte) string {
	if h, ok := s.configured[name]; ok {
		return h
	}
	return rulesets.Hash(cur)
}

// Load notes the configuration's rulesets, then installs the run-time
// replacements stored before a restart, unless the configuration's ruleset
// of their queue changed since (rulesets.Precedence); the log says which
// ruleset each queue runs. A stored replacement that no longer reads or
// compiles is set aside with a warning: the configuration's ruleset runs,
// and nothing is lost. It runs before the pools start.
func (s *Service) Load(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, name := range s.names {
		if src, _, ok := s.queues.Current(name); ok {
			s.configured[name] = rulesets.Hash(src)
		}
	}
	if s.store == nil {
		return nil
	}
	stored, err := s.store.All(ctx)
	if err != nil {
		return fmt.Errorf("matchmaker: load rulesets: %w", err)
	}
	for _, d := range stored {
		cur, _, ok := s.queues.Current(d.Queue)
		if !ok {
			continue
		}
		if d.Err != nil {
			s.log.Warn("stored ruleset does not read; using the configured one", "queue", d.Queue, "err", d.Err)
			continue
		}
		wins, why, _ := rulesets.Precedence(cur, d.Body)
		if !wins {
			s.log.Warn(why, "queue", d.Queue)
			continue
		}
		rules, probs := s.queues.Check(d.Queue, d.Source())
		if len(probs) > 0 {
			s.log.Warn("stored ruleset no longer loads; using the configured one", "queue", d.Queue, "err", probs)
			continue
		}
		s.queues.Install(d.Queue, d.Source(), rules, d.Version)
		s.log.Info(why, "queue", d.Queue, "version", d.Version)
	}
	return nil
}

// History returns a queue's noted versions, oldest first, with the current
// one noted first if it was not.
func (s *Service) History(ctx context.Context, name string) ([]rulesets.Version, error) {
	src, version, err := s.Ruleset(name)
	if err != nil {
		return nil, err
	}
	cur := rulesets.Version{Version: version, At: s.now().UTC(), Ruleset: string(src), Via: "seen"}
	if s.store == nil {
		return []rulesets.Version{cur}, nil
	}
	hist, err := s.store.NoteCurrent(ctx, name, cur)
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	return hist, nil
}

// NoteDecision notes a roll-out's decision (a shadow stopped, a canary
// promoted or rolled back) in the queue's ruleset history, beside the live
// version. The history is the dashboard's: a failure is logged and undoes
// nothing.
func (s *Service) NoteDecision(ctx context.Context, queue, via string, candidate []byte, reason string) {
	if s.store == nil {
		return
	}
	_, version, err := s.Ruleset(queue)
	if err != nil {
		return
	}
	if _, err := s.History(ctx, queue); err != nil { // the live version is noted first
		s.log.Warn("the ruleset history was not read", "queue", queue, "err", err)
	}
	v := rulesets.Version{Version: version, At: s.now().UTC(), Ruleset: string(candidate), Via: via, Reason: reason}
	if err := s.store.NoteDecision(context.WithoutCancel(ctx), queue, v); err != nil {
		s.log.Warn("a roll-out decision was not noted in the ruleset history", "queue", queue, "via", via, "err", err)
	}
}
