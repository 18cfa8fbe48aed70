package ticketsvc

import (
	"context"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
)

// startAfterFirstLook starts a service and returns once its own deadline
// loop has looked at the pending matches the first time; it then sleeps for
// the queue's timeout (in real time), so the failure a test arms is the
// test's own call's.
func startAfterFirstLook(t *testing.T, qs []Queue) *harness {
	t.Helper()
	store := memstore.New()
	arrived, release := store.Block("Matches")
	defer release()
	h := start(t, store, qs)
	<-arrived
	return h
}

// TestReadyCheckTimeoutThroughAFailingStore: a ready check whose deadline
// passed while the store failed is ended once it works, a second later:
// the silent player's ticket cancelled with the reason, the one who
// accepted requeued with the age he had. Nothing changes while it fails.
func TestReadyCheckTimeoutThroughAFailingStore(t *testing.T) {
	for _, op := range []string{"Matches", "ReleaseMatch"} {
		t.Run(op, func(t *testing.T) {
			h := startAfterFirstLook(t, acceptQueues(DeclineCancel))
			ctx := context.Background()
			a, b, mid := h.matched(t, "alice", "bob")
			h.answer(t, mid, "alice", true)
			h.clock.advance(21 * time.Second)
			h.store.FailNext(op, errDiskFull)
			if next := h.acceptDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.now().Add(time.Second)) {
				t.Fatalf("with the store failing the next look is at %v, want in a second", next)
			}
			if r, _ := h.GetMatch(ctx, mid); r.State != cupid.MatchPending {
				t.Fatalf("with the store failing the match is %s, want still pending", r.State)
			}
			h.clock.advance(time.Second)
			h.AcceptDue(ctx)
			r, err := h.GetMatch(ctx, mid)
			if err != nil || r.State != cupid.MatchReleased || r.Reason != cupid.NotAcceptedReason([]string{"bob"}) {
				t.Fatalf("once the store works: %+v %v", r, err)
			}
			if got := h.state(t, b.ID); got.State != cupid.StateCancelled || got.Reason != cupid.DeclinerReason(mid, true) {
				t.Fatalf("bob, who did not answer: %s %q", got.State, got.Reason)
			}
			if got := h.state(t, a.ID); got.State != cupid.StateWaiting || !got.CreatedAt.Equal(a.CreatedAt) {
				t.Fatalf("alice, who accepted: %+v", got)
			}
			if h.readyChecks("timed_out") != 1 {
				t.Fatalf("timeouts counted: %v", h.readyChecks("timed_out"))
			}
		})
	}
}

// TestReadyCheckDeadlinesOfSeveralMatches: each pending match is released
// at its own deadline; the next look is at the earliest one still ahead.
func TestReadyCheckDeadlinesOfSeveralMatches(t *testing.T) {
	h := start(t, memstore.New(), acceptQueues(DeclineCancel))
	ctx := context.Background()
	_, _, first := h.matched(t, "a1", "a2")
	h.clock.advance(5 * time.Second)
	_, _, second := h.matched(t, "b1", "b2")
	h.clock.advance(16 * time.Second) // first's deadline passed, second's 4 s ahead
	if next := h.acceptDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.now().Add(4 * time.Second)) {
		t.Fatalf("next look at %v, want the second match's deadline", next)
	}
	for id, want := range map[string]cupid.MatchState{first: cupid.MatchReleased, second: cupid.MatchPending} {
		if r, _ := h.GetMatch(ctx, id); r.State != want {
			t.Fatalf("match %s is %s, want %s", id, r.State, want)
		}
	}
	// A queue without a ready check has nothing to look at for an hour.
	h2 := start(t, memstore.New(), queues(0))
	if next := h2.acceptDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h2.clock.now().Add(time.Hour)) {
		t.Fatalf("a queue without ready checks looks again at %v", next)
	}
}
