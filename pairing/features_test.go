package pairing

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

// newFor makes an event with cfg's defaults filled and people joined and
// in the lobby (groups by the given function, nil for none).
func newFor(t *testing.T, cfg Config, keys []string, group func(i int) string) *Event {
	t.Helper()
	if cfg.Round == 0 {
		cfg.Round = time.Minute
	}
	if cfg.MinLobby == 0 {
		cfg.MinLobby = max(2, len(keys)) // the first round waits for everyone
	}
	e, err := New(cfg, 7)
	if err != nil {
		t.Fatal(err)
	}
	ok := mustOK(t)
	for i, k := range keys {
		g := ""
		if group != nil {
			g = group(i)
		}
		ok(e.JoinGroup(t0, k, g))
	}
	for _, k := range keys {
		ok(e.EnterLobby(t0, k))
	}
	return e
}

func wantCode(t *testing.T, err error, code cupid.Code, field string) {
	t.Helper()
	var ce *cupid.Error
	if !errorsAs(err, &ce) || ce.Code != code || ce.Field != field {
		t.Fatalf("got %v, want %s on %q", err, code, field)
	}
}

func TestTrioSeatsTheOddOneOut(t *testing.T) {
	keys := []string{"a", "b", "c", "d", "e"}
	e := newFor(t, Config{Rooms: 5, Trios: true}, keys, nil)
	e.Advance(t0)
	s := e.Snapshot()
	if len(s.Pairs) != 2 || s.Lobby != nil {
		t.Fatalf("pairs %+v, lobby %v: want a pair and a trio, nobody sitting out", s.Pairs, s.Lobby)
	}
	trio := s.Pairs[slices.IndexFunc(s.Pairs, func(p RoomPair) bool { return p.C != "" })]
	for _, k := range []string{trio.A, trio.B, trio.C} {
		if got := e.Record(k); len(got) != 2 {
			t.Fatalf("%s's record %v after a trio, want the other two", k, got)
		}
	}
	// Without trios the odd one sits out.
	e2 := newFor(t, Config{Rooms: 5}, keys, nil)
	e2.Advance(t0)
	if s := e2.Snapshot(); len(s.Lobby) != 1 {
		t.Fatalf("without trios: lobby %v", s.Lobby)
	}
}

func TestTrioMemberLeaves(t *testing.T) {
	e := newFor(t, Config{Rooms: 1, Trios: true}, []string{"a", "b", "c"}, nil)
	e.Advance(t0)
	notes := mustOK(t)(e.LeaveLobby(t0.Add(time.Second), "c"))
	if got := kinds(notes); !slices.Equal(got, []string{"a:trio_left", "b:trio_left"}) {
		t.Fatalf("got %v", got)
	}
	if st, _ := e.Status("a"); st.State != StateRoom || st.Partner != "b" || st.Third != "" {
		t.Fatalf("a after c left: %+v", st)
	}
	if _, err := Restore(e.Snapshot()); err != nil {
		t.Fatal(err)
	}
}

func TestTwoSided(t *testing.T) {
	keys := []string{"s1", "s2", "s3", "m1", "m2", "m3"}
	side := func(i int) string { return []string{"stay", "move"}[i/3] }
	e := newFor(t, Config{Rooms: 3, Mode: ModeTwoSided, Sides: []string{"stay", "move"}}, keys, side)
	home := map[string]int{}
	now := t0
	for round := 1; round <= 3; round++ {
		e.Advance(now)
		s := e.Snapshot()
		if len(s.Pairs) != 3 {
			t.Fatalf("round %d: %d pairs, want 3", round, len(s.Pairs))
		}
		for _, p := range s.Pairs {
			st, mv := p.A, p.B
			if st[0] != 's' {
				st, mv = mv, st
			}
			if st[0] != 's' || mv[0] != 'm' {
				t.Fatalf("round %d: pair %s-%s is not across the sides", round, p.A, p.B)
			}
			if h, ok := home[st]; ok && h != p.Room {
				t.Fatalf("round %d: %s moved from room %d to %d", round, st, h, p.Room)
			}
			home[st] = p.Room
		}
		now = now.Add(time.Minute)
		e.Advance(now) // the round ends; the next is computed at once
	}
	// Everyone of one side has met everyone of the other: no fourth round.
	if !e.Stale() {
		t.Fatalf("a fourth round was possible: %+v", e.Snapshot().Pairs)
	}
	_, err := e.JoinGroup(now, "x", "")
	wantCode(t, err, cupid.CodeInvalid, "group")
	_, err = e.JoinGroup(now, "x", "other")
	wantCode(t, err, cupid.CodeInvalid, "group")
	_, err = New(Config{Rooms: 1, Round: time.Minute, MinLobby: 2, Mode: ModeTwoSided, Sides: []string{"a"}}, 1)
	wantCode(t, err, cupid.CodeInvalid, "sides")
	_, err = New(Config{Rooms: 1, Round: time.Minute, MinLobby: 2, Mode: ModeTwoSided, Sides: []string{"a", "b"}, Trios: true}, 1)
	wantCode(t, err, cupid.CodeInvalid, "trios")
}

