package pairing

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

func TestConfigValidate(t *testing.T) {
	good := Config{Rooms: 3, Round: time.Minute, Countdown: 10 * time.Second, MinLobby: 2}
	cases := []struct {
		name  string
		edit  func(*Config)
		field string
	}{
		{"valid", func(*Config) {}, ""},
		{"zero countdown", func(c *Config) { c.Countdown = 0 }, ""},
		{"no rooms", func(c *Config) { c.Rooms = 0 }, "rooms"},
		{"too many rooms", func(c *Config) { c.Rooms = MaxRooms + 1 }, "rooms"},
		{"zero round", func(c *Config) { c.Round = 0 }, "round"},
		{"negative round", func(c *Config) { c.Round = -time.Second }, "round"},
		{"round too long", func(c *Config) { c.Round = MaxRound + 1 }, "round"},
		{"negative countdown", func(c *Config) { c.Countdown = -1 }, "countdown"},
		{"countdown too long", func(c *Config) { c.Countdown = MaxCountdown + 1 }, "countdown"},
		{"min lobby 1", func(c *Config) { c.MinLobby = 1 }, "min_lobby"},
		{"min lobby too big", func(c *Config) { c.MinLobby = MaxPeople + 1 }, "min_lobby"},
		{"cap", func(c *Config) { c.MaxDates, c.DatesWindow = 3, time.Hour }, ""},
		{"cap for the whole event", func(c *Config) { c.MaxDates = 3 }, ""},
		{"negative cap", func(c *Config) { c.MaxDates = -1 }, "max_dates"},
		{"cap too big", func(c *Config) { c.MaxDates = MaxDatesCap + 1 }, "max_dates"},
		{"negative window", func(c *Config) { c.MaxDates, c.DatesWindow = 3, -time.Second }, "dates_window_seconds"},
		{"window too long", func(c *Config) { c.MaxDates, c.DatesWindow = 3, MaxDatesWindow+1 }, "dates_window_seconds"},
		{"window without a cap", func(c *Config) { c.DatesWindow = time.Hour }, "dates_window_seconds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := good
			c.edit(&cfg)
			_, err := New(cfg, 1)
			if c.field == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var ce *cupid.Error
			if !errorsAs(err, &ce) || ce.Code != cupid.CodeInvalid || ce.Field != c.field {
				t.Fatalf("got %v, want an invalid error on %q", err, c.field)
			}
		})
	}
}

func errorsAs(err error, target **cupid.Error) bool {
	e, ok := err.(*cupid.Error)
	if ok {
		*target = e
	}
	return ok
}

