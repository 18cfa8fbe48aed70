package lifecycle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

var t0 = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

// fixture is a 1v1 match m of tickets ta (player ann, queue duel) and tb
// (ben), in the given state, with two seats a team and backfill open.
func fixture(state cupid.MatchState) (*cupid.MatchRecord, []*cupid.Ticket) {
	m := &cupid.Match{ID: "m", Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: t0, Seats: []int{2, 2}, Backfill: true,
		Teams: []cupid.Team{{TicketIDs: []string{"ta"}, PlayerIDs: []string{"ann"}}, {TicketIDs: []string{"tb"}, PlayerIDs: []string{"ben"}}}}
	if state == cupid.MatchPending {
		m.AcceptBy = t0.Add(time.Minute)
	}
	rec := &cupid.MatchRecord{Match: m, State: state, UpdatedAt: t0}
	if state == cupid.MatchAssigned {
		rec.Assignment = &cupid.Assignment{Server: "gs:1", At: t0}
	}
	ticket := func(id, player string) *cupid.Ticket {
		st, mid := cupid.StateMatched, "m"
		if state == cupid.MatchReleased {
			st, mid = cupid.StateCancelled, ""
		}
		return &cupid.Ticket{ID: id, Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: player}}, State: st, MatchID: mid, CreatedAt: t0.Add(-time.Minute)}
	}
	return rec, []*cupid.Ticket{ticket("ta", "ann"), ticket("tb", "ben")}
}

// action is one lifecycle step on the fixture; it returns the writes (nil
// when refused), the match state it leaves and the error.
type action struct {
	name string
	run  func(rec *cupid.MatchRecord, ts []*cupid.Ticket) (*cupid.Writes, error)
}

var now = t0.Add(10 * time.Second)

var actions = []action{
	{"assign", func(rec *cupid.MatchRecord, ts []*cupid.Ticket) (*cupid.Writes, error) {
		return assign(rec, ts, cupid.Assignment{Server: "gs:2", At: now})
	}},
	{"release requeue", func(rec *cupid.MatchRecord, ts []*cupid.Ticket) (*cupid.Writes, error) {
		w, _, err := release(rec, ts, nil, cupid.Release{Reason: "no server", Requeue: true}, now)
		return w, err
	}},
	{"release cancel", func(rec *cupid.MatchRecord, ts []*cupid.Ticket) (*cupid.Writes, error) {
		w, _, err := release(rec, ts, nil, cupid.Release{Reason: "no server"}, now)
		return w, err
	}},
	{"accept", func(rec *cupid.MatchRecord, ts []*cupid.Ticket) (*cupid.Writes, error) {
		w, _, err := answer(rec, nil, ts, nil, "ann", true, cupid.Release{}, now)
		return w, err
	}},
	{"decline", func(rec *cupid.MatchRecord, ts []*cupid.Ticket) (*cupid.Writes, error) {
		w, _, err := answer(rec, nil, ts, nil, "ann", false, cupid.Release{Reason: "declined by ann", Requeue: true, Decliners: []string{"ann"}, DeclinerReason: "declined"}, now)
		return w, err
	}},
	{"close backfill", func(rec *cupid.MatchRecord, _ []*cupid.Ticket) (*cupid.Writes, error) {
		w, _, err := changeSession(rec, cupid.SessionChange{Kind: cupid.MatchEventBackfillClosed}, now)
		return w, err
	}},
	{"leave", func(rec *cupid.MatchRecord, _ []*cupid.Ticket) (*cupid.Writes, error) {
		w, _, err := changeSession(rec, cupid.SessionChange{Kind: cupid.MatchEventLeft, Players: []string{"ben"}}, now)
		return w, err
	}},
	{"end", func(rec *cupid.MatchRecord, _ []*cupid.Ticket) (*cupid.Writes, error) {
		w, _, err := changeSession(rec, cupid.SessionChange{Kind: cupid.MatchEventEnded}, now)
		return w, err
	}},
	{"backfill", func(rec *cupid.MatchRecord, _ []*cupid.Ticket) (*cupid.Writes, error) {
		tc := &cupid.Ticket{ID: "tc", Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "cat"}}, State: cupid.StateWaiting}
		w, out := backfill(rec, cupid.Backfill{MatchID: "m", At: now, Teams: []cupid.Team{{TicketIDs: []string{"tc"}, PlayerIDs: []string{"cat"}}, {}}},
			[]*cupid.Ticket{tc}, nil, nil, nil)
		if out.Err != nil {
			return nil, out.Err
		}
		return w, nil
	}},
}

