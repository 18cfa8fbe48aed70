package ticketsvc

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/watchtest"
	"github.com/cupid-match/cupid/memstore"
)

// The service's read and batch calls as the API uses them: what each
// answers for good input, and the field each names for bad input.

var errDiskFull = errors.New("database or disk is full")

func TestNewRefusesBadConfiguration(t *testing.T) {
	good := Queue{Name: "duel", TTL: time.Minute, Ruleset: []byte(duelRules)}
	with := func(change func(*Queue)) []Queue {
		q := good
		change(&q)
		return []Queue{q}
	}
	for _, tc := range []struct {
		name    string
		opts    Options
		mention string
	}{
		{"no store", Options{Queues: []Queue{good}}, "store"},
		{"unnamed queue", Options{Store: memstore.New(), Queues: with(func(q *Queue) { q.Name = "" })}, "name"},
		{"queue twice", Options{Store: memstore.New(), Queues: []Queue{good, good}}, "twice"},
		{"no time to live", Options{Store: memstore.New(), Queues: with(func(q *Queue) { q.TTL = 0 })}, "time to live"},
		{"negative max_keys", Options{Store: memstore.New(), Queues: with(func(q *Queue) { q.MaxKeys = -1 })}, "max_keys"},
		{"negative leaver_window", Options{Store: memstore.New(), Queues: with(func(q *Queue) { q.LeaverWindow = -time.Second })}, "leaver_window"},
		{"ruleset that does not load", Options{Store: memstore.New(), Queues: with(func(q *Queue) { q.Ruleset = []byte(`{"alliance": 3}`) })}, "alliance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.mention) {
				t.Fatalf("New: %v, want an error mentioning %q", err, tc.mention)
			}
		})
	}
}

func TestValidateRuleset(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	if probs := h.Rulesets().Validate([]byte(duelRules)); len(probs) != 0 {
		t.Fatalf("a good ruleset has problems: %v", probs)
	}
	for _, bad := range []string{`{"alliance": 3}`, `not json`, `{"alliance": {"min_number": 2, "max_number": 1, "player_min_number": 1, "player_max_number": 1}}`} {
		if probs := h.Rulesets().Validate([]byte(bad)); len(probs) == 0 {
			t.Errorf("ruleset %s: no problem reported", bad)
		}
	}
	// Validating installs nothing.
	if _, v, _ := h.Rulesets().Ruleset("duel"); v != 1 {
		t.Fatalf("version %d after validating, want 1", v)
	}
}

// TestGetTicketSaysWhyOrWithWhom: a waiting ticket comes with why it waits,
// a matched one with its match, an ended one with neither.
func TestGetTicketSaysWhyOrWithWhom(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	ctx := context.Background()
	a := h.create(t, ticket("duel", 1000, "a"))
	h.wait(0)
	v, err := h.GetTicket(ctx, a.ID)
	if err != nil || v.Ticket.State != cupid.StateWaiting || v.Why == nil || v.Why.TicketID != a.ID || v.Match != nil {
		t.Fatalf("waiting ticket: %+v %v, want why it waits", v, err)
	}
	b := h.create(t, ticket("duel", 1000, "b"))
	h.wait(0)
	v, err = h.GetTicket(ctx, b.ID)
	if err != nil || v.Ticket.State != cupid.StateMatched || v.Match == nil || v.Why != nil ||
		!slices.Contains(v.Match.TicketIDs(), a.ID) || !slices.Contains(v.Match.TicketIDs(), b.ID) {
		t.Fatalf("matched ticket: %+v %v, want its match with a and b", v, err)
	}
	c := h.create(t, ticket("big", 1, "c"))
	if _, err := h.CancelTicket(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	v, err = h.GetTicket(ctx, c.ID)
	if err != nil || v.Ticket.State != cupid.StateCancelled || v.Match != nil || v.Why != nil {
		t.Fatalf("cancelled ticket: %+v %v", v, err)
	}

	_, err = h.GetTicket(ctx, "")
	wantErr(t, err, cupid.CodeInvalid, "id")
	_, err = h.GetTicket(ctx, "no-such-ticket")
	if cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("unknown ticket: %v, want not_found", err)
	}
	h.store.FailNext("Match", errDiskFull)
	_, err = h.GetTicket(ctx, b.ID)
	wantErr(t, err, cupid.CodeUnavailable, "")
}

