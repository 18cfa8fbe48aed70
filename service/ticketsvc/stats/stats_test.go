package stats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
)

// The statistics' unit tests feed a queuestats.Recorder by hand, as the
// ticket service's pools do, over the in-memory store and a stand-in for
// the pools; the clock is an input.

var t0 = time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)

// fakePools holds one pool of the duel queue with three tickets.
type fakePools struct{ err error }

func (f fakePools) Held(_ context.Context, queue string) ([]queuestats.Pool, error) {
	if f.err != nil {
		return nil, f.err
	}
	if queue != "" && queue != "duel" && queue != "solo" {
		return nil, cupid.NotFound("queue", "no queue %q", queue)
	}
	return []queuestats.Pool{{Key: cupid.QueueKey{Queue: "duel"}, Waiting: 3, Players: 3, RulesetVersion: 1}}, nil
}

type harness struct {
	*Service
	store   *memstore.Store
	rec     *queuestats.Recorder
	tickets *prometheus.CounterVec
	now     time.Time
}

func newHarness(t *testing.T, pools Pools) *harness {
	t.Helper()
	h := &harness{store: memstore.New(), rec: queuestats.New(), now: t0,
		tickets: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_tickets_total"}, []string{"queue", "state"})}
	s, err := New(Options{Recorder: h.rec, Store: h.store, Pools: pools, Queues: []string{"solo", "duel"}, Tickets: h.tickets,
		Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return h.now }})
	if err != nil {
		t.Fatal(err)
	}
	h.Service = s
	return h
}

// store keeps a ticket of each player, waiting, created at t0.
func (h *harness) storeTickets(t *testing.T, players ...string) []*cupid.Ticket {
	t.Helper()
	var nts []cupid.NewTicket
	for _, p := range players {
		nts = append(nts, cupid.NewTicket{Ticket: &cupid.Ticket{ID: "t-" + p, Key: cupid.QueueKey{Queue: "duel"}, State: cupid.StateWaiting,
			Players: []cupid.Player{{ID: p}}, CreatedAt: t0, UpdatedAt: t0, ExpiresAt: t0.Add(time.Hour)}})
		h.tickets.WithLabelValues("duel", string(cupid.StateWaiting)).Inc()
	}
	created, _, err := h.store.CreateTickets(context.Background(), nts)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*cupid.Ticket, len(created))
	for i, c := range created {
		out[i] = c.Ticket
	}
	return out
}

// matched commits a duel match of two tickets and tells the recorder, as a
// pool does after its commit.
func (h *harness) matched(t *testing.T, a, b *cupid.Ticket, waited time.Duration) *cupid.Match {
	t.Helper()
	m := &cupid.Match{ID: "m-" + a.ID, Key: a.Key, CreatedAt: h.now, Quality: cupid.Quality{Score: 0.8},
		Teams: []cupid.Team{{TicketIDs: []string{a.ID}, PlayerIDs: a.PlayerIDs()}, {TicketIDs: []string{b.ID}, PlayerIDs: b.PlayerIDs()}}}
	res, _, err := h.store.CommitMatches(context.Background(), cupid.Fence{}, []*cupid.Match{m})
	if err != nil || !res[0].OK {
		t.Fatalf("commit %+v %v", res, err)
	}
	h.rec.Matched(a.Key, m, []time.Duration{waited, waited}, h.now)
	return m
}

func TestNewNeedsItsParts(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Fatal("New took no recorder, store, pools or counter")
	}
	h := newHarness(t, fakePools{})
	if !slices.Equal(h.Queues(), []string{"duel", "solo"}) {
		t.Fatalf("queues %v, want them sorted", h.Queues())
	}
}

