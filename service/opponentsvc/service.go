// Package opponentsvc runs async opponent finders (after Metaplay's async
// matchmaker) as part of the server. Each configured finder is one opponent.Finder behind its own
// mutex: queries never touch the store, so a query costs the finder's few
// microseconds plus an uncontended lock. Player updates are validated, then
// written to the finder's player table in the store (when it keeps one),
// then applied to the cache. A goroutine per finder runs the periodic scan
// of that table on the finder's own plan, and rebalances the buckets when
// due, storing the sizing model so that a restart sizes buckets as before.
//
// Finders that name the same player table are instances of one finder:
// each has its own cache, lock and random choices, an update sent to any of
// them reaches all of them (the table is written once), and each scans the
// table on its own. A game spreads queries over the instances (see
// docs/opponents.md); because their locks are separate, queries to
// different instances run in parallel.
package opponentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// Store kinds. A finder's player table holds one document per player (id =
// player id, body = the opponent.Model as JSON); sizing models are one
// document per finder (id = finder name, body = the opponent.SizingModel).
const (
	PlayerKindPrefix = "opponent-player/"
	SizingKind       = "opponent-sizing"
)

// Options configure the service.
type Options struct {
	// Docs keeps the player tables and sizing models; without it nothing
	// is stored and no finder may scan.
	Docs cupid.DocumentStore
	// Finders are the finders to run, each under its own name. None is
	// allowed: the service then answers every call with "no such finder".
	Finders []Finder
	// Logger receives the service's logs; slog.Default when nil.
	Logger *slog.Logger
	// Registry receives the metrics; none are registered when nil.
	Registry prometheus.Registerer
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// History, when set, is read and written by the finders named in
	// HistoryFinders (encounters.go).
	History        History
	HistoryFinders map[string]HistoryRules
}

// Service is the running set of finders.
type Service struct {
	docs    cupid.DocumentStore
	log     *slog.Logger
	now     func() time.Time
	finders map[string]*finder // fixed after New, so read without a lock
	// history and historyRules are Options.History and HistoryFinders.
	history      History
	historyRules map[string]HistoryRules
	names        []string // sorted
	tables       map[string]*table

	// manual keeps Start from starting the background goroutines, so
	// tests can drive scans and rebalances one step at a time.
	manual bool

	mu     sync.Mutex // guards cancel, started and closed
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// started is set once Start has loaded what was stored, and closed
	// once Close has stored the snapshots, so a service that never started
	// never overwrites a stored snapshot with its empty caches, and a
	// second Close writes nothing.
	started, closed bool
}

// table is a player table and the finders (instances) that share it.
type table struct {
	name    string
	kind    string
	stores  bool
	finders []*finder
	// stripes serialise updates of one player, so the store and every
	// cache see a player's updates in the same order; updates of other
	// players proceed.
	stripes [64]sync.Mutex
	seed    maphash.Seed
}

func (t *table) stripe(id string) *sync.Mutex {
	return &t.stripes[maphash.String(t.seed, id)%uint64(len(t.stripes))]
}

// finder is one configured finder and its lock.
type finder struct {
	name   string
	cfg    Finder
	table  *table
	scans  bool
	labels map[string]bool // attributes that are strategy labels

	mu sync.Mutex
	f  *opponent.Finder
	// touched collects the players updated while a scan fetch is in
	// flight, so the fetched (older) rows of those players do not undo
	// the updates; nil when no fetch is in flight.
	touched map[string]struct{}

	// rebalanceMu keeps one rebalance (and its store write) at a time,
	// so an older model never overwrites a newer one.
	rebalanceMu sync.Mutex

	querySeconds   prometheus.Observer
	invalidUpdates atomic.Uint64
	// invalidQueries are queries the service refused before they reached
	// the finder (fake-opponent ids); the finder counts the rest.
	invalidQueries atomic.Uint64
	scannedRows    atomic.Uint64
	scanRejected   atomic.Uint64
	scanErrors     atomic.Uint64
}

