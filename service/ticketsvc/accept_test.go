package ticketsvc

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/watchtest"
	"github.com/cupid-match/cupid/memstore"
)

// readyChecks reads the ready-check counter of the duel queue.
func (h *harness) readyChecks(outcome string) float64 {
	var m dto.Metric
	if err := h.metrics.readyChecks.WithLabelValues("duel", outcome).Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

// acceptQueues is a duel queue whose players have 20s to accept a match.
func acceptQueues(on OnDecline) []Queue {
	return []Queue{{Name: "duel", TTL: time.Hour, Ruleset: []byte(duelRules), Acceptance: Acceptance{Timeout: 20 * time.Second, OnDecline: on}}}
}

// restart closes h's service and starts another on the same store and
// clock, as a server restart does.
func (h *harness) restart(t *testing.T, qs []Queue) *harness {
	t.Helper()
	h.Close()
	svc, err := New(Options{Store: h.store, Documents: h.store, Queues: qs, Now: h.clock.Now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return &harness{Service: svc, store: h.store, clock: h.clock}
}

func (h *harness) answer(t *testing.T, id, player string, accept bool) *cupid.Answered {
	t.Helper()
	out, err := h.Handoff().AcceptMatch(context.Background(), id, player, accept)
	if err != nil {
		t.Fatalf("AcceptMatch(%s, %v): %v", player, accept, err)
	}
	return out
}

func (h *harness) matchLog(t *testing.T) string {
	t.Helper()
	evs, err := h.store.MatchEvents(context.Background(), "duel", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Kind)+" "+e.MatchID)
	}
	return strings.Join(out, ", ")
}

func TestReadyCheckEveryoneAccepts(t *testing.T) {
	h := start(t, memstore.New(), acceptQueues(""))
	ctx := context.Background()
	a, _, mid := h.matched(t, "alice", "bob")
	r, err := h.Handoff().GetMatch(ctx, mid)
	if err != nil || r.State != cupid.MatchPending || !r.Match.AcceptBy.Equal(h.clock.Now().Add(20*time.Second)) {
		t.Fatalf("proposed match %+v (%v)", r, err)
	}
	if log := h.matchLog(t); log != "" {
		t.Fatalf("a pending match reached the backends' log: %s", log)
	}
	evs, done := watchtest.Collect(func(send func(cupid.Event) error) error { return h.Watch(ctx, a.ID, 0, send) })
	watchtest.Next(t, evs)
	if p := watchtest.Next(t, evs); p.Kind != cupid.EventProposed || p.Match == nil || p.Match.ID != mid || p.Match.AcceptBy.IsZero() {
		t.Fatalf("second event %+v", p)
	}
	h.clock.Advance(5 * time.Second)
	if out := h.answer(t, mid, "alice", true); out.Formed != nil || len(out.Match.Answers) != 1 {
		t.Fatalf("after one acceptance %+v", out)
	}
	out := h.answer(t, mid, "bob", true)
	if out.Formed == nil || out.Match.State != cupid.MatchFormed {
		t.Fatalf("after both %+v", out)
	}
	if m := watchtest.Next(t, evs); m.Kind != cupid.EventMatched || m.Match.ID != mid {
		t.Fatalf("then %+v", m)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if log := h.matchLog(t); log != "formed "+mid {
		t.Fatalf("log %s", log)
	}
	if h.readyChecks("accepted") != 1 || h.readyChecks("declined") != 0 {
		t.Fatalf("ready checks counted %v accepted, %v declined", h.readyChecks("accepted"), h.readyChecks("declined"))
	}
	if r, _ := h.Handoff().GetMatch(ctx, mid); len(r.Answers) != 2 || !r.Answers[0].Accept || r.Answers[0].PlayerID != "alice" {
		t.Fatalf("answers %+v", r.Answers)
	}
	// The deadline passing later changes nothing.
	h.clock.Advance(time.Minute)
	h.Handoff().AcceptDue(ctx)
	if r, _ := h.Handoff().GetMatch(ctx, mid); r.State != cupid.MatchFormed {
		t.Fatalf("after the deadline %s", r.State)
	}
}

func TestReadyCheckDeclineRequeuesTheOthers(t *testing.T) {
	h := start(t, memstore.New(), acceptQueues(DeclineCancel))
	ctx := context.Background()
	a, b, mid := h.matched(t, "alice", "bob")
	h.answer(t, mid, "bob", true)
	out := h.answer(t, mid, "alice", false)
	if out.Released == nil || out.Match.State != cupid.MatchReleased || out.Match.Reason != "declined by alice" {
		t.Fatalf("decline %+v", out)
	}
	if got := h.state(t, a.ID); got.State != cupid.StateCancelled || got.Reason != cupid.DeclinerReason(mid, false) {
		t.Fatalf("decliner %+v", got)
	}
	if h.readyChecks("declined") != 1 {
		t.Fatalf("declines counted: %v", h.readyChecks("declined"))
	}
	got := h.state(t, b.ID)
	if got.State != cupid.StateWaiting || !got.CreatedAt.Equal(b.CreatedAt) {
		t.Fatalf("bob not requeued with his age: %+v", got)
	}
	// Bob is back in his pool: carol's ticket matches him.
	c := h.create(t, ticket("duel", 1505, "carol"))
	h.wait(0)
	if got, cc := h.state(t, b.ID), h.state(t, c.ID); got.State != cupid.StateMatched || got.MatchID != cc.MatchID || got.MatchID == mid {
		t.Fatalf("bob %+v carol %+v", got, cc)
	}
	evs, _ := h.store.Events(ctx, b.ID, 0)
	if kinds(evs) != "created proposed requeued proposed" {
		t.Fatalf("bob heard %s", kinds(evs))
	}
	if log := h.matchLog(t); log != "" {
		t.Fatalf("log %s", log)
	}
}

func TestReadyCheckTimeoutSurvivesARestart(t *testing.T) {
	store := memstore.New()
	h := start(t, store, acceptQueues(DeclineRequeueLast))
	ctx := context.Background()
	a, b, mid := h.matched(t, "alice", "bob")
	h.answer(t, mid, "alice", true)
	h.clock.Advance(10 * time.Second)
	h.Handoff().AcceptDue(ctx) // not due yet
	h = h.restart(t, acceptQueues(DeclineRequeueLast))
	r, err := h.Handoff().GetMatch(ctx, mid)
	if err != nil || r.State != cupid.MatchPending || len(r.Answers) != 1 {
		t.Fatalf("after a restart %+v (%v)", r, err)
	}
	h.clock.Advance(10 * time.Second)
	h.Handoff().AcceptDue(ctx)
	r, _ = h.Handoff().GetMatch(ctx, mid)
	if r.State != cupid.MatchReleased || r.Reason != "not accepted in time by bob" {
		t.Fatalf("after the deadline %+v", r)
	}
	if h.readyChecks("timed_out") != 1 {
		t.Fatalf("timeouts counted: %v", h.readyChecks("timed_out"))
	}
	// Back in the pool, the two may already have met again: the pool
	// steps as soon as they return.
	back := func(got *cupid.Ticket) bool {
		return got.State == cupid.StateWaiting || got.State == cupid.StateMatched && got.MatchID != mid
	}
	if got := h.state(t, a.ID); !back(got) || !got.CreatedAt.Equal(a.CreatedAt) {
		t.Fatalf("alice %+v", got)
	}
	if got := h.state(t, b.ID); !back(got) || !got.CreatedAt.Equal(h.clock.Now()) || got.Reason != "" {
		t.Fatalf("bob is not at the back of the queue: %+v", got)
	}
	evs, _ := h.store.Events(ctx, b.ID, 0)
	if len(evs) < 3 || kinds(evs[:3]) != "created proposed requeued" || evs[2].Reason != cupid.DeclinerReason(mid, true) {
		t.Fatalf("bob heard %s %+v", kinds(evs), evs)
	}
	// Both are back in the pool and meet again.
	h.wait(0)
	if got := h.state(t, a.ID); got.State != cupid.StateMatched || got.MatchID == mid {
		t.Fatalf("alice after the requeue %+v", got)
	}
}
