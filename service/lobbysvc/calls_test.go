package lobbysvc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/storetest"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lobby"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

func newFixtureWith(t *testing.T, setup func(*Options)) *fixture {
	t.Helper()
	f := &fixture{store: memstore.New(), clock: testclock.At(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	f.bootWith(t, nil, setup)
	return f
}

// field is the request field an error names.
func field(err error) string {
	var e *cupid.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// stored is every lobby document as the store holds it.
func (f *fixture) stored(t *testing.T) string {
	t.Helper()
	docs, err := f.store.Documents(context.Background(), DocumentKind, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, d := range docs {
		fmt.Fprintf(&b, "%s %s\n", d.ID, d.Body)
	}
	return b.String()
}

// gauge reads the lobbies gauge of a state.
func gauge(t *testing.T, s *Service, st lobby.State) float64 {
	t.Helper()
	var m dto.Metric
	if err := s.metrics.lobbies.WithLabelValues(string(st)).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
}

func duel(teamSize int) lobby.Settings {
	return lobby.Settings{Queue: "duel", Teams: 2, TeamSize: teamSize}
}

func TestNew(t *testing.T) {
	store := memstore.New()
	if _, err := New(Options{Docs: store}); err == nil {
		t.Fatal("a service without the ticket service")
	}
	if _, err := New(Options{Matches: failing{}}); err == nil {
		t.Fatal("a service without a store")
	}
	if _, err := New(Options{Docs: store, Matches: failing{}, Limits: lobby.Limits{MaxTeams: -1}}); field(err) != "max_teams" {
		t.Fatalf("a negative limit: %v", err)
	}
	s, err := New(Options{Docs: store, Matches: failing{}, Limits: lobby.Limits{MaxLobbies: 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := lobby.DefaultLimits
	want.MaxLobbies = 3
	if s.Limits() != want {
		t.Fatalf("limits %+v, want %+v", s.Limits(), want)
	}
}

// Bad input and refused changes answer with the code and the field, and
// change neither the store nor who is in which lobby.
func TestRefusedCallsChangeNothing(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	pub := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: duel(1)}))
	ok(f.svc.Join(ctx, pub.ID, "", "bob", nil, 1))
	priv := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "cat", Settings: lobby.Settings{Queue: "duel", Teams: 2, TeamSize: 2, Visibility: lobby.Private}}))
	locked := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "dan", Settings: duel(2)}))
	ok(f.svc.SetLocked(ctx, locked.ID, "dan", true))
	long := strings.Repeat("x", 65)
	for _, c := range []struct {
		name  string
		call  func() error
		code  cupid.Code
		field string
	}{
		{"create in an unknown queue", func() error {
			_, err := f.svc.CreateLobby(ctx, NewLobby{Host: "eve", Settings: lobby.Settings{Queue: "nope", Teams: 2, TeamSize: 1}})
			return err
		}, cupid.CodeNotFound, "settings.queue"},
		{"create with no team", func() error {
			_, err := f.svc.CreateLobby(ctx, NewLobby{Host: "eve", Settings: lobby.Settings{Queue: "duel", TeamSize: 1}})
			return err
		}, cupid.CodeInvalid, "settings.teams"},
		{"create without a host", func() error { _, err := f.svc.CreateLobby(ctx, NewLobby{Settings: duel(1)}); return err }, cupid.CodeInvalid, "host"},
		{"create while in a lobby", func() error { _, err := f.svc.CreateLobby(ctx, NewLobby{Host: "bob", Settings: duel(1)}); return err }, cupid.CodeAlreadyExists, "host"},
		{"get without an id", func() error { _, err := f.svc.GetLobby(ctx, ""); return err }, cupid.CodeInvalid, "lobby_id"},
		{"get an unknown lobby", func() error { _, err := f.svc.GetLobby(ctx, "nope"); return err }, cupid.CodeNotFound, "lobby_id"},
		{"join without id or code", func() error { _, err := f.svc.Join(ctx, "", "", "eve", nil, lobby.AnyTeam); return err }, cupid.CodeInvalid, "lobby_id"},
		{"join with an unknown code", func() error { _, err := f.svc.Join(ctx, "", "ZZZZZZ", "eve", nil, lobby.AnyTeam); return err }, cupid.CodeNotFound, "code"},
		{"join one lobby with another's code", func() error { _, err := f.svc.Join(ctx, pub.ID, priv.Code, "eve", nil, lobby.AnyTeam); return err }, cupid.CodeNotFound, "code"},
		{"join without a player", func() error { _, err := f.svc.Join(ctx, locked.ID, "", "", nil, lobby.AnyTeam); return err }, cupid.CodeInvalid, "player"},
		{"join a private lobby by id", func() error { _, err := f.svc.Join(ctx, priv.ID, "", "eve", nil, lobby.AnyTeam); return err }, cupid.CodeDenied, "code"},
		{"join a full lobby", func() error { _, err := f.svc.Join(ctx, pub.ID, "", "eve", nil, lobby.AnyTeam); return err }, cupid.CodeExhausted, "lobby_id"},
		{"join a locked lobby", func() error { _, err := f.svc.Join(ctx, locked.ID, "", "eve", nil, lobby.AnyTeam); return err }, cupid.CodeConflict, "lobby_id"},
		{"join a team that is not", func() error { _, err := f.svc.Join(ctx, priv.ID, priv.Code, "eve", nil, 2); return err }, cupid.CodeInvalid, "team"},
		{"join his own lobby again", func() error { _, err := f.svc.Join(ctx, pub.ID, "", "bob", nil, lobby.AnyTeam); return err }, cupid.CodeAlreadyExists, "player"},
		{"join a second lobby", func() error { _, err := f.svc.Join(ctx, "", priv.Code, "bob", nil, lobby.AnyTeam); return err }, cupid.CodeAlreadyExists, "player"},
		{"a stranger leaves", func() error { _, err := f.svc.Leave(ctx, pub.ID, "eve"); return err }, cupid.CodeNotFound, "player"},
		{"change team while locked", func() error { _, err := f.svc.SetTeam(ctx, locked.ID, "dan", 1); return err }, cupid.CodeConflict, "lobby_id"},
		{"change to a full team", func() error { _, err := f.svc.SetTeam(ctx, pub.ID, "bob", 0); return err }, cupid.CodeExhausted, "team"},
		{"a member kicks", func() error { _, err := f.svc.Kick(ctx, pub.ID, "bob", "ann"); return err }, cupid.CodeDenied, "player"},
		{"the host kicks himself", func() error { _, err := f.svc.Kick(ctx, pub.ID, "ann", "ann"); return err }, cupid.CodeInvalid, "target"},
		{"the host kicks a stranger", func() error { _, err := f.svc.Kick(ctx, pub.ID, "ann", "eve"); return err }, cupid.CodeNotFound, "target"},
		{"a member locks", func() error { _, err := f.svc.SetLocked(ctx, pub.ID, "bob", true); return err }, cupid.CodeDenied, "player"},
		{"hand over to a stranger", func() error { _, err := f.svc.HandOver(ctx, pub.ID, "ann", "eve"); return err }, cupid.CodeNotFound, "target"},
		{"a member closes", func() error { _, err := f.svc.CloseLobby(ctx, pub.ID, "bob"); return err }, cupid.CodeDenied, "player"},
		{"a member starts", func() error { _, _, err := f.svc.StartLobby(ctx, pub.ID, "bob"); return err }, cupid.CodeDenied, "player"},
		{"start before ready", func() error { _, _, err := f.svc.StartLobby(ctx, pub.ID, "ann"); return err }, cupid.CodeConflict, "lobby_id"},
		{"start an unknown lobby", func() error { _, _, err := f.svc.StartLobby(ctx, "nope", "ann"); return err }, cupid.CodeNotFound, "lobby_id"},
		{"a negative page", func() error { _, err := f.svc.ListLobbies(ctx, lobby.Filter{}, "", -1); return err }, cupid.CodeInvalid, "page_size"},
		{"a page too large", func() error {
			_, err := f.svc.ListLobbies(ctx, lobby.Filter{}, "", lobby.DefaultLimits.MaxPageSize+1)
			return err
		}, cupid.CodeInvalid, "page_size"},
		{"a cursor this server never gave", func() error { _, err := f.svc.ListLobbies(ctx, lobby.Filter{}, long, 0); return err }, cupid.CodeInvalid, "cursor"},
		{"a negative free seat count", func() error { _, err := f.svc.ListLobbies(ctx, lobby.Filter{MinFree: -1}, "", 0); return err }, cupid.CodeInvalid, "min_free_seats"},
		{"watch from a negative seq", func() error { return f.svc.Watch(ctx, pub.ID, -1, nil) }, cupid.CodeInvalid, "after_seq"},
		{"watch an unknown lobby", func() error { return f.svc.Watch(ctx, "nope", 0, nil) }, cupid.CodeNotFound, "lobby_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := f.stored(t)
			err := c.call()
			if code(err) != c.code || field(err) != c.field {
				t.Fatalf("got %v (code %s, field %q); want code %s naming %q", err, code(err), field(err), c.code, c.field)
			}
			if after := f.stored(t); after != before {
				t.Fatalf("the store changed:\n%s\nwas\n%s", after, before)
			}
			if id, in := f.svc.LobbyOf("eve"); in {
				t.Fatalf("eve is indexed in lobby %s", id)
			}
			if id, _ := f.svc.LobbyOf("bob"); id != pub.ID {
				t.Fatalf("bob is indexed in lobby %q", id)
			}
		})
	}
}

