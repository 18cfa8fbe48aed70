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
	"github.com/cupid-match/cupid/internal/testclock"
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

func (m *memDocs) PutDocument(_ context.Context, _ cupid.Fence, kind, id string, body []byte, _ time.Time) error {
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

func (m *memDocs) DeleteDocument(_ context.Context, _ cupid.Fence, kind, id string) error {
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

// arenaFinder is one finder over MMR 0..3000 in 30 buckets, with a hard
// league label and a guild the quality expression reads: no attacking your
// own guild, rivals preferred, otherwise nearest MMR.
func arenaFinder() Finder {
	return Finder{Name: "arena", Opponent: opponent.Config{
		PlayerCacheSize:                          1000,
		MinMMR:                                   0,
		MaxMMR:                                   3000,
		MmrBucketCount:                           30,
		BucketInitialSize:                        32,
		PlayerIgnoreUpdateInsertThreshold:        opponent.ThresholdNever,
		PlayerRemoveAfterCandidateOfferThreshold: opponent.ThresholdNever,
		RetryBucketWidening:                      5,
		Attributes:                               []opponent.Attribute{{Name: "league", Type: "string"}, {Name: "guild", Type: "string"}},
		QueryAttributes: []opponent.Attribute{
			{Name: "league", Type: "string"}, {Name: "guild", Type: "string"}, {Name: "rivals", Type: "strings"},
		},
		Strategies: []opponent.Strategy{{Name: "league", Kind: opponent.KindDistinct, Hard: true, Attribute: "league"}},
		Quality: opponent.Quality{
			Filter: "player.guild != query.guild",
			Score:  "300 - abs(query.mmr - player.mmr) + (player.guild in query.rivals ? 100 : 0)",
		},
		Scan:   opponent.Scan{Enabled: true, Tick: opponent.Duration(time.Second), MinFetch: 2, MaxFetch: 4},
		Sizing: opponent.Sizing{MinSamples: 5},
	}}
}

// updatesOnlyFinder is the update-only mode of Metaplay's async
// matchmaker: nothing stored, nothing scanned, thresholds that never drop
// an update, fake opponents on.
func updatesOnlyFinder() Finder {
	return Finder{Name: "battles", MemoryOnly: true, Opponent: opponent.Config{
		PlayerCacheSize:                          64,
		MinMMR:                                   0,
		MaxMMR:                                   1000,
		MmrBucketCount:                           1,
		PlayerIgnoreUpdateInsertThreshold:        opponent.ThresholdNever,
		PlayerRemoveAfterCandidateOfferThreshold: opponent.ThresholdAlways,
		FakeOpponents:                            opponent.FakeOpponents{Enabled: true},
	}}
}

// instanceFinders are two instances of one finder sharing a player table.
func instanceFinders() []Finder {
	one := func(name string) Finder {
		return Finder{Name: name, PlayerTable: "arena", Opponent: opponent.Config{
			PlayerCacheSize:                          100,
			MinMMR:                                   0,
			MaxMMR:                                   1000,
			MmrBucketCount:                           1,
			PlayerIgnoreUpdateInsertThreshold:        opponent.ThresholdNever,
			PlayerRemoveAfterCandidateOfferThreshold: opponent.ThresholdNever,
		}}
	}
	return []Finder{one("arena-1"), one("arena-2")}
}

// multiFinder lets a player keep several entries.
func multiFinder() Finder {
	return Finder{Name: "teams", Opponent: opponent.Config{
		PlayerCacheSize:                          100,
		MinMMR:                                   0,
		MaxMMR:                                   1000,
		MmrBucketCount:                           10,
		AllowMultipleEntriesPerPlayer:            true,
		ReturnModel:                              true,
		PlayerIgnoreUpdateInsertThreshold:        opponent.ThresholdNever,
		PlayerRemoveAfterCandidateOfferThreshold: opponent.ThresholdNever,
	}}
}

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// newService builds a service on docs whose background work the test
// drives by hand (step, scanOnce), on a clock that stands at t0 unless the
// test moves it.
func newService(t testing.TB, docs cupid.DocumentStore, cfg ...Finder) (*Service, *testclock.Clock) {
	t.Helper()
	clk := testclock.At(t0)
	s, err := New(Options{Docs: docs, Finders: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clk.Now})
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
