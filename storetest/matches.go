package storetest

import (
	"fmt"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// duelMatch builds a match of queue duel from ticket ids, one per team.
func duelMatch(id string, at time.Time, tickets ...string) *cupid.Match {
	var teams [][]string
	for _, tk := range tickets {
		teams = append(teams, []string{tk})
	}
	m := match(id, at, teams...)
	m.Key = cupid.QueueKey{Queue: "duel"}
	return m
}

func matchEvents(t *testing.T, s cupid.Store, queue string, after int64, limit int) []cupid.MatchEvent {
	t.Helper()
	evs, err := s.MatchEvents(bg, queue, after, limit)
	if err != nil {
		t.Fatalf("MatchEvents(%s, %d): %v", queue, after, err)
	}
	for i := range evs {
		if evs[i].Seq <= 0 || (i > 0 && evs[i].Seq <= evs[i-1].Seq) || evs[i].Queue != queue {
			t.Fatalf("match events out of order or of another queue: %v", matchEventStrings(evs))
		}
		if evs[i].Match == nil || evs[i].Match.ID != evs[i].MatchID {
			t.Fatalf("match event %d lacks its match: %+v", i, evs[i])
		}
	}
	return evs
}

func matchEventStrings(evs []cupid.MatchEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = string(e.Kind) + " " + e.MatchID
		if e.Assignment != nil {
			out[i] += " at " + e.Assignment.Server
		}
		if e.Reason != "" {
			out[i] += ": " + e.Reason
		}
	}
	return out
}

func record(t *testing.T, s cupid.Store, id string) *cupid.MatchRecord {
	t.Helper()
	r, err := s.MatchRecord(bg, id)
	if err != nil {
		t.Fatalf("MatchRecord(%s): %v", id, err)
	}
	return r
}

func recordIDs(rs []*cupid.MatchRecord) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Match.ID
	}
	return out
}

func testMatchLog(t *testing.T, s cupid.Store) {
	var m maker
	create(t, s, nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2")), nt(m.tk("c", "duel", "", "p3")),
		nt(m.tk("d", "duel", "", "p4")), nt(m.tk("e", "ffa", "", "p5")), nt(m.tk("f", "ffa", "", "p6")))
	at := T0.Add(time.Minute)
	ffa := match("m2", at, []string{"e"}, []string{"f"})
	ffa.Key = cupid.QueueKey{Queue: "ffa"}
	out, _ := commit(t, s, duelMatch("m1", at, "a", "b"), ffa, duelMatch("m3", at.Add(time.Second), "c", "d"),
		duelMatch("refused", at, "a", "zz"))
	if out[3].OK || out[3].Formed.Seq != 0 {
		t.Fatalf("a refused match is logged: %+v", out[3])
	}
	for i, c := range out[:3] {
		f := c.Formed
		if f.Seq <= 0 || (i > 0 && f.Seq <= out[i-1].Formed.Seq) || f.Kind != cupid.MatchEventFormed || f.MatchID != []string{"m1", "m2", "m3"}[i] {
			t.Fatalf("match %d formed event %+v", i, f)
		}
	}
	evs := matchEvents(t, s, "duel", 0, 100)
	eq(t, "duel log", matchEventStrings(evs), []string{"formed m1", "formed m3"})
	if evs[0].Seq != out[0].Formed.Seq || !evs[0].At.Equal(at) || len(evs[0].Match.Teams) != 2 {
		t.Fatalf("logged %+v, committed %+v", evs[0], out[0].Formed)
	}
	eq(t, "ffa log", matchEventStrings(matchEvents(t, s, "ffa", 0, 100)), []string{"formed m2"})
	eq(t, "after the first", matchEventStrings(matchEvents(t, s, "duel", evs[0].Seq, 100)), []string{"formed m3"})
	eq(t, "a page of one", matchEventStrings(matchEvents(t, s, "duel", 0, 1)), []string{"formed m1"})
	eq(t, "after the last", matchEventStrings(matchEvents(t, s, "duel", evs[1].Seq, 100)), nil)
	eq(t, "unknown queue", matchEventStrings(matchEvents(t, s, "nope", 0, 100)), nil)

	r := record(t, s, "m1")
	if r.State != cupid.MatchFormed || r.Assignment != nil || !r.UpdatedAt.Equal(at) || r.Match.Key.Queue != "duel" || r.Match.ID != "m1" {
		t.Fatalf("m1 record %+v", r)
	}
	_, err := s.MatchRecord(bg, "nope")
	wantCode(t, "MatchRecord of an unknown match", err, cupid.CodeNotFound)
	list, err := s.Matches(bg, cupid.MatchFilter{Queue: "duel"})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "duel matches", recordIDs(list), []string{"m1", "m3"})
	list, _ = s.Matches(bg, cupid.MatchFilter{Queue: "duel", Limit: 1})
	eq(t, "one duel match", recordIDs(list), []string{"m1"})
	list, _ = s.Matches(bg, cupid.MatchFilter{Queue: "duel", State: cupid.MatchAssigned})
	eq(t, "assigned duel matches", recordIDs(list), nil)
}