// collect runs a watch of a lobby from its start and hands over its
// events; done gets its end.
type collect struct {
	ch   chan lobby.Event
	done chan error
}

func (f *fixture) watch(t *testing.T, ctx context.Context, id string, after int64) *collect {
	c := &collect{ch: make(chan lobby.Event, 256), done: make(chan error, 1)}
	go func() {
		c.done <- f.svc.Watch(ctx, id, after, func(ev lobby.Event, v *View) error { c.ch <- ev; return nil })
	}()
	return c
}

// next is the watch's next event, failing after a generous deadline (a
// hang guard, not a timing).
func (c *collect) next(t *testing.T) lobby.Event {
	t.Helper()
	select {
	case ev := <-c.ch:
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no event")
	}
	return lobby.Event{}
}

// The host's and members' calls, each stored, told in order and kept in
// the player index: a kicked player is out and stays out, a locked lobby
// is listed only when asked, the host who leaves hands over to the
// earliest member, and the last one out closes the lobby. A restart finds
// it all as it was.
func TestHostAndMemberCalls(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	l := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: duel(2)}))
	w := f.watch(t, ctx, l.ID, 0)
	if ev := w.next(t); ev.Kind != KindWatching {
		t.Fatalf("first %+v", ev)
	}
	expect := func(kind lobby.EventKind, player string) {
		t.Helper()
		if ev := w.next(t); ev.Kind != kind || ev.Player != player {
			t.Fatalf("event %+v, want %s of %s", ev, kind, player)
		}
	}
	ok(f.svc.Join(ctx, l.ID, "", "bob", nil, 0))
	expect(lobby.EventJoined, "bob")
	v := ok(f.svc.SetTeam(ctx, l.ID, "bob", lobby.AnyTeam))
	if m, _ := v.Member("bob"); m.Team != 1 {
		t.Fatalf("bob moved to the emptiest team: %+v", v.Members)
	}
	expect(lobby.EventTeamChanged, "bob")
	ok(f.svc.SetTeam(ctx, l.ID, "bob", 1)) // where he is: nothing told
	ok(f.svc.Join(ctx, l.ID, "", "cat", nil, lobby.AnyTeam))
	expect(lobby.EventJoined, "cat")
	ok(f.svc.Kick(ctx, l.ID, "ann", "cat"))
	expect(lobby.EventKicked, "cat")
	if _, in := f.svc.LobbyOf("cat"); in {
		t.Fatal("a kicked player is indexed")
	}
	if _, err := f.svc.Join(ctx, l.ID, "", "cat", nil, lobby.AnyTeam); code(err) != cupid.CodeDenied {
		t.Fatalf("the kicked player comes back: %v", err)
	}
	ok(f.svc.SetLocked(ctx, l.ID, "ann", true))
	expect(lobby.EventLocked, "ann")
	ok(f.svc.SetLocked(ctx, l.ID, "ann", true)) // the same again: nothing told
	for _, c := range []struct {
		filter lobby.Filter
		want   int
	}{{lobby.Filter{}, 0}, {lobby.Filter{IncludeLocked: true}, 1}} {
		if p, err := f.svc.ListLobbies(ctx, c.filter, "", 0); err != nil || len(p.Lobbies) != c.want {
			t.Fatalf("listed with %+v: %+v %v", c.filter, p, err)
		}
	}
	ok(f.svc.SetLocked(ctx, l.ID, "ann", false))
	expect(lobby.EventUnlocked, "ann")
	ok(f.svc.HandOver(ctx, l.ID, "ann", "bob"))
	expect(lobby.EventHostChanged, "bob")
	ok(f.svc.Join(ctx, l.ID, "", "dan", nil, lobby.AnyTeam))
	expect(lobby.EventJoined, "dan")
	ok(f.svc.Leave(ctx, l.ID, "bob"))
	expect(lobby.EventLeft, "bob")
	expect(lobby.EventHostChanged, "ann") // the earliest member
	// The host may host again elsewhere once he is out.
	other := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "bob", Settings: duel(1)}))

	f.restart(t, nil)
	got := ok(f.svc.GetLobby(ctx, l.ID))
	if got.Host != "ann" || strings.Join(got.Players(), ",") != "ann,dan" || len(got.Kicked) != 1 {
		t.Fatalf("after the restart: %+v", got)
	}
	if id, _ := f.svc.LobbyOf("bob"); id != other.ID {
		t.Fatalf("bob's lobby after the restart: %q", id)
	}
	w = f.watch(t, ctx, l.ID, got.Seq)
	ok(f.svc.Leave(ctx, l.ID, "ann"))
	ok(f.svc.Leave(ctx, l.ID, "dan"))
	expect(lobby.EventLeft, "ann")
	expect(lobby.EventHostChanged, "dan")
	expect(lobby.EventLeft, "dan")
	if ev := w.next(t); ev.Kind != lobby.EventClosed || ev.Reason != "everyone left" {
		t.Fatalf("the last one out: %+v", ev)
	}
	if err := <-w.done; err != nil {
		t.Fatalf("the watch of a closed lobby ended with %v", err)
	}
}

