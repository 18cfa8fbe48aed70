package opponent

import (
	"fmt"
	"testing"
	"time"
)

// holdConfig takes reservations held for a minute and shields of an hour.
func holdConfig() Config {
	cfg := baseConfig()
	cfg.Reservations = Reservations{Enabled: true, Hold: Duration(time.Minute)}
	cfg.Shield = Duration(time.Hour)
	return cfg
}

func at(d time.Duration) time.Time { return t0.Add(d) }

func find(t *testing.T, f *Finder, attacker string, when time.Time, reserve bool) Result {
	t.Helper()
	r, err := f.Query(Query{AttackerID: attacker, MMR: 500, Reserve: reserve}, when)
	if err != nil {
		t.Fatalf("Query(%s): %v", attacker, err)
	}
	return r
}

func TestReservedDefenderIsOfferedToNobodyElse(t *testing.T) {
	f := newFinder(t, holdConfig())
	put(t, f, "ann", 500, nil)

	r := find(t, f, "bob", t0, true)
	if r.Type != ResultSuccess || r.PlayerID != "ann" || r.Reservation == nil {
		t.Fatalf("first query = %+v, want ann reserved", r)
	}
	if r.Reservation.Attacker != "bob" || !r.Reservation.Expires.Equal(at(time.Minute)) {
		t.Fatalf("reservation = %+v, want bob's until t0+1m", r.Reservation)
	}
	// Held: neither a reserving nor a plain query gets her.
	for _, reserve := range []bool{true, false} {
		if r2 := find(t, f, "cid", at(59*time.Second), reserve); r2.Type != ResultNoneFound {
			t.Fatalf("while held (reserve %v): %+v, want none found", reserve, r2)
		}
	}
	// The hold lapses at its expiry by itself.
	r3 := find(t, f, "cid", at(time.Minute), true)
	if r3.PlayerID != "ann" || r3.Reservation == nil || r3.Reservation.ID == r.Reservation.ID {
		t.Fatalf("after the expiry: %+v, want ann with a new reservation", r3)
	}
	// The lapsed one cannot be confirmed any more.
	_, err := f.Confirm(r.Reservation.ID, "bob", at(time.Minute))
	wantField(t, err, codeOf("conflict"), "reservation_id")
	if st := f.Stats(); st.Reserved != 2 || st.Expired != 1 || st.Held != 1 {
		t.Fatalf("stats = %+v", st.Counters)
	}
	checkInvariants(t, f)
}

func TestConfirmShieldsAndReleaseFrees(t *testing.T) {
	cases := []struct {
		name    string
		confirm bool
		free    time.Duration // when ann is offered again
	}{
		{"confirmed: shielded for an hour", true, time.Hour + 10*time.Second},
		{"released: free at once", false, 10 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFinder(t, holdConfig())
			put(t, f, "ann", 500, nil)
			r := find(t, f, "bob", t0, true)
			if c.confirm {
				conf, err := f.Confirm(r.Reservation.ID, "bob", at(10*time.Second))
				if err != nil || !conf.ShieldUntil.Equal(at(time.Hour+10*time.Second)) || conf.Reservation.Defender != "ann" {
					t.Fatalf("Confirm = %+v, %v", conf, err)
				}
				if st := f.Stats(); st.Shielded != 1 || st.Held != 0 || st.Confirmed != 1 {
					t.Fatalf("stats = %+v", st)
				}
			} else {
				if rel, err := f.Release(r.Reservation.ID, "bob", at(10*time.Second)); err != nil || rel.Defender != "ann" {
					t.Fatalf("Release = %+v, %v", rel, err)
				}
			}
			if c.free > 10*time.Second {
				if r2 := find(t, f, "cid", at(c.free-time.Nanosecond), false); r2.Type != ResultNoneFound {
					t.Fatalf("just before %v: %+v, want none found", c.free, r2)
				}
			}
			if r2 := find(t, f, "cid", at(c.free), false); r2.PlayerID != "ann" {
				t.Fatalf("at %v: %+v, want ann", c.free, r2)
			}
			// Sweeping forgets what lapsed and reports it.
			changed := f.Sweep(at(2 * time.Hour))
			if c.confirm && (len(changed) != 1 || changed[0] != "ann") {
				t.Fatalf("Sweep = %v, want [ann]", changed)
			}
			if _, ok := f.PlayerState("ann"); ok || f.Stats().Shielded != 0 {
				t.Fatalf("ann still has a state after the sweep: %+v", f.Stats())
			}
		})
	}
}

