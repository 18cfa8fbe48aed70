// Package encountersvc keeps one history of who met whom for every mode
// of Cupid: it records the real-time queues' matches (following their
// match logs), the opponent finders' confirmed attacks and the
// speed-dating rounds; it keeps the players' block and avoid lists; and it
// answers the modes' questions from them (the real-time tickets' filled
// lists at intake, the opponent finder's exclusions and revenge targets,
// a speed-dating series' earlier meetings). The rules are package
// encounter's; this package reads and writes the store.
package encountersvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
)

// The attributes the service fills on a ticket's players in a queue it
// serves (Queue). A ruleset reads them like any list of strings:
//
//	collection_rule: {attribute: blocked, operation: player_ids, max_count: 0}
//
// keeps blocked players apart (both ways: the rule looks at every list in
// the match), and a filter over "met" with disable_after keeps recent
// opponents apart for a while.
const (
	BlockedAttribute = encounter.BlockedAttribute
	AvoidedAttribute = encounter.AvoidedAttribute
	MetAttribute     = encounter.MetAttribute
)

// Queue is a real-time queue whose tickets the service fills at intake.
type Queue struct {
	Name string
	// MetWithin is how far back the "met" attribute looks: the opponents
	// each player met in this queue within it. Zero fills no "met".
	MetWithin time.Duration
}

// Options configure the service.
type Options struct {
	Store cupid.EncounterStore
	// Docs keeps the followers' cursors (how far each queue's match log
	// was recorded); without it a follower starts from the beginning of
	// the log at every start (rows are unique by meeting, so nothing is
	// stored twice).
	Docs cupid.DocumentStore
	// Window bounds what a player's history holds; encounter.DefaultWindow
	// when zero.
	Window encounter.Window
	// Queues are the queues whose tickets are filled at intake.
	Queues []Queue
	// Follow are the queues whose matches are recorded. Watch reads a
	// queue's match log (the ticket service's WatchMatches).
	Follow []string
	Watch  WatchFunc
	// Logger receives the service's logs; slog.Default when nil.
	Logger *slog.Logger
	// Registry receives the metrics; none are registered when nil.
	Registry prometheus.Registerer
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Matches forms an accepted rematch's match (the ticket service);
	// without it rematches are refused (see rematch.go).
	Matches Former
	// RematchWindow is how long after a match a rematch may be asked,
	// and how long it waits for the answer; encounter.DefaultRematchWindow
	// when zero.
	RematchWindow time.Duration
	// Reports are the reasons a player may report another for, each with
	// its threshold, and the window they count within; without reasons
	// reports are refused (see report.go). MarkLowPriority marks a player
	// whose reports reached a threshold (the rating service).
	Reports         encounter.ReportRules
	MarkLowPriority MarkLowPriorityFunc
}

// WatchFunc sends a queue's match events after afterSeq, stored ones and
// then new ones, until ctx ends or send fails.
type WatchFunc func(ctx context.Context, queue string, afterSeq int64, send func(cupid.MatchEvent) error) error

// Service is the encounter history.
type Service struct {
	store   cupid.EncounterStore
	docs    cupid.DocumentStore
	window  encounter.Window
	queues  map[string]Queue
	follow  []string
	watch   WatchFunc
	log     *slog.Logger
	now     func() time.Time
	metrics *metrics

	former        Former
	rematchWindow time.Duration
	// rematchMu orders the read-change-write of rematch documents on
	// this node.
	rematchMu sync.Mutex

	reports         encounter.ReportRules
	markLowPriority MarkLowPriorityFunc
	// reportMu orders the read-count-write of reports on this node.
	reportMu sync.Mutex
	// unmarked holds the players and reasons (player+"\x00"+reason)
	// whose low-priority mark failed, so that the next report of the
	// reason tries it again; guarded by reportMu. It is this node's
	// memory only: after a restart a failed mark is not tried again.
	unmarked map[string]bool

	mu       sync.Mutex
	stop     context.CancelFunc // of the running followers, or nil
	wg       sync.WaitGroup
	position map[string]int64 // the last match event recorded, by queue
	moved    chan struct{}    // closed when a position moves
}

