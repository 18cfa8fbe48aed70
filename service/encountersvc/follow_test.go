package encountersvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/internal/testclock"
)

// heard is a log handler that hands every message to a channel, so a test
// waits for what the service says it did rather than for time to pass.
type heard chan string

func (h heard) Enabled(context.Context, slog.Level) bool { return true }
func (h heard) Handle(_ context.Context, r slog.Record) error {
	select {
	case h <- r.Message:
	default: // a test that does not read is not held up
	}
	return nil
}
func (h heard) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h heard) WithGroup(string) slog.Handler      { return h }

// waitFor waits for a log message holding want; the deadline only guards
// against a hang.
func (h heard) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case m := <-h:
			if strings.Contains(m, want) {
				return
			}
		case <-deadline.C:
			t.Fatalf("the service never said %q", want)
		}
	}
}

func followerOn(t *testing.T, st *faulty, docs bool, log *matchLog, logger *slog.Logger) *Service {
	t.Helper()
	o := Options{Store: st, Now: testclock.At(t0).Now, Follow: []string{"duel"}, Watch: log.watch, Logger: logger,
		Window: encounter.Window{Recent: 100, Horizon: 24 * time.Hour}}
	if docs {
		o.Docs = st
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunFollowers(context.Background(), cupid.Fence{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.StopFollowers)
	return s
}

func encountersOf(t *testing.T, st *faulty, player string) []string {
	t.Helper()
	h, err := st.Store.Encounters(context.Background(), player, t0.Add(-48*time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range h {
		out = append(out, e.Other+"@"+e.Ref)
	}
	return out
}

// TestFollowerRetriesAfterFailures: a write, a cursor read or a cursor
// write that fails gives the watch up; the follower starts again from its
// cursor and every match is recorded once.
func TestFollowerRetriesAfterFailures(t *testing.T) {
	cases := []struct {
		name string
		fail func(st *faulty)
	}{
		{"the encounters' write", func(st *faulty) { st.failNext("AddEncounters", errDown) }},
		{"the cursor's read", func(st *faulty) { st.Store.FailNext("Documents", errDown) }},
		{"the cursor's write", func(st *faulty) { st.Store.FailNext("PutDocument", errDown) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := newFaulty()
			tc.fail(st)
			log := newLog()
			h := make(heard, 64)
			s := followerOn(t, st, true, log, slog.New(h))
			log.add(match("m1", t0, []string{"a"}, []string{"b"}), cupid.MatchEventFormed)
			h.waitFor(t, "trying again")
			log.add(match("m2", t0, []string{"a"}, []string{"c"}), cupid.MatchEventFormed)
			waitPosition(t, s, 2)
			if got := fmt.Sprint(encountersOf(t, st, "a")); got != "[b@m1 c@m2]" {
				t.Errorf("a met %s", got)
			}
		})
	}
}

// TestFollowerReadsOnFromItsCursor: a follower started again on the same
// documents reads on after its cursor, found among many cursors (they are
// read a page at a time); one whose cursor cannot be read says so and
// tries again until it can.
func TestFollowerReadsOnFromItsCursor(t *testing.T) {
	ctx := context.Background()
	st := newFaulty()
	for i := range 300 {
		if err := st.PutDocument(ctx, cupid.Fence{}, CursorKind, fmt.Sprintf("a%03d", i), []byte(`{"seq":99}`), t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutDocument(ctx, cupid.Fence{}, CursorKind, "duel", []byte(`{"seq":`), t0); err != nil {
		t.Fatal(err)
	}
	log := newLog()
	log.add(match("m1", t0, []string{"a"}, []string{"b"}), cupid.MatchEventFormed)
	log.add(match("m2", t0, []string{"a"}, []string{"c"}), cupid.MatchEventFormed)
	log.add(match("m3", t0, []string{"a"}, []string{"d"}), cupid.MatchEventFormed)
	h := make(heard, 64)
	s := followerOn(t, st, true, log, slog.New(h))
	h.waitFor(t, "trying again")
	if s.Position("duel") != 0 {
		t.Fatalf("a follower whose cursor is unreadable moved to %d", s.Position("duel"))
	}
	if err := st.PutDocument(ctx, cupid.Fence{}, CursorKind, "duel", []byte(`{"seq":2}`), t0); err != nil {
		t.Fatal(err)
	}
	waitPosition(t, s, 3)
	if got := fmt.Sprint(encountersOf(t, st, "a")); got != "[d@m3]" {
		t.Errorf("a met %s; the matches up to the cursor (2) are not read again", got)
	}
}

// TestFollowerRecordsOnlyWhatTheHistoryKeeps: events other than formed
// and backfilled, a match older than the history's horizon and a match
// that is not a valid meeting are passed over; the cursor moves past them
// and what comes after is recorded.
func TestFollowerRecordsOnlyWhatTheHistoryKeeps(t *testing.T) {
	st := newFaulty()
	log := newLog()
	h := make(heard, 64)
	s := followerOn(t, st, true, log, slog.New(h))
	log.add(match("m1", t0, []string{"a"}, []string{"b"}), cupid.MatchEventAssigned)
	log.add(match("m2", t0.Add(-25*time.Hour), []string{"a"}, []string{"c"}), cupid.MatchEventFormed)
	log.add(match("m3", t0, []string{"a"}, []string{"a"}), cupid.MatchEventFormed)
	log.mu.Lock()
	log.events = append(log.events, cupid.MatchEvent{Seq: 4, MatchID: "m4", Queue: "duel", Kind: cupid.MatchEventFormed})
	log.mu.Unlock()
	log.add(match("m5", t0, []string{"a"}, []string{"e"}), cupid.MatchEventFormed)
	waitPosition(t, s, 5)
	if got := fmt.Sprint(encountersOf(t, st, "a")); got != "[e@m5]" {
		t.Errorf("a met %s, want only e", got)
	}
	h.waitFor(t, "a match cannot be recorded")
	// The cursor is past them all: a follower started again records
	// nothing more and starts at 5.
	s.StopFollowers()
	s2 := followerOn(t, st, true, log, slog.New(slog.DiscardHandler))
	waitPosition(t, s2, 5)
}

// TestFollowerWithoutDocuments: without a document store the follower
// keeps its place in memory only: stopped and run again it reads on, and
// a new service reads the log from the start, storing nothing twice.
func TestFollowerWithoutDocuments(t *testing.T) {
	st := newFaulty()
	log := newLog()
	s := followerOn(t, st, false, log, slog.New(slog.DiscardHandler))
	log.add(match("m1", t0, []string{"a"}, []string{"b"}), cupid.MatchEventFormed)
	waitPosition(t, s, 1)
	if err := s.RunFollowers(context.Background(), cupid.Fence{}); err != nil {
		t.Fatalf("running the followers again: %v", err)
	}
	s.StopFollowers()
	log.add(match("m2", t0, []string{"a"}, []string{"c"}), cupid.MatchEventFormed)
	if err := s.RunFollowers(context.Background(), cupid.Fence{}); err != nil {
		t.Fatal(err)
	}
	waitPosition(t, s, 2)
	s.StopFollowers()
	s2 := followerOn(t, st, false, log, slog.New(slog.DiscardHandler))
	if s2.Position("duel") != 0 {
		t.Fatalf("a new service without documents starts at %d", s2.Position("duel"))
	}
	waitPosition(t, s2, 2)
	if got := fmt.Sprint(encountersOf(t, st, "a")); got != "[b@m1 c@m2]" {
		t.Errorf("a met %s", got)
	}
}

// TestWaitPositionEnds: a wait whose context ends says where the
// follower is and why it stopped waiting.
func TestWaitPositionEnds(t *testing.T) {
	s, err := New(Options{Store: newFaulty()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = s.WaitPosition(ctx, "duel", 3)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "duel is at 0, not 3") {
		t.Fatalf("WaitPosition = %v", err)
	}
	if err := s.WaitPosition(ctx, "duel", 0); err != nil {
		t.Fatalf("waiting for where it is: %v", err)
	}
}

// TestFollowPendingGauge: cupid_encounter_follow_pending counts the
// matches heard but not yet recorded — those waiting behind a slow write
// and the one being written — and is 0 once everything is recorded.
func TestFollowPendingGauge(t *testing.T) {
	st := newFaulty()
	log := newLog()
	sent := make(chan int64, 16)
	watch := func(ctx context.Context, q string, after int64, send func(cupid.MatchEvent) error) error {
		return log.watch(ctx, q, after, func(ev cupid.MatchEvent) error {
			err := send(ev)
			if err == nil {
				sent <- ev.Seq
			}
			return err
		})
	}
	reg := prometheus.NewRegistry()
	s, err := New(Options{Store: st, Docs: st, Now: testclock.At(t0).Now, Follow: []string{"duel"}, Watch: watch,
		Registry: reg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	arrived, release := st.Store.Block("PutDocument") // the first cursor write
	defer release()
	if err := s.RunFollowers(context.Background(), cupid.Fence{}); err != nil {
		t.Fatal(err)
	}
	defer s.StopFollowers()
	hang := time.NewTimer(30 * time.Second)
	defer hang.Stop()
	wait := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-hang.C:
			t.Fatalf("never %s", what)
		}
	}
	log.add(match("m1", t0, []string{"a"}, []string{"b"}), cupid.MatchEventFormed)
	wait("wrote m1's cursor", arrived)
	log.add(match("m2", t0, []string{"a"}, []string{"c"}), cupid.MatchEventFormed)
	log.add(match("m3", t0, []string{"a"}, []string{"d"}), cupid.MatchEventFormed)
	for seq := int64(1); seq <= 3; {
		select {
		case got := <-sent:
			seq = max(seq, got+1)
		case <-hang.C:
			t.Fatal("the watch never sent m3")
		}
	}
	const pending = "cupid_encounter_follow_pending,queue=duel"
	if got := gather(t, reg)[pending]; got != 3 {
		t.Errorf("while m1 is written and m2, m3 wait: %s = %v, want 3", pending, got)
	}
	release()
	waitPosition(t, s, 3)
	if got := gather(t, reg)[pending]; got != 0 {
		t.Errorf("everything recorded: %s = %v, want 0", pending, got)
	}
}