func TestReservationErrorsChangeNothing(t *testing.T) {
	f := newFinder(t, holdConfig())
	put(t, f, "ann", 500, nil)
	put(t, f, "dan", 510, nil)
	live := find(t, f, "bob", t0, true).Reservation
	done := find(t, f, "bob", t0, true).Reservation
	if _, err := f.Confirm(done.ID, "bob", t0); err != nil {
		t.Fatal(err)
	}
	before := f.Stats()
	cases := []struct {
		name, id, attacker string
		release            bool
		code, field        string
	}{
		{"unknown", "rsv_nope", "", false, "not_found", "reservation_id"},
		{"empty", "", "", true, "invalid", "reservation_id"},
		{"another attacker's", live.ID, "eve", false, "permission_denied", "attacker_id"},
		{"confirmed twice", done.ID, "", false, "conflict", "reservation_id"},
		{"released after confirming", done.ID, "bob", true, "conflict", "reservation_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.release {
				_, err = f.Release(c.id, c.attacker, at(time.Second))
			} else {
				_, err = f.Confirm(c.id, c.attacker, at(time.Second))
			}
			wantField(t, err, codeOf(c.code), c.field)
		})
	}
	after := f.Stats()
	if after.Held != 1 || after.Confirmed != before.Confirmed || after.Released != 0 || after.Shielded != before.Shielded {
		t.Fatalf("refused calls changed the finder: %+v, was %+v", after, before)
	}

	// A finder without reservations refuses to reserve and changes nothing.
	g := newFinder(t, baseConfig())
	put(t, g, "ann", 500, nil)
	_, err := g.Query(Query{AttackerID: "bob", MMR: 500, Reserve: true}, t0)
	wantField(t, err, codeOf("conflict"), "reserve")
	if st := g.Stats(); st.Entries != 1 || st.Successes != 0 || st.Reserved != 0 {
		t.Fatalf("a refused reserve changed the finder: %+v", st)
	}
}

func TestAlwaysReserveAndConfirmAppliesTheOfferThreshold(t *testing.T) {
	cfg := holdConfig()
	cfg.Reservations.Always = true
	cfg.PlayerRemoveAfterCandidateOfferThreshold = ThresholdAlways
	f := newFinder(t, cfg)
	put(t, f, "ann", 500, nil)
	r := find(t, f, "bob", t0, false)
	if r.Reservation == nil || r.RemovedAfterOffer || f.Len() != 1 {
		t.Fatalf("query = %+v, len %d: want a reservation, ann still cached while held", r, f.Len())
	}
	c, err := f.Confirm(r.Reservation.ID, "", at(time.Second))
	if err != nil || !c.RemovedAfterOffer || f.Len() != 0 {
		t.Fatalf("Confirm = %+v, %v, len %d: want ann removed after the offer", c, err, f.Len())
	}
	checkInvariants(t, f)
}

func TestOnlinePlayersAreNeverOffered(t *testing.T) {
	f := newFinder(t, baseConfig())
	if err := f.SetOnline("ann", true, t0); err != nil {
		t.Fatal(err)
	}
	// Flagged before being cached: the entry comes in unavailable.
	put(t, f, "ann", 500, nil)
	if r := find(t, f, "bob", at(1000*time.Hour), false); r.Type != ResultNoneFound {
		t.Fatalf("online ann offered: %+v", r)
	}
	if err := f.SetOnline("ann", false, t0); err != nil {
		t.Fatal(err)
	}
	if r := find(t, f, "bob", t0, false); r.PlayerID != "ann" {
		t.Fatalf("offline ann not offered: %+v", r)
	}
	if st := f.Stats(); st.Online != 0 || len(f.h.states) != 0 {
		t.Fatalf("state left after going offline: %+v", st)
	}
	wantField(t, f.SetOnline("", true, t0), codeOf("invalid"), "player_id")
}

