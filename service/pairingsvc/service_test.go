package pairingsvc

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/pairing"
)

func TestCreateEventRefusesBadInput(t *testing.T) {
	h := start(t, newMemDocs(), testclock.At(t0), Limits{MaxEvents: 2})
	h.event(t, "taken", cfg4)
	ctx := context.Background()
	cases := []struct {
		name  string
		req   NewEvent
		code  cupid.Code
		field string
	}{
		{"no rooms", NewEvent{Config: pairing.Config{}}, cupid.CodeInvalid, "settings.rooms"},
		{"negative round", NewEvent{Config: pairing.Config{Rooms: 1, Round: -time.Second}}, cupid.CodeInvalid, "settings.round"},
		{"min lobby of one", NewEvent{Config: pairing.Config{Rooms: 1, MinLobby: 1}}, cupid.CodeInvalid, "settings.min_lobby"},
		{"id with a slash", NewEvent{ID: "a/b", Config: cfg4}, cupid.CodeInvalid, "id"},
		{"id of dots", NewEvent{ID: "..", Config: cfg4}, cupid.CodeInvalid, "id"},
		{"long id", NewEvent{ID: strings.Repeat("x", MaxIDBytes+1), Config: cfg4}, cupid.CodeInvalid, "id"},
		{"name with a newline", NewEvent{Name: "a\nb", Config: cfg4}, cupid.CodeInvalid, "name"},
		{"taken id", NewEvent{ID: "taken", Config: cfg4}, cupid.CodeConflict, "id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := h.docs.putCount()
			_, err := h.s.CreateEvent(ctx, c.req)
			wantCode(t, err, c.code, c.field)
			if h.docs.putCount() != before {
				t.Fatal("a refused event was stored")
			}
		})
	}
	h.event(t, "second", cfg4)
	_, err := h.s.CreateEvent(ctx, NewEvent{Config: cfg4})
	wantCode(t, err, cupid.CodeTooLarge, "")
	if vs, _ := h.s.ListEvents(ctx); len(vs) != 2 {
		t.Fatalf("%d events, want 2", len(vs))
	}
}

func TestDefaultsFillLeftOutSettings(t *testing.T) {
	h := start(t, newMemDocs(), testclock.At(t0), Limits{Defaults: Defaults{Round: 7 * time.Minute}})
	v := h.event(t, "e", pairing.Config{Rooms: 3})
	want := pairing.Config{Rooms: 3, Round: 7 * time.Minute, Countdown: DefaultCountdown, MinLobby: DefaultMinLobby}
	if !reflect.DeepEqual(v.Config, want) {
		t.Fatalf("config %+v, want %+v", v.Config, want)
	}
}

