package handoff

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/watchtest"
)

func TestAssignRefusalsChangeNothing(t *testing.T) {
	h := newHarness(t, Policy{})
	m := h.formed(t, false, "alice", "bob")
	ctx := context.Background()
	srv := cupid.Assignment{Server: "10.0.0.7:7777"}

	_, err := h.AssignMatch(ctx, "nope", srv)
	wantErr(t, err, cupid.CodeNotFound, "match_id", "nope")
	_, err = h.AssignMatch(ctx, m.ID, cupid.Assignment{})
	wantErr(t, err, cupid.CodeInvalid, "assignment.server")
	_, err = h.AssignMatch(ctx, "", srv)
	wantErr(t, err, cupid.CodeInvalid, "match_id")
	h.store.FailNext("AssignMatch", errDiskFull)
	_, err = h.AssignMatch(ctx, m.ID, srv)
	wantErr(t, err, cupid.CodeUnavailable, "")
	if r := h.match(t, m.ID); r.State != cupid.MatchFormed {
		t.Fatalf("after refusals the match is %s", r.State)
	}
	if h.events.kinds() != "" {
		t.Fatalf("refusals told the watchers %s", h.events.kinds())
	}
	r, err := h.AssignMatch(ctx, m.ID, srv)
	if err != nil || r.State != cupid.MatchAssigned || !r.Assignment.At.Equal(h.clock.Now()) {
		t.Fatalf("assigned %+v (%v)", r, err)
	}
	if h.events.kinds() != "assigned assigned" {
		t.Fatalf("the players' watchers heard %s", h.events.kinds())
	}
	_, err = h.AssignMatch(ctx, m.ID, cupid.Assignment{Server: "other:1"})
	wantErr(t, err, cupid.CodeConflict, "match_id", "already assigned")
	if r := h.match(t, m.ID); r.Assignment.Server != srv.Server {
		t.Fatalf("assigning twice changed the assignment to %+v", r.Assignment)
	}
}

func TestGetListAndPlayersOfMatches(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx := context.Background()
	m1 := h.formed(t, false, "a1", "b1")
	m2 := h.formed(t, false, "a2", "b2")
	if _, err := h.AssignMatch(ctx, m2.ID, cupid.Assignment{Server: "s:1"}); err != nil {
		t.Fatal(err)
	}
	ps, err := h.MatchPlayers(ctx, m1.ID)
	if err != nil || !slices.Equal(ps, []string{"a1", "b1"}) {
		t.Fatalf("players %v (%v)", ps, err)
	}
	_, err = h.MatchPlayers(ctx, "")
	wantErr(t, err, cupid.CodeInvalid, "match_id")

	for _, c := range []struct {
		f    cupid.MatchFilter
		want []string
	}{
		{cupid.MatchFilter{Queue: "duel"}, []string{m1.ID, m2.ID}},
		{cupid.MatchFilter{Queue: "duel", State: cupid.MatchAssigned}, []string{m2.ID}},
		{cupid.MatchFilter{Queue: "duel", Limit: 1}, []string{m1.ID}},
	} {
		rs, err := h.ListMatches(ctx, c.f)
		var got []string
		for _, r := range rs {
			got = append(got, r.Match.ID)
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Fatalf("%+v: %v (%v), want %v", c.f, got, err, c.want)
		}
	}
	for _, c := range []struct {
		f           cupid.MatchFilter
		code        cupid.Code
		field, word string
	}{
		{cupid.MatchFilter{}, cupid.CodeInvalid, "queue", "required"},
		{cupid.MatchFilter{Queue: "solo"}, cupid.CodeNotFound, "queue", "solo"},
		{cupid.MatchFilter{Queue: "duel", State: "lost"}, cupid.CodeInvalid, "state", "lost"},
		{cupid.MatchFilter{Queue: "duel", Limit: -1}, cupid.CodeInvalid, "limit", "negative"},
		{cupid.MatchFilter{Queue: "duel", Limit: 1001}, cupid.CodeInvalid, "limit", "1000"},
	} {
		_, err := h.ListMatches(ctx, c.f)
		wantErr(t, err, c.code, c.field, c.word)
	}
	h.store.FailNext("Matches", errDiskFull)
	_, err = h.ListMatches(ctx, cupid.MatchFilter{Queue: "duel"})
	wantErr(t, err, cupid.CodeUnavailable, "")
}

