package ticketsvc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/watchtest"
	"github.com/cupid-match/cupid/memstore"
)

// handoffQueues is a duel queue that releases unassigned matches after 30s.
func handoffQueues(on OnTimeout) []Queue {
	return []Queue{{Name: "duel", TTL: time.Hour, Ruleset: []byte(duelRules), AssignTimeout: 30 * time.Second, OnAssignTimeout: on}}
}

// matched creates two compatible duel tickets and returns them matched,
// with their match id.
func (h *harness) matched(t *testing.T, p1, p2 string) (a, b *cupid.Ticket, matchID string) {
	t.Helper()
	a = h.create(t, ticket("duel", 1500, p1))
	b = h.create(t, ticket("duel", 1510, p2))
	h.wait(0)
	a, b = h.state(t, a.ID), h.state(t, b.ID)
	if a.State != cupid.StateMatched || b.MatchID != a.MatchID {
		t.Fatalf("tickets not matched together: %s/%s %s/%s", a.State, a.MatchID, b.State, b.MatchID)
	}
	return a, b, a.MatchID
}

func kinds(evs []cupid.Event) string {
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Kind))
	}
	return strings.Join(out, " ")
}

func TestAssignmentReachesTicketWatchers(t *testing.T) {
	store := memstore.New()
	h := start(t, store, queues(0))
	a, _, mid := h.matched(t, "alice", "bob")
	ctx := context.Background()

	evs, done := watchtest.Collect(func(send func(cupid.Event) error) error { return h.WatchAssignment(ctx, a.ID, 0, send) })
	var got []cupid.Event
	got = append(got, watchtest.Next(t, evs), watchtest.Next(t, evs)) // created, matched: the watch goes on
	rec, err := h.Handoff().AssignMatch(ctx, mid, cupid.Assignment{Server: "10.0.0.7:7777", SessionID: "s1", Connection: map[string]string{"token": "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != cupid.MatchAssigned || !rec.Assignment.At.Equal(h.clock.Now()) {
		t.Fatalf("assigned %+v", rec)
	}
	got = append(got, watchtest.Next(t, evs))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if kinds(got) != "created matched assigned" || got[2].Assignment == nil || got[2].Assignment.Server != "10.0.0.7:7777" || got[2].Match.ID != mid {
		t.Fatalf("events %s, last %+v", kinds(got), got[2])
	}

	// The plain watch still ends at the match; one that reconnects after
	// it hears the assignment.
	var plain []cupid.Event
	record := func(ev cupid.Event) error { plain = append(plain, ev); return nil }
	if err := h.Watch(ctx, a.ID, 0, record); err != nil || kinds(plain) != "created matched" {
		t.Fatalf("plain watch %s (%v)", kinds(plain), err)
	}
	plain = nil
	if err := h.Watch(ctx, a.ID, got[1].Seq, record); err != nil || kinds(plain) != "assigned" {
		t.Fatalf("watch after the match %s (%v)", kinds(plain), err)
	}

	// After a restart the history comes from the store, assignment and all.
	h.Close()
	h2 := start(t, store, queues(0))
	plain = nil
	if err := h2.WatchAssignment(ctx, a.ID, 0, record); err != nil || kinds(plain) != "created matched assigned" ||
		plain[2].Assignment == nil || plain[2].Assignment.Connection["token"] != "t" {
		t.Fatalf("watch after a restart %s %+v (%v)", kinds(plain), plain, err)
	}
}

func TestWatchMatchesReplaysThenFollows(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, _, m1 := h.matched(t, "a1", "b1")

	evs, done := watchtest.Collect(func(send func(cupid.MatchEvent) error) error { return h.Handoff().WatchMatches(ctx, "duel", 0, send) })
	first := watchtest.Next(t, evs)
	if first.Kind != cupid.MatchEventFormed || first.MatchID != m1 || first.Match == nil {
		t.Fatalf("first %+v", first)
	}
	_, _, m2 := h.matched(t, "a2", "b2")
	if _, err := h.Handoff().AssignMatch(ctx, m1, cupid.Assignment{Server: "s:1"}); err != nil {
		t.Fatal(err)
	}
	second, third := watchtest.Next(t, evs), watchtest.Next(t, evs)
	if second.MatchID != m2 || second.Kind != cupid.MatchEventFormed || third.MatchID != m1 || third.Kind != cupid.MatchEventAssigned ||
		third.Assignment == nil || third.Assignment.Server != "s:1" || !(first.Seq < second.Seq && second.Seq < third.Seq) {
		t.Fatalf("then %+v, %+v", second, third)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("watch ended with %v", err)
	}

	// Resuming after a sequence number replays what came after it.
	var again []cupid.MatchEvent
	ctx2, cancel2 := context.WithCancel(context.Background())
	err := h.Handoff().WatchMatches(ctx2, "duel", first.Seq, func(ev cupid.MatchEvent) error {
		again = append(again, ev)
		if len(again) == 2 {
			cancel2()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || len(again) != 2 || again[0].Seq != second.Seq || again[1].Seq != third.Seq {
		t.Fatalf("resumed %+v (%v)", again, err)
	}
	wantErr(t, h.Handoff().WatchMatches(context.Background(), "nope", 0, nil), cupid.CodeNotFound, "queue")
	wantErr(t, h.Handoff().WatchMatches(context.Background(), "duel", -1, nil), cupid.CodeInvalid, "after_seq")
	_, err = h.Handoff().ListMatches(context.Background(), cupid.MatchFilter{Queue: "duel", State: "lost"})
	wantErr(t, err, cupid.CodeInvalid, "state")
	list, err := h.Handoff().ListMatches(context.Background(), cupid.MatchFilter{Queue: "duel", State: cupid.MatchFormed})
	if err != nil || len(list) != 1 || list[0].Match.ID != m2 {
		t.Fatalf("formed matches %v (%v)", list, err)
	}
}

func TestReleaseOnTimeoutRequeuesWithOriginalAge(t *testing.T) {
	h := start(t, memstore.New(), handoffQueues(Requeue))
	ctx := context.Background()
	a, b, mid := h.matched(t, "alice", "bob")
	h.clock.Advance(29 * time.Second)
	h.Handoff().ReleaseDue(ctx)
	if r, _ := h.Handoff().GetMatch(ctx, mid); r.State != cupid.MatchFormed {
		t.Fatalf("released early: %s", r.State)
	}
	h.clock.Advance(time.Second)
	h.Handoff().ReleaseDue(ctx)
	r, _ := h.Handoff().GetMatch(ctx, mid)
	if r.State != cupid.MatchReleased || !strings.Contains(r.Reason, "30s") {
		t.Fatalf("after the timeout %+v", r)
	}
	// The release requeued both: their logs say so, in order. Their pool
	// may have matched them again already (it runs on its own), so the
	// state now is waiting or matched in another match; either way the
	// ticket kept its original age and left the released match.
	for _, want := range []*cupid.Ticket{a, b} {
		evs, err := h.store.Events(ctx, want.ID, 0)
		if err != nil || !strings.HasPrefix(kinds(evs), "created matched requeued") {
			t.Fatalf("events of %s: %s (%v)", want.ID, kinds(evs), err)
		}
		got := h.state(t, want.ID)
		if !got.CreatedAt.Equal(want.CreatedAt) || got.MatchID == mid ||
			(got.State != cupid.StateWaiting && got.State != cupid.StateMatched) {
			t.Fatalf("requeued %+v", got)
		}
	}
	// Back in their pool, they match again, in a new match.
	h.wait(0)
	again := h.state(t, a.ID)
	if again.State != cupid.StateMatched || again.MatchID == mid || h.state(t, b.ID).MatchID != again.MatchID {
		t.Fatalf("after requeue %+v", again)
	}
	evs, _ := h.store.Events(ctx, a.ID, 0)
	if kinds(evs) != "created matched requeued matched" {
		t.Fatalf("events %s", kinds(evs))
	}
}

func TestReleaseOnTimeoutCancels(t *testing.T) {
	h := start(t, memstore.New(), handoffQueues(CancelTickets))
	ctx := context.Background()
	a, _, mid := h.matched(t, "alice", "bob")
	h.clock.Advance(31 * time.Second)
	h.Handoff().ReleaseDue(ctx)
	got := h.state(t, a.ID)
	if got.State != cupid.StateCancelled || !strings.Contains(got.Reason, "assign_timeout") {
		t.Fatalf("after the timeout %+v", got)
	}
	var seen []cupid.Event
	if err := h.WatchAssignment(ctx, a.ID, 0, func(ev cupid.Event) error { seen = append(seen, ev); return nil }); err != nil ||
		kinds(seen) != "created matched cancelled" || seen[2].Reason != got.Reason {
		t.Fatalf("watcher heard %s (%v)", kinds(seen), err)
	}
	if _, err := h.Handoff().AssignMatch(ctx, mid, cupid.Assignment{Server: "late:1"}); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("assigning a released match: %v", err)
	}
}

func TestReleaseStoreFailureChangesNothing(t *testing.T) {
	store := memstore.New()
	h := start(t, store, handoffQueues(Requeue))
	ctx := context.Background()
	a, _, mid := h.matched(t, "alice", "bob")
	h.clock.Advance(31 * time.Second)
	store.FailNext("ReleaseMatch", errors.New("disk full"))
	h.Handoff().ReleaseDue(ctx)
	if r, _ := h.Handoff().GetMatch(ctx, mid); r.State != cupid.MatchFormed {
		t.Fatalf("match %s after a failed release", r.State)
	}
	if got := h.state(t, a.ID); got.State != cupid.StateMatched {
		t.Fatalf("ticket %s after a failed release", got.State)
	}
	h.wait(0) // the pool holds nothing it should not: no second match forms
	if got := h.state(t, a.ID); got.MatchID != mid {
		t.Fatalf("ticket moved to match %s", got.MatchID)
	}
	h.Handoff().ReleaseDue(ctx)
	if got := h.state(t, a.ID); got.State != cupid.StateWaiting {
		t.Fatalf("ticket %s after the retry", got.State)
	}
}

// TestHandoffSettingsNameTheQueue: the hand-off's settings (package
// handoff checks them) refuse the service, naming the queue.
func TestHandoffSettingsNameTheQueue(t *testing.T) {
	for _, q := range []Queue{
		{AssignTimeout: -time.Second},
		{Acceptance: Acceptance{Timeout: time.Second, OnDecline: "shrug"}},
		{LeaverWindow: -time.Second},
		{MaxSession: -time.Second},
	} {
		q.Name, q.TTL, q.Ruleset = "duel", time.Minute, []byte(duelRules)
		_, err := New(Options{Store: memstore.New(), Queues: []Queue{q}})
		if err == nil || !strings.HasPrefix(err.Error(), "ticketsvc: queue duel: ") {
			t.Fatalf("%+v: %v", q, err)
		}
	}
}