// TestRoundThroughTheService runs a round on the test clock and checks what
// the organiser and a participant are told, that the event was stored
// before anyone was told, and the participant's status in answers.
func TestRoundThroughTheService(t *testing.T) {
	h := newHarness(t)
	h.event(t, "e", cfg4)
	ctx := context.Background()
	// The organiser's watch checks, as each notification arrives, that the
	// store already holds the change it announces.
	var mu sync.Mutex
	var storeBehind []string
	org := &watch{ch: make(chan Notification, 1000), errc: make(chan error, 1)}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		org.errc <- h.s.Watch(wctx, "e", "", func(n Notification) error {
			if d, _ := h.docs.stored(t, "e"); n.Round > d.Event.Round {
				mu.Lock()
				storeBehind = append(storeBehind, fmt.Sprintf("%s of round %d told with round %d stored", n.Kind, n.Round, d.Event.Round))
				mu.Unlock()
			}
			org.ch <- n
			return nil
		})
	}()
	if n := org.next(t); n.Kind != KindWatching || n.Phase != pairing.PhaseIdle {
		t.Fatalf("first message %+v", n)
	}
	ann := startWatch(t, h.s, "e", "ann")

	v, st, err := h.s.Join(ctx, "e", "ann")
	if err != nil || st.State != pairing.StateAway || len(v.Participants) != 1 {
		t.Fatalf("join: %v %+v %v", st, v, err)
	}
	if _, st, _ := h.s.EnterLobby(ctx, "e", "ann"); st.State != pairing.StateLobby {
		t.Fatalf("enter: %+v", st)
	}
	h.arrive(t, "e", "bob", "cat", "dan")
	if n := ann.next(t); n.Kind != pairing.KindCountdownStarted || !n.Deadline.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("ann told %+v", n)
	}

	h.clk.Advance(10 * time.Second)
	v = h.get(t, "e")
	if v.Phase != pairing.PhaseRound || v.Round != 1 || len(v.Pairs) != 2 || len(v.Lobby) != 0 {
		t.Fatalf("after the countdown: %+v", v)
	}
	paired := ann.until(t, pairing.KindPaired)
	if paired.Partner == "" || paired.Room < 1 || paired.Room > 2 || !paired.Deadline.Equal(t0.Add(70*time.Second)) {
		t.Fatalf("ann paired %+v", paired)
	}
	org.until(t, pairing.KindRoundStarted)
	for range 4 {
		if n := org.next(t); n.Kind != pairing.KindPaired {
			t.Fatalf("organiser told %+v, want paired", n)
		}
	}
	// A new watch of ann starts with her in her room.
	if n := firstMessage(t, h.s, "e", "ann"); n.State != pairing.StateRoom || n.Room != paired.Room || n.Partner != paired.Partner || n.Phase != pairing.PhaseRound || n.Round != 1 {
		t.Fatalf("watching message %+v", n)
	}

	// The partner leaves: ann is told, the room is free.
	if _, _, err := h.s.Leave(ctx, "e", paired.Partner); err != nil {
		t.Fatal(err)
	}
	if n := ann.next(t); n.Kind != pairing.KindPartnerLeft || n.Partner != paired.Partner || n.Room != paired.Room {
		t.Fatalf("ann told %+v, want partner_left", n)
	}
	if v := h.get(t, "e"); len(v.Pairs) != 1 || !slices.Contains(v.Lobby, "ann") {
		t.Fatalf("after the partner left: %+v", v)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(storeBehind) > 0 {
		t.Fatalf("told before stored: %v", storeBehind)
	}
	if got := metric(t, h.reg, "cupid_pairing_rounds_total"); got != 1 {
		t.Fatalf("rounds metric %v", got)
	}
	if got := metric(t, h.reg, "cupid_pairing_lobby_participants"); got != 1 {
		t.Fatalf("lobby metric %v, want 1 (ann)", got)
	}
}

// TestStoreFailureChangesNothing: while the store fails, calls get
// "unavailable", the event keeps its stored state, a deadline that passes
// is not acted on and nobody is told anything; once the store is back the
// event carries on.
func TestStoreFailureChangesNothing(t *testing.T) {
	h := newHarness(t)
	h.event(t, "e", cfg4)
	ctx := context.Background()
	h.arrive(t, "e", "a", "b")
	org := startWatch(t, h.s, "e", "")
	before := h.get(t, "e")
	graph, _ := h.s.MetGraph(ctx, "e")

	h.docs.setFail(true)
	_, _, err := h.s.Join(ctx, "e", "c")
	wantCode(t, err, cupid.CodeUnavailable, "")
	_, _, err = h.s.ClearRecord(ctx, "e", "a")
	wantCode(t, err, cupid.CodeUnavailable, "")
	h.clk.Advance(10 * time.Second) // the countdown ends, but the round cannot be stored
	if v := h.get(t, "e"); !reflect.DeepEqual(v, before) {
		t.Fatalf("event changed while the store failed:\n%+v\n%+v", v, before)
	}
	if g, _ := h.s.MetGraph(ctx, "e"); !reflect.DeepEqual(g, graph) {
		t.Fatalf("met graph changed: %+v", g)
	}
	err = h.s.DeleteEvent(ctx, "e")
	wantCode(t, err, cupid.CodeUnavailable, "")
	if got := org.drain(); len(got) != 0 {
		t.Fatalf("told %v while the store failed", kindsOf(got))
	}
	if got := metric(t, h.reg, "cupid_pairing_store_errors_total"); got < 4 {
		t.Fatalf("store errors metric %v", got)
	}

	h.docs.setFail(false)
	h.clk.Advance(retryAfter)
	if v := h.get(t, "e"); v.Round != 1 || len(v.Pairs) != 1 {
		t.Fatalf("after the store came back: %+v", v)
	}
	if n := org.until(t, pairing.KindRoundStarted); n.Round != 1 {
		t.Fatalf("round_started %+v", n)
	}
}