// The server runs at most MaxLobbies live lobbies; one that closes makes
// room.
func TestMaxLobbies(t *testing.T) {
	f := newFixtureWith(t, func(o *Options) { o.Limits = lobby.Limits{MaxLobbies: 2} })
	ctx := context.Background()
	ok := must[*View](t)
	a := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: duel(1)}))
	ok(f.svc.CreateLobby(ctx, NewLobby{Host: "bob", Settings: duel(1)}))
	before := f.stored(t)
	if _, err := f.svc.CreateLobby(ctx, NewLobby{Host: "cat", Settings: duel(1)}); code(err) != cupid.CodeExhausted {
		t.Fatalf("a third lobby: %v", err)
	}
	if f.stored(t) != before {
		t.Fatal("a refused lobby was stored")
	}
	ok(f.svc.CloseLobby(ctx, a.ID, "ann"))
	ok(f.svc.CreateLobby(ctx, NewLobby{Host: "cat", Settings: duel(1)}))
}

// A lobby the store could not create is not there: its host is free and
// its code unknown.
func TestCreateStoreFailure(t *testing.T) {
	reg := prometheus.NewRegistry()
	f := newFixtureWith(t, func(o *Options) { o.Registry = reg })
	ctx := context.Background()
	f.store.FailNext("PutDocument", errors.New("disk full"))
	if _, err := f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: duel(1)}); code(err) != cupid.CodeUnavailable {
		t.Fatalf("a create while the store fails: %v", err)
	}
	if _, in := f.svc.LobbyOf("ann"); in {
		t.Fatal("ann is indexed in a lobby that was not stored")
	}
	if n := len(f.svc.Running()); n != 0 {
		t.Fatalf("%d lobbies held", n)
	}
	if g := gauge(t, f.svc, lobby.Open); g != 0 {
		t.Fatalf("open gauge %v", g)
	}
	must[*View](t)(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: duel(1)}))
	if g := gauge(t, f.svc, lobby.Open); g != 1 {
		t.Fatalf("open gauge %v", g)
	}
}