// TestEveryStateAndAction runs every step on a match in every state: the
// allowed ones leave the state the table says, the refused ones fail with
// the code it says and write nothing.
func TestEveryStateAndAction(t *testing.T) {
	const (
		conflict = cupid.CodeConflict
		ok       = ""
	)
	type want struct {
		code  cupid.Code
		state cupid.MatchState // after, when allowed
	}
	table := map[cupid.MatchState]map[string]want{
		cupid.MatchPending: {
			"assign": {conflict, ""}, "release requeue": {ok, cupid.MatchReleased}, "release cancel": {ok, cupid.MatchReleased},
			"accept": {ok, cupid.MatchPending}, "decline": {ok, cupid.MatchReleased},
			"close backfill": {conflict, ""}, "leave": {conflict, ""}, "end": {conflict, ""}, "backfill": {conflict, ""},
		},
		cupid.MatchFormed: {
			"assign": {ok, cupid.MatchAssigned}, "release requeue": {ok, cupid.MatchReleased}, "release cancel": {ok, cupid.MatchReleased},
			"accept": {conflict, ""}, "decline": {conflict, ""},
			"close backfill": {ok, cupid.MatchFormed}, "leave": {ok, cupid.MatchFormed}, "end": {ok, cupid.MatchEnded}, "backfill": {ok, cupid.MatchFormed},
		},
		cupid.MatchAssigned: {
			"assign": {conflict, ""}, "release requeue": {conflict, ""}, "release cancel": {conflict, ""},
			"accept": {conflict, ""}, "decline": {conflict, ""},
			"close backfill": {ok, cupid.MatchAssigned}, "leave": {ok, cupid.MatchAssigned}, "end": {ok, cupid.MatchEnded}, "backfill": {ok, cupid.MatchAssigned},
		},
		cupid.MatchReleased: {
			"assign": {conflict, ""}, "release requeue": {conflict, ""}, "release cancel": {conflict, ""},
			"accept": {conflict, ""}, "decline": {conflict, ""},
			"close backfill": {conflict, ""}, "leave": {conflict, ""}, "end": {conflict, ""}, "backfill": {conflict, ""},
		},
		cupid.MatchEnded: {
			"assign": {conflict, ""}, "release requeue": {conflict, ""}, "release cancel": {conflict, ""},
			"accept": {conflict, ""}, "decline": {conflict, ""},
			"close backfill": {conflict, ""}, "leave": {conflict, ""}, "end": {conflict, ""}, "backfill": {conflict, ""},
		},
	}
	for state, row := range table {
		if len(row) != len(actions) {
			t.Fatalf("%s: the table has %d actions, there are %d", state, len(row), len(actions))
		}
		for _, a := range actions {
			t.Run(fmt.Sprintf("%s/%s", state, a.name), func(t *testing.T) {
				w := row[a.name]
				rec, ts := fixture(state)
				before := fmt.Sprintf("%+v %+v %+v", *rec, *rec.Match, ts)
				got, err := a.run(rec, ts)
				if after := fmt.Sprintf("%+v %+v %+v", *rec, *rec.Match, ts); after != before {
					t.Errorf("the rows read changed:\n%s\n%s", before, after)
				}
				if w.code != ok {
					if cupid.ErrorCode(err) != w.code || got != nil {
						t.Fatalf("want a %s refusal writing nothing, got %v, %+v", w.code, err, got)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				after := state
				if got.Match != nil {
					after = got.Match.State
				}
				if after != w.state {
					t.Errorf("match left %s, want %s", after, w.state)
				}
			})
		}
	}
}

// TestFinish: only a waiting ticket ends, and only as cancelled or
// expired.
func TestFinish(t *testing.T) {
	waiting := &cupid.Ticket{ID: "t", Key: cupid.QueueKey{Queue: "duel"}, State: cupid.StateWaiting}
	for _, c := range []struct {
		t     *cupid.Ticket
		state cupid.TicketState
		code  cupid.Code
		event cupid.EventKind
	}{
		{waiting, cupid.StateCancelled, "", cupid.EventCancelled},
		{waiting, cupid.StateExpired, "", cupid.EventExpired},
		{waiting, cupid.StateMatched, cupid.CodeInvalid, ""},
		{waiting, cupid.StateWaiting, cupid.CodeInvalid, ""},
		{nil, cupid.StateCancelled, cupid.CodeNotFound, ""},
		{&cupid.Ticket{ID: "t", State: cupid.StateMatched}, cupid.StateCancelled, cupid.CodeConflict, ""},
		{&cupid.Ticket{ID: "t", State: cupid.StateCancelled}, cupid.StateExpired, cupid.CodeConflict, ""},
		{&cupid.Ticket{ID: "t", State: cupid.StateExpired}, cupid.StateCancelled, cupid.CodeConflict, ""},
	} {
		w, err := finish(c.t, "t", c.state, "why", now)
		if c.code != "" {
			if cupid.ErrorCode(err) != c.code || w != nil {
				t.Errorf("%v → %s: want %s and nothing written, got %v %+v", c.t, c.state, c.code, err, w)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		tw := w.Tickets[0]
		if tw.From != cupid.StateWaiting || tw.Ticket.State != c.state || tw.Ticket.Reason != "why" || !tw.Ticket.UpdatedAt.Equal(now) ||
			len(w.Events) != 1 || w.Events[0].Kind != c.event {
			t.Errorf("→ %s: %+v %+v", c.state, tw.Ticket, w.Events)
		}
		if waiting.State != cupid.StateWaiting {
			t.Fatal("the ticket read was changed")
		}
	}
}

// TestReleaseChoosesPerTicket: decliners, leavers and players who took
// another live ticket meanwhile each end as the rules say.
func TestReleaseChoosesPerTicket(t *testing.T) {
	rec, ts := fixture(cupid.MatchFormed)
	r := cupid.Release{Reason: "no server", Requeue: true}
	cases := []struct {
		name  string
		setup func(rec *cupid.MatchRecord, r *cupid.Release, live *[]cupid.LiveTicket)
		want  map[string]string // ticket → "requeued" | "requeued last" | "cancelled: reason"
	}{
		{"requeue all", func(*cupid.MatchRecord, *cupid.Release, *[]cupid.LiveTicket) {},
			map[string]string{"ta": "requeued", "tb": "requeued"}},
		{"cancel all", func(_ *cupid.MatchRecord, r *cupid.Release, _ *[]cupid.LiveTicket) { r.Requeue = false },
			map[string]string{"ta": "cancelled: no server", "tb": "cancelled: no server"}},
		{"a decliner to the back", func(_ *cupid.MatchRecord, r *cupid.Release, _ *[]cupid.LiveTicket) {
			r.Decliners, r.RequeueLast, r.DeclinerReason = []string{"ben"}, true, "declined"
		}, map[string]string{"ta": "requeued", "tb": "requeued last"}},
		{"a decliner cancelled", func(_ *cupid.MatchRecord, r *cupid.Release, _ *[]cupid.LiveTicket) {
			r.Decliners, r.DeclinerReason = []string{"ben"}, "declined"
		}, map[string]string{"ta": "requeued", "tb": "cancelled: declined"}},
		{"a leaver", func(rec *cupid.MatchRecord, _ *cupid.Release, _ *[]cupid.LiveTicket) {
			rec.Match.Left = []cupid.Leaver{{PlayerID: "ben", Team: 1, At: t0}}
			rec.Match.Teams[1].PlayerIDs = nil
		}, map[string]string{"ta": "requeued", "tb": "cancelled: " + LeftReason("ben", "m")}},
		{"a player queued again meanwhile", func(_ *cupid.MatchRecord, _ *cupid.Release, live *[]cupid.LiveTicket) {
			*live = append(*live, cupid.LiveTicket{Player: "ann", Queue: "duel", Ticket: "ta2"}, cupid.LiveTicket{Player: "ben", Queue: "other", Ticket: "tb2"})
		}, map[string]string{"ta": "cancelled: " + RequeueTakenReason("ann", "ta2", "duel"), "tb": "requeued"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, ts := fixture(cupid.MatchFormed)
			r := r
			var live []cupid.LiveTicket
			c.setup(rec, &r, &live)
			w, out, err := release(rec, ts, live, r, now)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, tw := range w.Tickets {
				switch {
				case tw.Ticket.State == cupid.StateWaiting && tw.Reborn:
					got[tw.Ticket.ID] = "requeued last"
					if !tw.Ticket.CreatedAt.Equal(now) {
						t.Errorf("%s requeued last keeps its age", tw.Ticket.ID)
					}
				case tw.Ticket.State == cupid.StateWaiting:
					got[tw.Ticket.ID] = "requeued"
				default:
					got[tw.Ticket.ID] = "cancelled: " + tw.Ticket.Reason
				}
				if tw.Ticket.MatchID != "" {
					t.Errorf("%s keeps match %s", tw.Ticket.ID, tw.Ticket.MatchID)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
			if len(out.Events) != 2 || len(out.Requeued)+len(out.Cancelled) != 2 || out.Event.Kind != cupid.MatchEventReleased {
				t.Errorf("result %+v", out)
			}
		})
	}
	_ = rec
	_ = ts
}

// TestReleaseOfAPendingMatchIsNotLogged: backends never heard of it.
func TestReleaseOfAPendingMatchIsNotLogged(t *testing.T) {
	rec, ts := fixture(cupid.MatchPending)
	w, _, err := release(rec, ts, nil, cupid.Release{Reason: "x", Requeue: true}, now)
	if err != nil || len(w.MatchEvents) != 0 {
		t.Fatalf("%v %+v", err, w.MatchEvents)
	}
}

// TestAnswers: the last acceptance forms the match, the same answer twice
// writes nothing, a changed one and an outsider's are refused.
func TestAnswers(t *testing.T) {
	rec, ts := fixture(cupid.MatchPending)
	yes := func(p string) cupid.Answer { return cupid.Answer{PlayerID: p, Accept: true, At: t0} }
	cases := []struct {
		name    string
		answers []cupid.Answer
		player  string
		accept  bool
		code    cupid.Code
		check   func(*cupid.Writes, *cupid.Answered) string
	}{
		{"first yes", nil, "ann", true, "", func(w *cupid.Writes, a *cupid.Answered) string {
			if w.Answer == nil || w.Match != nil || a.Formed != nil || len(a.Match.Answers) != 1 {
				return "wanted the answer alone"
			}
			return ""
		}},
		{"last yes forms", []cupid.Answer{yes("ben")}, "ann", true, "", func(w *cupid.Writes, a *cupid.Answered) string {
			if w.Match.State != cupid.MatchFormed || a.Formed == nil || len(w.Events) != 2 || w.Events[0].Kind != cupid.EventMatched {
				return "wanted the match formed with matched events"
			}
			return ""
		}},
		{"the same yes again", []cupid.Answer{yes("ann")}, "ann", true, "", func(w *cupid.Writes, a *cupid.Answered) string {
			if !a.Repeated || w.Answer != nil || w.Match != nil || len(w.Events) != 0 {
				return "wanted nothing written"
			}
			return ""
		}},
		{"no after yes", []cupid.Answer{yes("ann")}, "ann", false, cupid.CodeConflict, nil},
		{"an outsider", nil, "cat", true, cupid.CodeInvalid, nil},
	}
	for _, c := range cases {
		w, a, err := answer(rec, c.answers, ts, nil, c.player, c.accept, cupid.Release{}, now)
		if c.code != "" {
			if cupid.ErrorCode(err) != c.code || w != nil {
				t.Errorf("%s: want %s, got %v %+v", c.name, c.code, err, w)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if msg := c.check(w, a); msg != "" {
			t.Errorf("%s: %s: %+v %+v", c.name, msg, w, a)
		}
	}
}

// TestBackfillCancelsOtherQueues: a newcomer's live tickets elsewhere are
// cancelled, named by the smallest player then queue; a newcomer that no
// longer waits refuses the backfill, writing nothing.
func TestBackfillCancelsOtherQueues(t *testing.T) {
	rec, _ := fixture(cupid.MatchAssigned)
	tc := &cupid.Ticket{ID: "tc", Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "cat"}, {ID: "cy"}}, State: cupid.StateWaiting}
	live := []cupid.LiveTicket{{Player: "cy", Queue: "solo", Ticket: "x1"}, {Player: "cat", Queue: "solo", Ticket: "x1"}, {Player: "cat", Queue: "duel", Ticket: "tc"}}
	cancel := backfillNeeds([]string{"tc"}, []*cupid.Ticket{tc}, live, "m")
	if want := map[string]string{"x1": MatchedElsewhereReason("cat", "duel", "m")}; fmt.Sprint(cancel) != fmt.Sprint(want) {
		t.Fatalf("cancel %v, want %v", cancel, want)
	}
	x1 := &cupid.Ticket{ID: "x1", Key: cupid.QueueKey{Queue: "solo"}, Players: []cupid.Player{{ID: "cat"}, {ID: "cy"}}, State: cupid.StateWaiting}
	b := cupid.Backfill{MatchID: "m", At: now, Teams: []cupid.Team{{TicketIDs: []string{"tc"}, PlayerIDs: []string{"cat"}}, {TicketIDs: nil}}}
	b.Teams[0].PlayerIDs = []string{"cat", "cy"}
	rec.Match.Seats = []int{3, 1}
	w, out := backfill(rec, b, []*cupid.Ticket{tc}, []*cupid.Ticket{x1}, cancel, nil)
	if !out.OK || out.Err != nil {
		t.Fatalf("%+v", out)
	}
	var kinds []string
	for _, e := range w.Events {
		kinds = append(kinds, e.TicketID+" "+string(e.Kind))
	}
	if want := []string{"tc matched", "tc assigned", "x1 cancelled"}; !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	}
	if w.Match.Match.Backfill || !strings.Contains(fmt.Sprint(w.Match.Match.Teams), "cy") {
		t.Errorf("session after: %+v", w.Match.Match)
	}
	// A newcomer in another live match refuses the backfill, writing
	// nothing; one in the session itself does not (he is joining it).
	w, out = backfill(rec, b, []*cupid.Ticket{tc}, []*cupid.Ticket{x1}, cancel, []cupid.Busy{{Ticket: "tc", Player: "cy", Match: "m9"}})
	if out.OK || len(out.Busy) != 1 || len(w.Tickets)+len(w.Events) != 0 || w.Match != nil {
		t.Errorf("a newcomer in another live match: %+v %+v", out, w)
	}
	if _, out = backfill(rec, b, []*cupid.Ticket{tc}, []*cupid.Ticket{x1}, cancel, []cupid.Busy{{Ticket: "tc", Player: "cy", Match: "m"}}); !out.OK {
		t.Errorf("a newcomer listed in the session itself was refused: %+v", out)
	}
	tc.State = cupid.StateCancelled
	w, out = backfill(rec, b, []*cupid.Ticket{tc}, nil, nil, nil)
	if out.OK || !slices.Equal(out.NotWaiting, []string{"tc"}) || len(w.Tickets)+len(w.Events) != 0 || w.Match != nil {
		t.Errorf("a ticket no longer waiting: %+v %+v", out, w)
	}
}

// TestRefusedTeamsChangeNothing: a game server's view that
// ApplySessionChange refuses leaves the record as it was.
func TestRefusedTeamsChangeNothing(t *testing.T) {
	for _, teams := range [][][]cupid.Player{
		{{{ID: "ann"}}}, // one team of two
		{{{ID: "ann"}, {ID: "x"}, {ID: "y"}}, {}},            // over the seats
		{{{ID: "ann"}}, {{ID: "ann"}}},                       // twice
		{{{ID: "g1"}, {ID: "g2"}}, {{ID: "g3"}, {}}},         // an empty id
		{{{ID: "g1"}, {ID: "g2"}}, {{ID: "g3"}, {ID: "g4"}}}, // every seat taken
	} {
		r := &cupid.MatchRecord{State: cupid.MatchFormed, Match: &cupid.Match{ID: "m", Seats: []int{2, 2},
			Teams: []cupid.Team{{TicketIDs: []string{"a"}, PlayerIDs: []string{"ann"}}, {TicketIDs: []string{"b"}, PlayerIDs: []string{"ben"}}}}}
		if err := ApplySessionChange(r, cupid.SessionChange{Kind: cupid.MatchEventBackfillOpened, Teams: teams}, time.Unix(0, 0)); err == nil {
			t.Errorf("%v: accepted", teams)
			continue
		}
		if m := r.Match; m.Backfill || len(m.Left) > 0 || m.ServerPlayers != nil || len(m.Teams[0].PlayerIDs) != 1 || m.Teams[1].PlayerIDs[0] != "ben" || !r.UpdatedAt.IsZero() {
			t.Errorf("%v: refused, but the record changed: %+v", teams, m)
		}
	}
}
