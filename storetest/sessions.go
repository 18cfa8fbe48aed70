package storetest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// sessionMatch builds a match of queue team with seats, open to backfill:
// teams are ticket ids, each ticket's player is "p"+ticket.
func sessionMatch(id string, at time.Time, seats []int, teams ...[]string) *cupid.Match {
	m := &cupid.Match{ID: id, Key: cupid.QueueKey{Queue: "team"}, CreatedAt: at, Quality: cupid.Quality{Score: 0.5}, Seats: seats, Backfill: true}
	for _, ids := range teams {
		team := cupid.Team{TicketIDs: ids}
		for _, tk := range ids {
			team.PlayerIDs = append(team.PlayerIDs, "p"+tk)
		}
		m.Teams = append(m.Teams, team)
	}
	return m
}

// newcomers builds a backfill's teams the same way.
func newcomers(teams ...[]string) []cupid.Team {
	out := make([]cupid.Team, len(teams))
	for i, ids := range teams {
		out[i].TicketIDs = ids
		for _, tk := range ids {
			out[i].PlayerIDs = append(out[i].PlayerIDs, "p"+tk)
		}
	}
	return out
}

func playersOf(m *cupid.Match) []string {
	var out []string
	for i, t := range m.Teams {
		out = append(out, fmt.Sprint(i, t.PlayerIDs))
	}
	return out
}

func backfill(t *testing.T, s cupid.Store, bs ...cupid.Backfill) ([]cupid.Backfilled, []cupid.Event) {
	t.Helper()
	out, evs, err := lifecycle.Backfill(bg, s, cupid.Fence{}, bs)
	if err != nil {
		t.Fatalf("CommitBackfills: %v", err)
	}
	if len(out) != len(bs) {
		t.Fatalf("CommitBackfills returned %d results for %d backfills", len(out), len(bs))
	}
	checkSeqOrder(t, evs)
	return out, evs
}

func openSessions(t *testing.T, s cupid.Store) []string {
	t.Helper()
	rs, err := s.OpenSessions(bg)
	if err != nil {
		t.Fatalf("OpenSessions: %v", err)
	}
	return recordIDs(rs)
}

