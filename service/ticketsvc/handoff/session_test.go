package handoff

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

func TestSessionChangesReachThePool(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx := context.Background()
	m := h.formed(t, false, "alice", "bob")

	rec, err := h.OpenBackfill(ctx, m.ID, nil)
	if err != nil || !rec.Match.Backfill {
		t.Fatalf("opened %+v (%v)", rec, err)
	}
	if s := h.pools.lastSet(); s.id != m.ID || !s.open || !slices.Equal(s.players, []string{"alice", "bob"}) || s.seq == 0 {
		t.Fatalf("after opening, the pool was told %+v", s)
	}
	if rec, err = h.CloseBackfill(ctx, m.ID); err != nil || rec.Match.Backfill {
		t.Fatalf("closed %+v (%v)", rec, err)
	}
	if s := h.pools.lastSet(); s.open || len(s.players) != 0 {
		t.Fatalf("after closing, the pool was told %+v", s)
	}
	_, err = h.CloseBackfill(ctx, m.ID)
	wantErr(t, err, cupid.CodeConflict, "match_id")
	if rec, err = h.EndSession(ctx, m.ID); err != nil || rec.State != cupid.MatchEnded {
		t.Fatalf("ended %+v (%v)", rec, err)
	}
	_, err = h.EndSession(ctx, m.ID)
	wantErr(t, err, cupid.CodeConflict, "match_id")
	_, err = h.EndSession(ctx, "")
	wantErr(t, err, cupid.CodeInvalid, "match_id")

	// A queue another node runs: the change is stored, the pool (there)
	// hears of it from the match log, not from here.
	m2 := h.formed(t, false, "carol", "dan")
	n := len(h.pools.sets)
	h.pools.elsewhere["duel"] = true
	if _, err := h.OpenBackfill(ctx, m2.ID, nil); err != nil {
		t.Fatal(err)
	}
	if len(h.pools.sets) != n {
		t.Fatalf("a node that does not run the queue told its pools %+v", h.pools.lastSet())
	}
}

func TestSessionPlayersComeFromTicketsAndTheServer(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx := context.Background()
	m := h.formed(t, false, "alice", "bob")
	teams := [][]cupid.Player{{{ID: "alice"}, {ID: "erin", Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1400)})}}, {}}
	rec, err := h.OpenBackfillWithTeams(ctx, m.ID, map[string][]string{"mode": {"ranked"}}, teams)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Match.InTeams("erin") || rec.Match.InTeams("bob") {
		t.Fatalf("the session's teams %+v", rec.Match.Teams)
	}
	// bob left (his ticket's data is not asked for); erin is the server's.
	if s := h.pools.lastSet(); !slices.Equal(s.players, []string{"alice", "bob", "erin"}) {
		t.Fatalf("the pool was given players %v", s.players)
	}

	// A player whose ticket the store cannot read leaves the session
	// unheld until it changes again, with nothing told to the pool.
	h.store.FailNext("Tickets", errDiskFull)
	n := len(h.pools.sets)
	if _, err := h.OpenBackfill(ctx, m.ID, nil); err != nil {
		t.Fatal(err)
	}
	if len(h.pools.sets) != n {
		t.Fatal("the pool was told of a session whose players were not read")
	}
}

func TestOpenBackfillRefusals(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx := context.Background()
	m := h.formed(t, false, "alice", "bob")
	long := strings.Repeat("x", maxSessionOptionBytes+1)
	many := map[string][]string{}
	for i := range maxSessionOptions + 1 {
		many[string(rune('a'+i%26))+strings.Repeat("y", i)] = []string{"v"}
	}
	for _, c := range []struct {
		name    string
		id      string
		options map[string][]string
		teams   [][]cupid.Player
		code    cupid.Code
		field   string
	}{
		{"no id", "", map[string][]string{"mode": {"ranked"}}, nil, cupid.CodeInvalid, "match_id"},
		{"unknown match", "nope", map[string][]string{"mode": {"ranked"}}, nil, cupid.CodeNotFound, "match_id"},
		{"too many options", m.ID, many, nil, cupid.CodeInvalid, "match_options"},
		{"not an option", m.ID, map[string][]string{"map": {"dust"}}, nil, cupid.CodeInvalid, "match_options.map"},
		{"no values", m.ID, map[string][]string{"mode": {}}, nil, cupid.CodeInvalid, "match_options.mode"},
		{"empty value", m.ID, map[string][]string{"mode": {""}}, nil, cupid.CodeInvalid, "match_options.mode[0]"},
		{"long value", m.ID, map[string][]string{"mode": {"ranked", long}}, nil, cupid.CodeInvalid, "match_options.mode[1]"},
		{"team count", m.ID, nil, [][]cupid.Player{{{ID: "alice"}}}, cupid.CodeInvalid, "teams"},
		{"attribute the rules refuse", m.ID, nil, [][]cupid.Player{{{ID: "alice", Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.String("high")})}}, {}},
			cupid.CodeInvalid, "teams[0].players[0].attributes.mmr"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.OpenBackfillWithTeams(ctx, c.id, c.options, c.teams)
			wantErr(t, err, c.code, c.field)
			if r := h.match(t, m.ID); r.Match.Backfill || len(h.pools.sets) != 0 {
				t.Fatalf("a refusal changed the session: %+v", r.Match)
			}
		})
	}
	// A queue whose ruleset is gone (the pools know no such queue).
	wantErr(t, h.checkOptions("solo", nil), cupid.CodeNotFound, "queue")
	wantErr(t, h.checkServerPlayers("solo", nil), cupid.CodeNotFound, "queue")
}

