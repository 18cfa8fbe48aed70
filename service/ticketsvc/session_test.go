package ticketsvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/watchtest"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/memstore"
)

// squadRules: two teams of one or two, within 100 mmr, and every match a
// session open to backfill until its four seats are taken.
const squadRules = `{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}],
  "auto_backfill": true
}`

func squadQueues(window time.Duration) []Queue {
	return []Queue{
		{Name: "squad", TTL: time.Hour, Ruleset: []byte(squadRules), LeaverWindow: window},
		{Name: "duel", TTL: time.Hour, Ruleset: []byte(duelRules)},
	}
}

// squadSession forms a squad match of two and returns it.
func (h *harness) squadSession(t *testing.T, p1, p2 string) *cupid.MatchRecord {
	t.Helper()
	a := h.create(t, ticket("squad", 1500, p1))
	h.create(t, ticket("squad", 1500, p2))
	h.wait(0)
	a = h.state(t, a.ID)
	if a.State != cupid.StateMatched {
		t.Fatalf("%s is %s, want matched", p1, a.State)
	}
	rec := h.record(t, a.MatchID)
	if !rec.Match.Backfill || !slices.Equal(rec.Match.Seats, []int{2, 2}) || len(rec.Match.TicketIDs()) != 2 {
		t.Fatalf("a squad of two: %+v, want a session open to backfill with seats [2 2]", rec.Match)
	}
	return rec
}

