package pairingsvc

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/pairing"
)

// TestNewStateSurvivesRestart runs an event through the new calls — a
// trio, an import, a forgotten meeting, a never list, answers, a pause —
// restarts the service over the same store and checks that all of it is
// back: private lists and answers included, and the history replays.
func TestNewStateSurvivesRestart(t *testing.T) {
	ctx := context.Background()
	docs := newMemDocs()
	clk := testclock.At(t0)
	h := start(t, docs, clk, Limits{})
	h.event(t, "e", pairing.Config{Rooms: 3, Round: time.Minute, Countdown: time.Second, MinLobby: 3, Trios: true})
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(h.s.ImportHistory(ctx, "e", []pairing.MetEdge{{From: "a", To: "old"}, {From: "a", To: "older"}}))
	h.arrive(t, "e", "a", "b", "c")
	must(h.s.SetNever(ctx, "e", "b", "zed", true))
	clk.Advance(time.Second)
	v := h.get(t, "e")
	if len(v.Pairs) != 1 || v.Pairs[0].C == "" || v.Seq != 1 {
		t.Fatalf("want a trio in round 1: %+v", v)
	}
	if err := h.s.Answer(ctx, "e", "a", "b", true); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Answer(ctx, "e", "b", "a", true); err != nil {
		t.Fatal(err)
	}
	if err := h.s.Answer(ctx, "e", "a", "c", true); err != nil {
		t.Fatal(err)
	}
	_, _, err := h.s.ForgetMeeting(ctx, "e", "a", "old")
	must(nil, err)
	must(h.s.Pause(ctx, "e"))
	h.s.Close()

	clk.Advance(time.Hour) // paused: nothing is due
	h2 := start(t, docs, clk, Limits{})
	v = h2.get(t, "e")
	if !v.Paused || len(v.Pairs) != 1 || v.Pairs[0].C == "" {
		t.Fatalf("after restart: %+v", v)
	}
	never, err := h2.s.NeverList(ctx, "e", "b")
	if err != nil || !slices.Equal(never, []string{"zed"}) {
		t.Fatalf("never list after restart: %v %v", never, err)
	}
	g, _ := h2.s.MetGraph(ctx, "e")
	if slices.Contains(g.Edges, pairing.MetEdge{From: "a", To: "old"}) || !slices.Contains(g.Edges, pairing.MetEdge{From: "a", To: "older"}) {
		t.Fatalf("records after restart: %v", g.Edges)
	}
	_, err = h2.s.Matches(ctx, "e", "a")
	wantCode(t, err, cupid.CodeConflict, "")
	must(h2.s.Reveal(ctx, "e"))
	m, err := h2.s.Matches(ctx, "e", "a")
	if err != nil || !slices.Equal(m, []string{"b"}) {
		t.Fatalf("a's matches %v %v: want b only (c never answered)", m, err)
	}
	if m, _ := h2.s.Matches(ctx, "e", "c"); len(m) != 0 {
		t.Fatalf("c's matches %v: a's one-sided yes leaked", m)
	}
	rounds, more, err := h2.s.History(ctx, "e", 0, 0)
	if err != nil || more || len(rounds) != 1 || rounds[0].Seq != 1 || rounds[0].Rooms[0].C == "" {
		t.Fatalf("history after restart: %+v %v %v", rounds, more, err)
	}
}

// TestWatchReplaysRounds: an organiser's watch with after_seq gets the
// recorded rounds after it before anything new, and then the new ones as
// they happen; a participant's watch cannot ask for them.
func TestWatchReplaysRounds(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	h.event(t, "e", pairing.Config{Rooms: 1, Round: time.Minute, Countdown: time.Second, MinLobby: 2})
	h.arrive(t, "e", "a", "b")
	h.clk.Advance(time.Second)
	h.get(t, "e") // round 1
	h.clk.Advance(time.Minute)
	h.get(t, "e") // round 1 ends
	h.clk.Advance(time.Second)
	h.get(t, "e") // round 2 finds nobody to pair
	if v := h.get(t, "e"); !v.Stale || v.Seq != 2 {
		t.Fatalf("want a stale event after 2 computed rounds: %+v", v)
	}
	got := make(chan Notification, 100)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go h.s.WatchAfter(wctx, "e", "", 1, func(n Notification) error { got <- n; return nil })
	next := func() Notification {
		select {
		case n := <-got:
			return n
		case <-time.After(20 * time.Second):
			t.Fatal("no notification within 20s")
		}
		return Notification{}
	}
	if n := next(); n.Kind != KindWatching || n.Seq != 2 {
		t.Fatalf("first %+v", n)
	}
	if n := next(); n.Kind != pairing.KindRoundRecorded || n.Seq != 2 || n.Record == nil || !slices.Equal(n.Record.SatOut, []string{"a", "b"}) {
		t.Fatalf("replayed %+v", n)
	}
	_, _, err := h.s.ClearRecord(ctx, "e", "a")
	if err != nil {
		t.Fatal(err)
	}
	h.s.ClearRecord(ctx, "e", "b")
	h.clk.Advance(time.Second)
	h.get(t, "e")
	for {
		if n := next(); n.Kind == pairing.KindRoundRecorded {
			if n.Seq != 3 || n.Round != 2 {
				t.Fatalf("live record %+v", n)
			}
			break
		}
	}
	err = h.s.WatchAfter(ctx, "e", "a", 0, func(Notification) error { return nil })
	wantCode(t, err, cupid.CodeInvalid, "after_seq")
}

