package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// RunRetention is the contract of cupid.Pruner: retention removes what
// ended before the horizon, with what goes with it, and nothing live —
// a waiting ticket, a ticket of a live match, a live match — whatever
// its age; batches follow their cursor to the end; the match log's
// horizon names the highest sequence number removed. Stores that are
// also cupid.RatingStore have their history and results pruned as well.
func RunRetention(t *testing.T, open func(t *testing.T) cupid.Store) {
	t.Run("AgedAndLive", func(t *testing.T) { testRetention(t, open(t)) })
	t.Run("ReadyCheckAnswers", func(t *testing.T) { testRetentionAnswers(t, open(t)) })
	t.Run("SelectThenOnly", func(t *testing.T) { testRetentionSelect(t, open(t)) })
	t.Run("Refusals", func(t *testing.T) {
		p := pruner(t, open(t))
		for _, req := range []cupid.PruneRequest{
			{Kind: "nothing", Before: T0, Limit: 10},
			{Kind: cupid.RetainTickets, Before: T0, Limit: 0},
			{Kind: cupid.RetainTickets, Before: T0, Limit: 10, Select: true, Only: []string{"a"}},
		} {
			if _, err := p.Prune(bg, cupid.Fence{}, req); cupid.ErrorCode(err) != cupid.CodeInvalid {
				t.Errorf("Prune(%+v): %v, want invalid", req, err)
			}
		}
	})
}

func pruner(t *testing.T, s cupid.Store) cupid.Pruner {
	p, ok := s.(cupid.Pruner)
	if !ok {
		t.Fatalf("%T is not a cupid.Pruner", s)
	}
	return p
}

// pruneAll runs every kind's batches of limit rows to the end of the pass
// and returns what they removed by kind.
func pruneAll(t *testing.T, p cupid.Pruner, before time.Time, limit int) map[cupid.RetentionKind]int {
	t.Helper()
	out := map[cupid.RetentionKind]int{}
	for _, k := range cupid.RetentionKinds {
		cursor := ""
		for i := 0; ; i++ {
			if i > 100 {
				t.Fatalf("prune %s: the pass does not end (cursor %q)", k, cursor)
			}
			r, err := p.Prune(bg, cupid.Fence{}, cupid.PruneRequest{Kind: k, Before: before, Limit: limit, After: cursor})
			if err != nil {
				t.Fatalf("prune %s after %q: %v", k, cursor, err)
			}
			out[k] += r.Removed
			if r.Next == "" {
				break
			}
			if r.Next == cursor {
				t.Fatalf("prune %s: the cursor %q does not move", k, cursor)
			}
			cursor = r.Next
		}
	}
	return out
}