func (h *harness) record(t *testing.T, id string) *cupid.MatchRecord {
	t.Helper()
	r, err := h.Handoff().GetMatch(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// players lists a session's players by team.
func players(m *cupid.Match) string {
	var out []string
	for _, t := range m.Teams {
		ps := slices.Clone(t.PlayerIDs)
		slices.Sort(ps)
		out = append(out, fmt.Sprint(ps))
	}
	return fmt.Sprint(out)
}

func count(m *cupid.Match) int {
	n := 0
	for _, t := range m.Teams {
		n += len(t.PlayerIDs)
	}
	return n
}

func TestAutoBackfillFillsTheSessionBeforeNewMatches(t *testing.T) {
	h := start(t, memstore.New(), squadQueues(0))
	ctx := context.Background()
	s := h.squadSession(t, "ann", "ben")
	if _, err := h.Handoff().AssignMatch(ctx, s.Match.ID, cupid.Assignment{Server: "10.0.0.9:7777"}); err != nil {
		t.Fatal(err)
	}
	// A player who joins a running game hears where it is played.
	c := h.create(t, ticket("squad", 1520, "cat"))
	evs, done := watchtest.Collect(func(send func(cupid.Event) error) error { return h.WatchAssignment(ctx, c.ID, 0, send) })
	h.wait(0)
	got := []cupid.Event{watchtest.Next(t, evs), watchtest.Next(t, evs), watchtest.Next(t, evs)}
	<-done
	if kinds(got) != "created matched assigned" || got[2].Assignment == nil || got[2].Assignment.Server != "10.0.0.9:7777" || got[1].Match.ID != s.Match.ID {
		t.Fatalf("cat heard %s (%+v)", kinds(got), got[2])
	}
	// Two arrive at once: one takes the last seat, the other cannot
	// start a match alone and waits; none forms a new match while the
	// session has room.
	out := h.CreateTickets(ctx, []NewTicket{{Ticket: ticket("squad", 1490, "dan")}, {Ticket: ticket("squad", 1510, "eve")}})
	h.wait(0)
	rec := h.record(t, s.Match.ID)
	if count(rec.Match) != 4 || rec.Match.Backfill {
		t.Fatalf("session after two more: %s backfill=%v, want full and closed", players(rec.Match), rec.Match.Backfill)
	}
	var waiting []string
	for _, o := range out {
		if h.state(t, o.Ticket.ID).State == cupid.StateWaiting {
			waiting = append(waiting, o.Ticket.Players[0].ID)
		}
	}
	if len(waiting) != 1 {
		t.Fatalf("waiting after the session filled: %v, want one of dan and eve", waiting)
	}
	// Full: the next player starts a new match with the one left.
	f := h.create(t, ticket("squad", 1500, "fay"))
	h.wait(0)
	if f = h.state(t, f.ID); f.State != cupid.StateMatched || f.MatchID == s.Match.ID {
		t.Fatalf("fay: %s in %s, want a new match", f.State, f.MatchID)
	}
	log := h.sessionLog(t, s.Match.ID)
	if log != "formed, assigned, backfilled [cat], backfilled ["+waitingOther(waiting[0])+"]" {
		t.Fatalf("the session's log: %s", log)
	}
}

func waitingOther(p string) string {
	if p == "dan" {
		return "eve"
	}
	return "dan"
}

// sessionLog renders one session's match events.
func (h *harness) sessionLog(t *testing.T, id string) string {
	t.Helper()
	evs, err := h.store.MatchEvents(context.Background(), "squad", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		if e.MatchID != id {
			continue
		}
		s := string(e.Kind)
		if len(e.PlayerIDs) > 0 {
			s += fmt.Sprint(" ", e.PlayerIDs)
		}
		out = append(out, s)
	}
	return fmt.Sprint(joinComma(out))
}

func joinComma(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

func TestNewSessionOnlyIsNeverBackfilled(t *testing.T) {
	h := start(t, memstore.New(), squadQueues(0))
	s := h.squadSession(t, "ann", "ben")
	tk := ticket("squad", 1500, "cat")
	tk.Attributes = cupid.NewAttributes(map[string]cupid.Value{"new_session_only": cupid.Bool(true)})
	c := h.create(t, tk)
	h.wait(time.Minute)
	if c = h.state(t, c.ID); c.State != cupid.StateWaiting {
		t.Fatalf("a new_session_only ticket is %s in %s", c.State, c.MatchID)
	}
	if rec := h.record(t, s.Match.ID); count(rec.Match) != 2 || !rec.Match.Backfill {
		t.Fatalf("session: %s", players(rec.Match))
	}
}

func TestLeaversWithinTheWindowAreReplacedAfterItNot(t *testing.T) {
	h := start(t, memstore.New(), squadQueues(30*time.Second))
	ctx := context.Background()
	s := h.squadSession(t, "ann", "ben")
	id := s.Match.ID
	for _, p := range []string{"cat", "dan"} {
		h.create(t, ticket("squad", 1500, p))
	}
	h.wait(0)
	if rec := h.record(t, id); count(rec.Match) != 4 || rec.Match.Backfill {
		t.Fatalf("session: %s backfill=%v", players(rec.Match), rec.Match.Backfill)
	}
	if _, err := h.Handoff().AssignMatch(ctx, id, cupid.Assignment{Server: "10.0.0.9:7777"}); err != nil {
		t.Fatal(err)
	}
	// Refused: nobody leaves.
	_, err := h.Handoff().ReportLeavers(ctx, id, []string{"ann", "zed"})
	wantErr(t, err, cupid.CodeConflict, "player_ids[1]", "zed")
	_, err = h.Handoff().ReportLeavers(ctx, id, []string{"ann", "ann"})
	wantErr(t, err, cupid.CodeInvalid, "player_ids[1]")
	_, err = h.Handoff().ReportLeavers(ctx, id, nil)
	wantErr(t, err, cupid.CodeInvalid, "player_ids")
	if rec := h.record(t, id); count(rec.Match) != 4 || len(rec.Match.Left) != 0 {
		t.Fatalf("a refused report changed the session: %+v", rec.Match)
	}

	// Within the window: the seat reopens and the next player takes it.
	h.wait(10 * time.Second)
	rec, err := h.Handoff().ReportLeavers(ctx, id, []string{"ann"})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Match.Backfill || count(rec.Match) != 3 || !rec.Match.Left[0].Replaced {
		t.Fatalf("after ann left within the window: %+v", rec.Match)
	}
	e := h.create(t, ticket("squad", 1500, "eve"))
	h.wait(0)
	if e = h.state(t, e.ID); e.State != cupid.StateMatched || e.MatchID != id {
		t.Fatalf("eve: %s in %q, want ann's seat in %s", e.State, e.MatchID, id)
	}

	// After it: the seat closes with the leaver.
	h.wait(30 * time.Second)
	rec, err = h.Handoff().ReportLeavers(ctx, id, []string{"ben"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Match.Backfill || count(rec.Match) != 3 || rec.Match.Left[1].Replaced || rec.Match.Seats[0]+rec.Match.Seats[1] != 3 {
		t.Fatalf("after ben left late: %+v", rec.Match)
	}
	f := h.create(t, ticket("squad", 1500, "fay"))
	h.wait(time.Minute)
	if f = h.state(t, f.ID); f.State != cupid.StateWaiting {
		t.Fatalf("fay took a closed seat: %s in %s", f.State, f.MatchID)
	}
	if got := h.sessionLog(t, id); got != "formed, backfilled [cat dan], assigned, left [ann], backfilled [eve], left [ben]" &&
		got != "formed, backfilled [cat], backfilled [dan], assigned, left [ann], backfilled [eve], left [ben]" {
		t.Fatalf("the session's log: %s", got)
	}
}

func TestBackfillByHandCloseAndEnd(t *testing.T) {
	h := start(t, memstore.New(), squadQueues(0))
	ctx := context.Background()
	s := h.squadSession(t, "ann", "ben")
	id := s.Match.ID
	if _, err := h.Handoff().CloseBackfill(ctx, id); err != nil {
		t.Fatal(err)
	}
	_, err := h.Handoff().CloseBackfill(ctx, id)
	wantErr(t, err, cupid.CodeConflict, "match_id", "not open")
	c := h.create(t, ticket("squad", 1500, "cat"))
	h.wait(time.Minute)
	if c = h.state(t, c.ID); c.State != cupid.StateWaiting {
		t.Fatalf("a closed session took cat: %s", c.State)
	}
	// Opened by hand: cat joins.
	if _, err := h.Handoff().OpenBackfill(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	h.wait(0)
	if c = h.state(t, c.ID); c.State != cupid.StateMatched || c.MatchID != id {
		t.Fatalf("cat after backfill opened: %s in %q", c.State, c.MatchID)
	}
	rec, err := h.Handoff().EndSession(ctx, id)
	if err != nil || rec.State != cupid.MatchEnded || rec.Match.Backfill {
		t.Fatalf("EndSession: %+v %v", rec, err)
	}
	for name, call := range map[string]func() (*cupid.MatchRecord, error){
		"end again":      func() (*cupid.MatchRecord, error) { return h.Handoff().EndSession(ctx, id) },
		"open after end": func() (*cupid.MatchRecord, error) { return h.Handoff().OpenBackfill(ctx, id, nil) },
		"leave after end": func() (*cupid.MatchRecord, error) {
			return h.Handoff().ReportLeavers(ctx, id, []string{"ann"})
		},
	} {
		_, err := call()
		if cupid.ErrorCode(err) != cupid.CodeConflict {
			t.Errorf("%s: %v, want conflict", name, err)
		}
	}
	_, err = h.Handoff().EndSession(ctx, "")
	wantErr(t, err, cupid.CodeInvalid, "match_id")
	_, err = h.Handoff().EndSession(ctx, "nope")
	wantErr(t, err, cupid.CodeNotFound, "match_id")
	d := h.create(t, ticket("squad", 1500, "dan"))
	h.wait(time.Minute)
	if d = h.state(t, d.ID); d.State != cupid.StateWaiting {
		t.Fatalf("an ended session took dan: %s", d.State)
	}
}

func TestOpenSessionSurvivesARestart(t *testing.T) {
	store := memstore.New()
	h := start(t, store, squadQueues(0))
	s := h.squadSession(t, "ann", "ben")
	h = h.restarted(t, squadQueues(0))
	c := h.create(t, ticket("squad", 1500, "cat"))
	h.wait(0)
	if c = h.state(t, c.ID); c.State != cupid.StateMatched || c.MatchID != s.Match.ID {
		t.Fatalf("cat after a restart: %s in %q, want the open session %s", c.State, c.MatchID, s.Match.ID)
	}
}

func TestBackfillStoreFailureReturnsTicketsAndKeepsTheSession(t *testing.T) {
	store := memstore.New()
	h := start(t, store, squadQueues(0))
	s := h.squadSession(t, "ann", "ben")
	store.FailNext("CommitBackfills", errors.New("disk full"))
	c := h.create(t, ticket("squad", 1500, "cat"))
	h.wait(0)
	if c = h.state(t, c.ID); c.State != cupid.StateWaiting {
		t.Fatalf("cat after a failed commit: %s", c.State)
	}
	if rec := h.record(t, s.Match.ID); count(rec.Match) != 2 || !rec.Match.Backfill {
		t.Fatalf("a failed backfill changed the session: %+v", rec.Match)
	}
	h.wait(2 * time.Second) // past the pool's retry delay
	if c = h.state(t, c.ID); c.State != cupid.StateMatched || c.MatchID != s.Match.ID {
		t.Fatalf("cat after the store recovered: %s in %q", c.State, c.MatchID)
	}
}

// TestNoPlayerInTwoLiveMatchesUnderBackfill: a player waiting in two
// queues who joins a session by backfill loses his other ticket in the
// same step, as he would by a new match; and a player already in a
// session is never backfilled into it twice.
func TestNoPlayerInTwoLiveMatchesUnderBackfill(t *testing.T) {
	h := start(t, memstore.New(), squadQueues(0))
	s := h.squadSession(t, "ann", "ben")
	other := h.create(t, ticket("duel", 1500, "cat"))
	c := h.create(t, ticket("squad", 1500, "cat"))
	h.wait(0)
	if c = h.state(t, c.ID); c.MatchID != s.Match.ID {
		t.Fatalf("cat: %s in %q", c.State, c.MatchID)
	}
	if other = h.state(t, other.ID); other.State != cupid.StateCancelled {
		t.Fatalf("cat's duel ticket is %s, want cancelled", other.State)
	}
	// Ann queues again while in the session: she is not backfilled into
	// it (her seat is taken by herself).
	a := h.create(t, ticket("squad", 1500, "ann"))
	h.wait(time.Minute)
	if a = h.state(t, a.ID); a.MatchID == s.Match.ID {
		t.Fatalf("ann was backfilled into the session she plays in")
	}
	// The session still takes others.
	d := h.create(t, ticket("squad", 1500, "dan"))
	h.wait(0)
	if d = h.state(t, d.ID); d.MatchID != s.Match.ID {
		t.Fatalf("dan: %s in %q, want the session's last seat", d.State, d.MatchID)
	}
}

// restarted closes h's service and starts another on the same store and
// clock, as a server restart does.
func (h *harness) restarted(t *testing.T, qs []Queue) *harness {
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

// TestReadyCheckedSessionOpensOnceFormed: with a ready check, a match that
// has room is no session while it waits for its players (a backfill then is
// refused); once everyone accepted it is formed and backfill fills it.
func TestReadyCheckedSessionOpensOnceFormed(t *testing.T) {
	qs := squadQueues(0)
	qs[0].Acceptance = Acceptance{Timeout: time.Minute}
	h := start(t, memstore.New(), qs)
	ctx := context.Background()
	a := h.create(t, ticket("squad", 1500, "ann"))
	h.create(t, ticket("squad", 1500, "ben"))
	h.wait(0)
	id := h.state(t, a.ID).MatchID
	_, err := h.Handoff().OpenBackfill(ctx, id, nil)
	wantErr(t, err, cupid.CodeConflict, "match_id", "accept")
	c := h.create(t, ticket("squad", 1500, "cat"))
	h.wait(0)
	if c = h.state(t, c.ID); c.State != cupid.StateWaiting {
		t.Fatalf("cat joined a match waiting for its ready check: %s in %s", c.State, c.MatchID)
	}
	for _, p := range []string{"ann", "ben"} {
		if _, err := h.Handoff().AcceptMatch(ctx, id, p, true); err != nil {
			t.Fatal(err)
		}
	}
	h.wait(0)
	if c = h.state(t, c.ID); c.State != cupid.StateMatched || c.MatchID != id {
		t.Fatalf("cat after the ready check: %s in %q, want the session %s", c.State, c.MatchID, id)
	}
}

// modeRules: squadRules whose tickets carry a game mode that must be the
// same for everyone, compared alone for backfill.
const modeRules = `{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}],
  "match_options": {"options": [{"name": "mode", "type": "all"}]},
  "match_options_referred_for_backfill": true
}`

func modeTicket(mode string, players ...string) *cupid.Ticket {
	t := ticket("squad", 1500, players...)
	t.Attributes = cupid.NewAttributes(map[string]cupid.Value{"mode": cupid.String(mode)})
	return t
}

// TestOpenBackfillWithTheServersOptions: a backend that opens backfill
// with the match options its game server has now gets newcomers that fit
// those, not the options the players queued with; options the ruleset
// does not have, or empty ones, are refused and change nothing.
func TestOpenBackfillWithTheServersOptions(t *testing.T) {
	h := start(t, memstore.New(), []Queue{{Name: "squad", TTL: time.Hour, Ruleset: []byte(modeRules)}})
	ctx := context.Background()
	a := h.create(t, modeTicket("ranked", "ann"))
	h.create(t, modeTicket("ranked", "ben"))
	h.wait(0)
	id := h.state(t, a.ID).MatchID
	if id == "" {
		t.Fatal("ann and ben did not match")
	}
	for _, c := range []struct {
		options map[string][]string
		field   string
	}{
		{map[string][]string{"map": {"dust"}}, "match_options.map"},
		{map[string][]string{"mode": {}}, "match_options.mode"},
		{map[string][]string{"mode": {""}}, "match_options.mode[0]"},
	} {
		_, err := h.Handoff().OpenBackfill(ctx, id, c.options)
		wantErr(t, err, cupid.CodeInvalid, c.field)
	}
	if rec := h.record(t, id); rec.Match.Backfill || rec.Match.BackfillOptions != nil {
		t.Fatalf("a refused OpenBackfill changed the session: %+v", rec.Match)
	}
	// The server switched its game to casual.
	rec, err := h.Handoff().OpenBackfill(ctx, id, map[string][]string{"mode": {"casual"}})
	if err != nil || !rec.Match.Backfill {
		t.Fatalf("OpenBackfill: %+v %v", rec, err)
	}
	ranked := h.create(t, modeTicket("ranked", "cat"))
	casual := h.create(t, modeTicket("casual", "dan"))
	h.wait(0)
	if got := h.state(t, casual.ID); got.MatchID != id {
		t.Fatalf("the casual player: %s in %q, want the session", got.State, got.MatchID)
	}
	if got := h.state(t, ranked.ID); got.State != cupid.StateWaiting {
		t.Fatalf("the ranked player joined a casual game: %s in %q", got.State, got.MatchID)
	}
}

// TestHeldTicketIsFreedWhenTheSessionEnds: a player who queued again while
// in an open session waits outside the session; he is still counted and
// still cancellable, and once the session ends he matches anew.
func TestHeldTicketIsFreedWhenTheSessionEnds(t *testing.T) {
	h := start(t, memstore.New(), squadQueues(0))
	ctx := context.Background()
	s := h.squadSession(t, "ann", "ben")
	again := h.create(t, ticket("squad", 1500, "ann"))
	gone := h.create(t, ticket("squad", 1500, "ben"))
	h.wait(0)
	st, err := h.Stats(ctx, "squad")
	if err != nil || len(st) != 1 || st[0].Waiting != 2 {
		t.Fatalf("stats with two held tickets: %+v %v", st, err)
	}
	if _, err := h.CancelTicket(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Handoff().EndSession(ctx, s.Match.ID); err != nil {
		t.Fatal(err)
	}
	eve := h.create(t, ticket("squad", 1500, "eve"))
	h.wait(0)
	a, e := h.state(t, again.ID), h.state(t, eve.ID)
	if a.State != cupid.StateMatched || a.MatchID != e.MatchID || a.MatchID == s.Match.ID {
		t.Fatalf("ann after the session ended: %s in %q, eve in %q", a.State, a.MatchID, e.MatchID)
	}
	if g := h.state(t, gone.ID); g.State != cupid.StateCancelled {
		t.Fatalf("ben's cancelled ticket came back: %s", g.State)
	}
	h.wait(0)
	if st, _ := h.Stats(ctx, "squad"); len(st) != 1 || st[0].Waiting != 0 {
		t.Fatalf("stats at the end: %+v", st)
	}
}

// TestOpenBackfillWithTheServersTeams: a game server that opens backfill
// with its own view of the teams gets newcomers compared with the players
// it names, with the attributes it gives — here a player it added itself,
// at 3000 mmr, alone in the session: a waiting player at 1500 (who would
// have joined ann and ben) is not backfilled, one at 2950 is, also after a
// restart. A view naming a player of another live match is refused.
func TestOpenBackfillWithTheServersTeams(t *testing.T) {
	h := start(t, memstore.New(), squadQueues(0))
	ctx := context.Background()
	s := h.squadSession(t, "ann", "ben")
	id := s.Match.ID
	if _, err := h.Handoff().CloseBackfill(ctx, id); err != nil {
		t.Fatal(err)
	}
	other := h.squadSession(t, "cat", "dan")
	if _, err := h.Handoff().CloseBackfill(ctx, other.Match.ID); err != nil {
		t.Fatal(err)
	}
	gus := cupid.Player{ID: "gus", Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(3000)})}
	for _, c := range []struct {
		teams [][]cupid.Player
		code  cupid.Code
		field string
		text  string
	}{
		{[][]cupid.Player{{gus}}, cupid.CodeInvalid, "teams", "2 teams"},
		{[][]cupid.Player{{gus}, {{ID: "gus"}}}, cupid.CodeInvalid, "teams[1].players[0].id", "twice"},
		{[][]cupid.Player{{gus}, {{ID: "ben"}, {ID: "cat"}}}, cupid.CodeConflict, "teams[1].players[1].id", "cat"},
		// The queue's rules read mmr as a number: a game server's player
		// must hold one, as a ticket's must, or the pool could never open
		// the session it stored.
		{[][]cupid.Player{{gus}, {{ID: "ben"}, {ID: "hal", Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.String("fast")})}}},
			cupid.CodeInvalid, "teams[1].players[1].attributes.mmr", "finite number"},
		{[][]cupid.Player{{gus}, {{ID: "hal", Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Bool(true)})}}},
			cupid.CodeInvalid, "teams[1].players[0].attributes.mmr", "finite number"},
	} {
		_, err := h.Handoff().OpenBackfillWithTeams(ctx, id, nil, c.teams)
		wantErr(t, err, c.code, c.field, c.text)
	}
	if rec := h.record(t, id); rec.Match.Backfill || players(rec.Match) != "[[ann] [ben]]" {
		t.Fatalf("a refused OpenBackfill changed the session: %+v", rec.Match)
	}

	rec, err := h.Handoff().OpenBackfillWithTeams(ctx, id, nil, [][]cupid.Player{{gus}, {}})
	if err != nil {
		t.Fatal(err)
	}
	if players(rec.Match) != "[[gus] []]" || !rec.Match.Backfill || len(rec.Match.Left) != 2 {
		t.Fatalf("the session as the game server gave it: %s backfill=%v left=%+v", players(rec.Match), rec.Match.Backfill, rec.Match.Left)
	}
	low := h.create(t, ticket("squad", 1500, "lou"))
	h.wait(time.Minute)
	if got := h.state(t, low.ID); got.State != cupid.StateWaiting {
		t.Fatalf("lou at 1500 joined a game of 3000: %s in %q", got.State, got.MatchID)
	}
	h = h.restarted(t, squadQueues(0))
	h.wait(time.Minute)
	if got := h.state(t, low.ID); got.State != cupid.StateWaiting {
		t.Fatalf("after a restart lou at 1500 joined a game of 3000: %s in %q", got.State, got.MatchID)
	}
	high := h.create(t, ticket("squad", 2950, "hal"))
	h.wait(0)
	if got := h.state(t, high.ID); got.State != cupid.StateMatched || got.MatchID != id {
		t.Fatalf("hal at 2950: %s in %q, want the session %s", got.State, got.MatchID, id)
	}
	if rec := h.record(t, id); players(rec.Match) != "[[gus hal] []]" && players(rec.Match) != "[[gus] [hal]]" {
		t.Fatalf("the session after hal: %s", players(rec.Match))
	}
}

// TestLeaversAreNotAssignedNorRequeued: a player who left a formed match
// hears nothing of its assignment; when a match is released instead, his
// ticket is cancelled, not requeued, while the others go back to waiting.
func TestLeaversAreNotAssignedNorRequeued(t *testing.T) {
	h := start(t, memstore.New(), squadQueues(0))
	ctx := context.Background()
	s := h.squadSession(t, "ann", "ben")
	if _, err := h.Handoff().CloseBackfill(ctx, s.Match.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Handoff().ReportLeavers(ctx, s.Match.ID, []string{"ben"}); err != nil {
		t.Fatal(err)
	}
	ticketOf := func(m *cupid.Match, p string) string {
		for _, tid := range m.TicketIDs() {
			if tk := h.state(t, tid); tk.Players[0].ID == p {
				return tid
			}
		}
		t.Fatalf("no ticket of %s in %s", p, m.ID)
		return ""
	}
	ben := ticketOf(s.Match, "ben")
	if _, err := h.Handoff().AssignMatch(ctx, s.Match.ID, cupid.Assignment{Server: "10.0.0.9:7777"}); err != nil {
		t.Fatal(err)
	}
	evs, err := h.store.Events(ctx, ben, 0)
	if err != nil {
		t.Fatal(err)
	}
	if kinds(evs) != "created matched" {
		t.Fatalf("ben, who left, heard %s", kinds(evs))
	}

	r := h.squadSession(t, "cat", "dan")
	if _, err := h.Handoff().CloseBackfill(ctx, r.Match.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Handoff().ReportLeavers(ctx, r.Match.ID, []string{"dan"}); err != nil {
		t.Fatal(err)
	}
	rel, err := h.Handoff().ReleaseMatch(ctx, r.Match.ID, true, "no server")
	if err != nil {
		t.Fatal(err)
	}
	cat, dan := h.state(t, ticketOf(r.Match, "cat")), h.state(t, ticketOf(r.Match, "dan"))
	if len(rel.Requeued) != 1 || cat.State != cupid.StateWaiting || dan.State != cupid.StateCancelled || dan.Reason != lifecycle.LeftReason("dan", r.Match.ID) {
		t.Fatalf("after the release: cat %s, dan %s (%s)", cat.State, dan.State, dan.Reason)
	}
}
