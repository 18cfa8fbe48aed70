package handoff

import (
	"context"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// readyCheck is a duel queue whose players have 20s to accept a match.
func readyCheck(on OnDecline) Policy {
	return Policy{Acceptance: Acceptance{Timeout: 20 * time.Second, OnDecline: on}}
}

func (h *harness) answer(t *testing.T, id, player string, accept bool) *cupid.Answered {
	t.Helper()
	out, err := h.AcceptMatch(context.Background(), id, player, accept)
	if err != nil {
		t.Fatalf("AcceptMatch(%s, %v): %v", player, accept, err)
	}
	return out
}

func TestReadyCheckEveryoneAccepts(t *testing.T) {
	h := newHarness(t, readyCheck(""))
	m := h.formed(t, true, "alice", "bob")
	if !m.AcceptBy.Equal(h.clock.Now().Add(20 * time.Second)) {
		t.Fatalf("accept by %v", m.AcceptBy)
	}
	if r := h.match(t, m.ID); r.State != cupid.MatchPending {
		t.Fatalf("proposed match is %s", r.State)
	}
	h.answer(t, m.ID, "alice", true)
	if r := h.match(t, m.ID); r.State != cupid.MatchPending || len(r.Answers) != 1 {
		t.Fatalf("after one answer %+v", r)
	}
	out := h.answer(t, m.ID, "bob", true)
	if out.Formed == nil || out.Match.State != cupid.MatchFormed {
		t.Fatalf("after both answers %+v", out)
	}
	if h.events.kinds() != "matched matched" || h.readyChecks(t, "accepted") != 1 {
		t.Fatalf("watchers heard %q, accepted counted %v", h.events.kinds(), h.readyChecks(t, "accepted"))
	}
	// Formed with a free seat under backfill, the session goes to its pool.
	if s := h.pools.lastSet(); s.id != m.ID || !s.open || !slices.Equal(s.players, []string{"alice", "bob"}) {
		t.Fatalf("the pool was told %+v", s)
	}
}

func TestReadyCheckDecline(t *testing.T) {
	for _, c := range []struct {
		on       OnDecline
		bob      cupid.TicketState
		requeued int
	}{
		{DeclineCancel, cupid.StateCancelled, 1},
		{DeclineRequeueLast, cupid.StateWaiting, 2},
	} {
		t.Run(string(c.on), func(t *testing.T) {
			h := newHarness(t, readyCheck(c.on))
			m := h.formed(t, false, "alice", "bob")
			h.answer(t, m.ID, "alice", true)
			h.clock.Advance(5 * time.Second)
			out := h.answer(t, m.ID, "bob", false)
			if out.Released == nil || out.Released.Match.Reason != cupid.DeclinedReason("bob") {
				t.Fatalf("a decline: %+v", out)
			}
			alice, bob := h.ticket(t, m.Teams[0].TicketIDs[0]), h.ticket(t, m.Teams[1].TicketIDs[0])
			if alice.State != cupid.StateWaiting || !alice.CreatedAt.Equal(m.CreatedAt) {
				t.Fatalf("alice, who accepted: %+v", alice)
			}
			if bob.State != c.bob || (c.bob == cupid.StateWaiting && !bob.CreatedAt.Equal(h.clock.Now())) {
				t.Fatalf("bob, who declined: %+v", bob)
			}
			if got := h.pools.requeuedIDs(); len(got) != c.requeued || got[0] != alice.ID {
				t.Fatalf("requeued to the pools %v", got)
			}
			if h.readyChecks(t, "declined") != 1 {
				t.Fatalf("declines counted %v", h.readyChecks(t, "declined"))
			}
		})
	}
}

func TestAcceptRefusalsChangeNothing(t *testing.T) {
	h := newHarness(t, readyCheck(""))
	ctx := context.Background()
	m := h.formed(t, false, "alice", "bob")

	_, err := h.AcceptMatch(ctx, "", "alice", true)
	wantErr(t, err, cupid.CodeInvalid, "match_id")
	_, err = h.AcceptMatch(ctx, m.ID, "", true)
	wantErr(t, err, cupid.CodeInvalid, "player_id")
	_, err = h.AcceptMatch(ctx, "nope", "alice", true)
	wantErr(t, err, cupid.CodeNotFound, "match_id")
	_, err = h.AcceptMatch(ctx, m.ID, "mallory", true)
	wantErr(t, err, cupid.CodeInvalid, "player_id", "mallory")
	h.store.FailNext("AnswerMatch", errDiskFull)
	_, err = h.AcceptMatch(ctx, m.ID, "alice", false)
	wantErr(t, err, cupid.CodeUnavailable, "")
	if r := h.match(t, m.ID); r.State != cupid.MatchPending || len(r.Answers) != 0 {
		t.Fatalf("after refusals %+v", r)
	}
	if got := h.ticket(t, m.Teams[0].TicketIDs[0]); got.State != cupid.StateMatched || got.MatchID != m.ID {
		t.Fatalf("alice after refusals %+v", got)
	}
	h.answer(t, m.ID, "alice", true)
	if again := h.answer(t, m.ID, "alice", true); !again.Repeated {
		t.Fatalf("the same answer twice: %+v", again)
	}
	_, err = h.AcceptMatch(ctx, m.ID, "alice", false)
	wantErr(t, err, cupid.CodeConflict, "accept", "already accepted")
	h.store.FailNext("ReleaseMatch", errDiskFull)
	h.clock.Advance(20 * time.Second)
	if next := h.acceptDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(time.Second)) {
		t.Fatalf("after a failed release next look at %v", next)
	}
	if r := h.match(t, m.ID); r.State != cupid.MatchPending {
		t.Fatalf("a failed release changed the match: %s", r.State)
	}
	h.acceptDue(ctx, cupid.Fence{}, "duel")
	if r := h.match(t, m.ID); r.State != cupid.MatchReleased {
		t.Fatalf("the retry did not release: %s", r.State)
	}
	_, err = h.AcceptMatch(ctx, m.ID, "bob", true)
	wantErr(t, err, cupid.CodeConflict, "match_id", "released")
}

