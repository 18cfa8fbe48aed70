package opponentsvc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sort"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/opponent"
)

// memDocs is an in-memory cupid.DocumentStore with the failure and timing
// seams the tests need.
type memDocs struct {
	mu   sync.Mutex
	docs map[string]map[string][]byte
	// failWrites makes PutDocument and DeleteDocument fail.
	failWrites bool
	// failLists makes Documents fail.
	failLists bool
	// duringList runs inside Documents after the rows were read and
	// before they are returned, as a write racing a scan fetch would.
	duringList func()
}

func newMemDocs() *memDocs { return &memDocs{docs: map[string]map[string][]byte{}} }

var errStore = errors.New("store is down")

func (m *memDocs) PutDocument(_ context.Context, kind, id string, body []byte, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failWrites {
		return errStore
	}
	if m.docs[kind] == nil {
		m.docs[kind] = map[string][]byte{}
	}
	m.docs[kind][id] = append([]byte(nil), body...)
	return nil
}

func (m *memDocs) DeleteDocument(_ context.Context, kind, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failWrites {
		return errStore
	}
	delete(m.docs[kind], id)
	return nil
}

func (m *memDocs) Documents(_ context.Context, kind, after string, limit int) ([]cupid.Document, error) {
	m.mu.Lock()
	if m.failLists {
		m.mu.Unlock()
		return nil, errStore
	}
	var ids []string
	for id := range m.docs[kind] {
		if id > after {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if limit > 0 && len(ids) > limit {
		ids = ids[:limit]
	}
	out := make([]cupid.Document, len(ids))
	for i, id := range ids {
		out[i] = cupid.Document{ID: id, Body: m.docs[kind][id]}
	}
	hook := m.duringList
	m.mu.Unlock()
	if hook != nil {
		hook()
	}
	return out, nil
}

func (m *memDocs) count(kind string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.docs[kind])
}

func (m *memDocs) has(kind, id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.docs[kind][id]
	return ok
}

// finders parses the opponents section of a configuration file, so the
// tests go through the same YAML a user writes.
func finders(t testing.TB, yaml string) []config.OpponentFinder {
	t.Helper()
	cfg, err := config.ParseConfig([]byte(yaml), ".")
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg.Opponents
}

// arenaYAML is one finder over MMR 0..3000 in 30 buckets, with a hard
// league label and a guild the quality expression reads: no attacking your
// own guild, rivals preferred, otherwise nearest MMR.
const arenaYAML = `
opponents:
  - name: arena
    player_cache_size: 1000
    min_mmr: 0
    max_mmr: 3000
    mmr_bucket_count: 30
    bucket_initial_size: 32
    player_ignore_update_insert_threshold: never
    player_remove_after_candidate_offer_threshold: never
    retry_bucket_widening: 5
    attributes:
      - {name: league, type: string}
      - {name: guild, type: string}
    query_attributes:
      - {name: league, type: string}
      - {name: guild, type: string}
      - {name: rivals, type: strings}
    strategies:
      - {name: league, kind: distinct, hard: true, attribute: league}
    quality:
      filter: player.guild != query.guild
      score: "300 - abs(query.mmr - player.mmr) + (player.guild in query.rivals ? 100 : 0)"
    scan: {enabled: true, tick: 1s, min_fetch: 2, max_fetch: 4}
    sizing: {min_samples: 5}
`

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// newService builds a service on docs whose background work the test
// drives by hand (step, scanOnce), on a clock that stands at t0 unless the
// test moves it.
func newService(t testing.TB, docs cupid.DocumentStore, cfg []config.OpponentFinder) (*Service, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: t0}
	s, err := New(Options{Docs: docs, Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clk.now})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s.manual = true
	if err := s.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s, clk
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func defender(id string, mmr float64, league, guild string) opponent.Model {
	return opponent.Single(id, mmr, map[string]cupid.Value{"league": cupid.String(league), "guild": cupid.String(guild)})
}

func attacker(id string, mmr float64, league, guild string, rivals ...string) opponent.Query {
	attrs := map[string]cupid.Value{"league": cupid.String(league), "guild": cupid.String(guild)}
	if len(rivals) > 0 {
		attrs["rivals"] = cupid.Strings(rivals...)
	}
	return opponent.Query{AttackerID: id, MMR: mmr, Attributes: attrs}
}

func mustUpdate(t testing.TB, s *Service, finder string, m opponent.Model) UpdateResult {
	t.Helper()
	r, err := s.UpdatePlayer(context.Background(), finder, m)
	if err != nil {
		t.Fatalf("UpdatePlayer(%s): %v", m.PlayerID, err)
	}
	return r
}

func mustFind(t testing.TB, s *Service, finder string, q opponent.Query) opponent.Result {
	t.Helper()
	r, err := s.FindOpponent(context.Background(), finder, q)
	if err != nil {
		t.Fatalf("FindOpponent: %v", err)
	}
	return r
}

func stats(t testing.TB, s *Service, finder string) FinderStats {
	t.Helper()
	st, err := s.Stats(finder, false)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// wantErr checks that err is a *cupid.Error with this code on this field.
func wantErr(t testing.TB, err error, code cupid.Code, field string) {
	t.Helper()
	var e *cupid.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a %s error on %q", err, code, field)
	}
	if e.Code != code || e.Field != field {
		t.Fatalf("err = %q (code %s, field %q), want code %s on %q", e.Error(), e.Code, e.Field, code, field)
	}
}

func configErr(yaml string) (*config.Config, error) { return config.ParseConfig([]byte(yaml), ".") }