func TestReportLeavers(t *testing.T) {
	h := newHarness(t, Policy{LeaverWindow: time.Minute})
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		players []string
		field   string
	}{
		{"none", nil, "player_ids"},
		{"empty", []string{"alice", ""}, "player_ids[1]"},
		{"twice", []string{"alice", "alice"}, "player_ids[1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := h.ReportLeavers(ctx, "m1", c.players)
			wantErr(t, err, cupid.CodeInvalid, c.field)
		})
	}
	_, err := h.ReportLeavers(ctx, "", []string{"alice"})
	wantErr(t, err, cupid.CodeInvalid, "match_id")
	_, err = h.ReportLeavers(ctx, "nope", []string{"alice"})
	wantErr(t, err, cupid.CodeNotFound, "match_id")

	// Before the assignment, and within the window after it, a leaver's
	// seat reopens to backfill; after the window it closes.
	m := h.formed(t, false, "a1", "a2", "a3")
	rec, err := h.ReportLeavers(ctx, m.ID, []string{"a1"})
	if err != nil || !rec.Match.Backfill {
		t.Fatalf("a leaver before the assignment: %+v (%v)", rec, err)
	}
	if _, err := h.CloseBackfill(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.AssignMatch(ctx, m.ID, cupid.Assignment{Server: "s:1"}); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Minute)
	if rec, err = h.ReportLeavers(ctx, m.ID, []string{"a2"}); err != nil || !rec.Match.Backfill {
		t.Fatalf("a leaver at the window's end: %+v (%v)", rec, err)
	}
	if _, err := h.CloseBackfill(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Second)
	if rec, err = h.ReportLeavers(ctx, m.ID, []string{"a3"}); err != nil || rec.Match.Backfill {
		t.Fatalf("a leaver after the window: %+v (%v)", rec, err)
	}
	_, err = h.ReportLeavers(ctx, m.ID, []string{"zed"})
	wantErr(t, err, cupid.CodeConflict, "player_ids[0]", "zed")
}

func TestEndDue(t *testing.T) {
	h := newHarness(t, Policy{MaxSession: time.Hour})
	ctx := context.Background()
	formed := h.formed(t, false, "a1", "a2")
	assigned := h.formed(t, false, "b1", "b2")
	if _, err := h.AssignMatch(ctx, assigned.ID, cupid.Assignment{Server: "s:1"}); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(30 * time.Minute)
	late := h.formed(t, false, "c1", "c2")
	if next := h.endDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(30 * time.Minute)) {
		t.Fatalf("next look at %v, want the oldest session's end", next)
	}
	h.clock.Advance(30 * time.Minute)
	if next := h.endDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(30 * time.Minute)) {
		t.Fatalf("next look at %v, want the late session's end", next)
	}
	for id, want := range map[string]cupid.MatchState{formed.ID: cupid.MatchEnded, assigned.ID: cupid.MatchEnded, late.ID: cupid.MatchFormed} {
		if r := h.match(t, id); r.State != want {
			t.Fatalf("match %s is %s, want %s", id, r.State, want)
		}
	}
	for _, op := range []string{"Matches", "ChangeSession"} {
		h.clock.Advance(time.Hour)
		h.store.FailNext(op, errDiskFull)
		if next := h.endDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h.clock.Now().Add(time.Second)) {
			t.Fatalf("with %s failing the next look is at %v, want in a second", op, next)
		}
	}
	h.ReleaseDue(ctx)
	if r := h.match(t, late.ID); r.State != cupid.MatchEnded {
		t.Fatalf("once the store works the late session is %s", r.State)
	}
	h2 := newHarness(t, Policy{})
	if next := h2.endDue(ctx, cupid.Fence{}, "duel"); !next.Equal(h2.clock.Now().Add(time.Hour)) {
		t.Fatalf("a queue without max_session looks again at %v", next)
	}
}

func TestLoadSessions(t *testing.T) {
	h := newHarness(t, Policy{})
	ctx := context.Background()
	open := h.formed(t, true, "a1", "a2")
	h.formed(t, false, "b1", "b2") // closed: not a pool's business
	if err := h.LoadSessions(ctx, "solo"); err != nil || len(h.pools.loaded) != 0 {
		t.Fatalf("another queue's sessions loaded %v (%v)", h.pools.loaded, err)
	}
	if err := h.LoadSessions(ctx, ""); err != nil || !slices.Equal(h.pools.loaded, []string{open.ID}) {
		t.Fatalf("loaded %v (%v)", h.pools.loaded, err)
	}
	h.pools.gone = true // the node gave the queue up meanwhile
	if err := h.LoadSessions(ctx, "duel"); err != nil || len(h.pools.loaded) != 1 {
		t.Fatalf("loaded %v (%v)", h.pools.loaded, err)
	}
	for _, c := range []struct {
		fail    string
		poolErr error
	}{
		{"OpenSessions", nil},
		{"Tickets", nil},
		{"", errors.New("closed while starting")},
	} {
		if c.fail != "" {
			h.store.FailNext(c.fail, errDiskFull)
		}
		h.pools.loadErr = c.poolErr
		if err := h.LoadSessions(ctx, ""); err == nil {
			t.Fatalf("%s failing: no error", c.fail)
		}
	}
}
