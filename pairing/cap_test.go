package pairing

import (
	"slices"
	"testing"
	"time"
)

// TestCapRule is the cap's decision alone: a person's dates and the time
// in, capped or not and until when out.
func TestCapRule(t *testing.T) {
	m := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	window := Config{MaxDates: 2, DatesWindow: 30 * time.Minute}
	cases := []struct {
		name   string
		cfg    Config
		state  capState
		now    time.Time
		capped bool
		until  time.Time
	}{
		{"no cap", Config{}, capState{dates: 50}, m(0), false, time.Time{}},
		{"whole event: below", Config{MaxDates: 3}, capState{dates: 2}, m(0), false, time.Time{}},
		{"whole event: reached", Config{MaxDates: 3}, capState{dates: 3}, m(0), true, time.Time{}},
		{"window: fewer dates than the cap", window, capState{dates: 1, recent: []time.Time{m(0)}}, m(1), false, time.Time{}},
		{"window: both within", window, capState{dates: 2, recent: []time.Time{m(0), m(10)}}, m(20), true, m(30)},
		{"window: the older leaves it at its end", window, capState{dates: 2, recent: []time.Time{m(0), m(10)}}, m(30), false, time.Time{}},
		{"window: a moment before", window, capState{dates: 2, recent: []time.Time{m(0), m(10)}}, m(30).Add(-time.Nanosecond), true, m(30)},
		{"window: the cap-th latest counts, not the oldest", window, capState{dates: 3, recent: []time.Time{m(0), m(10), m(20)}}, m(35), true, m(40)},
		{"window: lowered cap reads the latest", Config{MaxDates: 1, DatesWindow: 30 * time.Minute}, capState{dates: 2, recent: []time.Time{m(0), m(10)}}, m(35), true, m(40)},
		{"window set late: dates before it not kept", window, capState{dates: 9}, m(0), false, time.Time{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			capped, until := c.cfg.capped(c.state, c.now)
			if capped != c.capped || !until.Equal(c.until) {
				t.Fatalf("capped(%+v, %v) = %v, %v; want %v, %v", c.state, c.now, capped, until, c.capped, c.until)
			}
		})
	}
}

// TestCapDated: a date is counted, and only the starts the window needs
// are kept.
func TestCapDated(t *testing.T) {
	m := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	cases := []struct {
		name   string
		cfg    Config
		state  capState
		recent []time.Time
	}{
		{"no cap keeps no times", Config{}, capState{dates: 1}, nil},
		{"whole event keeps no times", Config{MaxDates: 2}, capState{dates: 1}, nil},
		{"window keeps the latest cap", Config{MaxDates: 2, DatesWindow: time.Hour}, capState{dates: 2, recent: []time.Time{m(0), m(5)}}, []time.Time{m(5), m(10)}},
		{"window lowered trims", Config{MaxDates: 1, DatesWindow: time.Hour}, capState{dates: 2, recent: []time.Time{m(0), m(5)}}, []time.Time{m(10)}},
		{"window removed drops them", Config{MaxDates: 2}, capState{dates: 2, recent: []time.Time{m(0), m(5)}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.cfg.dated(c.state, m(10))
			if got.dates != c.state.dates+1 || !slices.EqualFunc(got.recent, c.recent, time.Time.Equal) {
				t.Fatalf("dated = %+v, want %d dates and %v", got, c.state.dates+1, c.recent)
			}
		})
	}
}

// TestCapUnevenTwoSided is the case the cap is for: two tables and four
// movers. Without a cap the tables date every round; capped at two dates
// in three rounds' time, each table sits out every third round, is told
// why, and the movers still meet them.
func TestCapUnevenTwoSided(t *testing.T) {
	side := func(i int) string {
		if i < 2 {
			return "table"
		}
		return "move"
	}
	keys := []string{"t1", "t2", "m1", "m2", "m3", "m4"}
	cfg := Config{Rooms: 2, Round: 10 * time.Minute, Mode: ModeTwoSided, Sides: []string{"table", "move"},
		MaxDates: 2, DatesWindow: 30 * time.Minute}
	e := newFor(t, cfg, keys, side)
	now := t0
	var seatedTables []int
	for round := 1; round <= 6; round++ {
		if round > 1 {
			now = now.Add(cfg.Round)
			e.Advance(now)
		}
		var notes []Notification
		if e.Snapshot().Phase != PhaseRound {
			var err error
			if notes, err = e.StartRound(now); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		tables := 0
		for _, k := range []string{"t1", "t2"} {
			if st, _ := e.Status(k); st.State == StateRoom {
				tables++
			}
		}
		seatedTables = append(seatedTables, tables)
		for _, n := range notes {
			if n.Kind == KindSatOut && n.Participant[0] == 't' && !n.Capped {
				t.Fatalf("round %d: table %s sat out, not capped: %+v", round, n.Participant, n)
			}
		}
	}
	// Rounds start at 0, 10, 20, … minutes: each table dates at 0 and 10,
	// is capped at 20 (two dates within 30 minutes), dates at 30 and 40.
	if want := []int{2, 2, 0, 2, 2, 0}; !slices.Equal(seatedTables, want) {
		t.Fatalf("tables seated per round %v, want %v", seatedTables, want)
	}
	for _, k := range []string{"t1", "t2"} {
		if n, _ := e.Dates(k); n != 4 {
			t.Fatalf("%s had %d dates, want 4", k, n)
		}
	}
}

// TestCapWholeEventAndWake: a cap without a window holds for the rest of
// the event (nobody left to pair: the event waits for a change, as when
// everyone has met); with a window, an event where only the cap stops a
// pair tries again by itself when the window lets someone back.
func TestCapWholeEventAndWake(t *testing.T) {
	// The lobby of four starts the first round at t0 (no countdown).
	e := newFor(t, Config{Rooms: 2, Round: time.Minute, MaxDates: 1}, []string{"a", "b", "c", "d"}, nil)
	e.Advance(t0.Add(time.Minute))
	if s := e.Snapshot(); !s.Stale || !s.CapWake.IsZero() || s.Phase != PhaseIdle {
		t.Fatalf("after everyone's one date: stale %v, wake %v, phase %s; want stale, no wake, idle", s.Stale, s.CapWake, s.Phase)
	}

	// The same with a window of five minutes: the event wakes at t0+5m.
	e = newFor(t, Config{Rooms: 2, Round: time.Minute, MaxDates: 1, DatesWindow: 5 * time.Minute}, []string{"a", "b", "c", "d"}, nil)
	notes := e.Advance(t0.Add(time.Minute))
	capped := 0
	for _, n := range notes {
		if n.Kind == KindSatOut && n.Capped {
			capped++
		}
	}
	s := e.Snapshot()
	if capped != 4 || !s.Stale || !s.CapWake.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("%d capped sit-outs, stale %v, wake %v; want 4, stale, t0+5m", capped, s.Stale, s.CapWake)
	}
	// The wake survives a restart.
	r, err := Restore(s)
	if err != nil {
		t.Fatal(err)
	}
	if at, due := r.NextDeadline(); !due || !at.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("restored deadline %v %v, want t0+5m", at, due)
	}
	r.Advance(t0.Add(5 * time.Minute))
	if s := r.Snapshot(); s.Phase != PhaseRound || len(s.Pairs) != 2 {
		t.Fatalf("after the window: phase %s, %d pairs; want a round of 2", s.Phase, len(s.Pairs))
	}
	for _, k := range []string{"a", "b", "c", "d"} {
		if n, _ := r.Dates(k); n != 2 {
			t.Fatalf("%s had %d dates, want 2", k, n)
		}
	}
}