func TestQueueStatisticsAndMinutes(t *testing.T) {
	h := newHarness(t, fakePools{})
	ctx := context.Background()
	h.SampleArrivals(t0) // the counter's start, as the service's first sample
	ts := h.storeTickets(t, "alice", "bob", "carol", "dan")
	h.now = t0.Add(10 * time.Second)
	h.matched(t, ts[0], ts[1], 10*time.Second)
	h.SampleArrivals(h.now) // a pool's commit takes a sample when one is due
	h.now = t0.Add(70 * time.Second)
	h.matched(t, ts[2], ts[3], 70*time.Second)

	qs, err := h.QueueStatistics(ctx, "")
	if err != nil || len(qs) != 2 {
		t.Fatalf("statistics %+v (%v)", qs, err)
	}
	duel := qs[slices.IndexFunc(qs, func(q queuestats.QueueStats) bool { return q.Queue == "duel" })]
	if duel.Waiting != 3 || duel.Quality.Matches != 2 || duel.Arrivals.LastMinute+sumOf(duel.Arrivals.PerMinute) == 0 {
		t.Fatalf("duel %+v", duel)
	}
	if _, err := h.QueueStatistics(ctx, "squad"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("an unknown queue: %v", err)
	}
	if _, err := newHarness(t, fakePools{err: errors.New("closed")}).QueueStatistics(ctx, ""); err == nil {
		t.Fatal("the pools' failure was not reported")
	}

	// Each whole minute once it has begun: the first holds the first
	// match and the arrivals, the second the second match.
	h.now = t0.Add(2 * time.Minute)
	ms := h.QueueMinutes(t0, t0.Add(2*time.Minute))
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s %s %d %d", m.Queue, m.At.Format("15:04"), m.Arrivals, m.Matches))
	}
	if want := []string{"duel 03:04 4 1", "duel 03:05 0 1"}; !slices.Equal(got, want) {
		t.Fatalf("minutes %v, want %v", got, want)
	}
}

func sumOf(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func TestRecentMatchesAndPlayerTickets(t *testing.T) {
	h := newHarness(t, fakePools{})
	ctx := context.Background()
	ts := h.storeTickets(t, "alice", "bob", "carol")
	m := h.matched(t, ts[0], ts[1], time.Second)

	for _, c := range []struct {
		queue, who string
		want       []string
	}{
		{"", "", []string{m.ID}},
		{"duel", "bob", []string{m.ID}},
		{"solo", "", nil},
		{"duel", "carol", nil},
	} {
		rs, err := h.RecentMatches(c.queue, c.who, 0)
		var got []string
		for _, r := range rs {
			got = append(got, r.ID)
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Fatalf("%q %q: %v (%v), want %v", c.queue, c.who, got, err, c.want)
		}
	}
	_, err := h.RecentMatches("squad", "", 0)
	if e := (*cupid.Error)(nil); !errors.As(err, &e) || e.Code != cupid.CodeNotFound || e.Field != "queue" {
		t.Fatalf("an unknown queue: %v", err)
	}

	for _, c := range []struct {
		player string
		want   []string
	}{
		{"alice", []string{ts[0].ID}},   // matched, found through the recent match
		{" carol ", []string{ts[2].ID}}, // waiting
		{"zed", nil},
	} {
		got, err := h.PlayerTickets(ctx, c.player)
		var ids []string
		for _, t := range got {
			ids = append(ids, t.ID)
		}
		if err != nil || !slices.Equal(ids, c.want) {
			t.Fatalf("%q: %v (%v), want %v", c.player, ids, err, c.want)
		}
	}
	for _, c := range []struct {
		player string
		code   cupid.Code
	}{
		{"  ", cupid.CodeInvalid},
		{strings.Repeat("p", 257), cupid.CodeInvalid},
	} {
		if _, err := h.PlayerTickets(ctx, c.player); cupid.ErrorCode(err) != c.code {
			t.Fatalf("%q: %v, want %s", c.player, err, c.code)
		}
	}
	h.store.FailNext("WaitingTickets", errors.New("disk full"))
	if _, err := h.PlayerTickets(ctx, "carol"); cupid.ErrorCode(err) != cupid.CodeUnavailable {
		t.Fatalf("a failing store: %v", err)
	}
	h.store.FailNext("WaitingTickets", cupid.NotFound("", "gone"))
	if _, err := h.PlayerTickets(ctx, "carol"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("the store's own code: %v", err)
	}
}