func TestWatchMatchesReplaysThenFollows(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m1 := h.formed(t, false, "a1", "b1")

	evs, done := watchtest.Collect(func(send func(cupid.MatchEvent) error) error { return h.WatchMatches(ctx, "duel", 0, send) })
	first := watchtest.Next(t, evs)
	if first.Kind != cupid.MatchEventFormed || first.MatchID != m1.ID {
		t.Fatalf("replayed %+v", first)
	}
	m2 := h.formed(t, false, "a2", "b2") // wakes the watcher (MatchesFormed)
	if ev := watchtest.Next(t, evs); ev.MatchID != m2.ID || ev.Seq <= first.Seq {
		t.Fatalf("followed %+v", ev)
	}
	if _, err := h.AssignMatch(ctx, m1.ID, cupid.Assignment{Server: "s:1"}); err != nil {
		t.Fatal(err)
	}
	if ev := watchtest.Next(t, evs); ev.Kind != cupid.MatchEventAssigned || ev.MatchID != m1.ID {
		t.Fatalf("followed %+v", ev)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the watch ended with %v", err)
	}

	// A resume after the first event starts after it; the service's end
	// ends the watch with unavailable and where to resume.
	evs, done = watchtest.Collect(func(send func(cupid.MatchEvent) error) error {
		return h.WatchMatches(context.Background(), "duel", first.Seq, send)
	})
	if ev := watchtest.Next(t, evs); ev.MatchID != m2.ID {
		t.Fatalf("resumed with %+v", ev)
	}
	watchtest.Next(t, evs)
	h.Wake("duel") // nothing new: the watcher reads and waits again
	h.Close()
	wantErr(t, <-done, cupid.CodeUnavailable, "", "after_seq=")

	for _, c := range []struct {
		queue string
		after int64
		field string
	}{
		{"", 0, "queue"},
		{"solo", 0, "queue"},
		{"duel", -1, "after_seq"},
	} {
		err := h.WatchMatches(context.Background(), c.queue, c.after, func(cupid.MatchEvent) error { return nil })
		if e := (*cupid.Error)(nil); !errors.As(err, &e) || e.Field != c.field {
			t.Fatalf("%q after %d: %v, want an error on %s", c.queue, c.after, err, c.field)
		}
	}
}

func TestWatchMatchesStopsWhereRetentionRemovedEvents(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx := context.Background()
	m := h.formed(t, false, "a1", "b1")
	if _, err := h.AssignMatch(ctx, m.ID, cupid.Assignment{Server: "s:1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.EndSession(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	// Retention removes the ended match and its events.
	if _, err := h.store.Prune(ctx, cupid.Fence{}, cupid.PruneRequest{Kind: cupid.RetainMatches, Before: h.clock.Now().Add(time.Hour), Limit: 100}); err != nil {
		t.Fatal(err)
	}
	err := h.WatchMatches(ctx, "duel", 0, func(cupid.MatchEvent) error { return nil })
	wantErr(t, err, cupid.CodeOutOfRange, "after_seq")
	sendErr := errors.New("gone")
	h.formed(t, false, "a2", "b2")
	horizon, _ := h.store.MatchLogHorizon(ctx, "duel")
	if err := h.WatchMatches(ctx, "duel", horizon, func(cupid.MatchEvent) error { return sendErr }); err != sendErr {
		t.Fatalf("a failing send ended the watch with %v", err)
	}
	h.store.FailNext("MatchEvents", errDiskFull)
	err = h.WatchMatches(ctx, "duel", horizon, func(cupid.MatchEvent) error { return nil })
	wantErr(t, err, cupid.CodeUnavailable, "")
}

func TestReleaseOnTimeout(t *testing.T) {
	for _, c := range []struct {
		on            OnTimeout
		state         cupid.TicketState
		requeued      int
		cancelledSeen float64
	}{
		{Requeue, cupid.StateWaiting, 2, 0},
		{CancelTickets, cupid.StateCancelled, 0, 2},
	} {
		t.Run(string(c.on), func(t *testing.T) {
			h := newHarness(t, Policy{AssignTimeout: 30 * time.Second, OnAssignTimeout: c.on})
			ctx := context.Background()
			m := h.formed(t, false, "alice", "bob")
			h.clock.Advance(29 * time.Second)
			if next := h.releaseDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(time.Second)) {
				t.Fatalf("next look at %v, want the match's deadline", next)
			}
			if r := h.match(t, m.ID); r.State != cupid.MatchFormed {
				t.Fatalf("released early: %s", r.State)
			}
			h.clock.Advance(time.Second)
			if next := h.releaseDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(30 * time.Second)) {
				t.Fatalf("with nothing left the next look is at %v, want a timeout away", next)
			}
			r := h.match(t, m.ID)
			if r.State != cupid.MatchReleased || !strings.Contains(r.Reason, "30s") {
				t.Fatalf("after the timeout %+v", r)
			}
			a := h.ticket(t, m.Teams[0].TicketIDs[0])
			if a.State != c.state || !a.CreatedAt.Equal(m.CreatedAt) {
				t.Fatalf("alice after the release %+v", a)
			}
			if got := h.pools.requeuedIDs(); len(got) != c.requeued {
				t.Fatalf("requeued to the pools: %v", got)
			}
			if h.cancelled(t) != c.cancelledSeen {
				t.Fatalf("cancelled tickets counted: %v", h.cancelled(t))
			}
			// Released, the session takes no backfill: the pool is told.
			if s := h.pools.lastSet(); s.id != m.ID || s.open {
				t.Fatalf("the pool was told %+v", s)
			}
		})
	}
}

