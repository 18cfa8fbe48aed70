package storetest

import (
	"errors"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// The ready check (the root package's accept.go): pending matches, answers
// and the release of a declined match ticket by ticket.

// pendingDuel builds a duel match of one-player tickets (ticket id →
// player id) with a ready check that ends at acceptBy.
func pendingDuel(id string, at, acceptBy time.Time, ticketPlayers ...[2]string) *cupid.Match {
	m := &cupid.Match{ID: id, Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: at, AcceptBy: acceptBy, Quality: cupid.Quality{Score: 0.5}}
	for _, tp := range ticketPlayers {
		m.Teams = append(m.Teams, cupid.Team{TicketIDs: []string{tp[0]}, PlayerIDs: []string{tp[1]}})
	}
	return m
}

func answerStrings(as []cupid.Answer) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.PlayerID + " declined"
		if a.Accept {
			out[i] = a.PlayerID + " accepted"
		}
	}
	return out
}

func answer(t *testing.T, s cupid.Store, id, player string, accept bool, decline cupid.Release, now time.Time) *cupid.Answered {
	t.Helper()
	out, err := lifecycle.Answer(bg, s, cupid.Fence{}, id, player, accept, decline, now)
	if err != nil {
		t.Fatalf("AnswerMatch(%s, %s, %v): %v", id, player, accept, err)
	}
	checkSeqOrder(t, out.Events)
	return out
}

// testAcceptAll: a match with a ready check is committed pending, out of
// the match log, its tickets matched to it with "proposed" events; the
// last acceptance forms it, logs "formed" and gives the tickets "matched".
func testAcceptAll(t *testing.T, s cupid.Store) {
	var mk maker
	create(t, s, nt(mk.tk("a", "duel", "", "p1")), nt(mk.tk("b", "duel", "", "p2")))
	at := T0.Add(time.Minute)
	by := at.Add(20 * time.Second)
	out, evs := commit(t, s, pendingDuel("m1", at, by, [2]string{"a", "p1"}, [2]string{"b", "p2"}))
	if !out[0].OK || out[0].Formed.Seq != 0 {
		t.Fatalf("a pending match is not stored, or is logged: %+v", out[0])
	}
	eq(t, "commit events", eventStrings(evs), []string{"proposed a", "proposed b"})
	for _, e := range evs {
		if e.Match == nil || e.Match.ID != "m1" || !e.Match.AcceptBy.Equal(by) {
			t.Fatalf("proposed event without its match and deadline: %+v", e)
		}
	}
	if tk := get(t, s, "a"); tk.State != cupid.StateMatched || tk.MatchID != "m1" {
		t.Fatalf("a pending match's ticket is %s in %q", tk.State, tk.MatchID)
	}
	if r := record(t, s, "m1"); r.State != cupid.MatchPending || !r.Match.AcceptBy.Equal(by) {
		t.Fatalf("record %+v", r)
	}
	eq(t, "log while pending", matchEventStrings(matchEvents(t, s, "duel", 0, 100)), nil)
	list, err := s.Matches(bg, cupid.MatchFilter{Queue: "duel", State: cupid.MatchPending})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "pending", recordIDs(list), []string{"m1"})
	_, _, _, err = lifecycle.Assign(bg, s, cupid.Fence{}, "m1", cupid.Assignment{Server: "x:1", At: at})
	wantCode(t, "assigning a pending match", err, cupid.CodeConflict)

	a1 := answer(t, s, "m1", "p1", true, cupid.Release{}, at.Add(time.Second))
	if a1.Repeated || a1.Formed != nil || a1.Released != nil || len(a1.Events) != 0 || a1.Match.State != cupid.MatchPending {
		t.Fatalf("first acceptance: %+v", a1)
	}
	eq(t, "answers", answerStrings(a1.Match.Answers), []string{"p1 accepted"})
	if again := answer(t, s, "m1", "p1", true, cupid.Release{}, at.Add(2*time.Second)); !again.Repeated {
		t.Fatalf("the same answer twice is not a repeat: %+v", again)
	}
	_, err = lifecycle.Answer(bg, s, cupid.Fence{}, "m1", "p1", false, cupid.Release{Reason: "x", Requeue: true}, at.Add(2*time.Second))
	wantCode(t, "changing an answer", err, cupid.CodeConflict)
	_, err = lifecycle.Answer(bg, s, cupid.Fence{}, "m1", "p9", true, cupid.Release{}, at.Add(2*time.Second))
	wantCode(t, "a player not in the match", err, cupid.CodeInvalid)
	if ce := new(cupid.Error); !errors.As(err, &ce) || ce.Field != "player_id" {
		t.Fatalf("a player not in the match: %v does not name player_id", err)
	}
	_, err = lifecycle.Answer(bg, s, cupid.Fence{}, "nope", "p1", true, cupid.Release{}, at)
	wantCode(t, "an unknown match", err, cupid.CodeNotFound)
	eq(t, "answers after refusals", answerStrings(answersOf(t, s, "m1")), []string{"p1 accepted"})

	done := at.Add(3 * time.Second)
	a2 := answer(t, s, "m1", "p2", true, cupid.Release{}, done)
	if a2.Formed == nil || a2.Formed.Kind != cupid.MatchEventFormed || a2.Formed.Seq <= 0 || a2.Match.State != cupid.MatchFormed {
		t.Fatalf("the last acceptance did not form the match: %+v", a2)
	}
	eq(t, "formed events", eventStrings(a2.Events), []string{"matched a", "matched b"})
	eq(t, "log", matchEventStrings(matchEvents(t, s, "duel", 0, 100)), []string{"formed m1"})
	if r := record(t, s, "m1"); r.State != cupid.MatchFormed || !r.UpdatedAt.Equal(done) {
		t.Fatalf("formed record %+v", r)
	}
	hist, err := s.Events(bg, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "a's history", eventStrings(hist), []string{"created a", "proposed a", "matched a"})
	if hist[1].Match == nil || hist[1].Match.ID != "m1" {
		t.Fatalf("stored proposed event lacks its match: %+v", hist[1])
	}
	eq(t, "answers", answerStrings(answersOf(t, s, "m1")), []string{"p1 accepted", "p2 accepted"})
	if again := answer(t, s, "m1", "p2", true, cupid.Release{}, done.Add(time.Second)); !again.Repeated || again.Match.State != cupid.MatchFormed {
		t.Fatalf("repeating an acceptance of a formed match: %+v", again)
	}
	// A formed match may be assigned as any other.
	if _, _, _, err := lifecycle.Assign(bg, s, cupid.Fence{}, "m1", cupid.Assignment{Server: "x:1", At: done}); err != nil {
		t.Fatal(err)
	}
	_, err = s.MatchAnswers(bg, "nope")
	wantCode(t, "answers of an unknown match", err, cupid.CodeNotFound)
}

