package encountersvc

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// matchLog is a queue's match log the followers watch: events are sent
// in order to every watch, stored ones first.
type matchLog struct {
	mu     sync.Mutex
	events []cupid.MatchEvent
	wake   chan struct{}
}

func newLog() *matchLog { return &matchLog{wake: make(chan struct{})} }

func (l *matchLog) add(m *cupid.Match, kind cupid.MatchEventKind) {
	l.mu.Lock()
	l.events = append(l.events, cupid.MatchEvent{Seq: int64(len(l.events) + 1), MatchID: m.ID, Queue: m.Key.Queue, Kind: kind, At: m.CreatedAt, Match: m})
	close(l.wake)
	l.wake = make(chan struct{})
	l.mu.Unlock()
}

func (l *matchLog) watch(ctx context.Context, queue string, after int64, send func(cupid.MatchEvent) error) error {
	for {
		l.mu.Lock()
		evs := slices.Clone(l.events[min(after, int64(len(l.events))):])
		wake := l.wake
		l.mu.Unlock()
		for _, ev := range evs {
			if err := send(ev); err != nil {
				return err
			}
			after = ev.Seq
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func match(id string, at time.Time, teams ...[]string) *cupid.Match {
	m := &cupid.Match{ID: id, Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: at}
	for _, t := range teams {
		m.Teams = append(m.Teams, cupid.Team{PlayerIDs: t})
	}
	return m
}

func newService(t *testing.T, st *memstore.Store, c *testclock.Clock, log *matchLog) *Service {
	t.Helper()
	s, err := New(Options{Store: st, Docs: st, Now: c.Now, Follow: []string{"duel"}, Watch: log.watch,
		Queues: []Queue{{Name: "duel", MetWithin: time.Hour}}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitPosition waits until the follower recorded the queue's log up to
// seq; the deadline only guards against a hang.
func waitPosition(t *testing.T, s *Service, seq int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.WaitPosition(ctx, "duel", seq); err != nil {
		t.Fatal(err)
	}
}

func others(t *testing.T, s *Service, player string) []string {
	t.Helper()
	h, err := s.History(context.Background(), player, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range h {
		out = append(out, e.Other+"/"+e.Side)
	}
	return out
}

// TestFollowerRecordsMatchesAcrossARestart: formed and backfilled
// matches become encounters; a service started again on the same store
// reads on from its cursor and stores nothing twice.
func TestFollowerRecordsMatchesAcrossARestart(t *testing.T) {
	st := memstore.New()
	c := testclock.At(t0)
	log := newLog()
	s := newService(t, st, c, log)
	if err := s.RunFollowers(context.Background(), cupid.Fence{}); err != nil {
		t.Fatal(err)
	}
	log.add(match("m1", t0, []string{"a"}, []string{"b"}), cupid.MatchEventFormed)
	log.add(match("m1", t0, []string{"a"}, []string{"b"}), cupid.MatchEventAssigned)
	log.add(match("m2", t0.Add(time.Minute), []string{"a", "c"}, []string{"d"}), cupid.MatchEventFormed)
	waitPosition(t, s, 3)
	s.StopFollowers()
	if got := fmt.Sprint(others(t, s, "a")); got != "[c/teammate d/opponent b/opponent]" {
		t.Errorf("a met %s", got)
	}
	// Backfill: e joins m2; then a restart.
	log.add(match("m2", t0.Add(time.Minute), []string{"a", "c"}, []string{"d", "e"}), cupid.MatchEventBackfilled)
	s2 := newService(t, st, c, log)
	s2.RunFollowers(context.Background(), cupid.Fence{})
	defer s2.StopFollowers()
	waitPosition(t, s2, 4)
	if got := fmt.Sprint(others(t, s2, "a")); got != "[c/teammate d/opponent e/opponent b/opponent]" {
		t.Errorf("after the backfill a met %s", got)
	}
	h, _ := st.Encounters(context.Background(), "d", t0.Add(-time.Hour), 100)
	if len(h) != 3 {
		t.Errorf("d has %d encounters, want 3 (a, c, e): nothing twice", len(h))
	}
}

// TestPrepareTicket: the lists are filled from the store; a client's own
// list is refused naming the field; a queue not served is left alone.
func TestPrepareTicket(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	c := testclock.At(t0)
	s := newService(t, st, c, newLog())
	must := func(_ cupid.ListEntry, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Put(ctx, "a", encounter.KindBlock, "z", 0))
	must(s.Put(ctx, "a", encounter.KindAvoid, "y", 0.5))
	must(s.Put(ctx, "z", encounter.KindBlock, "a", 0))
	if err := s.Record(ctx, encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: "old", At: t0.Add(-2 * time.Hour), Teams: [][]string{{"a"}, {"o"}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(ctx, encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: "new", At: t0.Add(-time.Minute), Teams: [][]string{{"a"}, {"n"}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(ctx, encounter.Meeting{Mode: encounter.ModeQueue, Place: "other", Ref: "x", At: t0.Add(-time.Minute), Teams: [][]string{{"a"}, {"x"}}}); err != nil {
		t.Fatal(err)
	}
	tk := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "a"}, {ID: "b"}}}
	if err := s.PrepareTicket(ctx, tk); err != nil {
		t.Fatal(err)
	}
	get := func(p int, name string) []string {
		v, _ := tk.Players[p].Attributes.Get(name)
		return v.Strings
	}
	cases := []struct {
		got, want []string
		what      string
	}{
		{get(0, BlockedAttribute), []string{"z"}, "a's blocked"},
		{get(0, AvoidedAttribute), []string{"y"}, "a's avoided"},
		{get(0, MetAttribute), []string{"n"}, "a's met within the hour, in this queue"},
		{get(1, BlockedAttribute), nil, "b's blocked"},
	}
	for _, c := range cases {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	sent := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "a"}, {ID: "b"}}}
	sent.Players[1].Attributes.Set("blocked", cupid.Strings("a"))
	err := s.PrepareTicket(ctx, sent)
	if ce, ok := err.(*cupid.Error); !ok || ce.Field != "players[1].attributes.blocked" {
		t.Errorf("a client-sent list: %v", err)
	}
	other := &cupid.Ticket{Key: cupid.QueueKey{Queue: "casual"}, Players: []cupid.Player{{ID: "a"}}}
	if err := s.PrepareTicket(ctx, other); err != nil || len(other.Players[0].Attributes) != 0 {
		t.Errorf("a queue not served: %v, %v", err, other.Players[0].Attributes)
	}
}

// TestListsAndErase: a player sees his own lists only; the limit holds;
// erase takes his history and lists but not others' blocks of him.
func TestListsAndErase(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	s := newService(t, st, testclock.At(t0), newLog())
	if _, err := s.Put(ctx, "a", encounter.KindBlock, "b", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "c", encounter.KindBlock, "a", 0); err != nil {
		t.Fatal(err)
	}
	for i := range encounter.MaxBlocks - 1 {
		if _, err := s.Put(ctx, "a", encounter.KindBlock, fmt.Sprint("p", i), 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Put(ctx, "a", encounter.KindBlock, "one-too-many", 0); cupid.ErrorCode(err) != cupid.CodeExhausted {
		t.Errorf("past the limit: %v", err)
	}
	l, _ := s.List(ctx, "a", "")
	if len(l) != encounter.MaxBlocks {
		t.Errorf("a's list has %d entries", len(l))
	}
	l, _ = s.List(ctx, "b", "")
	if len(l) != 0 {
		t.Errorf("b sees %v: a blocked player must not see it", l)
	}
	if _, _, blocked, _ := s.Blocked(ctx, []string{"b", "a"}); !blocked {
		t.Error("a and b are not blocked")
	}
	if _, _, blocked, _ := s.Blocked(ctx, []string{"a", "c"}); !blocked {
		t.Error("c's block of a does not hold")
	}
	s.Record(ctx, encounter.Meeting{Mode: encounter.ModePairing, Place: "ev", Ref: "ev/1", At: t0, Teams: [][]string{{"a", "d"}}})
	if err := s.Erase(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if l, _ := s.List(ctx, "a", ""); len(l) != 0 {
		t.Errorf("a's lists after the erase: %d entries", len(l))
	}
	if h := others(t, s, "d"); len(h) != 0 {
		t.Errorf("d's history still names a: %v", h)
	}
	if _, _, blocked, _ := s.Blocked(ctx, []string{"a", "c"}); !blocked {
		t.Error("the erase lifted c's block of a")
	}
	for _, bad := range []struct{ player, kind, other, field string }{
		{"", "block", "b", "player_id"}, {"a", "mute", "b", "kind"}, {"a", "block", "", "other_id"},
	} {
		if err := s.Remove(ctx, bad.player, bad.kind, bad.other); err == nil || err.(*cupid.Error).Field != bad.field {
			t.Errorf("Remove(%q, %q, %q) = %v, want an error on %s", bad.player, bad.kind, bad.other, err, bad.field)
		}
	}
}