// TestCancelTicketsEachTheirOwn: one ticket that cannot be cancelled does
// not stop the others; a call that ended cancels nothing more.
func TestCancelTicketsEachTheirOwn(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	a := h.create(t, ticket("big", 1, "a"))
	b := h.create(t, ticket("big", 1, "b"))
	res := h.CancelTickets(context.Background(), []string{a.ID, "", "no-such-ticket", a.ID, b.ID})
	if res[0].Err != nil || res[0].Ticket.State != cupid.StateCancelled || res[4].Err != nil || res[4].Ticket.ID != b.ID {
		t.Fatalf("good cancels: %+v %+v", res[0], res[4])
	}
	wantErr(t, res[1].Err, cupid.CodeInvalid, "id")
	if cupid.ErrorCode(res[2].Err) != cupid.CodeNotFound {
		t.Fatalf("unknown ticket: %v, want not_found", res[2].Err)
	}
	if cupid.ErrorCode(res[3].Err) != cupid.CodeConflict {
		t.Fatalf("cancelled twice: %v, want conflict", res[3].Err)
	}
	h.wait(0)
	if n := waiting(t, h, "big"); n != 0 {
		t.Fatalf("%d tickets still pooled after their cancel", n)
	}

	c := h.create(t, ticket("big", 1, "c"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = h.CancelTickets(ctx, []string{c.ID})
	wantErr(t, res[0].Err, cupid.CodeUnavailable, "")
	if s := h.state(t, c.ID).State; s != cupid.StateWaiting {
		t.Fatalf("a cancel whose call had ended: %s, want still waiting", s)
	}
}

func TestListTickets(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	ctx := context.Background()
	var ids []string
	for _, p := range []string{"a", "b", "c"} {
		ids = append(ids, h.create(t, ticket("big", 1, p)).ID)
		h.clock.Advance(time.Second)
	}
	h.create(t, ticket("duel", 1000, "d"))
	if _, err := h.CancelTicket(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    cupid.TicketFilter
		want []string
	}{
		{"a queue, oldest first", cupid.TicketFilter{Queue: "big"}, ids},
		{"limited", cupid.TicketFilter{Queue: "big", Limit: 2}, ids[:2]},
		{"by state", cupid.TicketFilter{Queue: "big", State: cupid.StateWaiting}, []string{ids[0], ids[2]}},
		{"every queue", cupid.TicketFilter{State: cupid.StateCancelled}, ids[1:2]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts, err := h.ListTickets(ctx, tc.f)
			var got []string
			for _, tk := range ts {
				got = append(got, tk.ID)
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("listed %v (%v), want %v", got, err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		f     cupid.TicketFilter
		code  cupid.Code
		field string
	}{
		{"unknown queue", cupid.TicketFilter{Queue: "nope"}, cupid.CodeNotFound, "queue"},
		{"negative limit", cupid.TicketFilter{Limit: -1}, cupid.CodeInvalid, "limit"},
		{"limit past 1000", cupid.TicketFilter{Limit: 1001}, cupid.CodeInvalid, "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.ListTickets(ctx, tc.f)
			wantErr(t, err, tc.code, tc.field)
		})
	}
	h.store.FailNext("Tickets", errDiskFull)
	_, err := h.ListTickets(ctx, cupid.TicketFilter{})
	wantErr(t, err, cupid.CodeUnavailable, "")
}

// TestPlayersOfTicketsAndMatches: the ids the API's permission checks use.
func TestPlayersOfTicketsAndMatches(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	ctx := context.Background()
	party := h.create(t, ticket("big", 1, "a", "b", "c"))
	got, err := h.TicketPlayers(ctx, party.ID)
	if err != nil || !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("ticket players %v %v", got, err)
	}
	if _, err := h.TicketPlayers(ctx, "no-such-ticket"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("unknown ticket: %v, want not_found", err)
	}
	h.store.FailNext("Ticket", errDiskFull)
	_, err = h.TicketPlayers(ctx, party.ID)
	wantErr(t, err, cupid.CodeUnavailable, "")

	x, _, mid := h.matched(t, "x", "y")
	got, err = h.Handoff().MatchPlayers(ctx, mid)
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []string{"x", "y"}) {
		t.Fatalf("match players %v %v (ticket %s)", got, err, x.ID)
	}
	_, err = h.Handoff().MatchPlayers(ctx, "")
	wantErr(t, err, cupid.CodeInvalid, "match_id")
	if _, err := h.Handoff().MatchPlayers(ctx, "no-such-match"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("unknown match: %v, want not_found", err)
	}
}

// TestReleaseDueKeepsEveryQueuesDeadlines: the entry point a jumping clock
// calls releases unassigned matches and ends ready checks nobody answered,
// each in its own queue, and leaves queues without deadlines alone.
func TestReleaseDueKeepsEveryQueuesDeadlines(t *testing.T) {
	qs := []Queue{
		{Name: "duel", TTL: time.Hour, Ruleset: []byte(duelRules), AssignTimeout: 30 * time.Second, OnAssignTimeout: Requeue},
		{Name: "ready", TTL: time.Hour, Ruleset: []byte(duelRules), Acceptance: Acceptance{Timeout: 20 * time.Second, OnDecline: DeclineRequeueLast}},
		{Name: "plain", TTL: time.Hour, Ruleset: []byte(duelRules)},
	}
	h := start(t, memstore.New(), qs)
	ctx := context.Background()
	formed := map[string]string{}
	for _, q := range []string{"duel", "ready", "plain"} {
		a := h.create(t, ticket(q, 1000, q+"-1"))
		h.create(t, ticket(q, 1000, q+"-2"))
		h.wait(0)
		formed[q] = h.state(t, a.ID).MatchID
		if formed[q] == "" {
			t.Fatalf("queue %s formed no match", q)
		}
	}
	h.clock.Advance(31 * time.Second)
	h.Handoff().ReleaseDue(ctx)
	for q, want := range map[string]cupid.MatchState{"duel": cupid.MatchReleased, "ready": cupid.MatchReleased, "plain": cupid.MatchFormed} {
		if r, err := h.Handoff().GetMatch(ctx, formed[q]); err != nil || r.State != want {
			t.Errorf("queue %s: match %+v (%v), want %s", q, r, err, want)
		}
	}
}

// TestWatchReplaysFromTheStore: a ticket the hub holds no history of (made
// before a restart) replays from the store, after the sequence number the
// watcher asks; an assigned event carries its assignment.
func TestWatchReplaysFromTheStore(t *testing.T) {
	store := memstore.New()
	h := start(t, store, handoffQueues(Requeue))
	ctx := context.Background()
	a, _, mid := h.matched(t, "alice", "bob")
	if _, err := h.Handoff().AssignMatch(ctx, mid, cupid.Assignment{Server: "10.0.0.1:7777"}); err != nil {
		t.Fatal(err)
	}
	h = h.restart(t, handoffQueues(Requeue))
	all, err := store.Events(ctx, a.ID, 0)
	if err != nil || kinds(all) != "created matched assigned" {
		t.Fatalf("stored events %s %v", kinds(all), err)
	}
	for _, tc := range []struct {
		name  string
		after int64
		want  string
	}{
		{"from the start", 0, "created matched assigned"},
		{"after the created event", all[0].Seq, "matched assigned"},
		{"after everything", all[2].Seq, "assigned"}, // the final event, at once
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []cupid.Event
			err := h.WatchAssignment(ctx, a.ID, tc.after, func(ev cupid.Event) error { got = append(got, ev); return nil })
			if err != nil || kinds(got) != tc.want {
				t.Fatalf("heard %s (%v), want %s", kinds(got), err, tc.want)
			}
			if last := got[len(got)-1]; last.Assignment == nil || last.Assignment.Server != "10.0.0.1:7777" {
				t.Fatalf("the assigned event carries %+v, want the server", last.Assignment)
			}
		})
	}
	// Watch, which ends at the match, given a sequence number past the end
	// hears the last event again at once instead of waiting for ever.
	var got []cupid.Event
	if err := h.Watch(ctx, a.ID, all[2].Seq, func(ev cupid.Event) error { got = append(got, ev); return nil }); err != nil || kinds(got) != "assigned" {
		t.Fatalf("Watch after the end heard %s (%v), want assigned", kinds(got), err)
	}
}

