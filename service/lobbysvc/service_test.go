package lobbysvc

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/lobby"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

const duelRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`

// pairsRules are two teams of one or two, for a lobby whose free seats the
// queue fills.
const pairsRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2}}`

type fixture struct {
	store *memstore.Store
	mm    *ticketsvc.Service
	svc   *Service
	clock *testclock.Clock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{store: memstore.New(), clock: testclock.At(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	f.boot(t, nil)
	return f
}

// boot starts the ticket and lobby services on the fixture's store (again,
// after a restart); matches, when set, stands in for the ticket service.
func (f *fixture) boot(t *testing.T, matches Matches) {
	t.Helper()
	f.bootWith(t, matches, nil)
}

// bootWith is boot with setup changing the lobby service's options first
// (limits, a registry, a store that notes fences).
func (f *fixture) bootWith(t *testing.T, matches Matches, setup func(*Options)) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	mm, err := ticketsvc.New(ticketsvc.Options{Store: f.store, Documents: f.store, Now: f.clock.Now, Logger: log,
		Queues: []ticketsvc.Queue{{Name: "duel", TTL: time.Hour, Ruleset: []byte(duelRules)}, {Name: "squad", TTL: time.Hour, Ruleset: []byte(duelRules)},
			{Name: "pairs", TTL: time.Hour, Ruleset: []byte(pairsRules)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := mm.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if matches == nil {
		matches = FromTickets(mm)
	}
	o := Options{Docs: f.store, Matches: matches, Now: f.clock.Now, Logger: log, Seed: 7}
	if setup != nil {
		setup(&o)
	}
	svc, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.mm, f.svc = mm, svc
	t.Cleanup(func() { svc.Close(); mm.Close() })
}

func (f *fixture) restart(t *testing.T, matches Matches) {
	t.Helper()
	f.svc.Close()
	f.mm.Close()
	f.boot(t, matches)
}

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func code(err error) cupid.Code { return cupid.ErrorCode(err) }

// TestLobbyToMatch: created, listed with filters, joined by id and code,
// restarted in the middle, readied, started: its match is in the queue's
// match log with the lobby's teams.
func TestLobbyToMatch(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	l := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: lobby.Settings{Name: "ann's game", Queue: "duel", Teams: 2, TeamSize: 2, Attributes: map[string]string{"map": "dust"}}}))
	ok(f.svc.CreateLobby(ctx, NewLobby{Host: "zed", Settings: lobby.Settings{Queue: "squad", Teams: 2, TeamSize: 1}}))
	ok(f.svc.CreateLobby(ctx, NewLobby{Host: "yan", Settings: lobby.Settings{Queue: "duel", Teams: 2, TeamSize: 1, Visibility: lobby.Private}}))
	if _, err := f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: lobby.Settings{Queue: "duel", Teams: 2, TeamSize: 2}}); code(err) != cupid.CodeAlreadyExists {
		t.Fatalf("ann hosts two: %v", err)
	}
	if _, err := f.svc.CreateLobby(ctx, NewLobby{Host: "xi", Settings: lobby.Settings{Queue: "nope", Teams: 2, TeamSize: 2}}); code(err) != cupid.CodeNotFound {
		t.Fatalf("unknown queue: %v", err)
	}

	list := func(fl lobby.Filter) []string {
		t.Helper()
		p, err := f.svc.ListLobbies(ctx, fl, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, v := range p.Lobbies {
			ids = append(ids, v.Host)
		}
		return ids
	}
	if got := strings.Join(list(lobby.Filter{}), ","); got != "ann,zed" {
		t.Fatalf("public lobbies: %s", got)
	}
	if got := strings.Join(list(lobby.Filter{Queue: "duel", Attributes: map[string]string{"map": "dust"}, MinFree: 3}), ","); got != "ann" {
		t.Fatalf("filtered: %s", got)
	}
	p, err := f.svc.ListLobbies(ctx, lobby.Filter{}, "", 1)
	if err != nil || len(p.Lobbies) != 1 || p.Next == "" {
		t.Fatalf("page 1: %+v %v", p, err)
	}
	if p2, _ := f.svc.ListLobbies(ctx, lobby.Filter{}, p.Next, 1); len(p2.Lobbies) != 1 || p2.Lobbies[0].Host != "zed" || p2.Next != "" {
		t.Fatalf("page 2: %+v", p2)
	}

	ok(f.svc.Join(ctx, l.ID, "", "bob", nil, 1))
	ok(f.svc.Join(ctx, "", strings.ToLower(l.Code), "cat", nil, lobby.AnyTeam))
	if _, err := f.svc.Join(ctx, "", l.Code, "zed", nil, lobby.AnyTeam); code(err) != cupid.CodeAlreadyExists {
		t.Fatalf("zed in two lobbies: %v", err)
	}

	f.restart(t, nil)
	v := ok(f.svc.GetLobby(ctx, l.ID))
	if len(v.Members) != 3 || v.Free != 1 {
		t.Fatalf("after restart: %+v", v)
	}
	if _, err := f.svc.Join(ctx, "", l.Code, "zed", nil, lobby.AnyTeam); code(err) != cupid.CodeAlreadyExists {
		t.Fatalf("the player index after restart: %v", err)
	}
	if _, _, err := f.svc.StartLobby(ctx, l.ID, "ann"); code(err) != cupid.CodeConflict || !strings.Contains(err.Error(), "not ready") {
		t.Fatalf("start before ready: %v", err)
	}
	if _, _, err := f.svc.StartLobby(ctx, l.ID, "bob"); code(err) != cupid.CodeDenied {
		t.Fatalf("bob starts: %v", err)
	}
	for _, p := range []string{"ann", "bob", "cat"} {
		ok(f.svc.SetReady(ctx, l.ID, p, true))
	}
	v, rec, err := f.svc.StartLobby(ctx, l.ID, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if v.State != lobby.Started || rec.Match.ID != v.MatchID || len(rec.Match.Teams) != 2 {
		t.Fatalf("started: %+v %+v", v, rec.Match)
	}
	evs, err := f.store.MatchEvents(ctx, "duel", 0, 10)
	if err != nil || len(evs) != 1 || evs[0].MatchID != v.MatchID {
		t.Fatalf("match log: %+v %v", evs, err)
	}
	teams := evs[0].Match.Teams
	if strings.Join(teams[0].PlayerIDs, ",") != "ann,cat" || strings.Join(teams[1].PlayerIDs, ",") != "bob" || evs[0].Match.Seats[0] != 2 {
		t.Fatalf("teams: %+v", evs[0].Match)
	}
	if got := list(lobby.Filter{Queue: "duel"}); len(got) != 0 {
		t.Fatalf("a started lobby is listed: %v", got)
	}
	// Its players are free to host or join again.
	ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: lobby.Settings{Queue: "duel", Teams: 2, TeamSize: 1}}))

	// Finished lobbies are forgotten after the retention.
	f.clock.Advance(11 * time.Minute)
	f.svc.Sweep(ctx)
	if _, err := f.svc.GetLobby(ctx, l.ID); code(err) != cupid.CodeNotFound {
		t.Fatalf("swept: %v", err)
	}
	if docs, _ := f.store.Documents(ctx, DocumentKind, "", 0); len(docs) != 3 {
		t.Fatalf("documents left: %d, want the 3 live lobbies'", len(docs))
	}
}