// TestErrorsChangeNothing runs operations that must fail and checks the
// code, the field and that the event is exactly as before.
func TestErrorsChangeNothing(t *testing.T) {
	cases := []struct {
		name string
		op   func(e *Event, now time.Time) ([]Notification, error)
		code cupid.Code
	}{
		{"join twice", func(e *Event, now time.Time) ([]Notification, error) { return e.Join(now, "ann") }, cupid.CodeConflict},
		{"join empty key", func(e *Event, now time.Time) ([]Notification, error) { return e.Join(now, "") }, cupid.CodeInvalid},
		{"join long key", func(e *Event, now time.Time) ([]Notification, error) {
			return e.Join(now, strings.Repeat("x", MaxKeyBytes+1))
		}, cupid.CodeInvalid},
		{"join control character", func(e *Event, now time.Time) ([]Notification, error) { return e.Join(now, "a\nb") }, cupid.CodeInvalid},
		{"join bad utf-8", func(e *Event, now time.Time) ([]Notification, error) { return e.Join(now, "a\xffb") }, cupid.CodeInvalid},
		{"enter lobby unknown", func(e *Event, now time.Time) ([]Notification, error) { return e.EnterLobby(now, "zed") }, cupid.CodeNotFound},
		{"enter lobby after leaving", func(e *Event, now time.Time) ([]Notification, error) { return e.EnterLobby(now, "gus") }, cupid.CodeConflict},
		{"enter lobby twice", func(e *Event, now time.Time) ([]Notification, error) { return e.EnterLobby(now, "bob") }, cupid.CodeConflict},
		{"leave lobby when away", func(e *Event, now time.Time) ([]Notification, error) { return e.LeaveLobby(now, "ann") }, cupid.CodeConflict},
		{"leave lobby unknown", func(e *Event, now time.Time) ([]Notification, error) { return e.LeaveLobby(now, "zed") }, cupid.CodeNotFound},
		{"leave unknown", func(e *Event, now time.Time) ([]Notification, error) { return e.Leave(now, "zed") }, cupid.CodeNotFound},
		{"leave twice", func(e *Event, now time.Time) ([]Notification, error) { return e.Leave(now, "gus") }, cupid.CodeConflict},
		{"clear record unknown", func(e *Event, now time.Time) ([]Notification, error) { return e.ClearRecord(now, "zed") }, cupid.CodeNotFound},
		{"clear record gone", func(e *Event, now time.Time) ([]Notification, error) { return e.ClearRecord(now, "gus") }, cupid.CodeConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(Config{Rooms: 2, Round: time.Minute, Countdown: time.Minute, MinLobby: 3}, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"ann", "bob", "gus"} {
				mustOK(t)(e.Join(t0, k))
			}
			mustOK(t)(e.EnterLobby(t0, "bob"))
			mustOK(t)(e.Leave(t0, "gus"))
			before := e.Snapshot()
			notes, err := c.op(e, t0)
			var ce *cupid.Error
			if !errorsAs(err, &ce) || ce.Code != c.code || ce.Field != "participant" {
				t.Fatalf("got %v, want a %s error on participant", err, c.code)
			}
			if len(notes) != 0 {
				t.Fatalf("notifications %v from a failed call", notes)
			}
			if after := e.Snapshot(); !reflect.DeepEqual(before, after) {
				t.Fatalf("failed call changed the event:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

func mustOK(t *testing.T) func([]Notification, error) []Notification {
	return func(n []Notification, err error) []Notification {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
}

// kinds summarises notifications as "who:kind" strings for comparison,
// leaving out the organiser's round records (features_test.go checks them).
func kinds(notes []Notification) []string {
	var s []string
	for _, n := range notes {
		if n.Kind == KindRoundRecorded {
			continue
		}
		who := n.Participant
		if who == "" {
			who = "*"
		}
		s = append(s, who+":"+string(n.Kind))
	}
	return s
}

func TestRoundFlow(t *testing.T) {
	cfg := Config{Rooms: 5, Round: 5 * time.Minute, Countdown: 30 * time.Second, MinLobby: 2}
	e, _ := New(cfg, 7)
	ok := mustOK(t)
	for _, k := range []string{"ann", "bob", "cat", "dan", "eve"} {
		ok(e.Join(t0, k))
	}
	if notes := ok(e.EnterLobby(t0, "ann")); len(notes) != 0 {
		t.Fatalf("one person in the lobby started something: %v", notes)
	}
	if _, due := e.NextDeadline(); due {
		t.Fatal("deadline with one person in the lobby")
	}
	// The second person starts the countdown for both.
	notes := ok(e.EnterLobby(t0.Add(time.Second), "bob"))
	if got, want := kinds(notes), []string{"ann:countdown_started", "bob:countdown_started"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	end := t0.Add(31 * time.Second)
	if d, due := e.NextDeadline(); !due || !d.Equal(end) || !notes[0].Deadline.Equal(end) {
		t.Fatalf("deadline %v %v, want %v", d, due, end)
	}
	// Arrivals during the countdown are told and included.
	notes = ok(e.EnterLobby(t0.Add(10*time.Second), "cat"))
	if got := kinds(notes); !slices.Equal(got, []string{"cat:countdown_started"}) || !notes[0].Deadline.Equal(end) {
		t.Fatalf("late arrival got %v", notes)
	}
	ok(e.EnterLobby(t0.Add(20*time.Second), "dan"))
	// Before the deadline nothing happens.
	if notes := e.Advance(end.Add(-time.Nanosecond)); len(notes) != 0 {
		t.Fatalf("early advance gave %v", notes)
	}
	notes = e.Advance(end)
	if notes[0].Kind != KindRoundStarted || notes[0].Round != 1 || !notes[0].Deadline.Equal(end.Add(5*time.Minute)) {
		t.Fatalf("first notification %+v, want round 1 started", notes[0])
	}
	paired := map[string]Notification{}
	rooms := map[int]int{}
	for _, n := range notes[1:] {
		if n.Kind == KindRoundRecorded {
			continue
		}
		if n.Kind != KindPaired {
			t.Fatalf("unexpected %+v", n)
		}
		paired[n.Participant] = n
		rooms[n.Room]++
	}
	if len(paired) != 4 {
		t.Fatalf("%d people paired, want all 4: %v", len(paired), notes)
	}
	for k, n := range paired {
		if p := paired[n.Partner]; p.Partner != k || p.Room != n.Room {
			t.Fatalf("%s and %s disagree: %+v %+v", k, n.Partner, n, p)
		}
		if rooms[n.Room] != 2 || n.Room < 1 || n.Room > cfg.Rooms {
			t.Fatalf("room %d used by %d people", n.Room, rooms[n.Room])
		}
	}
	s := e.Snapshot()
	if s.Phase != PhaseRound || s.Round != 1 || len(s.Pairs) != 2 || len(s.Lobby) != 0 {
		t.Fatalf("snapshot after start: %+v", s)
	}
	// Entering during a round: wait for the next.
	if notes := ok(e.EnterLobby(end.Add(time.Minute), "eve")); len(notes) != 0 {
		t.Fatalf("entering during a round gave %v", notes)
	}
	// The round ends: everyone back in the lobby, next countdown for all.
	roundEnd := end.Add(5 * time.Minute)
	notes = e.Advance(roundEnd)
	want := []string{}
	for _, p := range s.Pairs {
		want = append(want, p.A+":round_ended", p.B+":round_ended")
	}
	for _, k := range []string{"ann", "bob", "cat", "dan", "eve"} {
		want = append(want, k+":countdown_started")
	}
	if got := kinds(notes); !slices.Equal(got, want) {
		t.Fatalf("round end gave %v, want %v", got, want)
	}
	// Round 2 pairs nobody with their round 1 partner.
	notes = e.Advance(roundEnd.Add(30 * time.Second))
	for _, n := range notes {
		if n.Kind == KindPaired && paired[n.Participant].Partner == n.Partner {
			t.Fatalf("%s paired with %s twice", n.Participant, n.Partner)
		}
	}
	if got := e.Snapshot(); got.Round != 2 || len(got.Pairs) != 2 {
		t.Fatalf("round 2: %+v", got)
	}
}

func TestCountdownCancelled(t *testing.T) {
	e, _ := New(Config{Rooms: 1, Round: time.Minute, Countdown: time.Minute, MinLobby: 3}, 1)
	ok := mustOK(t)
	for _, k := range []string{"a", "b", "c"} {
		ok(e.Join(t0, k))
		ok(e.EnterLobby(t0, k))
	}
	if _, due := e.NextDeadline(); !due {
		t.Fatal("no countdown with 3 of 3")
	}
	notes := ok(e.LeaveLobby(t0.Add(time.Second), "c"))
	if got := kinds(notes); !slices.Equal(got, []string{"a:countdown_cancelled", "b:countdown_cancelled"}) {
		t.Fatalf("got %v", got)
	}
	if _, due := e.NextDeadline(); due {
		t.Fatal("countdown still running")
	}
	if notes := e.Advance(t0.Add(time.Hour)); len(notes) != 0 {
		t.Fatalf("cancelled countdown still fired: %v", notes)
	}
}

func TestPartnerLeaves(t *testing.T) {
	for _, how := range []string{"leave", "leave lobby"} {
		t.Run(how, func(t *testing.T) {
			e, _ := New(Config{Rooms: 2, Round: time.Minute, Countdown: 0, MinLobby: 2}, 1)
			ok := mustOK(t)
			for _, k := range []string{"a", "b", "c", "d"} {
				ok(e.Join(t0, k))
			}
			ok(e.EnterLobby(t0, "a"))
			notes := ok(e.EnterLobby(t0, "b")) // zero countdown: a round at once
			if e.phase != PhaseRound || len(notes) < 3 {
				t.Fatalf("no round: %v", kinds(notes))
			}
			ok(e.EnterLobby(t0, "c"))
			ok(e.EnterLobby(t0, "d")) // waits for the next round
			leave := e.Leave
			if how == "leave lobby" {
				leave = e.LeaveLobby
			}
			notes = ok(leave(t0.Add(time.Second), "a"))
			// b is told and back in the lobby; with no room in use the round
			// ends early and, with a zero countdown, the next one starts.
			if notes[0] != (Notification{Participant: "b", Kind: KindPartnerLeft, Partner: "a", Room: notes[0].Room, Round: 1, At: t0.Add(time.Second)}) {
				t.Fatalf("partner notification %+v", notes[0])
			}
			if e.round != 2 {
				t.Fatalf("round %d, want the next round to have started", e.round)
			}
			s := e.Snapshot()
			if len(s.Pairs) != 1 || slices.Contains(s.Lobby, "a") {
				t.Fatalf("after: %+v", s)
			}
		})
	}
}

func TestRoundRunsOnWhenOneRoomEmpties(t *testing.T) {
	e, _ := New(Config{Rooms: 2, Round: time.Minute, Countdown: time.Second, MinLobby: 4}, 1)
	ok := mustOK(t)
	for _, k := range []string{"a", "b", "c", "d"} {
		ok(e.Join(t0, k))
		ok(e.EnterLobby(t0, k))
	}
	e.Advance(t0.Add(time.Second))
	partner := e.people["a"].partner
	notes := ok(e.Leave(t0.Add(2*time.Second), "a"))
	if got := kinds(notes); !slices.Equal(got, []string{partner + ":partner_left"}) {
		t.Fatalf("got %v", got)
	}
	if e.phase != PhaseRound || e.roomsInUse() != 1 || e.people[partner].state != StateLobby {
		t.Fatalf("phase %s, %d rooms, partner %s", e.phase, e.roomsInUse(), e.people[partner].state)
	}
}

func TestClearRecordNeedsBoth(t *testing.T) {
	e, _ := New(Config{Rooms: 1, Round: time.Minute, Countdown: time.Second, MinLobby: 2}, 1)
	ok := mustOK(t)
	for _, k := range []string{"a", "b"} {
		ok(e.Join(t0, k))
		ok(e.EnterLobby(t0, k))
	}
	now := t0.Add(time.Second)
	e.Advance(now)
	if e.round != 1 {
		t.Fatal("a and b were not paired")
	}
	now = now.Add(time.Minute)
	e.Advance(now) // round ends; countdown
	now = now.Add(time.Second)
	notes := e.Advance(now) // nobody left to meet
	if got := kinds(notes); !slices.Equal(got, []string{"a:sat_out", "b:sat_out"}) {
		t.Fatalf("got %v", got)
	}
	if _, due := e.NextDeadline(); due {
		t.Fatal("a countdown restarted although no pair is possible")
	}
	// One side clearing is not enough: b still remembers a.
	notes = ok(e.ClearRecord(now, "a"))
	now = now.Add(time.Second)
	notes = append(notes, e.Advance(now)...)
	if got := kinds(notes); !slices.Equal(got, []string{"a:countdown_started", "b:countdown_started", "a:sat_out", "b:sat_out"}) {
		t.Fatalf("after one clear: %v", got)
	}
	ok(e.ClearRecord(now, "b"))
	now = now.Add(time.Second)
	notes = e.Advance(now)
	if e.round != 2 || notes[0].Kind != KindRoundStarted {
		t.Fatalf("after both cleared: %v", kinds(notes))
	}
}

func TestRejoinKeepsRecord(t *testing.T) {
	e, _ := New(Config{Rooms: 1, Round: time.Minute, Countdown: 0, MinLobby: 2}, 1)
	ok := mustOK(t)
	for _, k := range []string{"a", "b"} {
		ok(e.Join(t0, k))
		ok(e.EnterLobby(t0, k))
	}
	now := t0.Add(time.Minute)
	e.Advance(now)
	// a crashes and rejoins, clearing their own record as a fresh client
	// would: b still remembers, so no rematch.
	ok(e.Leave(now, "a"))
	ok(e.Join(now, "a"))
	if _, met := e.people["a"].met["b"]; !met {
		t.Fatal("a's record was lost on rejoin")
	}
	ok(e.ClearRecord(now, "a"))
	notes := ok(e.EnterLobby(now, "a"))
	if got := kinds(notes); !slices.Equal(got, []string{"a:countdown_started", "b:countdown_started", "a:sat_out", "b:sat_out"}) {
		t.Fatalf("got %v", got)
	}
	g := e.MetGraph()
	if !slices.Equal(g.Edges, []MetEdge{{From: "b", To: "a"}}) || !slices.Equal(g.Participants, []string{"a", "b"}) {
		t.Fatalf("met graph %+v", g)
	}
}

// TestFewerRoomsThanPairs checks that rooms are shared out fairly: with 8
// people and 2 rooms, everyone gets a date every other round.
func TestFewerRoomsThanPairs(t *testing.T) {
	d := newDriver(t, Config{Rooms: 2, Round: time.Minute, Countdown: time.Second, MinLobby: 2}, 3)
	keys := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	d.join(keys...)
	dates := map[string]int{}
	for range 6 {
		if !d.untilRoundStarts() {
			t.Fatal("no round")
		}
		if n := d.e.roomsInUse(); n != 2 {
			t.Fatalf("%d rooms in use, want 2", n)
		}
		for _, k := range keys {
			if d.e.people[k].state == StateRoom {
				dates[k]++
			}
		}
	}
	for _, k := range keys {
		if dates[k] != 3 {
			t.Fatalf("dates per person %v, want 3 each", dates)
		}
	}
}

// TestSatOutFirst: with three people who have met nobody, whoever sat out
// is paired in the next round.
func TestSatOutFirst(t *testing.T) {
	for seed := range uint64(20) {
		d := newDriver(t, Config{Rooms: 1, Round: time.Minute, Countdown: time.Second, MinLobby: 2}, seed)
		d.join("a", "b", "c")
		d.untilRoundStarts()
		out := d.e.inState(StateLobby)
		if len(out) != 1 {
			t.Fatalf("lobby %v", out)
		}
		d.untilRoundStarts()
		if d.e.people[out[0]].state != StateRoom {
			t.Fatalf("seed %d: %s sat out twice", seed, out[0])
		}
	}
}

func TestTimeNeverRunsBackwards(t *testing.T) {
	e, _ := New(Config{Rooms: 1, Round: time.Minute, Countdown: time.Minute, MinLobby: 2}, 1)
	ok := mustOK(t)
	ok(e.Join(t0, "a"))
	ok(e.Join(t0, "b"))
	ok(e.EnterLobby(t0.Add(time.Hour), "a"))
	notes := ok(e.EnterLobby(t0, "b")) // an older time counts as the newest seen
	if !notes[0].At.Equal(t0.Add(time.Hour)) || !notes[0].Deadline.Equal(t0.Add(time.Hour+time.Minute)) {
		t.Fatalf("notification %+v", notes[0])
	}
}

func TestLateAdvanceRunsNoRoundInThePast(t *testing.T) {
	e, _ := New(Config{Rooms: 1, Round: time.Minute, Countdown: time.Minute, MinLobby: 2}, 1)
	ok := mustOK(t)
	for _, k := range []string{"a", "b", "c"} {
		ok(e.Join(t0, k))
		ok(e.EnterLobby(t0, k))
	}
	late := t0.Add(10 * time.Hour)
	notes := e.Advance(late)
	// Exactly one round, starting now, however late the call.
	if e.round != 1 || !notes[0].Deadline.Equal(late.Add(time.Minute)) {
		t.Fatalf("round %d, notes %v", e.round, notes)
	}
}

func TestSameSeedSameEvent(t *testing.T) {
	run := func(seed uint64) []Notification {
		d := newDriver(t, steadyConfig(10), seed)
		var all []Notification
		for i := range 10 {
			all = append(all, mustOK(t)(d.e.Join(d.now, keyOf(i)))...)
			all = append(all, mustOK(t)(d.e.EnterLobby(d.now, keyOf(i)))...)
		}
		for range 12 {
			at, _ := d.e.NextDeadline()
			d.now = at
			all = append(all, d.e.Advance(at)...)
		}
		return all
	}
	if a, b := run(5), run(5); !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different notifications")
	}
	if a, b := run(5), run(6); reflect.DeepEqual(a, b) {
		t.Fatal("different seeds, same notifications")
	}
}