func TestWatchRefusalsAndFailures(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	ctx := context.Background()
	a := h.create(t, ticket("big", 1, "a"))
	nop := func(cupid.Event) error { return nil }

	wantErr(t, h.Watch(ctx, "", 0, nop), cupid.CodeInvalid, "id")
	wantErr(t, h.Watch(ctx, a.ID, -1, nop), cupid.CodeInvalid, "after_seq")

	// A send that fails ends the watch with its error.
	gone := errors.New("client went away")
	if err := h.Watch(ctx, a.ID, 0, func(cupid.Event) error { return gone }); !errors.Is(err, gone) {
		t.Fatalf("failing send: %v", err)
	}
	// A store that cannot read the events: unavailable, not a bare error.
	h = h.restart(t, queues(0))
	h.store.FailNext("Events", errDiskFull)
	wantErr(t, h.Watch(ctx, a.ID, 0, nop), cupid.CodeUnavailable, "")
}

// TestWatchEndsWithItsCallOrTheServer: a live watch ends when its caller
// goes, and when the server shuts down, naming the sequence number to
// reconnect after.
func TestWatchEndsWithItsCallOrTheServer(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	a := h.create(t, ticket("big", 1, "a"))

	ctx, cancel := context.WithCancel(context.Background())
	evs, done := watchtest.Collect(func(send func(cupid.Event) error) error { return h.Watch(ctx, a.ID, 0, send) })
	if ev := watchtest.Next(t, evs); ev.Kind != cupid.EventCreated {
		t.Fatalf("first event %s", ev.Kind)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("watch whose caller went: %v", err)
	}

	evs, done = watchtest.Collect(func(send func(cupid.Event) error) error { return h.Watch(context.Background(), a.ID, 0, send) })
	created := watchtest.Next(t, evs)
	h.Close()
	err := <-done
	wantErr(t, err, cupid.CodeUnavailable, "", "shutting down", "after_seq=")
	if !strings.Contains(err.Error(), "after_seq="+strconv.FormatInt(created.Seq, 10)) {
		t.Fatalf("%v does not name the last event %d", err, created.Seq)
	}
}