// New builds the service; the followers start with RunFollowers.
func New(o Options) (*Service, error) {
	if o.Store == nil {
		return nil, fmt.Errorf("encountersvc: no store")
	}
	w := o.Window
	if w == (encounter.Window{}) {
		w = encounter.DefaultWindow
	}
	if err := w.Check(); err != nil {
		return nil, fmt.Errorf("encountersvc: window: %w", err)
	}
	if len(o.Follow) > 0 && o.Watch == nil {
		return nil, fmt.Errorf("encountersvc: queues to follow but no way to watch them")
	}
	s := &Service{
		store: o.Store, docs: o.Docs, window: w, queues: map[string]Queue{}, follow: slices.Clone(o.Follow),
		watch: o.Watch, log: o.Logger, now: o.Now, metrics: newMetrics(o.Registry), position: map[string]int64{},
	}
	s.former, s.rematchWindow = o.Matches, o.RematchWindow
	if s.rematchWindow == 0 {
		s.rematchWindow = encounter.DefaultRematchWindow
	}
	if s.rematchWindow < 0 || s.rematchWindow > encounter.MaxRematchWindow {
		return nil, fmt.Errorf("encountersvc: rematch window must be between 0 and %s, got %s", encounter.MaxRematchWindow, s.rematchWindow)
	}
	if len(o.Reports.Thresholds) > 0 {
		if err := o.Reports.Check(); err != nil {
			return nil, fmt.Errorf("encountersvc: reports: %w", err)
		}
	}
	s.reports, s.markLowPriority, s.unmarked = o.Reports, o.MarkLowPriority, map[string]bool{}
	for _, q := range o.Queues {
		s.queues[q.Name] = q
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Window is the bounds of a player's history.
func (s *Service) Window() encounter.Window { return s.window }

// storeError hides a store failure behind "unavailable" (logged), and
// passes the contract's own errors.
func (s *Service) storeError(what string, err error) error {
	if err == nil {
		return nil
	}
	var ce *cupid.Error
	if errors.As(err, &ce) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	s.log.Error("encounters: store failed", "what", what, "err", err)
	return cupid.Errorf(cupid.CodeUnavailable, "", "the encounter history could not be %s; try again", what)
}

// Record stores the encounters of a meeting.
func (s *Service) Record(ctx context.Context, m encounter.Meeting) error {
	es, err := m.Encounters()
	if err != nil {
		return err
	}
	if len(es) == 0 {
		return nil
	}
	if err := s.store.AddEncounters(ctx, es); err != nil {
		return s.storeError("written", err)
	}
	s.metrics.recorded.WithLabelValues(m.Mode).Add(float64(len(es)))
	return nil
}

// History returns a player's encounters within the window, newest first,
// at most limit (the window's Recent when limit ≤ 0 or above it).
func (s *Service) History(ctx context.Context, player string, limit int) ([]cupid.Encounter, error) {
	if err := encounter.CheckID("player_id", player); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > s.window.Recent {
		limit = s.window.Recent
	}
	now := s.now()
	h, err := s.store.Encounters(ctx, player, s.window.Since(now), limit)
	if err != nil {
		return nil, s.storeError("read", err)
	}
	return s.window.Bound(h, now), nil
}

// Met reports whether a player met another under a query.
func (s *Service) Met(ctx context.Context, player, other string, q encounter.Query) (bool, error) {
	h, err := s.History(ctx, player, 0)
	if err != nil {
		return false, err
	}
	return encounter.Met(h, other, q, s.now()), nil
}

// Revenge lists the players who attacked player within the window (most
// recent first, at most limit): the targets he may ask for directly.
func (s *Service) Revenge(ctx context.Context, player string, within time.Duration, limit int) ([]string, error) {
	h, err := s.History(ctx, player, 0)
	if err != nil {
		return nil, err
	}
	return encounter.Revenge(h, within, s.now(), limit), nil
}