func answersOf(t *testing.T, s cupid.Store, id string) []cupid.Answer {
	t.Helper()
	as, err := s.MatchAnswers(bg, id)
	if err != nil {
		t.Fatalf("MatchAnswers(%s): %v", id, err)
	}
	return as
}

// testDecline: a decline releases the pending match in the same call: the
// decliner's ticket is cancelled or requeued as if new, the others go back
// with their age; nothing reaches the match log.
func testDecline(t *testing.T, open opener) {
	for _, last := range []bool{false, true} {
		name := "cancel"
		if last {
			name = "requeue_last"
		}
		t.Run(name, func(t *testing.T) {
			s := open(t)
			var mk maker
			create(t, s, nt(mk.tk("a", "duel", "", "p1")), nt(mk.tk("b", "duel", "", "p2")), nt(mk.tk("c", "duel", "", "p3")))
			created := get(t, s, "b").CreatedAt
			at := T0.Add(time.Minute)
			commit(t, s, pendingDuel("m1", at, at.Add(20*time.Second), [2]string{"a", "p1"}, [2]string{"b", "p2"}))
			answer(t, s, "m1", "p2", true, cupid.Release{}, at.Add(time.Second))
			now := at.Add(2 * time.Second)
			rel := cupid.Release{Reason: cupid.DeclinedReason("p1"), Requeue: true, Decliners: []string{"p1"},
				DeclinerReason: cupid.DeclinerReason("m1", false), RequeueLast: last}
			out := answer(t, s, "m1", "p1", false, rel, now)
			r := out.Released
			if r == nil || r.Event.Seq != 0 || out.Formed != nil || out.Match.State != cupid.MatchReleased || out.Match.Reason != "declined by p1" {
				t.Fatalf("decline: %+v", out)
			}
			eq(t, "answers", answerStrings(out.Match.Answers), []string{"p2 accepted", "p1 declined"})
			if last {
				eq(t, "requeued", ids(r.Requeued), []string{"a", "b"})
				eq(t, "events", eventStrings(r.Events), []string{"requeued a: declined match m1", "requeued b: declined by p1"})
				// b keeps its age; a goes to the back.
				eq(t, "waiting", waitingIDs(t, s), []string{"b", "c", "a"})
				if tk := get(t, s, "a"); !tk.CreatedAt.Equal(now) || tk.State != cupid.StateWaiting || tk.MatchID != "" {
					t.Fatalf("a requeued last: %+v", tk)
				}
			} else {
				eq(t, "requeued", ids(r.Requeued), []string{"b"})
				eq(t, "cancelled", ids(r.Cancelled), []string{"a"})
				eq(t, "events", eventStrings(r.Events), []string{"cancelled a: declined match m1", "requeued b: declined by p1"})
				eq(t, "waiting", waitingIDs(t, s), []string{"b", "c"})
				if tk := get(t, s, "a"); tk.State != cupid.StateCancelled || tk.Reason != "declined match m1" {
					t.Fatalf("a %+v", tk)
				}
			}
			if tk := get(t, s, "b"); !tk.CreatedAt.Equal(created) || tk.State != cupid.StateWaiting {
				t.Fatalf("b lost its age: %+v", tk)
			}
			eq(t, "log", matchEventStrings(matchEvents(t, s, "duel", 0, 100)), nil)
			if rec := record(t, s, "m1"); rec.State != cupid.MatchReleased || rec.Reason != "declined by p1" {
				t.Fatalf("record %+v", rec)
			}
			if again := answer(t, s, "m1", "p1", false, rel, now.Add(time.Second)); !again.Repeated || again.Released != nil {
				t.Fatalf("declining twice: %+v", again)
			}
			_, err := lifecycle.Answer(bg, s, cupid.Fence{}, "m1", "p2", false, rel, now)
			wantCode(t, "changing an answer after the release", err, cupid.CodeConflict)
			// The requeued ticket is matched again, now without a check.
			if out, _ := commit(t, s, duelMatch("m2", now.Add(time.Second), "b", "c")); !out[0].OK {
				t.Fatalf("the requeued ticket was not matched again: %+v", out[0])
			}
		})
	}
}

