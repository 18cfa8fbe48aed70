package handoff

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/ruleset"
)

// The hand-off's unit tests run over the in-memory store, which can be
// told to fail, with a stand-in for the pools that records what it is
// given, and on a clock the test moves: no pool steps, so a test makes
// its matches itself (formed) and nothing happens unless it calls it.

// duelRules take two one-player teams and have a "mode" match option.
const duelRules = `{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100, "max": 3000}],
  "match_options": {"options": [{"name": "mode", "type": "all"}]}
}`

// setCall is one SetSession the pools were given.
type setCall struct {
	id      string
	seq     int64
	open    bool
	players []string
}

// fakePools records what the hand-off asks of the pools.
type fakePools struct {
	mu        sync.Mutex
	elsewhere map[string]bool // queues another node runs
	requeued  []*cupid.Ticket
	sets      []setCall
	loaded    []string
	loadErr   error
	gone      bool // LoadSession finds the queue given up
	rules     *ruleset.Compiled
	check     *engine.Pool
}

func (f *fakePools) Owned(queue string) (cupid.Fence, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return cupid.Fence{}, !f.elsewhere[queue]
}

func (f *fakePools) Requeue(ts []*cupid.Ticket) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requeued = append(f.requeued, ts...)
}

func (f *fakePools) SetSession(rec *cupid.MatchRecord, seq int64, players map[string]cupid.Player, _ time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sets = append(f.sets, setCall{id: rec.Match.ID, seq: seq, open: rec.Live() && rec.Match.Backfill, players: cupid.SortedKeys(players)})
}

func (f *fakePools) LoadSession(rec *cupid.MatchRecord, _ map[string]cupid.Player) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loadErr != nil {
		return false, f.loadErr
	}
	if f.gone {
		return false, nil
	}
	f.loaded = append(f.loaded, rec.Match.ID)
	return true, nil
}

func (f *fakePools) Rules(queue string) (*ruleset.Compiled, *engine.Pool) {
	if queue != "duel" {
		return nil, nil
	}
	return f.rules, f.check
}

func (f *fakePools) requeuedIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, t := range f.requeued {
		out = append(out, t.ID)
	}
	return out
}

func (f *fakePools) lastSet() setCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sets) == 0 {
		return setCall{}
	}
	return f.sets[len(f.sets)-1]
}

// published records what the ticket watchers were told.
type published struct {
	mu  sync.Mutex
	evs []cupid.Event
}

func (p *published) Publish(evs ...cupid.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.evs = append(p.evs, evs...)
}

func (p *published) kinds() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, e := range p.evs {
		out = append(out, string(e.Kind))
	}
	return strings.Join(out, " ")
}

type harness struct {
	*Service
	store  *memstore.Store
	pools  *fakePools
	events *published
	clock  *testclock.Clock
	n      int // tickets made, for their ids
}

func newHarness(t *testing.T, p Policy) *harness {
	t.Helper()
	rules, err := ruleset.Load([]byte(duelRules))
	if err != nil {
		t.Fatal(err)
	}
	check, err := engine.New(cupid.QueueKey{Queue: "duel"}, rules, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{store: memstore.New(), pools: &fakePools{elsewhere: map[string]bool{}, rules: rules, check: check},
		events: &published{}, clock: testclock.At(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	s, err := New(Options{Store: h.store, Pools: h.pools, Events: h.events, Queues: map[string]Policy{"duel": p},
		Logger: slog.New(slog.DiscardHandler), Now: h.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	h.Service = s
	return h
}

// formed stores a waiting ticket for each player and commits them as one
// match of the duel queue, one team each, as a pool does (with the
// queue's ready check deadline and, with backfill, open to it).
func (h *harness) formed(t *testing.T, backfill bool, players ...string) *cupid.Match {
	t.Helper()
	ctx := context.Background()
	now := h.clock.Now()
	var nts []cupid.NewTicket
	for _, p := range players {
		h.n++
		nts = append(nts, cupid.NewTicket{Ticket: &cupid.Ticket{
			ID: fmt.Sprintf("t%d", h.n), Key: cupid.QueueKey{Queue: "duel"}, State: cupid.StateWaiting,
			Players:   []cupid.Player{{ID: p, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1500)})}},
			CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour),
		}})
	}
	created, _, err := h.store.CreateTickets(ctx, nts)
	if err != nil {
		t.Fatal(err)
	}
	m := &cupid.Match{ID: fmt.Sprintf("m%d", h.n), Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: now, AcceptBy: h.AcceptBy("duel", now), Backfill: backfill}
	for _, c := range created {
		if c.Err != nil {
			t.Fatal(c.Err)
		}
		m.Teams = append(m.Teams, cupid.Team{TicketIDs: []string{c.Ticket.ID}, PlayerIDs: []string{c.Ticket.Players[0].ID}})
		m.Seats = append(m.Seats, 2)
	}
	res, _, err := h.store.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{m})
	if err != nil || !res[0].OK {
		t.Fatalf("commit: %+v %v", res, err)
	}
	h.MatchesFormed(res)
	return m
}