// stepMatches forms matches through the ticket service, except that the
// first commit may fail as the store would, and opening backfill may fail.
type stepMatches struct {
	Matches
	mu           sync.Mutex
	failCommits  int
	failBackfill bool
}

func (m *stepMatches) CommitFormed(ctx context.Context, f ticketsvc.FormedMatch) (*cupid.MatchRecord, error) {
	m.mu.Lock()
	fail := m.failCommits > 0
	m.failCommits--
	m.mu.Unlock()
	if fail {
		return nil, cupid.Errorf(cupid.CodeUnavailable, "", "the store could not do this now")
	}
	return m.Matches.CommitFormed(ctx, f)
}

func (m *stepMatches) OpenBackfill(ctx context.Context, id string, options map[string][]string) (*cupid.MatchRecord, error) {
	if m.failBackfill {
		return nil, cupid.Errorf(cupid.CodeUnavailable, "", "the store could not do this now")
	}
	return m.Matches.OpenBackfill(ctx, id, options)
}

// A start the store could not finish leaves the lobby starting, changed
// by nobody but the host, who finishes it by starting again.
func TestStartAgain(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	m := &stepMatches{Matches: FromTickets(f.mm), failCommits: 1}
	f.svc.matches = m
	l := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: duel(1)}))
	ok(f.svc.Join(ctx, l.ID, "", "bob", nil, lobby.AnyTeam))
	ok(f.svc.SetReady(ctx, l.ID, "ann", true))
	ok(f.svc.SetReady(ctx, l.ID, "bob", true))
	if _, _, err := f.svc.StartLobby(ctx, l.ID, "ann"); code(err) != cupid.CodeUnavailable {
		t.Fatalf("a start while the store fails: %v", err)
	}
	if _, err := f.svc.Leave(ctx, l.ID, "bob"); code(err) != cupid.CodeConflict {
		t.Fatalf("bob leaves a starting lobby: %v", err)
	}
	if _, _, err := f.svc.StartLobby(ctx, l.ID, "bob"); code(err) != cupid.CodeConflict {
		t.Fatalf("bob starts a starting lobby: %v", err)
	}
	v, rec, err := f.svc.StartLobby(ctx, l.ID, "ann")
	if err != nil || v.State != lobby.Started || rec.Match.ID != v.MatchID {
		t.Fatalf("the host starts again: %+v %v", v, err)
	}
	if g := gauge(t, f.svc, lobby.Started); g != 1 {
		t.Fatalf("started gauge %v", g)
	}
	// Started is final: another start says so.
	if _, _, err := f.svc.StartLobby(ctx, l.ID, "ann"); code(err) != cupid.CodeConflict {
		t.Fatalf("a started lobby starts: %v", err)
	}
}