// TestRoundRecordsInTheStore: each round's record is stored once, on its
// own, not in the event's document; rounds beyond the history limit are
// deleted from the store, History pages through what is kept, and
// deleting the event deletes its rounds.
func TestRoundRecordsInTheStore(t *testing.T) {
	ctx := context.Background()
	docs := newMemDocs()
	h := startWith(t, docs, testclock.At(t0), Options{History: pairing.HistoryLimits{Rounds: 2}})
	h.event(t, "e", pairing.Config{Rooms: 2, Round: time.Hour, Countdown: time.Hour, MinLobby: 9})
	h.event(t, "e2", pairing.Config{Rooms: 1, Round: time.Hour, Countdown: time.Hour, MinLobby: 9}) // sorts after "e/…"
	h.arrive(t, "e", "a", "b", "c", "d")
	h.arrive(t, "e2", "x", "y")
	if _, err := h.s.StartRound(ctx, "e2"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := h.s.StartRound(ctx, "e"); err != nil {
			t.Fatal(err)
		}
		if _, err := h.s.EndRound(ctx, "e"); err != nil {
			t.Fatal(err)
		}
	}
	stored := func() []string {
		list, _ := docs.Documents(ctx, RoundKind, "", 0)
		var ids []string
		for _, d := range list {
			ids = append(ids, d.ID)
		}
		return ids
	}
	if got := stored(); !slices.Equal(got, []string{"e/0000000002", "e/0000000003", "e2/0000000001"}) {
		t.Fatalf("round records in the store: %v", got)
	}
	doc, _ := docs.stored(t, "e")
	if len(doc.Event.Kept) != 2 || doc.Event.Seq != 3 {
		t.Fatalf("the event's document keeps %+v", doc.Event.Kept)
	}
	rounds, more, err := h.s.History(ctx, "e", 0, 1)
	if err != nil || !more || len(rounds) != 1 || rounds[0].Seq != 2 || len(rounds[0].Rooms) != 2 {
		t.Fatalf("first page: %+v %v %v", rounds, more, err)
	}
	rounds, more, err = h.s.History(ctx, "e", 2, 0)
	if err != nil || more || len(rounds) != 1 || rounds[0].Seq != 3 {
		t.Fatalf("second page: %+v %v %v", rounds, more, err)
	}
	if err := h.s.DeleteEvent(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	if got := stored(); !slices.Equal(got, []string{"e2/0000000001"}) {
		t.Fatalf("round records after deleting e: %v", got)
	}
}

// TestRoundRecordFailureChangesNothing: when the store refuses a round's
// record, the round did not happen — the event is as before, nobody is
// told — and it happens once the store is back.
func TestRoundRecordFailureChangesNothing(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	h.event(t, "e", pairing.Config{Rooms: 1, Round: time.Hour, Countdown: time.Hour, MinLobby: 9})
	h.arrive(t, "e", "a", "b")
	w := startWatch(t, h.s, "e", "")
	h.docs.setFail(true)
	_, err := h.s.StartRound(ctx, "e")
	wantCode(t, err, cupid.CodeUnavailable, "")
	if v := h.get(t, "e"); v.Seq != 0 || v.Phase != pairing.PhaseIdle {
		t.Fatalf("after a refused round: %+v", v)
	}
	if got := w.drain(); len(got) != 0 {
		t.Fatalf("told %v", kindsOf(got))
	}
	h.docs.setFail(false)
	if _, err := h.s.StartRound(ctx, "e"); err != nil {
		t.Fatal(err)
	}
	if n := w.until(t, pairing.KindRoundRecorded); n.Seq != 1 {
		t.Fatalf("recorded %+v", n)
	}
	if rounds, _, err := h.s.History(ctx, "e", 0, 0); err != nil || len(rounds) != 1 {
		t.Fatalf("history %+v %v", rounds, err)
	}
}

// startWith is start with more options (Docs, Now, Logger and Registry are
// set here).
func startWith(t testing.TB, docs *memDocs, clk *testclock.Clock, o Options) *harness {
	t.Helper()
	reg := prometheus.NewRegistry()
	o.Docs, o.Registry, o.Now, o.Logger = docs, reg, clk.Now, testLogger()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &harness{s: s, docs: docs, clk: clk, reg: reg}
}
