package cluster

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// memStore is the database's part for the node's unit tests: leases with
// tokens and lapse by the store's clock, which the test moves. (The
// PostgreSQL implementation is held to the same behaviour by the postgres
// package's lease tests and by the several-node end-to-end test.)
type memStore struct {
	mu      sync.Mutex
	now     time.Time
	seen    map[string]time.Time
	leases  map[string]*lease
	failing bool
}

type lease struct {
	owner   string
	token   int64
	expires time.Time
}

func newMemStore() *memStore {
	return &memStore{now: time.Unix(1000, 0), seen: map[string]time.Time{}, leases: map[string]*lease{}}
}

func (m *memStore) advance(d time.Duration) {
	m.mu.Lock()
	m.now = m.now.Add(d)
	m.mu.Unlock()
}

func (m *memStore) Heartbeat(_ context.Context, node, _ string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failing {
		return fmt.Errorf("database down")
	}
	m.seen[node] = m.now
	return nil
}

func (m *memStore) LeaveCluster(_ context.Context, node string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.seen, node)
	return nil
}

func (m *memStore) Members(_ context.Context, within time.Duration) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failing {
		return nil, fmt.Errorf("database down")
	}
	var out []string
	for n, at := range m.seen {
		if m.now.Sub(at) < within {
			out = append(out, n)
		}
	}
	return out, nil
}

func (m *memStore) AcquireLease(_ context.Context, name, node string, ttl time.Duration) (int64, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failing {
		return 0, false, fmt.Errorf("database down")
	}
	l := m.leases[name]
	switch {
	case l == nil:
		l = &lease{owner: node, token: 1}
		m.leases[name] = l
	case l.owner == node && l.expires.After(m.now):
	case !l.expires.After(m.now):
		l.owner, l.token = node, l.token+1
	default:
		return 0, false, nil
	}
	l.expires = m.now.Add(ttl)
	return l.token, true, nil
}

func (m *memStore) ReleaseLease(_ context.Context, name, node string, token int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.leases[name]; l != nil && l.owner == node && l.token == token {
		l.expires = m.now.Add(-time.Millisecond)
	}
	return nil
}

// acting records, for every name, the node acting for it, and fails the
// test when two nodes act for one name at once.
type acting struct {
	t     *testing.T
	mu    sync.Mutex
	by    map[string]string
	gains int
}

type handler struct {
	a    *acting
	node string
}

func (h handler) Gain(name string, f cupid.Fence) {
	h.a.mu.Lock()
	defer h.a.mu.Unlock()
	if other, ok := h.a.by[name]; ok {
		h.a.t.Errorf("%s gained %s while %s acts for it", h.node, name, other)
	}
	if f.Holder != h.node || f.Lease != name || f.Token <= 0 {
		h.a.t.Errorf("fence %+v for %s on %s", f, name, h.node)
	}
	h.a.by[name] = h.node
	h.a.gains++
}

func (h handler) Lose(name string) {
	h.a.mu.Lock()
	defer h.a.mu.Unlock()
	if h.a.by[name] != h.node {
		h.a.t.Errorf("%s lost %s, which %q acts for", h.node, name, h.a.by[name])
	}
	delete(h.a.by, name)
}

func (a *acting) count(node string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, by := range a.by {
		if by == node {
			n++
		}
	}
	return n
}

// die forgets what a node acted for: its process is gone.
func (a *acting) die(node string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for name, by := range a.by {
		if by == node {
			delete(a.by, name)
		}
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("queue/q%02d", i)
	}
	return out
}

func TestOwnerMovesOnlyWhatItMust(t *testing.T) {
	ns := names(60)
	three := []string{"a", "b", "c"}
	per := map[string]int{}
	for _, n := range ns {
		per[Owner(n, three)]++
	}
	for _, m := range three {
		if per[m] < 10 {
			t.Errorf("node %s owns %d of 60 names: %v", m, per[m], per)
		}
	}
	for _, n := range ns {
		before := Owner(n, three)
		after := Owner(n, []string{"c", "a"}) // b left; order does not matter
		if before != "b" && after != before {
			t.Errorf("%s moved from %s to %s when b left", n, before, after)
		}
		if after == "b" {
			t.Errorf("%s still on b", n)
		}
	}
}