func testRetention(t *testing.T, s cupid.Store) {
	p := pruner(t, s)
	at := func(d time.Duration) time.Time { return T0.Add(d) }
	var m maker
	create(t, s,
		nt(m.tk("a", "duel", "ra", "p1")), nt(m.tk("b", "duel", "", "p2")), // an ended session's
		nt(m.tk("c", "duel", "", "p3")), nt(m.tk("d", "duel", "", "p4")), // a live match's
		nt(m.tk("e", "duel", "", "p5")),                                  // cancelled long ago
		nt(m.tk("f", "duel", "", "p6")),                                  // waiting
		nt(m.tk("g", "duel", "", "p7")),                                  // cancelled lately
		nt(m.tk("h", "duel", "", "p8")), nt(m.tk("i", "duel", "", "p9")), // a released match's
	)
	commit(t, s, duelMatch("ended", at(time.Minute), "a", "b"), duelMatch("live", at(time.Minute), "c", "d"),
		duelMatch("rel", at(time.Minute), "h", "i"))
	if _, _, err := lifecycle.ChangeSession(bg, s, cupid.Fence{}, "ended", cupid.SessionChange{Kind: cupid.MatchEventEnded}, at(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := lifecycle.Release(bg, s, cupid.Fence{}, "rel", cupid.Release{Reason: "no server"}, at(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for id, when := range map[string]time.Duration{"e": time.Minute, "g": 20 * time.Minute} {
		if _, _, err := lifecycle.Finish(bg, s, cupid.Fence{}, id, cupid.StateCancelled, "", at(when)); err != nil {
			t.Fatal(err)
		}
	}
	log := matchEvents(t, s, "duel", 0, 100)
	var horizon int64
	for _, e := range log {
		if e.MatchID != "live" {
			horizon = max(horizon, e.Seq)
		}
	}
	rs, isRatings := s.(cupid.RatingStore)
	if isRatings {
		for i, when := range []time.Duration{time.Minute, 2 * time.Minute, 30 * time.Minute} {
			id := fmt.Sprintf("r%d", i)
			err := rs.SaveResult(bg, cupid.ResultRecord{MatchID: id, At: at(when), Body: []byte(`{}`)}, nil,
				[]cupid.RatingEntry{{Rating: "r", Player: "p1", MatchID: id, At: at(when), Body: []byte(`{}`)}})
			if err != nil {
				t.Fatal(err)
			}
		}
	}

	es, isEncounters := s.(cupid.EncounterStore)
	if isEncounters {
		// Two meetings long ago, one lately, and one a backend recorded
		// after that one with a time long ago: five old encounters (two
		// per meeting, and one alone), ids with spaces and quotes.
		enc := func(p, o, ref string, d time.Duration) cupid.Encounter {
			return cupid.Encounter{Player: p, Other: o, Mode: "queue", Side: "opponent", Place: "duel", Ref: ref, At: at(d)}
		}
		for _, batch := range [][]cupid.Encounter{
			{enc("p1", "p2", "m1", time.Minute), enc("p2", "p1", "m1", time.Minute)},
			{enc("p1", "p3", "m2", 2*time.Minute), enc("p3", "p1", "m2", 2*time.Minute)},
			{enc("p1", "p4", "m3", 30*time.Minute), enc("p4", "p1", "m3", 30*time.Minute)},
			{enc(`p "5"`, "p 6", `m 4 "x"`, 3*time.Minute)},
		} {
			if err := es.AddEncounters(bg, batch); err != nil {
				t.Fatal(err)
			}
		}
	}

	before := at(10 * time.Minute)
	got := pruneAll(t, p, before, 2)
	want := map[cupid.RetentionKind]int{cupid.RetainTickets: 5, cupid.RetainMatches: 2}
	if isRatings {
		want[cupid.RetainRatingHistory], want[cupid.RetainRatingResults] = 2, 2
	}
	if isEncounters {
		want[cupid.RetainEncounters] = 5
	}
	for _, k := range cupid.RetentionKinds {
		if got[k] != want[k] {
			t.Errorf("pruned %d %s, want %d", got[k], k, want[k])
		}
	}
	if isEncounters {
		for _, who := range []string{"p1", "p4", "p2", `p "5"`} {
			h, err := es.Encounters(bg, who, time.Time{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			var refs []string
			for _, e := range h {
				refs = append(refs, e.Ref)
			}
			want := map[string][]string{"p1": {"m3"}, "p4": {"m3"}}[who]
			eq(t, "encounters of "+who+" kept", refs, want)
		}
		ret, err := p.Retained(bg)
		if err != nil {
			t.Fatal(err)
		}
		r := ret[len(ret)-1]
		if r.Kind != cupid.RetainEncounters || r.Rows != 2 || !r.Oldest.Equal(at(30*time.Minute)) {
			t.Errorf("Retained encounters: %+v", r)
		}
	}
	var kept []string
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"} {
		if _, err := s.Ticket(bg, id); err == nil {
			kept = append(kept, id)
		} else {
			wantCode(t, "Ticket "+id, err, cupid.CodeNotFound)
			if evs, err := s.Events(bg, id, 0); err != nil || len(evs) != 0 {
				t.Errorf("removed ticket %s keeps events %v (%v)", id, eventStrings(evs), err)
			}
		}
	}
	eq(t, "tickets kept", kept, []string{"c", "d", "f", "g"})
	eq(t, "waiting", waitingIDs(t, s), []string{"f"})
	if evs, err := s.Events(bg, "c", 0); err != nil || len(evs) != 2 {
		t.Errorf("a live match's ticket lost events: %v (%v)", eventStrings(evs), err)
	}
	for _, id := range []string{"ended", "rel"} {
		_, err := s.MatchRecord(bg, id)
		wantCode(t, "MatchRecord "+id, err, cupid.CodeNotFound)
		if as, err := s.MatchAnswers(bg, id); (err != nil && cupid.ErrorCode(err) != cupid.CodeNotFound) || len(as) != 0 {
			t.Errorf("removed match %s keeps answers %v (%v)", id, as, err)
		}
	}
	if r := record(t, s, "live"); r.State != cupid.MatchFormed {
		t.Errorf("the live match is %s", r.State)
	}
	var left []string
	for _, e := range matchEvents(t, s, "duel", 0, 100) {
		left = append(left, e.MatchID)
	}
	eq(t, "match log kept", slices.Compact(left), []string{"live"})
	if h, err := p.MatchLogHorizon(bg, "duel"); err != nil || h != horizon {
		t.Errorf("horizon of duel: %d (%v), want %d", h, err, horizon)
	}
	if h, err := p.MatchLogHorizon(bg, "squad"); err != nil || h != 0 {
		t.Errorf("horizon of a queue nothing was removed from: %d (%v)", h, err)
	}
	// The rules still hold on what is kept: p6 waits, p3 is in a live
	// match; the request id of a removed ticket is free again.
	out, _ := create(t, s, nt(m.tk("f2", "duel", "", "p6")), nt(m.tk("a2", "duel", "ra", "p1")))
	wantCode(t, "a second live ticket of p6", out[0].Err, cupid.CodeAlreadyExists)
	if out[1].Err != nil || out[1].Existed {
		t.Errorf("a request id of a removed ticket: %+v", out[1])
	}

	// A later pass with the same horizon removes nothing; the live match's
	// tickets stay however old they are.
	if again := pruneAll(t, p, before, 2); again[cupid.RetainTickets]+again[cupid.RetainMatches] != 0 {
		t.Errorf("a second pass removed %v", again)
	}
	if again := pruneAll(t, p, at(1000*time.Hour), 100); again[cupid.RetainMatches] != 0 {
		t.Errorf("a pass far in the future removed the live match: %v", again)
	}
	for _, id := range []string{"c", "d", "f"} {
		get(t, s, id)
	}

	ret, err := p.Retained(bg)
	if err != nil {
		t.Fatal(err)
	}
	if len(ret) != len(cupid.RetentionKinds) {
		t.Fatalf("Retained: %+v", ret)
	}
	for i, r := range ret {
		if r.Kind != cupid.RetentionKinds[i] {
			t.Errorf("Retained[%d] is %s, want %s", i, r.Kind, cupid.RetentionKinds[i])
		}
	}
	if ret[1].Rows != 1 || ret[1].Oldest.IsZero() {
		t.Errorf("Retained matches: %+v", ret[1])
	}
}

// testRetentionAnswers: a match released by a decline goes with the
// players' answers to its ready check; a pending match keeps its answers
// however old it is, and so do its tickets.
func testRetentionAnswers(t *testing.T, s cupid.Store) {
	p := pruner(t, s)
	var mk maker
	create(t, s, nt(mk.tk("a", "duel", "", "p1")), nt(mk.tk("b", "duel", "", "p2")),
		nt(mk.tk("c", "duel", "", "p3")), nt(mk.tk("d", "duel", "", "p4")))
	at := T0.Add(time.Minute)
	commit(t, s, pendingDuel("declined", at, at.Add(20*time.Second), [2]string{"a", "p1"}, [2]string{"b", "p2"}),
		pendingDuel("pending", at, at.Add(1000*time.Hour), [2]string{"c", "p3"}, [2]string{"d", "p4"}))
	answer(t, s, "declined", "p2", true, cupid.Release{}, at.Add(time.Second))
	answer(t, s, "pending", "p3", true, cupid.Release{}, at.Add(time.Second))
	answer(t, s, "declined", "p1", false, cupid.Release{Reason: cupid.DeclinedReason("p1"), Requeue: true, Decliners: []string{"p1"},
		DeclinerReason: cupid.DeclinerReason("declined", false)}, at.Add(2*time.Second))
	eq(t, "answers before", answerStrings(answersOf(t, s, "declined")), []string{"p2 accepted", "p1 declined"})

	got := pruneAll(t, p, T0.Add(10*time.Minute), 2)
	if got[cupid.RetainMatches] != 1 || got[cupid.RetainTickets] != 1 {
		t.Errorf("pruned %v, want the declined match and its decliner's cancelled ticket", got)
	}
	_, err := s.MatchRecord(bg, "declined")
	wantCode(t, "MatchRecord declined", err, cupid.CodeNotFound)
	if as, err := s.MatchAnswers(bg, "declined"); (err != nil && cupid.ErrorCode(err) != cupid.CodeNotFound) || len(as) != 0 {
		t.Errorf("the removed match keeps answers %v (%v)", answerStrings(as), err)
	}
	// Far past every horizon, the pending match and its answer stay.
	if again := pruneAll(t, p, T0.Add(2000*time.Hour), 100); again[cupid.RetainMatches] != 0 {
		t.Errorf("a pass far in the future removed %v", again)
	}
	if r := record(t, s, "pending"); r.State != cupid.MatchPending {
		t.Errorf("the pending match is %s", r.State)
	}
	eq(t, "answers of the pending match", answerStrings(answersOf(t, s, "pending")), []string{"p3 accepted"})
	for _, id := range []string{"b", "c", "d"} {
		get(t, s, id)
	}
}

// testRetentionSelect is the seam of export before delete: a Select
// reads a batch's choice and removes nothing, the ids it returns are what
// the store's readers read (a ticket's and a match's id, a result's
// match id); the same request with Only removes those of them still old
// and no other, and returns the same cursor when nothing changed between.
func testRetentionSelect(t *testing.T, s cupid.Store) {
	p := pruner(t, s)
	at := func(d time.Duration) time.Time { return T0.Add(d) }
	var m maker
	create(t, s, nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2")), nt(m.tk("c", "duel", "", "p3")),
		nt(m.tk("d", "duel", "", "p4")), nt(m.tk("e", "duel", "", "p5")), nt(m.tk("f", "duel", "", "p6")))
	for _, id := range []string{"a", "b", "c"} {
		if _, _, err := lifecycle.Finish(bg, s, cupid.Fence{}, id, cupid.StateCancelled, "", at(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	commit(t, s, duelMatch("ended", at(time.Minute), "e", "f"))
	if _, _, err := lifecycle.ChangeSession(bg, s, cupid.Fence{}, "ended", cupid.SessionChange{Kind: cupid.MatchEventEnded}, at(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	rs, isRatings := s.(cupid.RatingStore)
	if isRatings {
		for i, when := range []time.Duration{time.Minute, 30 * time.Minute} {
			id := fmt.Sprintf("r%d", i)
			if err := rs.SaveResult(bg, cupid.ResultRecord{MatchID: id, At: at(when), Body: []byte(`{}`)}, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	before := at(10 * time.Minute)

	// The tickets, two a batch: every batch selected, then removed but
	// for the first id of the pass (as if its line were not written).
	var selected, removed []string
	held := ""
	cursor := ""
	for i := 0; ; i++ {
		if i > 20 {
			t.Fatalf("the pass does not end (cursor %q)", cursor)
		}
		req := cupid.PruneRequest{Kind: cupid.RetainTickets, Before: before, Limit: 2, After: cursor}
		sel := req
		sel.Select = true
		r, err := p.Prune(bg, cupid.Fence{}, sel)
		if err != nil {
			t.Fatal(err)
		}
		if r.Removed != 0 || r.Related != 0 {
			t.Fatalf("a Select removed %+v", r)
		}
		for _, id := range r.IDs {
			get(t, s, id) // still there, readable by its id
		}
		selected = append(selected, r.IDs...)
		req.Only = []string{}
		for _, id := range r.IDs {
			if held == "" {
				held = id
				continue
			}
			req.Only = append(req.Only, id)
		}
		d, err := p.Prune(bg, cupid.Fence{}, req)
		if err != nil {
			t.Fatal(err)
		}
		if d.Next != r.Next {
			t.Errorf("the removing batch's cursor %q, the Select's %q", d.Next, r.Next)
		}
		if d.Removed != len(req.Only) || d.IDs != nil {
			t.Errorf("removed %+v, want the %d ids of Only", d, len(req.Only))
		}
		removed = append(removed, req.Only...)
		if r.Next == "" {
			break
		}
		cursor = r.Next
	}
	slices.Sort(selected)
	eq(t, "selected tickets", selected, []string{"a", "b", "c", "e", "f"})
	for _, id := range removed {
		_, err := s.Ticket(bg, id)
		wantCode(t, "Ticket "+id, err, cupid.CodeNotFound)
	}
	get(t, s, held)
	get(t, s, "d")

	// A match is selected by its id; Only without it removes nothing.
	r, err := p.Prune(bg, cupid.Fence{}, cupid.PruneRequest{Kind: cupid.RetainMatches, Before: before, Limit: 10, Select: true})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "selected matches", r.IDs, []string{"ended"})
	if rec := record(t, s, "ended"); rec.State != cupid.MatchEnded {
		t.Errorf("the selected match is %s", rec.State)
	}
	if d, err := p.Prune(bg, cupid.Fence{}, cupid.PruneRequest{Kind: cupid.RetainMatches, Before: before, Limit: 10, Only: []string{}}); err != nil || d.Removed != 0 {
		t.Errorf("Only empty removed %+v (%v)", d, err)
	}
	record(t, s, "ended")

	if isRatings {
		r, err := p.Prune(bg, cupid.Fence{}, cupid.PruneRequest{Kind: cupid.RetainRatingResults, Before: before, Limit: 10, Select: true})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "selected results", r.IDs, []string{"r0"})
		if _, err := rs.Result(bg, "r0"); err != nil {
			t.Fatalf("the selected result by its id: %v", err)
		}
		d, err := p.Prune(bg, cupid.Fence{}, cupid.PruneRequest{Kind: cupid.RetainRatingResults, Before: before, Limit: 10, Only: r.IDs})
		if err != nil || d.Removed != 1 {
			t.Fatalf("removed %+v (%v)", d, err)
		}
		_, err = rs.Result(bg, "r0")
		wantCode(t, "Result r0", err, cupid.CodeNotFound)
		if _, err := rs.Result(bg, "r1"); err != nil {
			t.Errorf("the young result: %v", err)
		}
	}
	// The next pass without Only removes what was held back.
	if got := pruneAll(t, p, before, 2); got[cupid.RetainTickets] != 1 || got[cupid.RetainMatches] != 1 {
		t.Errorf("the next pass removed %v, want the ticket and the match held back", got)
	}
}