// TestRestartReloadsEvents stops a service and starts another on the same
// store: events, participants, records, rooms and the random state are all
// back, and the next round is the one a service that never stopped runs.
func TestRestartReloadsEvents(t *testing.T) {
	ctx := context.Background()
	// Both services see the same calls at the same times; one restarts.
	var twins [2]*harness
	var clocks [2]*testclock.Clock
	var docs [2]*memDocs
	for i := range twins {
		docs[i], clocks[i] = newMemDocs(), testclock.At(t0)
		h := start(t, docs[i], clocks[i], Limits{})
		h.event(t, "e", cfg4)
		h.event(t, "other", cfg4)
		h.arrive(t, "e", "a", "b", "c", "d", "e")
		clocks[i].Advance(10 * time.Second)
		h.get(t, "e")
		if _, _, err := h.s.LeaveLobby(ctx, "e", "e"); err != nil {
			t.Fatal(err)
		}
		twins[i] = h
	}
	view := twins[0].get(t, "e")
	graph, _ := twins[0].s.MetGraph(ctx, "e")
	if view.Round != 1 || len(graph.Edges) != 4 {
		t.Fatalf("before the restart: %+v %+v", view, graph)
	}
	twins[0].s.Close()
	twins[0] = start(t, docs[0], clocks[0], Limits{})

	if v := twins[0].get(t, "e"); !reflect.DeepEqual(v, view) {
		t.Fatalf("after restart:\n%+v\nwant\n%+v", v, view)
	}
	if g, _ := twins[0].s.MetGraph(ctx, "e"); !reflect.DeepEqual(g, graph) {
		t.Fatalf("met graph after restart %+v, want %+v", g, graph)
	}
	if vs, _ := twins[0].s.ListEvents(ctx); len(vs) != 2 || vs[0].ID != "e" || vs[1].ID != "other" {
		t.Fatalf("list after restart: %d events", len(vs))
	}
	if got := metric(t, twins[0].reg, "cupid_pairing_events"); got != 2 {
		t.Fatalf("events metric %v", got)
	}
	for i, h := range twins {
		// Time passed while the server was down: the round ends on the
		// first look, as of now, and the next countdown starts from now.
		clocks[i].Advance(time.Hour)
		if v := h.get(t, "e"); v.Phase != pairing.PhaseCountdown || v.Round != 1 || !v.Deadline.Equal(clocks[i].Now().Add(10*time.Second)) {
			t.Fatalf("after a long stop: %+v", v)
		}
		if _, _, err := h.s.EnterLobby(ctx, "e", "e"); err != nil {
			t.Fatal(err)
		}
		clocks[i].Advance(10 * time.Second)
	}
	r0, r1 := twins[0].get(t, "e"), twins[1].get(t, "e")
	if r0.Round != 2 || !reflect.DeepEqual(r0, r1) {
		t.Fatalf("round 2 after the restart:\n%+v\nwithout a restart:\n%+v", r0, r1)
	}
}