// A lobby's match is formed even when its free seats could not be opened
// to the queue: it starts as it is.
func TestStartWithoutBackfill(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	f.svc.matches = &stepMatches{Matches: FromTickets(f.mm), failBackfill: true}
	l := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: lobby.Settings{Queue: "pairs", Teams: 2, TeamSize: 2, FillFromQueue: true}}))
	ok(f.svc.Join(ctx, l.ID, "", "bob", nil, 1))
	ok(f.svc.SetReady(ctx, l.ID, "ann", true))
	ok(f.svc.SetReady(ctx, l.ID, "bob", true))
	v, rec, err := f.svc.StartLobby(ctx, l.ID, "ann")
	if err != nil || v.State != lobby.Started || rec.Match.Backfill {
		t.Fatalf("started %+v, backfill %v, %v", v, rec != nil && rec.Match.Backfill, err)
	}
}

// Finished lobbies are forgotten after the retention; one whose document
// could not be deleted is kept and deleted at the next sweep. Creating a
// lobby sweeps too.
func TestSweep(t *testing.T) {
	f := newFixtureWith(t, func(o *Options) { o.Retention = time.Minute })
	ctx := context.Background()
	ok := must[*View](t)
	a := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: duel(1)}))
	b := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "bob", Settings: duel(1)}))
	ok(f.svc.CloseLobby(ctx, a.ID, "ann"))
	f.clock.Advance(59 * time.Second)
	f.svc.Sweep(ctx)
	if _, err := f.svc.GetLobby(ctx, a.ID); err != nil {
		t.Fatalf("a lobby closed within the retention: %v", err)
	}
	f.clock.Advance(time.Second)
	f.store.FailNext("DeleteDocument", errors.New("disk full"))
	f.svc.Sweep(ctx)
	if _, err := f.svc.GetLobby(ctx, a.ID); err != nil {
		t.Fatalf("a lobby whose document could not be deleted: %v", err)
	}
	ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: duel(1)}))
	if _, err := f.svc.GetLobby(ctx, a.ID); code(err) != cupid.CodeNotFound {
		t.Fatalf("after the next sweep: %v", err)
	}
	if strings.Contains(f.stored(t), a.ID) {
		t.Fatal("the swept lobby's document is still stored")
	}
	if _, err := f.svc.GetLobby(ctx, b.ID); err != nil {
		t.Fatalf("a live lobby was swept: %v", err)
	}
	if g := gauge(t, f.svc, lobby.Closed); g != 0 {
		t.Fatalf("closed gauge %v", g)
	}
}