// TestJoinHandsPoolsOverWithoutOverlap: a first node takes every pool; a
// second joins and gets its share only after the first stopped acting for
// them and gave their leases up; when the second dies, its pools come back
// after its lease and heartbeat lapse.
func TestJoinHandsPoolsOverWithoutOverlap(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	act := &acting{t: t, by: map[string]string{}}
	ns := names(20)
	ttl := 4 * time.Second
	a := New(Options{ID: "a", Names: ns, TTL: ttl, Logger: quiet}, st, handler{act, "a"})
	b := New(Options{ID: "b", Names: ns, TTL: ttl, Logger: quiet}, st, handler{act, "b"})

	a.Round(ctx)
	if got := act.count("a"); got != 20 {
		t.Fatalf("a alone acts for %d of 20", got)
	}
	b.Round(ctx) // b announces itself; a still holds everything
	if got := act.count("b"); got != 0 {
		t.Fatalf("b took %d pools a holds", got)
	}
	a.Round(ctx) // a sees b and hands b's share over
	b.Round(ctx)
	share := 0
	for _, n := range ns {
		if Owner(n, []string{"a", "b"}) == "b" {
			share++
		}
	}
	if act.count("b") != share || act.count("a") != 20-share || share == 0 {
		t.Fatalf("after the handover a acts for %d, b for %d, want %d and %d", act.count("a"), act.count("b"), 20-share, share)
	}
	// b dies: no more rounds. a takes b's pools once b's heartbeat and
	// leases have lapsed, not before.
	st.advance(ttl / 2)
	a.Round(ctx)
	if act.count("a") != 20-share {
		t.Fatalf("a took b's pools while b's leases were live: %d", act.count("a"))
	}
	st.advance(ttl)
	act.die("b")
	a.Round(ctx)
	if act.count("a") != 20 {
		t.Fatalf("a acts for %d of 20 after b died", act.count("a"))
	}
}

// TestLostDatabaseStopsActing: a node that cannot reach the database stops
// acting for its pools before their leases lapse there; when the database
// is back it takes them again with new tokens.
func TestLostDatabaseStopsActing(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	act := &acting{t: t, by: map[string]string{}}
	ttl := 40 * time.Millisecond
	a := New(Options{ID: "a", Names: names(3), TTL: ttl, Logger: quiet}, st, handler{act, "a"})
	a.Round(ctx)
	tok, _ := a.Holds("queue/q00")
	st.mu.Lock()
	st.failing = true
	st.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for act.count("a") > 0 {
		if time.Now().After(deadline) {
			t.Fatal("a kept acting without the database")
		}
		time.Sleep(ttl / 4)
		a.Round(ctx)
	}
	st.mu.Lock()
	st.failing = false
	st.mu.Unlock()
	st.advance(ttl * 2) // the leases lapsed in the database meanwhile
	a.Round(ctx)
	if act.count("a") != 3 {
		t.Fatalf("a acts for %d of 3 with the database back", act.count("a"))
	}
	if now, _ := a.Holds("queue/q00"); now <= tok {
		t.Fatalf("token %d after the lapse, was %d", now, tok)
	}
}

func TestFencedStopsAndRetakes(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	act := &acting{t: t, by: map[string]string{}}
	a := New(Options{ID: "a", Names: names(1), TTL: time.Minute, Logger: quiet}, st, handler{act, "a"})
	a.Round(ctx)
	// Another node took the lapsed lease meanwhile (a was paused).
	st.advance(2 * time.Minute)
	if _, ok, _ := st.AcquireLease(ctx, "queue/q00", "z", time.Minute); !ok {
		t.Fatal("z could not take the lapsed lease")
	}
	a.Fenced("queue/q00")
	a.Round(ctx)
	if act.count("a") != 0 {
		t.Fatal("a still acts for a pool whose lease z holds")
	}
	if _, ok := a.Holds("queue/q00"); ok {
		t.Fatal("a still lists the lease")
	}
}

func TestLeaveGivesEverythingUp(t *testing.T) {
	st := newMemStore()
	act := &acting{t: t, by: map[string]string{}}
	ctx, cancel := context.WithCancel(context.Background())
	a := New(Options{ID: "a", Names: names(4), TTL: time.Hour, Logger: quiet}, st, handler{act, "a"})
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for act.count("a") != 4 {
		if time.Now().After(deadline) {
			t.Fatal("a never took its pools")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if act.count("a") != 0 {
		t.Fatal("a acts after leaving")
	}
	if _, ok, _ := st.AcquireLease(context.Background(), "queue/q00", "b", time.Hour); !ok {
		t.Fatal("b must not wait for a's lease to lapse after a left")
	}
	if ms, _ := st.Members(context.Background(), time.Hour); len(ms) != 0 {
		t.Fatalf("members after a left: %v", ms)
	}
}