// New builds every finder of o.Finders. The finders are checked first
// (the configuration file is checked at load too), so a Service built by
// other code refuses bad values with an invalid-argument error naming the
// field, as "finders[1].player_cache_size", and never starts
// half-configured.
func New(o Options) (*Service, error) {
	s := &Service{
		docs:    o.Docs,
		log:     o.Logger,
		now:     o.Now,
		finders: map[string]*finder{},
		tables:  map[string]*table{},

		history: o.History, historyRules: o.HistoryFinders,
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if err := checkFinders(o.Finders, o.Docs != nil); err != nil {
		return nil, err
	}
	m := newMetrics(s)
	for i := range o.Finders {
		c := o.Finders[i]
		fd, err := s.newFinder(c, m)
		if err != nil {
			return nil, prefixField(fmt.Sprintf("finders[%d]", i), err)
		}
		s.finders[c.Name] = fd
		s.names = append(s.names, c.Name)
	}
	sort.Strings(s.names)
	if o.Registry != nil && len(s.finders) > 0 {
		if err := o.Registry.Register(m); err != nil {
			return nil, err
		}
		if err := o.Registry.Register(m.querySeconds); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Service) newFinder(c Finder, m *metrics) (*finder, error) {
	seed := c.Seed
	if seed == 0 {
		seed = nameSeed(c.Name)
	}
	f, err := opponent.New(c.Opponent, seed)
	if err != nil {
		return nil, err
	}
	stores := !c.MemoryOnly && s.docs != nil
	t := s.tables[c.table()]
	if t == nil {
		t = &table{name: c.table(), kind: PlayerKindPrefix + c.table(), stores: stores, seed: maphash.MakeSeed()}
		s.tables[c.table()] = t
	}
	fd := &finder{
		name:         c.Name,
		cfg:          c,
		table:        t,
		scans:        c.Opponent.Scan.Enabled,
		labels:       map[string]bool{},
		f:            f,
		querySeconds: m.querySeconds.WithLabelValues(c.Name),
	}
	for _, st := range c.Opponent.Strategies {
		fd.labels[st.Attribute] = true
		if st.QueryAttribute != "" {
			fd.labels[st.QueryAttribute] = true
		}
	}
	t.finders = append(t.finders, fd)
	return fd, nil
}

// nameSeed derives a finder's seed from its name (FNV-1a), so its random
// choices are the same from one run to the next.
func nameSeed(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}

// Start loads each finder's stored sizing model and starts the goroutines
// that scan and rebalance. A stored model that no longer fits the finder
// (its MMR layout changed in the configuration) is logged and skipped: the
// finder sizes its buckets afresh and makes a new one.
func (s *Service) Start(ctx context.Context) error {
	if len(s.finders) == 0 {
		return nil
	}
	if s.docs != nil {
		docs, err := s.docs.Documents(ctx, SizingKind, "", 0)
		if err != nil {
			return fmt.Errorf("opponents: load sizing models: %w", err)
		}
		for _, d := range docs {
			fd := s.finders[d.ID]
			if fd == nil {
				continue // a finder no longer configured
			}
			if err := fd.loadSizing(d.Body); err != nil {
				s.log.Warn("opponent finder: stored sizing model not used", "finder", fd.name, "err", err)
				continue
			}
			s.log.Info("opponent finder: sizing model loaded", "finder", fd.name)
		}
		for _, name := range s.names {
			fd := s.finders[name]
			if !s.snapshots(fd) {
				continue
			}
			n, err := s.loadSnapshot(ctx, fd)
			if err != nil {
				return err
			}
			if n > 0 {
				s.log.Info("opponent finder: cache restored from its snapshot", "finder", fd.name, "entries", n)
			}
		}
		if err := s.loadStates(ctx); err != nil {
			return fmt.Errorf("opponents: load player states: %w", err)
		}
	}
	s.mu.Lock()
	s.started = true
	s.mu.Unlock()
	if s.manual {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return errors.New("opponents: already started")
	}
	ctx, s.cancel = context.WithCancel(ctx)
	for _, name := range s.names {
		fd := s.finders[name]
		s.wg.Add(1)
		go s.run(ctx, fd)
	}
	return nil
}

func (fd *finder) loadSizing(body []byte) error {
	var m opponent.SizingModel
	if err := json.Unmarshal(body, &m); err != nil {
		return err
	}
	fd.mu.Lock()
	defer fd.mu.Unlock()
	return fd.f.LoadSizingModel(m)
}

// Close stops the goroutines, waits for them and stores a snapshot of each
// storing finder's cache (see SnapshotKindPrefix); the player tables and
// sizing models stay in the store. Calls after Close still answer (the
// caches stay in memory), so requests in flight during shutdown finish;
// what they change is in the player table, and the scan brings it in after
// the restart.
func (s *Service) Close() {
	s.mu.Lock()
	cancel := s.cancel
	save := s.started && !s.closed
	s.closed = true
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.wg.Wait()
	if save {
		s.saveSnapshots()
	}
}

// Finders returns the names of the configured finders, sorted.
func (s *Service) Finders() []string { return slices.Clone(s.names) }

// get finds a finder by name.
func (s *Service) get(name string) (*finder, error) {
	if fd := s.finders[name]; fd != nil {
		return fd, nil
	}
	if name == "" {
		return nil, cupid.Invalid("finder", "is required")
	}
	return nil, cupid.NotFound("finder", "no finder %q (configured: %s)", name, strings.Join(s.names, ", "))
}

// IsLabel reports whether a finder reads the attribute as a bucketing
// strategy's label, so the API can show labels apart from other attributes.
func (s *Service) IsLabel(finderName, attr string) bool {
	fd := s.finders[finderName]
	return fd != nil && fd.labels[attr]
}