// TestStartRefusedForBusyPlayer: a member in another live match refuses
// the start, naming him; the lobby is open again with the reason.
func TestStartRefusedForBusyPlayer(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	if _, err := f.mm.CommitFormed(ctx, ticketsvc.FormedMatch{ID: "M0", Queue: "duel", RequestID: "other", Teams: [][]cupid.Player{{{ID: "bob"}}, {{ID: "dan"}}}}); err != nil {
		t.Fatal(err)
	}
	l := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: lobby.Settings{Queue: "duel", Teams: 2, TeamSize: 1}}))
	ok(f.svc.Join(ctx, l.ID, "", "bob", nil, lobby.AnyTeam))
	ok(f.svc.SetReady(ctx, l.ID, "ann", true))
	ok(f.svc.SetReady(ctx, l.ID, "bob", true))
	_, _, err := f.svc.StartLobby(ctx, l.ID, "ann")
	if code(err) != cupid.CodeConflict || !strings.Contains(err.Error(), "player bob is in match M0") {
		t.Fatalf("busy bob: %v", err)
	}
	v := ok(f.svc.GetLobby(ctx, l.ID))
	if v.State != lobby.Open || !strings.Contains(v.Reason, "bob") {
		t.Fatalf("after a refused start: %+v", v)
	}
}

// failing stands in for the ticket service while the store is down.
type failing struct{ Matches }

func (failing) CommitFormed(context.Context, ticketsvc.FormedMatch) (*cupid.MatchRecord, error) {
	return nil, cupid.Errorf(cupid.CodeUnavailable, "", "the store could not do this now")
}

// TestStartFinishesAfterRestart: a start the store could not finish leaves
// the lobby starting; the next start of the server forms its match.
func TestStartFinishesAfterRestart(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	f.restart(t, failing{})
	f.svc.matches = failing{FromTickets(f.mm)}
	l := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: lobby.Settings{Queue: "duel", Teams: 2, TeamSize: 1}}))
	ok(f.svc.Join(ctx, l.ID, "", "bob", nil, lobby.AnyTeam))
	ok(f.svc.SetReady(ctx, l.ID, "ann", true))
	ok(f.svc.SetReady(ctx, l.ID, "bob", true))
	if _, _, err := f.svc.StartLobby(ctx, l.ID, "ann"); code(err) != cupid.CodeUnavailable {
		t.Fatalf("start while the store fails: %v", err)
	}
	if v := ok(f.svc.GetLobby(ctx, l.ID)); v.State != lobby.Starting {
		t.Fatalf("state %s", v.State)
	}
	f.restart(t, nil)
	// The restart finishes the start in the background; watch for it.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var last lobby.Event
	err := f.svc.Watch(wctx, l.ID, 1, func(ev lobby.Event, v *View) error { last = ev; return nil })
	if err != nil || last.Kind != lobby.EventStarted {
		t.Fatalf("watch: last %+v, %v", last, err)
	}
	if _, err := f.store.MatchRecord(ctx, last.MatchID); err != nil {
		t.Fatal(err)
	}
}