func TestDeleteEvent(t *testing.T) {
	h := newHarness(t)
	h.event(t, "e", cfg4)
	h.arrive(t, "e", "a")
	org := startWatch(t, h.s, "e", "")
	a := startWatch(t, h.s, "e", "a")
	ctx := context.Background()
	if err := h.s.DeleteEvent(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []*watch{org, a} {
		if n := w.next(t); n.Kind != KindEventDeleted {
			t.Fatalf("last message %+v", n)
		}
		if err := <-w.errc; err != nil {
			t.Fatalf("watch ended with %v", err)
		}
	}
	if _, ok := h.docs.stored(t, "e"); ok {
		t.Fatal("deleted event still stored")
	}
	_, err := h.s.GetEvent(ctx, "e")
	wantCode(t, err, cupid.CodeNotFound, "id")
	_, _, err = h.s.Join(ctx, "e", "b")
	wantCode(t, err, cupid.CodeNotFound, "event_id")
	// The id is free again.
	h.event(t, "e", cfg4)
}

// TestSlowWatcherIsDropped: a watcher that does not read is dropped once
// its buffer is full, while every call goes on without waiting for it.
func TestSlowWatcherIsDropped(t *testing.T) {
	h := newHarness(t)
	h.event(t, "e", cfg4)
	h.arrive(t, "e", "a")
	if _, _, err := h.s.Join(context.Background(), "e", "b"); err != nil {
		t.Fatal(err)
	}
	stuck := make(chan struct{})
	release := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- h.s.Watch(context.Background(), "e", "a", func(n Notification) error {
			if n.Kind == KindWatching {
				close(stuck)
			}
			<-release // reads nothing more until released
			return nil
		})
	}()
	<-stuck // registered, and stuck in its first send
	fast := startWatch(t, h.s, "e", "a")
	ctx := context.Background()
	for i := range watchBuffer + 10 {
		// Each call is a change that tells a: countdown started, then
		// cancelled. The reading watcher keeps up; the stuck one cannot.
		if _, _, err := h.s.EnterLobby(ctx, "e", "b"); err != nil {
			t.Fatal(i, err)
		}
		if n := fast.next(t); n.Kind != pairing.KindCountdownStarted {
			t.Fatalf("change %d: %+v", i, n)
		}
		if _, _, err := h.s.LeaveLobby(ctx, "e", "b"); err != nil {
			t.Fatal(i, err)
		}
		if n := fast.next(t); n.Kind != pairing.KindCountdownCancelled {
			t.Fatalf("change %d: %+v", i, n)
		}
	}
	close(release)
	if err := <-errc; cupid.ErrorCode(err) != cupid.CodeUnavailable {
		t.Fatalf("slow watch ended with %v, want unavailable", err)
	}
}

func TestParticipantLimit(t *testing.T) {
	h := start(t, newMemDocs(), testclock.At(t0), Limits{MaxParticipants: 2})
	h.event(t, "e", cfg4)
	ctx := context.Background()
	h.arrive(t, "e", "a", "b")
	_, _, err := h.s.Join(ctx, "e", "c")
	wantCode(t, err, cupid.CodeTooLarge, "participant")
	// Someone known may come back: their record is already counted.
	if _, _, err := h.s.Leave(ctx, "e", "a"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.s.Join(ctx, "e", "a"); err != nil {
		t.Fatal(err)
	}
}

func TestWatchRefusesBadInput(t *testing.T) {
	h := newHarness(t)
	h.event(t, "e", cfg4)
	send := func(Notification) error { return nil }
	ctx := context.Background()
	wantCode(t, h.s.Watch(ctx, "nope", "", send), cupid.CodeNotFound, "event_id")
	wantCode(t, h.s.Watch(ctx, "", "", send), cupid.CodeInvalid, "event_id")
	wantCode(t, h.s.Watch(ctx, "e", "bad\x00key", send), cupid.CodeInvalid, "participant")
}

// TestThousandEventsSideBySide runs 1,000 events at once on the real clock,
// each with a 1 ms countdown, and waits until every one has run a round.
func TestThousandEventsSideBySide(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	reg := startReal(t)
	s := reg.s
	ctx := context.Background()
	cfg := pairing.Config{Rooms: 1, Round: time.Hour, Countdown: time.Millisecond, MinLobby: 2}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	watching := make(chan struct{}, n)
	for i := range n {
		id := fmt.Sprintf("ev-%04d", i)
		if _, err := s.CreateEvent(ctx, NewEvent{ID: id, Config: cfg}); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := fmt.Errorf("done")
			err := s.Watch(ctx, id, "", func(n Notification) error {
				switch n.Kind {
				case KindWatching:
					watching <- struct{}{}
				case pairing.KindRoundStarted:
					return done
				}
				return nil
			})
			if err != done {
				errs <- fmt.Errorf("%s: watch ended with %v", id, err)
			}
		}()
	}
	for range n {
		<-watching
	}
	// Participants arrive in all events at once.
	var callers sync.WaitGroup
	for i := range n {
		callers.Add(1)
		go func() {
			defer callers.Done()
			id := fmt.Sprintf("ev-%04d", i)
			for _, k := range []string{"a", "b"} {
				if _, _, err := s.Join(ctx, id, k); err != nil {
					errs <- err
				}
				if _, _, err := s.EnterLobby(ctx, id, k); err != nil {
					errs <- err
				}
			}
		}()
	}
	callers.Wait()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := metric(t, reg.reg, "cupid_pairing_rounds_total"); got != float64(n) {
		t.Fatalf("rounds metric %v, want %d", got, n)
	}
	if got := metric(t, reg.reg, "cupid_pairing_events"); got != float64(n) {
		t.Fatalf("events metric %v, want %d", got, n)
	}
}

