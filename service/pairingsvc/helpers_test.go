package pairingsvc

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/pairing"
)

var t0 = time.Date(2025, 6, 1, 20, 0, 0, 0, time.UTC)

// testLogger shows the service's logs only with -v.
func testLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.Default()
	}
	return slog.New(slog.DiscardHandler)
}

// memDocs is an in-memory cupid.DocumentStore that can be told to fail.
type memDocs struct {
	mu   sync.Mutex
	docs map[string][]byte // by id; one kind is enough here
	fail bool
	puts int
}

func newMemDocs() *memDocs { return &memDocs{docs: map[string][]byte{}} }

var errStoreDown = errors.New("store down")

func (m *memDocs) PutDocument(ctx context.Context, _ cupid.Fence, kind, id string, body []byte, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errStoreDown
	}
	m.puts++
	m.docs[kind+"/"+id] = slices.Clone(body)
	return nil
}

func (m *memDocs) DeleteDocument(ctx context.Context, _ cupid.Fence, kind, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail {
		return errStoreDown
	}
	delete(m.docs, kind+"/"+id)
	return nil
}

func (m *memDocs) Documents(ctx context.Context, kind, after string, limit int) ([]cupid.Document, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []cupid.Document
	for _, k := range slices.Sorted(maps.Keys(m.docs)) {
		id, ok := cutPrefix(k, kind+"/")
		if ok && id > after && (limit <= 0 || len(out) < limit) {
			out = append(out, cupid.Document{ID: id, Body: slices.Clone(m.docs[k])})
		}
	}
	return out, nil
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return "", false
}

func (m *memDocs) putCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.puts
}

func (m *memDocs) setFail(fail bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fail = fail
}

// stored returns the stored document of an event, or false.
func (m *memDocs) stored(t testing.TB, id string) (document, bool) {
	t.Helper()
	m.mu.Lock()
	body, ok := m.docs[DocumentKind+"/"+id]
	m.mu.Unlock()
	if !ok {
		return document{}, false
	}
	var d document
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	return d, true
}

// harness is a started service over a memDocs on a test clock.
type harness struct {
	s    *Service
	docs *memDocs
	clk  *testclock.Clock
	reg  *prometheus.Registry
}

func start(t testing.TB, docs *memDocs, clk *testclock.Clock, limits Limits) *harness {
	t.Helper()
	reg := prometheus.NewRegistry()
	s, err := New(Options{Docs: docs, Limits: limits, Registry: reg, Now: clk.Now, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &harness{s: s, docs: docs, clk: clk, reg: reg}
}

func newHarness(t testing.TB) *harness {
	return start(t, newMemDocs(), testclock.At(t0), Limits{})
}

// event creates an event with the given settings.
func (h *harness) event(t testing.TB, id string, cfg pairing.Config) *EventView {
	t.Helper()
	v, err := h.s.CreateEvent(context.Background(), NewEvent{ID: id, Name: "test " + id, Config: cfg, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// arrive joins people and puts them in the lobby.
func (h *harness) arrive(t testing.TB, id string, keys ...string) {
	t.Helper()
	ctx := context.Background()
	for _, k := range keys {
		if _, _, err := h.s.Join(ctx, id, k); err != nil {
			t.Fatalf("join %s: %v", k, err)
		}
		if _, _, err := h.s.EnterLobby(ctx, id, k); err != nil {
			t.Fatalf("enter %s: %v", k, err)
		}
	}
}

// get reads an event, which also makes it process passed deadlines.
func (h *harness) get(t testing.TB, id string) *EventView {
	t.Helper()
	v, err := h.s.GetEvent(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// watch is a running Watch whose notifications collect in a channel.
type watch struct {
	ch     chan Notification
	errc   chan error
	cancel context.CancelFunc
}

// startWatch watches an event and waits for its first message, after which
// nothing is missed.
func startWatch(t testing.TB, s *Service, id, participant string) *watch {
	t.Helper()
	w := startWatchRaw(t, s, id, participant)
	if n := w.next(t); n.Kind != KindWatching {
		t.Fatalf("first message %+v, want watching", n)
	}
	return w
}

// startWatchRaw starts a watch without waiting for anything.
func startWatchRaw(t testing.TB, s *Service, id, participant string) *watch {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w := &watch{ch: make(chan Notification, 100_000), errc: make(chan error, 1), cancel: cancel}
	go func() {
		w.errc <- s.Watch(ctx, id, participant, func(n Notification) error {
			w.ch <- n
			return nil
		})
	}()
	t.Cleanup(cancel)
	return w
}

// next returns the next notification. The timeout only keeps a broken
// test from hanging; nothing waits on it for timing.
func (w *watch) next(t testing.TB) Notification {
	t.Helper()
	select {
	case n := <-w.ch:
		return n
	case err := <-w.errc:
		// A watch's last messages are sent before it ends.
		select {
		case n := <-w.ch:
			w.errc <- err
			return n
		default:
		}
		t.Fatalf("watch ended: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("no notification within 20s")
	}
	return Notification{}
}

// firstMessage starts a watch and returns its first message.
func firstMessage(t testing.TB, s *Service, id, participant string) Notification {
	t.Helper()
	w := startWatchRaw(t, s, id, participant)
	defer w.cancel()
	return w.next(t)
}

// until returns the next notification of a kind, skipping others.
func (w *watch) until(t testing.TB, kind pairing.Kind) Notification {
	t.Helper()
	for {
		if n := w.next(t); n.Kind == kind {
			return n
		}
	}
}

// drain returns the notifications received so far without waiting.
func (w *watch) drain() []Notification {
	var out []Notification
	for {
		select {
		case n := <-w.ch:
			out = append(out, n)
		default:
			return out
		}
	}
}

func kindsOf(ns []Notification) []string {
	var out []string
	for _, n := range ns {
		who := n.Participant
		if who == "" {
			who = "*"
		}
		out = append(out, who+":"+string(n.Kind))
	}
	return out
}

// wantCode checks that err is a *cupid.Error with the code and field.
func wantCode(t testing.TB, err error, code cupid.Code, field string) {
	t.Helper()
	var e *cupid.Error
	if !errors.As(err, &e) || e.Code != code || e.Field != field {
		t.Fatalf("error %v, want %s on field %q", err, code, field)
	}
}

var cfg4 = pairing.Config{Rooms: 2, Round: time.Minute, Countdown: 10 * time.Second, MinLobby: 2}

// metric returns the value of a gauge or counter, or a histogram's count,
// as the registry would serve it.
func metric(t testing.TB, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		var sum float64
		for _, m := range mf.GetMetric() {
			sum += m.GetGauge().GetValue() + m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
		return sum
	}
	t.Fatalf("no metric %s", name)
	return 0
}