// testSessions follows one session through backfill, assignment, leavers,
// closing and its end, with the refusals that change nothing on the way.
func testSessions(t *testing.T, s cupid.Store) {
	var m maker
	tk := func(id, queue string) cupid.NewTicket { return nt(m.tk(id, queue, "", "p"+id)) }
	party := m.tk("d", "team", "", "pd1", "pd2")
	create(t, s, tk("a", "team"), tk("b", "team"), tk("c", "team"), nt(party), tk("e", "team"), tk("x", "other"))
	// x is c's player's live ticket elsewhere: c joining a session
	// cancels it, as a match would.
	x := m.tk("cx", "other", "", "pc")
	create(t, s, nt(x))
	at := T0.Add(time.Minute)
	out, _ := commit(t, s, sessionMatch("s1", at, []int{2, 2}, []string{"a"}, []string{"b"}))
	if !out[0].OK {
		t.Fatalf("commit: %+v", out[0])
	}
	eq(t, "open sessions after the commit", openSessions(t, s), []string{"s1"})

	bat := at.Add(time.Second)
	res, evs := backfill(t, s,
		cupid.Backfill{MatchID: "s1", Teams: newcomers([]string{"c"}, nil), At: bat},
		cupid.Backfill{MatchID: "s1", Teams: []cupid.Team{{}, {TicketIDs: []string{"d"}, PlayerIDs: []string{"pd1", "pd2"}}}, At: bat},
		cupid.Backfill{MatchID: "s1", Teams: newcomers([]string{"zz"}, nil), At: bat},
		cupid.Backfill{MatchID: "nope", Teams: newcomers([]string{"e"}, nil), At: bat},
	)
	if !res[0].OK || res[0].Err != nil || res[0].Event.Kind != cupid.MatchEventBackfilled || res[0].Event.Seq <= out[0].Formed.Seq {
		t.Fatalf("backfill of c: %+v", res[0])
	}
	eq(t, "backfilled event's tickets", res[0].Event.TicketIDs, []string{"c"})
	eq(t, "backfilled event's players", res[0].Event.PlayerIDs, []string{"pc"})
	eq(t, "cancelled by the backfill", ids(res[0].Cancelled), []string{"cx"})
	eq(t, "teams after c", playersOf(res[0].Match.Match), []string{"0 [pa pc]", "1 [pb]"})
	if res[1].OK || cupid.ErrorCode(res[1].Err) != cupid.CodeConflict {
		t.Fatalf("a party of two into a team with one seat: %+v", res[1])
	}
	if res[2].OK || !slices.Equal(res[2].NotWaiting, []string{"zz"}) {
		t.Fatalf("a backfill of an unknown ticket: %+v", res[2])
	}
	if res[3].OK || cupid.ErrorCode(res[3].Err) != cupid.CodeNotFound {
		t.Fatalf("a backfill of an unknown session: %+v", res[3])
	}
	eq(t, "events of the backfill", eventStrings(evs), []string{"matched c", "cancelled cx: " + lifecycle.MatchedElsewhereReason("pc", "team", "s1")})
	if evs[0].Match == nil || !slices.Equal(playersOf(evs[0].Match), []string{"0 [pa pc]", "1 [pb]"}) {
		t.Fatalf("c's matched event carries %+v, want the session after the backfill", evs[0].Match)
	}
	if c := get(t, s, "c"); c.State != cupid.StateMatched || c.MatchID != "s1" {
		t.Fatalf("c after its backfill: %s in %q", c.State, c.MatchID)
	}
	eq(t, "waiting after the backfill", waitingIDs(t, s), []string{"d", "e", "x"})
	eq(t, "open sessions, one seat left", openSessions(t, s), []string{"s1"})

	// Assigned: a newcomer also hears where to connect; the last seat
	// closes backfill by itself.
	if _, _, _, err := lifecycle.Assign(bg, s, cupid.Fence{}, "s1", cupid.Assignment{Server: "10.0.0.1:7777", At: bat}); err != nil {
		t.Fatal(err)
	}
	res, evs = backfill(t, s, cupid.Backfill{MatchID: "s1", Teams: newcomers(nil, []string{"e"}), At: bat.Add(time.Second)})
	if !res[0].OK || res[0].Match.Match.Backfill || res[0].Match.State != cupid.MatchAssigned {
		t.Fatalf("the last seat: %+v", res[0])
	}
	eq(t, "events of a backfill into an assigned session", eventStrings(evs), []string{"matched e", "assigned e"})
	if evs[1].Assignment == nil || evs[1].Assignment.Server != "10.0.0.1:7777" {
		t.Fatalf("e's assigned event: %+v", evs[1])
	}
	eq(t, "open sessions once full", openSessions(t, s), nil)
	res, _ = backfill(t, s, cupid.Backfill{MatchID: "s1", Teams: newcomers(nil, []string{"x"}), At: bat})
	if res[0].OK || cupid.ErrorCode(res[0].Err) != cupid.CodeConflict {
		t.Fatalf("a backfill of a full session: %+v", res[0])
	}

	change := func(c cupid.SessionChange, at time.Time) (*cupid.MatchRecord, cupid.MatchEvent, error) {
		return lifecycle.ChangeSession(bg, s, cupid.Fence{}, "s1", c, at)
	}
	lat := bat.Add(time.Minute)
	if _, _, err := change(cupid.SessionChange{Kind: cupid.MatchEventBackfillOpened}, lat); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("opening backfill of a full session: %v", err)
	}
	// A leaver within the window: his seat stays and backfill opens.
	r, mev, err := change(cupid.SessionChange{Kind: cupid.MatchEventLeft, Players: []string{"pb"}, Reopen: true}, lat)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "teams after pb left", playersOf(r.Match), []string{"0 [pa pc]", "1 [pe]"})
	if !r.Match.Backfill || !slices.Equal(r.Match.Seats, []int{2, 2}) || len(r.Match.Left) != 1 || r.Match.Left[0] != (cupid.Leaver{PlayerID: "pb", Team: 1, At: lat, Replaced: true}) {
		t.Fatalf("session after a leaver within the window: %+v", r.Match)
	}
	if mev.Kind != cupid.MatchEventLeft || !slices.Equal(mev.PlayerIDs, []string{"pb"}) {
		t.Fatalf("left event: %+v", mev)
	}
	// After the window: the seat goes with him.
	r, _, err = change(cupid.SessionChange{Kind: cupid.MatchEventLeft, Players: []string{"pc"}}, lat)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Match.Seats, []int{1, 2}) || !r.Match.Backfill || r.Match.Left[1].Replaced {
		t.Fatalf("session after a late leaver: %+v", r.Match)
	}
	before := record(t, s, "s1")
	for _, c := range []cupid.SessionChange{
		{Kind: cupid.MatchEventLeft, Players: []string{"pb"}},           // gone already
		{Kind: cupid.MatchEventLeft, Players: []string{"pa", "nobody"}}, // one of them not in it
		{Kind: cupid.MatchEventLeft},
	} {
		if _, _, err := change(c, lat); err == nil {
			t.Fatalf("%+v: accepted", c)
		}
	}
	if after := record(t, s, "s1"); !slices.Equal(playersOf(after.Match), playersOf(before.Match)) || len(after.Match.Left) != 2 {
		t.Fatalf("a refused leave changed the session: %+v", after.Match)
	}
	if _, _, err := change(cupid.SessionChange{Kind: cupid.MatchEventBackfillClosed}, lat); err != nil {
		t.Fatal(err)
	}
	if _, _, err := change(cupid.SessionChange{Kind: cupid.MatchEventBackfillClosed}, lat); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("closing backfill twice: %v", err)
	}
	eq(t, "open sessions once closed", openSessions(t, s), nil)
	res, _ = backfill(t, s, cupid.Backfill{MatchID: "s1", Teams: newcomers(nil, []string{"x"}), At: lat})
	if res[0].OK || cupid.ErrorCode(res[0].Err) != cupid.CodeConflict {
		t.Fatalf("a backfill of a closed session: %+v", res[0])
	}
	if _, _, err := change(cupid.SessionChange{Kind: cupid.MatchEventBackfillOpened, Options: map[string][]string{"mode": {"casual", "arcade"}}}, lat); err != nil {
		t.Fatal(err)
	}
	eq(t, "open sessions once opened by hand", openSessions(t, s), []string{"s1"})
	eq(t, "the options backfill opened with", record(t, s, "s1").Match.BackfillOptions["mode"], []string{"casual", "arcade"})
	r, _, err = change(cupid.SessionChange{Kind: cupid.MatchEventEnded}, lat.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if r.State != cupid.MatchEnded || r.Match.Backfill || !r.UpdatedAt.Equal(lat.Add(time.Second)) {
		t.Fatalf("ended session: %+v", r)
	}
	eq(t, "open sessions once ended", openSessions(t, s), nil)
	for _, k := range []cupid.MatchEventKind{cupid.MatchEventEnded, cupid.MatchEventBackfillOpened, cupid.MatchEventLeft} {
		if _, _, err := change(cupid.SessionChange{Kind: k, Players: []string{"pa"}}, lat); cupid.ErrorCode(err) != cupid.CodeConflict {
			t.Fatalf("%s after the end: %v", k, err)
		}
	}
	if _, _, err := lifecycle.ChangeSession(bg, s, cupid.Fence{}, "nope", cupid.SessionChange{Kind: cupid.MatchEventEnded}, lat); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("ending an unknown session: %v", err)
	}
	if _, _, _, err := lifecycle.Assign(bg, s, cupid.Fence{}, "s1", cupid.Assignment{Server: "x", At: lat}); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("assigning an ended session: %v", err)
	}

	got := matchEvents(t, s, "team", 0, 100)
	var kinds []string
	for _, e := range got {
		kinds = append(kinds, string(e.Kind)+fmt.Sprint(e.TicketIDs, e.PlayerIDs))
	}
	eq(t, "the session's match log", kinds, []string{"formed[] []", "backfilled[c] [pc]", "assigned[] []", "backfilled[e] [pe]",
		"left[] [pb]", "left[] [pc]", "backfill_closed[] []", "backfill_opened[] []", "ended[] []"})
	// Every reader sees the session as it is now.
	tevs, err := s.Events(bg, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if m := tevs[len(tevs)-1].Match; m == nil || !slices.Equal(playersOf(m), []string{"0 [pa]", "1 [pe]"}) {
		t.Fatalf("a's events carry %+v", m)
	}
	if rs, err := s.Matches(bg, cupid.MatchFilter{Queue: "team", State: cupid.MatchEnded}); err != nil || len(rs) != 1 {
		t.Fatalf("ended matches: %v %v", recordIDs(rs), err)
	}
}