func TestHeldPlayerWithSeveralEntries(t *testing.T) {
	cfg := holdConfig()
	cfg.AllowMultipleEntriesPerPlayer = true
	f := newFinder(t, cfg)
	if _, err := f.Update(Model{PlayerID: "ann", Entries: []Entry{{MMR: 450}, {MMR: 550}, {MMR: 520}}}, t0); err != nil {
		t.Fatal(err)
	}
	r := find(t, f, "bob", t0, true)
	if r.PlayerID != "ann" {
		t.Fatalf("query = %+v", r)
	}
	for _, mmr := range []float64{450, 520, 550} {
		q, err := f.Query(Query{AttackerID: "cid", MMR: mmr, Retries: 3}, t0)
		if err != nil || q.Type != ResultNoneFound {
			t.Fatalf("held ann's entry at %v offered: %+v, %v", mmr, q, err)
		}
	}
	checkInvariants(t, f)
}

func TestMaxPlayerStates(t *testing.T) {
	cfg := holdConfig()
	cfg.MaxPlayerStates = 2
	f := newFinder(t, cfg)
	for i := range 3 {
		put(t, f, fmt.Sprintf("p%d", i), 500+float64(i), nil)
	}
	find(t, f, "a1", t0, true)
	if err := f.SetOnline("zed", true, t0); err != nil {
		t.Fatal(err)
	}
	_, err := f.Query(Query{AttackerID: "a2", MMR: 500, Reserve: true}, t0)
	wantField(t, err, codeOf("resource_exhausted"), "max_player_states")
	wantField(t, f.SetOnline("yan", true, t0), codeOf("resource_exhausted"), "max_player_states")
	if st := f.Stats(); st.Held != 1 || st.Online != 1 || st.Entries != 3 {
		t.Fatalf("refused calls changed the finder: %+v", st)
	}
	// Once the hold lapses there is room again.
	if r := find(t, f, "a2", at(time.Minute), true); r.Reservation == nil {
		t.Fatalf("after the lapse: %+v", r)
	}
}

func TestLoadStates(t *testing.T) {
	f := newFinder(t, holdConfig())
	put(t, f, "ann", 500, nil)
	put(t, f, "dan", 540, nil)
	r := find(t, f, "bob", t0, true).Reservation
	if err := f.SetOnline("dan", true, t0); err != nil {
		t.Fatal(err)
	}
	var states []PlayerState
	for _, id := range []string{"ann", "dan"} {
		st, ok := f.PlayerState(id)
		if !ok {
			t.Fatalf("%s has no state", id)
		}
		states = append(states, st)
	}
	states = append(states, PlayerState{PlayerID: "old", ShieldUntil: t0.Add(-time.Second)})

	g := newFinder(t, holdConfig())
	put(t, g, "ann", 500, nil)
	put(t, g, "dan", 540, nil)
	if err := g.LoadStates(states, at(time.Second)); err != nil {
		t.Fatal(err)
	}
	if q := find(t, g, "cid", at(time.Second), false); q.Type != ResultNoneFound {
		t.Fatalf("loaded holds not applied: %+v", q)
	}
	if _, err := g.Confirm(r.ID, "bob", at(2*time.Second)); err != nil {
		t.Fatalf("Confirm of a loaded reservation: %v", err)
	}
	if _, ok := g.PlayerState("old"); ok {
		t.Fatal("a lapsed shield was loaded")
	}
	if st := g.Stats(); st.Online != 1 || st.Shielded != 1 || st.Held != 0 {
		t.Fatalf("stats = %+v", st)
	}
	// A bad list changes nothing.
	h := newFinder(t, holdConfig())
	err := h.LoadStates([]PlayerState{{PlayerID: "x", Online: true}, {PlayerID: "x"}}, t0)
	wantField(t, err, codeOf("invalid"), "states[1].player_id")
	if len(h.h.states) != 0 {
		t.Fatal("a refused load changed the finder")
	}
}

func TestHoldConfigErrors(t *testing.T) {
	cases := []struct {
		edit  func(c *Config)
		field string
	}{
		{func(c *Config) { c.Shield = Duration(time.Hour) }, "shield"},
		{func(c *Config) { c.Reservations.Always = true }, "reservations.always"},
		{func(c *Config) { c.Reservations = Reservations{Enabled: true, Hold: Duration(-time.Second)} }, "reservations.hold"},
		{func(c *Config) { c.Reservations = Reservations{Enabled: true, Hold: Duration(48 * time.Hour)} }, "reservations.hold"},
		{func(c *Config) { c.MaxPlayerStates = -1 }, "max_player_states"},
	}
	for _, c := range cases {
		t.Run(c.field, func(t *testing.T) {
			cfg := baseConfig()
			c.edit(&cfg)
			_, err := New(cfg, 1)
			wantField(t, err, codeOf("invalid"), c.field)
		})
	}
}