// Running lists the live lobbies first, then the finished ones, each by id.
func TestRunning(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	var ids []string
	for _, h := range []string{"ann", "bob", "cat", "dan"} {
		ids = append(ids, ok(f.svc.CreateLobby(ctx, NewLobby{Host: h, Settings: duel(1)})).ID)
	}
	ok(f.svc.CloseLobby(ctx, ids[0], "ann"))
	ok(f.svc.CloseLobby(ctx, ids[2], "cat"))
	var got []string
	for _, v := range f.svc.Running() {
		got = append(got, v.ID)
	}
	if want := []string{ids[1], ids[3], ids[0], ids[2]}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("running %v, want %v", got, want)
	}
}

// A watch ends when its context does or its send fails; one further
// behind than the kept events starts from the oldest kept; one of a
// finished lobby from the start hears the lobby as it is, then ends.
func TestWatchEnds(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	l := ok(f.svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: duel(1)}))

	boom := errors.New("the connection closed")
	if err := f.svc.Watch(ctx, l.ID, 0, func(lobby.Event, *View) error { return boom }); err != boom {
		t.Fatalf("a watch whose send fails: %v", err)
	}
	wctx, cancel := context.WithCancel(ctx)
	w := f.watch(t, wctx, l.ID, 0)
	w.next(t)
	cancel()
	if err := <-w.done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled watch: %v", err)
	}

	ok(f.svc.Join(ctx, l.ID, "", "bob", nil, lobby.AnyTeam))
	for i := range historyEvents + 6 {
		ok(f.svc.SetReady(ctx, l.ID, "bob", i%2 == 0))
	}
	last := ok(f.svc.GetLobby(ctx, l.ID)).Seq
	var seqs []int64
	wctx, cancel = context.WithCancel(ctx)
	defer cancel()
	err := f.svc.Watch(wctx, l.ID, 1, func(ev lobby.Event, v *View) error {
		seqs = append(seqs, ev.Seq)
		if ev.Seq == last {
			return boom // enough
		}
		return nil
	})
	if err != boom || len(seqs) != historyEvents || seqs[0] != last-historyEvents+1 {
		t.Fatalf("a watch from far behind got %d events from %v (%v); want the last %d", len(seqs), seqs[:1], err, historyEvents)
	}

	ok(f.svc.CloseLobby(ctx, l.ID, "ann"))
	var kinds []lobby.EventKind
	if err := f.svc.Watch(ctx, l.ID, 0, func(ev lobby.Event, v *View) error {
		if v.State != lobby.Closed {
			t.Errorf("the lobby as sent: %s", v.State)
		}
		kinds = append(kinds, ev.Kind)
		return nil
	}); err != nil || fmt.Sprint(kinds) != "[watching]" {
		t.Fatalf("a watch of a closed lobby: %v %v", kinds, err)
	}
	if err := f.svc.Watch(ctx, l.ID, last+1, func(lobby.Event, *View) error { return boom }); err != nil {
		t.Fatalf("a watch after the end of a closed lobby: %v", err)
	}
}