// errField is the field an error of the contract names.
func errField(err error) string {
	var e *cupid.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// testSessionTeams opens backfill with the game server's view of the
// teams: refusals change nothing; accepted, the view becomes the teams,
// absent players leave with their seats kept, the game server's
// attributes are stored on the match. Releasing the match then cancels
// the leaver's ticket instead of requeueing it, and assigning a match
// does not tell a ticket whose players all left.
func testSessionTeams(t *testing.T, s cupid.Store) {
	var m maker
	tk := func(id string) cupid.NewTicket { return nt(m.tk(id, "team", "", "p"+id)) }
	create(t, s, tk("a"), tk("b"), tk("d"), tk("e"))
	at := T0.Add(time.Minute)
	s2 := sessionMatch("s2", at, []int{2, 2}, []string{"a"}, []string{"b"})
	s2.Backfill = false
	out, _ := commit(t, s, s2, sessionMatch("s3", at, []int{2, 2}, []string{"d"}, []string{"e"}))
	if !out[0].OK || !out[1].OK {
		t.Fatalf("commit: %+v", out)
	}
	mmr := func(id string, v float64) cupid.Player {
		return cupid.Player{ID: id, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(v)})}
	}
	p := func(id string) cupid.Player { return cupid.Player{ID: id} }
	open := func(teams ...[]cupid.Player) (*cupid.MatchRecord, cupid.MatchEvent, error) {
		return lifecycle.ChangeSession(bg, s, cupid.Fence{}, "s2", cupid.SessionChange{Kind: cupid.MatchEventBackfillOpened, Teams: teams}, at.Add(time.Second))
	}
	before := record(t, s, "s2")
	for _, c := range []struct {
		name  string
		teams [][]cupid.Player
		code  cupid.Code
		field string
	}{
		{"one team of two", [][]cupid.Player{{p("pa")}}, cupid.CodeInvalid, "teams"},
		{"a team over its seats", [][]cupid.Player{{p("pa")}, {p("pb"), p("g1"), p("g2")}}, cupid.CodeInvalid, "teams[1].players"},
		{"a player twice", [][]cupid.Player{{p("pa")}, {p("pb"), p("pa")}}, cupid.CodeInvalid, "teams[1].players[1].id"},
		{"an empty id", [][]cupid.Player{{p("")}, {}}, cupid.CodeInvalid, "teams[0].players[0].id"},
		{"a bad attribute", [][]cupid.Player{{mmr("pa", math.NaN())}, {}}, cupid.CodeInvalid, "teams[0].players[0].attributes.mmr"},
		{"every seat taken", [][]cupid.Player{{p("pa"), p("g1")}, {p("pb"), p("g2")}}, cupid.CodeConflict, "match_id"},
	} {
		_, _, err := open(c.teams...)
		if cupid.ErrorCode(err) != c.code || errField(err) != c.field {
			t.Errorf("%s: %v (field %q), want %s on %q", c.name, err, errField(err), c.code, c.field)
		}
	}
	if after := record(t, s, "s2"); after.Match.Backfill || !slices.Equal(playersOf(after.Match), playersOf(before.Match)) || len(after.Match.Left) > 0 {
		t.Fatalf("a refused opening changed the session: %+v", after.Match)
	}

	// pb is not in the game server's view: he left, his seat stays; g1
	// and g2 are players the game server added itself.
	r, mev, err := open([]cupid.Player{mmr("pa", 1600), mmr("g1", 3000)}, []cupid.Player{p("g2")})
	if err != nil {
		t.Fatal(err)
	}
	if mev.Kind != cupid.MatchEventBackfillOpened {
		t.Fatalf("event: %+v", mev)
	}
	for _, got := range []*cupid.MatchRecord{r, record(t, s, "s2")} {
		m := got.Match
		eq(t, "teams as the game server gave them", playersOf(m), []string{"0 [pa g1]", "1 [g2]"})
		eq(t, "tickets of the session", m.TicketIDs(), []string{"a", "b"})
		if !m.Backfill || !slices.Equal(m.Seats, []int{2, 2}) || len(m.Left) != 1 || m.Left[0] != (cupid.Leaver{PlayerID: "pb", Team: 1, At: at.Add(time.Second), Replaced: true}) {
			t.Fatalf("session opened with teams: %+v", m)
		}
		var sp []string
		for _, pl := range m.ServerPlayers {
			v, _ := pl.Attributes.Get("mmr")
			sp = append(sp, fmt.Sprint(pl.ID, " ", v.Number))
		}
		eq(t, "the game server's players' data", sp, []string{"pa 1600", "g1 3000"})
	}
	eq(t, "open sessions", openSessions(t, s), []string{"s2", "s3"})

	// Released: a requeued, b (whose player left) cancelled.
	rel, err := lifecycle.Release(bg, s, cupid.Fence{}, "s2", cupid.Release{Requeue: true, Reason: "no server"}, at.Add(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "requeued", ids(rel.Requeued), []string{"a"})
	eq(t, "cancelled", ids(rel.Cancelled), []string{"b"})
	eq(t, "release events", eventStrings(rel.Events), []string{"requeued a: no server", "cancelled b: " + lifecycle.LeftReason("pb", "s2")})
	if b := get(t, s, "b"); b.State != cupid.StateCancelled || b.Reason != lifecycle.LeftReason("pb", "s2") {
		t.Fatalf("the leaver's ticket after the release: %+v", b)
	}
	eq(t, "waiting after the release", waitingIDs(t, s), []string{"a"})

	// Assigned after pe left: only d hears of it.
	if _, _, err := lifecycle.ChangeSession(bg, s, cupid.Fence{}, "s3", cupid.SessionChange{Kind: cupid.MatchEventLeft, Players: []string{"pe"}, Reopen: true}, at); err != nil {
		t.Fatal(err)
	}
	_, _, evs, err := lifecycle.Assign(bg, s, cupid.Fence{}, "s3", cupid.Assignment{Server: "10.0.0.2:7777", At: at.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "assigned events", eventStrings(evs), []string{"assigned d"})
	tevs, err := s.Events(bg, "e", 0)
	if err != nil {
		t.Fatal(err)
	}
	if last := tevs[len(tevs)-1]; last.Kind != cupid.EventMatched {
		t.Fatalf("the leaver's ticket heard %s after the match", last.Kind)
	}
}