func TestReadyCheckTimeoutThroughAFailingStore(t *testing.T) {
	for _, op := range []string{"Matches", "MatchAnswers", "ReleaseMatch"} {
		t.Run(op, func(t *testing.T) {
			h := newHarness(t, readyCheck(DeclineCancel))
			ctx := context.Background()
			m := h.formed(t, false, "alice", "bob")
			h.answer(t, m.ID, "alice", true)
			h.clock.Advance(21 * time.Second)
			h.store.FailNext(op, errDiskFull)
			if next := h.acceptDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(time.Second)) {
				t.Fatalf("with the store failing the next look is at %v, want in a second", next)
			}
			if r := h.match(t, m.ID); r.State != cupid.MatchPending {
				t.Fatalf("with the store failing the match is %s, want still pending", r.State)
			}
			h.clock.Advance(time.Second)
			h.AcceptDue(ctx)
			r := h.match(t, m.ID)
			if r.State != cupid.MatchReleased || r.Reason != cupid.NotAcceptedReason([]string{"bob"}) {
				t.Fatalf("once the store works: %+v", r)
			}
			bob := h.ticket(t, m.Teams[1].TicketIDs[0])
			if bob.State != cupid.StateCancelled || bob.Reason != cupid.DeclinerReason(m.ID, true) {
				t.Fatalf("bob, who did not answer: %s %q", bob.State, bob.Reason)
			}
			if alice := h.ticket(t, m.Teams[0].TicketIDs[0]); alice.State != cupid.StateWaiting || !alice.CreatedAt.Equal(m.CreatedAt) {
				t.Fatalf("alice, who accepted: %+v", alice)
			}
			if h.readyChecks(t, "timed_out") != 1 || h.cancelled(t) != 1 {
				t.Fatalf("timeouts counted %v, cancelled %v", h.readyChecks(t, "timed_out"), h.cancelled(t))
			}
		})
	}
}

// TestReadyCheckDeadlinesOfSeveralMatches: each pending match is released
// at its own deadline; the next look is at the earliest one still ahead.
func TestReadyCheckDeadlinesOfSeveralMatches(t *testing.T) {
	h := newHarness(t, readyCheck(DeclineCancel))
	ctx := context.Background()
	first := h.formed(t, false, "a1", "a2")
	h.clock.Advance(5 * time.Second)
	second := h.formed(t, false, "b1", "b2")
	h.clock.Advance(16 * time.Second) // first's deadline passed, second's 4 s ahead
	if next := h.acceptDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(4 * time.Second)) {
		t.Fatalf("next look at %v, want the second match's deadline", next)
	}
	for id, want := range map[string]cupid.MatchState{first.ID: cupid.MatchReleased, second.ID: cupid.MatchPending} {
		if r := h.match(t, id); r.State != want {
			t.Fatalf("match %s is %s, want %s", id, r.State, want)
		}
	}
	// Everyone accepted the second in time: its deadline releases nothing.
	h.answer(t, second.ID, "b1", true)
	h.answer(t, second.ID, "b2", true)
	h.clock.Advance(time.Minute)
	if err := h.expireReadyCheck(ctx, cupid.Fence{}, second); err != nil {
		t.Fatal(err)
	}
	if r := h.match(t, second.ID); r.State != cupid.MatchFormed {
		t.Fatalf("an accepted match after its deadline: %s", r.State)
	}
	// A queue without a ready check has nothing to look at for an hour.
	h2 := newHarness(t, Policy{})
	if next := h2.acceptDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h2.clock.Now().Add(time.Hour)) {
		t.Fatalf("a queue without ready checks looks again at %v", next)
	}
	if !h2.AcceptBy("duel", h2.clock.Now()).IsZero() || !h2.AcceptBy("solo", h2.clock.Now()).IsZero() {
		t.Fatal("a deadline without a ready check")
	}
}

// An assign timeout counts from the ready check's deadline: the backend
// has all of it, however long the players took to answer.
func TestAssignTimeoutCountsFromTheReadyCheck(t *testing.T) {
	p := readyCheck("")
	p.AssignTimeout, p.OnAssignTimeout = 30*time.Second, Requeue
	h := newHarness(t, p)
	ctx := context.Background()
	m := h.formed(t, false, "alice", "bob")
	h.clock.Advance(15 * time.Second)
	h.answer(t, m.ID, "alice", true)
	h.answer(t, m.ID, "bob", true)
	h.clock.Advance(30 * time.Second) // 45s after the proposal, 25s after its deadline
	if next := h.releaseDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(5 * time.Second)) {
		t.Fatalf("next look at %v, want 50s after the proposal", next)
	}
	if r := h.match(t, m.ID); r.State != cupid.MatchFormed {
		t.Fatalf("released before its time: %s", r.State)
	}
	h.clock.Advance(5 * time.Second)
	h.ReleaseDue(ctx)
	if r := h.match(t, m.ID); r.State != cupid.MatchReleased {
		t.Fatalf("not released at its time: %s", r.State)
	}
}