func TestReleaseStoreFailureChangesNothing(t *testing.T) {
	for _, op := range []string{"Matches", "ReleaseMatch"} {
		t.Run(op, func(t *testing.T) {
			h := newHarness(t, Policy{AssignTimeout: 30 * time.Second})
			ctx := context.Background()
			m := h.formed(t, false, "alice", "bob")
			h.clock.Advance(31 * time.Second)
			h.store.FailNext(op, errDiskFull)
			if next := h.releaseDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(time.Second)) {
				t.Fatalf("after a failure next look at %v, want in a second", next)
			}
			if r := h.match(t, m.ID); r.State != cupid.MatchFormed || len(h.pools.requeuedIDs()) != 0 {
				t.Fatalf("match %s after a failed release, requeued %v", r.State, h.pools.requeuedIDs())
			}
			h.ReleaseDue(ctx)
			if r := h.match(t, m.ID); r.State != cupid.MatchReleased || len(h.pools.requeuedIDs()) != 2 {
				t.Fatalf("match %s after the retry, requeued %v", r.State, h.pools.requeuedIDs())
			}
		})
	}
}

func TestReleaseByHand(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx := context.Background()
	m := h.formed(t, false, "alice", "bob")
	_, err := h.ReleaseMatch(ctx, "", true, "")
	wantErr(t, err, cupid.CodeInvalid, "match_id")
	r, err := h.ReleaseMatch(ctx, m.ID, false, "the server crashed")
	if err != nil || len(r.Cancelled) != 2 || r.Match.Reason != "the server crashed" {
		t.Fatalf("released %+v (%v)", r, err)
	}
	_, err = h.ReleaseMatch(ctx, m.ID, false, "")
	wantErr(t, err, cupid.CodeConflict, "match_id")
	// A queue without an assign timeout has nothing to release for an hour.
	if next := h.releaseDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(time.Hour)) {
		t.Fatalf("next look at %v", next)
	}
}

// TestDeadlinesOfQueuesRunElsewhere: the node that runs a queue keeps its
// deadlines; the others leave them alone.
func TestDeadlinesOfQueuesRunElsewhere(t *testing.T) {
	h := newHarness(t, Policy{AssignTimeout: time.Second, Acceptance: Acceptance{Timeout: time.Second}, MaxSession: time.Second})
	ctx := context.Background()
	m := h.formed(t, false, "alice", "bob")
	h.pools.elsewhere["duel"] = true
	h.clock.Advance(time.Minute)
	h.ReleaseDue(ctx)
	h.AcceptDue(ctx)
	if r := h.match(t, m.ID); r.State != cupid.MatchPending {
		t.Fatalf("a node that does not run the queue changed its match: %s", r.State)
	}
	h.pools.elsewhere["duel"] = false
	h.ReleaseDue(ctx)
	if r := h.match(t, m.ID); r.State != cupid.MatchReleased {
		t.Fatalf("the queue's node left its match %s", r.State)
	}
}