// startReal starts a service on the real clock over a memDocs.
func startReal(t testing.TB) *harness {
	t.Helper()
	docs := newMemDocs()
	reg := prometheus.NewRegistry()
	s, err := New(Options{Docs: docs, Registry: reg, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &harness{s: s, docs: docs, reg: reg}
}

// TestLimitsAreChecked gives New bad limits directly, as code that does not
// read a configuration file would: each is refused with an
// invalid-argument error naming the field, and no service is built.
func TestLimitsAreChecked(t *testing.T) {
	cases := []struct {
		name   string
		limits Limits
		field  string
	}{
		{"negative max events", Limits{MaxEvents: -1}, "limits.max_events"},
		{"negative max participants", Limits{MaxParticipants: -1}, "limits.max_participants"},
		{"too many participants", Limits{MaxParticipants: pairing.MaxPeople + 1}, "limits.max_participants"},
		{"default lobby of one", Limits{Defaults: Defaults{MinLobby: 1}}, "limits.defaults.min_lobby"},
		{"default round over a day", Limits{Defaults: Defaults{Round: 25 * time.Hour}}, "limits.defaults.round"},
		{"negative default round", Limits{Defaults: Defaults{Round: -time.Second}}, "limits.defaults.round"},
		{"negative default countdown", Limits{Defaults: Defaults{Countdown: -time.Second}}, "limits.defaults.countdown"},
		{"default countdown over an hour", Limits{Defaults: Defaults{Countdown: 61 * time.Minute}}, "limits.defaults.countdown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(Options{Docs: newMemDocs(), Limits: c.limits})
			if s != nil {
				t.Fatal("New built a service from bad limits")
			}
			wantCode(t, err, cupid.CodeInvalid, c.field)
		})
	}
}

// TestLimitsDefaults: zero limits take the defaults written on Limits, and
// given ones are applied, to events that leave settings out and to the
// number of events (TestParticipantLimit has the people of one event).
func TestLimitsDefaults(t *testing.T) {
	got, err := Limits{}.WithDefaults()
	want := Limits{MaxEvents: DefaultMaxEvents, MaxParticipants: DefaultMaxParticipants,
		Defaults: Defaults{Round: DefaultRound, Countdown: DefaultCountdown, MinLobby: DefaultMinLobby}}
	if err != nil || got != want {
		t.Fatalf("Limits{}.WithDefaults() = %+v, %v; want %+v", got, err, want)
	}
	if DefaultMaxEvents != 10_000 || DefaultMaxParticipants != 20_000 || DefaultRound != 5*time.Minute ||
		DefaultCountdown != 30*time.Second || DefaultMinLobby != 2 {
		t.Fatal("a default differs from docs/pairing.md")
	}

	h := start(t, newMemDocs(), testclock.At(t0), Limits{MaxEvents: 1,
		Defaults: Defaults{Round: 90 * time.Second, Countdown: 5 * time.Second, MinLobby: 6}})
	v := h.event(t, "e", pairing.Config{Rooms: 4})
	if !reflect.DeepEqual(v.Config, pairing.Config{Rooms: 4, Round: 90 * time.Second, Countdown: 5 * time.Second, MinLobby: 6}) {
		t.Fatalf("settings %+v", v.Config)
	}
	_, err = h.s.CreateEvent(context.Background(), NewEvent{Config: cfg4})
	wantCode(t, err, cupid.CodeTooLarge, "")
}