func (h *harness) match(t *testing.T, id string) *cupid.MatchRecord {
	t.Helper()
	r, err := h.GetMatch(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (h *harness) ticket(t *testing.T, id string) *cupid.Ticket {
	t.Helper()
	tk, err := h.store.Ticket(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// count reads one of the hand-off's counters.
func count(t *testing.T, get func() (interface{ Write(*dto.Metric) error }, error)) float64 {
	t.Helper()
	c, err := get()
	if err != nil {
		t.Fatal(err)
	}
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

func (h *harness) readyChecks(t *testing.T, outcome string) float64 {
	return count(t, func() (interface{ Write(*dto.Metric) error }, error) {
		return h.Service.readyChecks.GetMetricWithLabelValues("duel", outcome)
	})
}

func (h *harness) cancelled(t *testing.T) float64 {
	return count(t, func() (interface{ Write(*dto.Metric) error }, error) {
		return h.Service.tickets.GetMetricWithLabelValues("duel", string(cupid.StateCancelled))
	})
}

func wantErr(t *testing.T, err error, code cupid.Code, field string, mention ...string) {
	t.Helper()
	var e *cupid.Error
	if !errors.As(err, &e) || e.Code != code || e.Field != field {
		t.Fatalf("error %v, want %s on %q", err, code, field)
	}
	for _, m := range mention {
		if !strings.Contains(e.Message, m) {
			t.Fatalf("error %q does not mention %q", e.Message, m)
		}
	}
}

var errDiskFull = errors.New("disk full")

func TestPolicyCheck(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Policy
		want string // "" for none
	}{
		{"none", Policy{}, ""},
		{"assign timeout negative", Policy{AssignTimeout: -time.Second}, "assign_timeout must not be negative"},
		{"on timeout without timeout", Policy{OnAssignTimeout: Requeue}, "needs an assign_timeout"},
		{"on timeout unknown", Policy{AssignTimeout: time.Second, OnAssignTimeout: "later"}, "requeue or cancel"},
		{"acceptance negative", Policy{Acceptance: Acceptance{Timeout: -time.Second}}, "acceptance timeout must not be negative"},
		{"on decline without timeout", Policy{Acceptance: Acceptance{OnDecline: DeclineCancel}}, "needs a timeout"},
		{"on decline unknown", Policy{Acceptance: Acceptance{Timeout: time.Second, OnDecline: "shrug"}}, "cancel or requeue_last"},
		{"leaver window negative", Policy{LeaverWindow: -time.Second}, "leaver_window must not be negative"},
		{"max session negative", Policy{MaxSession: -time.Second}, "max_session must not be negative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.p.Check()
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("%+v: %v, want %q", c.p, err, c.want)
			}
		})
	}
	// The defaults: a timeout alone requeues, a ready check alone cancels.
	p := Policy{AssignTimeout: time.Second, Acceptance: Acceptance{Timeout: time.Second}}
	if err := p.Check(); err != nil || p.OnAssignTimeout != Requeue || p.Acceptance.OnDecline != DeclineCancel {
		t.Fatalf("defaults %+v (%v)", p, err)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, o := range []Options{
		{},
		{Store: memstore.New(), Pools: &fakePools{}, Events: &published{}, Queues: map[string]Policy{"duel": {MaxSession: -1}}},
	} {
		if _, err := New(o); err == nil {
			t.Fatalf("New(%+v) took it", o)
		}
	}
}

func TestStartAndCloseKeepTheDeadlines(t *testing.T) {
	h := newHarness(t, Policy{AssignTimeout: 30 * time.Second, OnAssignTimeout: CancelTickets})
	m := h.formed(t, false, "alice", "bob")
	h.clock.Advance(31 * time.Second)
	h.Start()
	// The goroutine's first look is at once; the match's deadline passed.
	for i := 0; h.match(t, m.ID).State != cupid.MatchReleased; i++ {
		if i == 1000 {
			t.Fatal("the assign timeout's goroutine did not release the match")
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.Close()
	h.Close() // twice is harmless
}