func TestWithinAndCrossGroups(t *testing.T) {
	keys := []string{"a1", "a2", "b1", "b2"}
	group := func(i int) string { return keys[i][:1] }
	within := newFor(t, Config{Rooms: 2, Mode: ModeWithinGroup}, keys, group)
	within.Advance(t0)
	for _, p := range within.Snapshot().Pairs {
		if p.A[0] != p.B[0] {
			t.Fatalf("within groups: %s with %s", p.A, p.B)
		}
	}
	cross := newFor(t, Config{Rooms: 2, Mode: ModeCrossGroup}, keys, group)
	cross.Advance(t0)
	for _, p := range cross.Snapshot().Pairs {
		if p.A[0] == p.B[0] {
			t.Fatalf("across groups: %s with %s", p.A, p.B)
		}
	}
	_, err := New(Config{Rooms: 1, Round: time.Minute, MinLobby: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	open, _ := New(Config{Rooms: 1, Round: time.Minute, MinLobby: 2}, 1)
	_, err = open.JoinGroup(t0, "a", "x")
	wantCode(t, err, cupid.CodeInvalid, "group")
}

func TestNeverList(t *testing.T) {
	e := newFor(t, Config{Rooms: 1, MinLobby: 3}, []string{"a", "b"}, nil)
	ok := mustOK(t)
	ok(e.SetNever(t0, "a", "b", true))
	ok(e.SetNever(t0, "a", "b", true)) // twice is once
	if got := e.NeverList("a"); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("never list %v", got)
	}
	if _, err := e.StartRound(t0); err != nil {
		t.Fatal(err)
	}
	if !e.Stale() {
		t.Fatal("a and b were paired although a's never list names b")
	}
	ok(e.SetNever(t0, "a", "b", false))
	if e.Stale() {
		t.Fatal("taking b off the list did not allow the pair again")
	}
	_, err := e.SetNever(t0, "a", "b", false)
	wantCode(t, err, cupid.CodeNotFound, "other")
	_, err = e.SetNever(t0, "a", "a", true)
	wantCode(t, err, cupid.CodeInvalid, "other")
	for i := range MaxNever {
		ok(e.SetNever(t0, "b", fmt.Sprintf("x%d", i), true))
	}
	before := e.Snapshot()
	_, err = e.SetNever(t0, "b", "one-too-many", true)
	wantCode(t, err, cupid.CodeTooLarge, "other")
	if len(e.Snapshot().People[1].Never) != len(before.People[1].Never) {
		t.Fatal("a refused addition changed the list")
	}
}

func TestRecordImportForget(t *testing.T) {
	e := newFor(t, Config{Rooms: 1, MinLobby: 3}, []string{"a", "b"}, nil)
	ok := mustOK(t)
	ok(e.RecordMeeting(t0, "a", "b", 100))
	if !slices.Equal(e.Record("a"), []string{"b"}) || !slices.Equal(e.Record("b"), []string{"a"}) {
		t.Fatal("a meeting by hand marks both records")
	}
	// An import names someone new: they are known, as having left.
	ok(e.ImportHistory(t0, []MetEdge{{From: "a", To: "zed"}, {From: "zed", To: "b"}}, 100))
	if st, known := e.Status("zed"); !known || st.State != StateGone {
		t.Fatalf("zed: %+v %v", st, known)
	}
	// One bad entry refuses the whole import.
	before := e.Snapshot()
	_, err := e.ImportHistory(t0, []MetEdge{{From: "a", To: "c"}, {From: "b", To: "b"}}, 100)
	wantCode(t, err, cupid.CodeInvalid, "entries[1].to")
	_, err = e.ImportHistory(t0, []MetEdge{{From: "a", To: "c"}, {From: "d", To: "e"}}, 4)
	wantCode(t, err, cupid.CodeTooLarge, "entries")
	if !slices.Equal(e.Snapshot().Participants, before.Participants) || len(e.Snapshot().People) != len(before.People) {
		t.Fatal("a refused import changed the event")
	}
	// Forgetting one entry keeps the rest, and the other side's record.
	ok(e.ForgetMeeting(t0, "a", "b"))
	if !slices.Equal(e.Record("a"), []string{"zed"}) || !slices.Equal(e.Record("b"), []string{"a"}) {
		t.Fatalf("after forgetting: a %v, b %v", e.Record("a"), e.Record("b"))
	}
	_, err = e.ForgetMeeting(t0, "a", "b")
	wantCode(t, err, cupid.CodeNotFound, "other")
}

func TestHistoryNumbersEveryRound(t *testing.T) {
	e := newFor(t, Config{Rooms: 1, Countdown: time.Second}, []string{"a", "b"}, nil)
	var hist []RoundRecord
	collect := func(notes []Notification) {
		for _, n := range notes {
			if n.Kind == KindRoundRecorded {
				if n.Record == nil || n.Record.Seq != n.Seq {
					t.Fatalf("round_recorded %+v", n)
				}
				hist = append(hist, *n.Record)
			}
		}
	}
	collect(e.Advance(t0.Add(time.Second)))                 // round 1: a and b
	collect(e.Advance(t0.Add(time.Minute + time.Second)))   // ends; a countdown
	collect(e.Advance(t0.Add(time.Minute + 2*time.Second))) // round 2 finds no pair
	if len(hist) != 2 {
		t.Fatalf("history %+v", hist)
	}
	if hist[0].Seq != 1 || hist[0].Round != 1 || len(hist[0].Rooms) != 1 || hist[1].Seq != 2 || hist[1].Round != 0 ||
		!slices.Equal(hist[1].SatOut, []string{"a", "b"}) || !slices.Equal(hist[0].Lobby(), []string{"a", "b"}) {
		t.Fatalf("history %+v", hist)
	}
	if !e.Stale() || e.Seq() != 2 {
		t.Fatal("the event does not say that nobody can be paired")
	}
	if first, last := e.Kept(); first != 1 || last != 2 || e.TakeDropped() != nil {
		t.Fatalf("kept %d..%d", first, last)
	}
	e.SetHistoryLimits(HistoryLimits{Rounds: 1})
	if first, last := e.Kept(); first != 2 || last != 2 || !slices.Equal(e.TakeDropped(), []int{1}) || e.TakeDropped() != nil {
		t.Fatalf("limited to one round: kept %d..%d", first, last)
	}
	// The names limit: the latest round stays whatever its size.
	e.SetHistoryLimits(HistoryLimits{Names: 1})
	if first, last := e.Kept(); first != 2 || last != 2 {
		t.Fatalf("the latest round was dropped: kept %d..%d", first, last)
	}
}

func TestPauseResume(t *testing.T) {
	e := newFor(t, Config{Rooms: 1, Countdown: 10 * time.Second}, []string{"a", "b"}, nil)
	ok := mustOK(t)
	ok(e.Pause(t0.Add(4 * time.Second)))
	if _, due := e.NextDeadline(); due {
		t.Fatal("a paused event has a deadline")
	}
	if notes := e.Advance(t0.Add(time.Hour)); len(notes) != 0 {
		t.Fatalf("time acted on a paused event: %v", kinds(notes))
	}
	notes := ok(e.Resume(t0.Add(time.Hour)))
	if at, _ := e.NextDeadline(); !at.Equal(t0.Add(time.Hour + 6*time.Second)) {
		t.Fatalf("after resuming the countdown ends at %v, want 6s left", at)
	}
	if got := kinds(notes); !slices.Contains(got, "*:resumed") || !slices.Contains(got, "a:resumed") {
		t.Fatalf("resume told %v", got)
	}
	_, err := e.Resume(t0.Add(time.Hour))
	wantCode(t, err, cupid.CodeConflict, "")
}

func TestOrganiserStartEndAndMinDate(t *testing.T) {
	e := newFor(t, Config{Rooms: 2, Countdown: time.Hour, Round: 5 * time.Minute, MinDate: time.Minute}, []string{"a", "b", "c", "d"}, nil)
	ok := mustOK(t)
	ok(e.StartRound(t0.Add(time.Second)))
	if e.Snapshot().Phase != PhaseRound {
		t.Fatal("StartRound did not start a round")
	}
	_, err := e.StartRound(t0.Add(time.Second))
	wantCode(t, err, cupid.CodeConflict, "")
	// Too early to leave the date or end the round.
	_, err = e.LeaveLobby(t0.Add(30*time.Second), "a")
	wantCode(t, err, cupid.CodeConflict, "participant")
	_, err = e.EndRound(t0.Add(30 * time.Second))
	wantCode(t, err, cupid.CodeConflict, "")
	// Leaving the event is always possible.
	ok(e.Leave(t0.Add(30*time.Second), "a"))
	ok(e.EndRound(t0.Add(61 * time.Second)))
	if s := e.Snapshot(); len(s.Pairs) != 0 || !slices.Equal(s.Lobby, []string{"b", "c", "d"}) {
		t.Fatalf("after ending the round: %+v, lobby %v", s.Pairs, s.Lobby)
	}
}

func TestUpdateConfig(t *testing.T) {
	e := newFor(t, Config{Rooms: 2, Countdown: time.Hour}, []string{"a", "b", "c", "d"}, nil)
	ok := mustOK(t)
	ok(e.StartRound(t0))
	cfg := e.Config()
	cfg.Rooms = 1
	_, err := e.UpdateConfig(t0, cfg)
	wantCode(t, err, cupid.CodeConflict, "rooms")
	cfg.Rooms = 4
	cfg.Round = 2 * time.Minute
	ok(e.UpdateConfig(t0, cfg))
	if e.Config().Rooms != 4 || len(e.Snapshot().Pairs) != 2 {
		t.Fatalf("after more rooms: %+v", e.Snapshot().Pairs)
	}
	cfg.Mode = ModeCrossGroup
	_, err = e.UpdateConfig(t0, cfg)
	wantCode(t, err, cupid.CodeConflict, "mode")
	cfg.Mode = ""
	cfg.MinDate = time.Hour
	_, err = e.UpdateConfig(t0, cfg)
	wantCode(t, err, cupid.CodeInvalid, "min_date")
}

func TestExtensionNeedsBoth(t *testing.T) {
	e := newFor(t, Config{Rooms: 2, Round: 5 * time.Minute, Extension: 2 * time.Minute}, []string{"a", "b", "c", "d"}, nil)
	ok := mustOK(t)
	e.Advance(t0)
	partner := func(k string) string { st, _ := e.Status(k); return st.Partner }
	b := partner("a")
	if notes := ok(e.Extend(t0.Add(time.Minute), "a")); len(notes) != 0 {
		t.Fatalf("a one-sided wish told %v", kinds(notes))
	}
	notes := ok(e.Extend(t0.Add(time.Minute), b))
	if got := kinds(notes); len(got) != 2 || notes[0].Kind != KindDateExtended || !notes[0].Deadline.Equal(t0.Add(7*time.Minute)) {
		t.Fatalf("extension told %v", got)
	}
	_, err := e.Extend(t0.Add(time.Minute), "a")
	wantCode(t, err, cupid.CodeConflict, "participant")
	// The round ends for the others; a and b stay, and the next round's
	// rooms go around them.
	notes = e.Advance(t0.Add(5 * time.Minute))
	if st, _ := e.Status("a"); st.State != StateRoom {
		t.Fatalf("a left the extended date with the round: %v", kinds(notes))
	}
	if slices.Contains(kinds(notes), "a:round_ended") {
		t.Fatalf("a was told the extended date ended with the round: %v", kinds(notes))
	}
	notes = e.Advance(t0.Add(7 * time.Minute))
	if got := kinds(notes); !slices.Contains(got, "a:round_ended") || !slices.Contains(got, b+":round_ended") {
		t.Fatalf("the extended date did not end: %v", got)
	}
	if _, err := Restore(e.Snapshot()); err != nil {
		t.Fatal(err)
	}
}

func TestMutualAnswers(t *testing.T) {
	e := newFor(t, Config{Rooms: 2, Round: time.Minute, RevealAt: t0.Add(time.Hour)}, []string{"a", "b", "c", "d"}, nil)
	ok := mustOK(t)
	e.Advance(t0)
	pairs := e.Snapshot().Pairs
	// Name the people by their pairs: a–pa.Partner answer yes to each
	// other; c says yes to pc.Partner, who says no.
	a, c := pairs[0].A, pairs[1].A
	pa := Status{Partner: pairs[0].B}
	pc := Status{Partner: pairs[1].B}
	if notes := ok(e.Answer(t0, a, pa.Partner, true)); len(notes) != 0 {
		t.Fatalf("an answer told %v", kinds(notes))
	}
	ok(e.Answer(t0, pa.Partner, a, true)) // mutual
	ok(e.Answer(t0, c, pc.Partner, true)) // one-sided
	ok(e.Answer(t0, pc.Partner, c, false))
	_, err := e.Answer(t0, a, pc.Partner, true)
	wantCode(t, err, cupid.CodeConflict, "other")
	_, err = e.Matches(a)
	wantCode(t, err, cupid.CodeConflict, "")
	notes := e.Advance(t0.Add(time.Hour))
	var told []string
	for _, n := range notes {
		if n.Kind == KindMutualMatch {
			told = append(told, n.Participant+">"+n.Partner)
		}
	}
	slices.Sort(told)
	want := []string{a + ">" + pa.Partner, pa.Partner + ">" + a}
	slices.Sort(want)
	if !slices.Equal(told, want) {
		t.Fatalf("revealed %v, want only the mutual yes %v", told, want)
	}
	if m, err := e.Matches(c); err != nil || len(m) != 0 {
		t.Fatalf("c's matches %v %v: a one-sided yes is never revealed", m, err)
	}
	_, err = e.Answer(t0.Add(time.Hour), c, pc.Partner, true)
	wantCode(t, err, cupid.CodeConflict, "")
}

// TestTwoSidedSteadyGroup: n people on each side meet everyone across in n
// rounds, the least possible. No plan is needed for it: after any rounds
// the pairs left form a regular bipartite graph, which always has a perfect
// matching (König), and every round takes one.
func TestTwoSidedSteadyGroup(t *testing.T) {
	for _, n := range []int{3, 8, 21} {
		keys := make([]string, 2*n)
		for i := range keys {
			keys[i] = fmt.Sprintf("p%02d", i)
		}
		e := newFor(t, Config{Rooms: n, Mode: ModeTwoSided, Sides: []string{"s", "m"}}, keys, func(i int) string { return []string{"s", "m"}[i%2] })
		now := t0
		for range 3 * n {
			e.Advance(now)
			now = now.Add(time.Minute)
		}
		if e.round != n || !e.Stale() {
			t.Fatalf("n=%d: %d rounds, stale %v; want everyone met in %d", n, e.round, e.Stale(), n)
		}
		for i, k := range keys {
			if got := len(e.Record(k)); got != n {
				t.Fatalf("n=%d: %s met %d, want all %d across (side %d)", n, k, got, n, i%2)
			}
		}
	}
}

// TestExtensionOffNamesTheSetting: asking for more time in an event without
// extensions is refused naming the setting as the API spells it.
func TestExtensionOffNamesTheSetting(t *testing.T) {
	e := newFor(t, Config{Rooms: 2, Round: 5 * time.Minute}, []string{"a", "b"}, nil)
	e.Advance(t0)
	_, err := e.Extend(t0.Add(time.Minute), "a")
	wantCode(t, err, cupid.CodeConflict, "settings.extension_seconds")
}