func testAssignMatch(t *testing.T, s cupid.Store) {
	var m maker
	create(t, s, nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2", "p3")), nt(m.tk("c", "duel", "", "p4")), nt(m.tk("d", "duel", "", "p5")))
	at := T0.Add(time.Minute)
	out, _ := commit(t, s, duelMatch("m1", at, "b", "a"), duelMatch("m2", at, "c", "d"))
	a := cupid.Assignment{Server: "10.0.0.7:7777", SessionID: "s-1", Connection: map[string]string{"token": "xyz"}, At: at.Add(time.Second)}

	// Refusals change nothing.
	_, _, _, err := lifecycle.Assign(bg, s, cupid.Fence{}, "nope", a)
	wantCode(t, "assign an unknown match", err, cupid.CodeNotFound)
	bad := a
	bad.Server = ""
	_, _, _, err = lifecycle.Assign(bg, s, cupid.Fence{}, "m1", bad)
	wantCode(t, "assign without a server", err, cupid.CodeInvalid)
	eq(t, "log after refusals", matchEventStrings(matchEvents(t, s, "duel", 0, 100)), []string{"formed m1", "formed m2"})

	rec, mev, evs, err := lifecycle.Assign(bg, s, cupid.Fence{}, "m1", a)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != cupid.MatchAssigned || rec.Assignment == nil || rec.Assignment.Server != a.Server || rec.Assignment.SessionID != "s-1" ||
		rec.Assignment.Connection["token"] != "xyz" || !rec.Assignment.At.Equal(a.At) || !rec.UpdatedAt.Equal(a.At) {
		t.Fatalf("assigned record %+v", rec)
	}
	if mev.Seq <= out[1].Formed.Seq || mev.Kind != cupid.MatchEventAssigned || mev.Assignment == nil || mev.Assignment.Server != a.Server {
		t.Fatalf("assigned match event %+v", mev)
	}
	checkSeqOrder(t, evs)
	eq(t, "ticket events", eventStrings(evs), []string{"assigned b", "assigned a"})
	for _, e := range evs {
		if e.Assignment == nil || e.Assignment.Server != a.Server || e.Match == nil || e.Match.ID != "m1" || !e.At.Equal(a.At) {
			t.Fatalf("assigned ticket event %+v", e)
		}
	}
	stored := record(t, s, "m1")
	if stored.State != cupid.MatchAssigned || stored.Assignment == nil || stored.Assignment.Connection["token"] != "xyz" {
		t.Fatalf("stored record %+v", stored)
	}
	log := matchEvents(t, s, "duel", 0, 100)
	eq(t, "log", matchEventStrings(log), []string{"formed m1", "formed m2", "assigned m1 at 10.0.0.7:7777"})
	if log[2].Seq != mev.Seq {
		t.Fatalf("logged seq %d, returned %d", log[2].Seq, mev.Seq)
	}
	hist, _ := s.Events(bg, "a", 0)
	eq(t, "a's history", eventStrings(hist), []string{"created a", "matched a", "assigned a"})
	if tk := get(t, s, "a"); tk.State != cupid.StateMatched || tk.MatchID != "m1" {
		t.Fatalf("an assigned ticket is %s in %q", tk.State, tk.MatchID)
	}
	list, _ := s.Matches(bg, cupid.MatchFilter{Queue: "duel", State: cupid.MatchFormed})
	eq(t, "formed", recordIDs(list), []string{"m2"})

	// Assigning twice, or releasing an assigned match, is refused and
	// changes nothing.
	again := a
	again.Server = "elsewhere:1"
	_, _, _, err = lifecycle.Assign(bg, s, cupid.Fence{}, "m1", again)
	wantCode(t, "assign twice", err, cupid.CodeConflict)
	_, err = lifecycle.Release(bg, s, cupid.Fence{}, "m1", cupid.Release{Requeue: true, Reason: "late"}, at.Add(time.Hour))
	wantCode(t, "release an assigned match", err, cupid.CodeConflict)
	if r := record(t, s, "m1"); r.Assignment.Server != a.Server || r.State != cupid.MatchAssigned {
		t.Fatalf("after refusals %+v", r)
	}
	eq(t, "log after refusals", matchEventStrings(matchEvents(t, s, "duel", 0, 100)), []string{"formed m1", "formed m2", "assigned m1 at 10.0.0.7:7777"})
	hist, _ = s.Events(bg, "a", 0)
	eq(t, "a's history after refusals", eventStrings(hist), []string{"created a", "matched a", "assigned a"})
}

func testReleaseMatch(t *testing.T, open opener) {
	for _, requeue := range []bool{true, false} {
		t.Run(fmt.Sprintf("requeue=%v", requeue), func(t *testing.T) {
			s := open(t)
			var m maker
			a, b := m.tk("a", "duel", "", "p1"), m.tk("b", "duel", "", "p2", "p3")
			create(t, s, nt(a), nt(b))
			at := T0.Add(time.Minute)
			commit(t, s, duelMatch("m1", at, "b", "a"))
			_, err := lifecycle.Release(bg, s, cupid.Fence{}, "nope", cupid.Release{Requeue: requeue, Reason: "timeout"}, at)
			wantCode(t, "release an unknown match", err, cupid.CodeNotFound)

			now := at.Add(30 * time.Second)
			r, err := lifecycle.Release(bg, s, cupid.Fence{}, "m1", cupid.Release{Requeue: requeue, Reason: "not assigned within 30s"}, now)
			if err != nil {
				t.Fatal(err)
			}
			if r.Match.State != cupid.MatchReleased || r.Match.Reason != "not assigned within 30s" || !r.Match.UpdatedAt.Equal(now) {
				t.Fatalf("released record %+v", r.Match)
			}
			if r.Event.Kind != cupid.MatchEventReleased || r.Event.Seq <= 0 || r.Event.Reason != "not assigned within 30s" {
				t.Fatalf("released event %+v", r.Event)
			}
			checkSeqOrder(t, r.Events)
			kind, state := cupid.EventCancelled, cupid.StateCancelled
			moved, other := r.Cancelled, r.Requeued
			if requeue {
				kind, state = cupid.EventRequeued, cupid.StateWaiting
				moved, other = r.Requeued, r.Cancelled
			}
			eq(t, "moved", ids(moved), []string{"b", "a"})
			eq(t, "others", ids(other), nil)
			eq(t, "events", eventStrings(r.Events), []string{string(kind) + " b: not assigned within 30s", string(kind) + " a: not assigned within 30s"})
			for _, want := range []*cupid.Ticket{a, b} {
				tk := get(t, s, want.ID)
				wantReason := "not assigned within 30s"
				if requeue {
					wantReason = ""
				}
				if tk.State != state || tk.MatchID != "" || !tk.CreatedAt.Equal(want.CreatedAt) || !tk.UpdatedAt.Equal(now) || tk.Reason != wantReason {
					t.Fatalf("%s after release: %+v", want.ID, tk)
				}
			}
			eq(t, "log", matchEventStrings(matchEvents(t, s, "duel", 0, 100)), []string{"formed m1", "released m1: not assigned within 30s"})

			// Released is final.
			_, err = lifecycle.Release(bg, s, cupid.Fence{}, "m1", cupid.Release{Requeue: requeue, Reason: "again"}, now)
			wantCode(t, "release twice", err, cupid.CodeConflict)
			_, _, _, err = lifecycle.Assign(bg, s, cupid.Fence{}, "m1", cupid.Assignment{Server: "x:1", At: now})
			wantCode(t, "assign a released match", err, cupid.CodeConflict)

			// The player index is right: requeued players are live again,
			// cancelled ones free.
			c, _ := create(t, s, nt(m.tk("n", "duel", "", "p3")))
			if requeue {
				wantCode(t, "a requeued player's second ticket", c[0].Err, cupid.CodeAlreadyExists)
				eq(t, "waiting", waitingIDs(t, s), []string{"a", "b"})
				// And the requeued tickets can be matched again.
				out, _ := commit(t, s, duelMatch("m2", now.Add(time.Second), "a", "b"))
				if !out[0].OK {
					t.Fatalf("requeued tickets not matched again: %+v", out[0])
				}
				if tk := get(t, s, "a"); tk.MatchID != "m2" {
					t.Fatalf("a in match %q", tk.MatchID)
				}
			} else if c[0].Err != nil {
				t.Fatalf("a cancelled player's new ticket: %v", c[0].Err)
			}
		})
	}
}

// testReleaseRequeueTaken: a player who queued again while his match waited
// for a server keeps the new ticket; the old one is cancelled, the other
// tickets of the match go back.
func testReleaseRequeueTaken(t *testing.T, s cupid.Store) {
	var m maker
	create(t, s, nt(m.tk("a", "duel", "", "p1")), nt(m.tk("b", "duel", "", "p2")))
	at := T0.Add(time.Minute)
	commit(t, s, duelMatch("m1", at, "a", "b"))
	create(t, s, nt(m.tk("c", "duel", "", "p2")))
	r, err := lifecycle.Release(bg, s, cupid.Fence{}, "m1", cupid.Release{Requeue: true, Reason: "timeout"}, at.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "requeued", ids(r.Requeued), []string{"a"})
	eq(t, "cancelled", ids(r.Cancelled), []string{"b"})
	why := lifecycle.RequeueTakenReason("p2", "c", "duel")
	eq(t, "events", eventStrings(r.Events), []string{"requeued a: timeout", "cancelled b: " + why})
	if tk := get(t, s, "b"); tk.State != cupid.StateCancelled || tk.Reason != why {
		t.Fatalf("b %+v", tk)
	}
	eq(t, "waiting", waitingIDs(t, s), []string{"a", "c"})
}