// testReleasePending: the deadline's release (ReleaseMatchWith) ends a
// pending match: who did not accept is the decliner; who did goes back
// with his age. A plain ReleaseMatch of a pending match works too.
func testReleasePending(t *testing.T, s cupid.Store) {
	var mk maker
	create(t, s, nt(mk.tk("a", "duel", "", "p1")), nt(mk.tk("b", "duel", "", "p2")),
		nt(mk.tk("c", "duel", "", "p3")), nt(mk.tk("d", "duel", "", "p4")))
	at := T0.Add(time.Minute)
	by := at.Add(20 * time.Second)
	commit(t, s, pendingDuel("m1", at, by, [2]string{"a", "p1"}, [2]string{"b", "p2"}),
		pendingDuel("m2", at, by, [2]string{"c", "p3"}, [2]string{"d", "p4"}))
	answer(t, s, "m1", "p1", true, cupid.Release{}, at.Add(time.Second))
	r, err := lifecycle.Release(bg, s, cupid.Fence{}, "m1", cupid.Release{Reason: cupid.NotAcceptedReason([]string{"p2"}), Requeue: true,
		Decliners: []string{"p2"}, DeclinerReason: cupid.DeclinerReason("m1", true)}, by)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "events", eventStrings(r.Events), []string{"requeued a: not accepted in time by p2", "cancelled b: did not accept match m1 in time"})
	if r.Event.Seq != 0 || r.Match.State != cupid.MatchReleased {
		t.Fatalf("released %+v", r)
	}
	_, err = lifecycle.Answer(bg, s, cupid.Fence{}, "m1", "p2", true, cupid.Release{}, by)
	wantCode(t, "accepting a released match", err, cupid.CodeConflict)
	_, err = lifecycle.Release(bg, s, cupid.Fence{}, "m1", cupid.Release{Reason: "again"}, by)
	wantCode(t, "releasing twice", err, cupid.CodeConflict)
	if _, err := lifecycle.Release(bg, s, cupid.Fence{}, "m2", cupid.Release{Requeue: true, Reason: "by hand"}, by); err != nil {
		t.Fatalf("releasing a pending match: %v", err)
	}
	eq(t, "waiting", waitingIDs(t, s), []string{"a", "c", "d"})
	eq(t, "log", matchEventStrings(matchEvents(t, s, "duel", 0, 100)), nil)
}