// TestWatch: a watcher from the start hears "watching", then each change,
// and ends after the final event; one resuming after a seq hears the rest.
func TestWatch(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	l := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: lobby.Settings{Queue: "duel", Teams: 2, TeamSize: 1}}))
	type got struct {
		kind lobby.EventKind
		seq  int64
	}
	ch := make(chan got, 16)
	done := make(chan error, 1)
	go func() {
		done <- f.svc.Watch(ctx, l.ID, 0, func(ev lobby.Event, v *View) error { ch <- got{ev.Kind, ev.Seq}; return nil })
	}()
	if g := <-ch; g.kind != KindWatching || g.seq != 1 {
		t.Fatalf("first: %+v", g)
	}
	ok(f.svc.Join(ctx, l.ID, "", "bob", nil, lobby.AnyTeam))
	if g := <-ch; g.kind != lobby.EventJoined {
		t.Fatalf("then: %+v", g)
	}
	ok(f.svc.CloseLobby(ctx, l.ID, "ann"))
	if g := <-ch; g.kind != lobby.EventClosed {
		t.Fatalf("then: %+v", g)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var kinds []string
	if err := f.svc.Watch(ctx, l.ID, 1, func(ev lobby.Event, v *View) error { kinds = append(kinds, string(ev.Kind)); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(kinds, ",") != "joined,closed" {
		t.Fatalf("resumed: %v", kinds)
	}
	if err := f.svc.Watch(ctx, l.ID, -1, nil); code(err) != cupid.CodeInvalid {
		t.Fatal(err)
	}
}

// TestStoreFailureChangesNothing: a change the store refuses is not made
// and nobody is told.
func TestStoreFailureChangesNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	l := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: lobby.Settings{Queue: "duel", Teams: 2, TeamSize: 1}}))
	f.store.FailNext("PutDocument", errors.New("disk full"))
	if _, err := f.svc.Join(ctx, l.ID, "", "bob", nil, lobby.AnyTeam); code(err) != cupid.CodeUnavailable {
		t.Fatalf("join while the store fails: %v", err)
	}
	if v := ok(f.svc.GetLobby(ctx, l.ID)); len(v.Members) != 1 {
		t.Fatalf("members: %+v", v.Members)
	}
	if _, ok := f.svc.LobbyOf("bob"); ok {
		t.Fatal("bob left in the player index")
	}
	ok(f.svc.Join(ctx, l.ID, "", "bob", nil, lobby.AnyTeam))
}

// A lobby open to the queue starts with its free seats open to backfill:
// waiting tickets of the queue take them, under the queue's ruleset, and
// the match is full.
func TestLobbyFreeSeatsFilledFromTheQueue(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	l := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: lobby.Settings{Queue: "pairs", Teams: 2, TeamSize: 2, FillFromQueue: true}}))
	ok(f.svc.Join(ctx, l.ID, "", "bob", nil, 1))
	for _, p := range []string{"ann", "bob"} {
		ok(f.svc.SetReady(ctx, l.ID, p, true))
	}
	v, rec, err := f.svc.StartLobby(ctx, l.ID, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if v.State != lobby.Started || !rec.Match.Backfill {
		t.Fatalf("started %s, backfill %v", v.State, rec.Match.Backfill)
	}
	var tickets []string
	for _, p := range []string{"cat", "dan"} {
		tk, _, err := f.mm.CreateTicket(ctx, &cupid.Ticket{Key: cupid.QueueKey{Queue: "pairs"}, Players: []cupid.Player{{ID: p}}}, false)
		if err != nil {
			t.Fatal(err)
		}
		tickets = append(tickets, tk.ID)
	}
	for _, id := range tickets {
		got := make(chan cupid.Event, 8)
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a failure guard, not a timing
		err := f.mm.Watch(wctx, id, 0, func(ev cupid.Event) error {
			got <- ev
			return nil
		})
		cancel()
		if err != nil {
			t.Fatalf("watch %s: %v", id, err)
		}
		var last cupid.Event
		for len(got) > 0 {
			last = <-got
		}
		if last.Kind != cupid.EventMatched || last.Match == nil || last.Match.ID != rec.Match.ID {
			t.Fatalf("ticket %s ended %s in %+v, want matched into the lobby's match %s", id, last.Kind, last.Match, rec.Match.ID)
		}
	}
	m, err := f.mm.Handoff().GetMatch(ctx, rec.Match.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cupid.MatchPlayerIDs(m.Match)); n != 4 {
		t.Fatalf("the lobby's match holds %d players, want its 4 seats taken", n)
	}
}