// A node of several runs the lobbies while it holds their lease: every
// write carries its fence; once it lets go every call answers unavailable
// (a lobby is elsewhere, not missing), watches end asking to reconnect and
// the gauges are zero; taking the lease again brings the lobbies back.
func TestLease(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	f.svc.Close()
	docs := &storetest.FenceLog{DocumentStore: f.store}
	svc, err := New(Options{Docs: docs, Matches: FromTickets(f.mm), Now: f.clock.Now, Logger: slog.New(slog.DiscardHandler), Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	f.svc = svc
	if err := svc.RunEvents(ctx, cupid.Fence{Token: 1}); err != nil {
		t.Fatal(err)
	}
	l := ok(svc.CreateLobby(ctx, NewLobby{Host: "ann", Settings: duel(1)}))
	if fc := docs.Last(); fc.Token != 1 {
		t.Fatalf("a write carries fence %+v", fc)
	}
	w := f.watch(t, ctx, l.ID, 0)
	w.next(t)

	svc.StopEvents()
	if err := <-w.done; code(err) != cupid.CodeUnavailable {
		t.Fatalf("a watch when the lobbies stopped: %v", err)
	}
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"get", func() error { _, err := svc.GetLobby(ctx, l.ID); return err }},
		{"join by id", func() error { _, err := svc.Join(ctx, l.ID, "", "bob", nil, lobby.AnyTeam); return err }},
		{"join by code", func() error { _, err := svc.Join(ctx, "", l.Code, "bob", nil, lobby.AnyTeam); return err }},
		{"create", func() error { _, err := svc.CreateLobby(ctx, NewLobby{Host: "bob", Settings: duel(1)}); return err }},
		{"list", func() error { _, err := svc.ListLobbies(ctx, lobby.Filter{}, "", 0); return err }},
		{"leave", func() error { _, err := svc.Leave(ctx, l.ID, "ann"); return err }},
		{"watch", func() error { return svc.Watch(ctx, l.ID, 0, nil) }},
	} {
		if err := c.call(); code(err) != cupid.CodeUnavailable {
			t.Errorf("%s while the lobbies run elsewhere: %v", c.name, err)
		}
	}
	if n := len(svc.Running()); n != 0 {
		t.Fatalf("%d lobbies held by a node that runs none", n)
	}
	if g := gauge(t, svc, lobby.Open); g != 0 {
		t.Fatalf("open gauge %v", g)
	}

	if err := svc.RunEvents(ctx, cupid.Fence{Token: 2}); err != nil {
		t.Fatal(err)
	}
	ok(svc.Join(ctx, "", l.Code, "bob", nil, lobby.AnyTeam))
	if fc := docs.Last(); fc.Token != 2 {
		t.Fatalf("a write carries fence %+v, want the new lease's", fc)
	}
	if id, _ := svc.LobbyOf("ann"); id != l.ID {
		t.Fatalf("ann's lobby after taking the lease again: %q", id)
	}
}

// A start reads every readable stored lobby, in pages, and leaves an
// unreadable document in the store; a store that cannot list them fails
// the start.
func TestLoad(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ok := must[*View](t)
	const lobbies = 300 // more than a page
	for i := range lobbies {
		ok(f.svc.CreateLobby(ctx, NewLobby{Host: fmt.Sprintf("h%03d", i), Settings: duel(1)}))
	}
	bad := map[string]string{
		"bad-json":    `{"version":`,
		"bad-version": `{"version": 2, "lobby": {"id": "bad-version"}}`,
		"bad-id":      `{"version": 1, "lobby": {"id": "another"}}`,
		"bad-none":    `{"version": 1}`,
	}
	for id, body := range bad {
		if err := f.store.PutDocument(ctx, cupid.Fence{}, DocumentKind, id, []byte(body), f.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	f.restart(t, nil)
	if n := len(f.svc.Running()); n != lobbies {
		t.Fatalf("%d lobbies after the restart, want %d", n, lobbies)
	}
	if _, in := f.svc.LobbyOf("h299"); !in {
		t.Fatal("the last page's host is in no lobby")
	}
	if g := gauge(t, f.svc, lobby.Open); g != lobbies {
		t.Fatalf("open gauge %v", g)
	}
	stored := f.stored(t)
	for id, body := range bad {
		if _, err := f.svc.GetLobby(ctx, id); code(err) != cupid.CodeNotFound {
			t.Errorf("unreadable %s: %v", id, err)
		}
		if !strings.Contains(stored, id+" "+body+"\n") {
			t.Errorf("unreadable %s was changed or removed", id)
		}
	}

	s, err := New(Options{Docs: f.store, Matches: FromTickets(f.mm), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f.store.FailNext("Documents", errors.New("disk gone"))
	if err := s.Start(ctx); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("a start whose store fails: %v", err)
	}
}
