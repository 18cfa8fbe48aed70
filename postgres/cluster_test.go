package postgres

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

func TestLeaseChangesHandsWithAGreaterToken(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	tokA, ok, err := s.AcquireLease(ctx, "queue/duel", "a", time.Minute)
	if err != nil || !ok || tokA != 1 {
		t.Fatalf("a's first acquire: %d %v %v", tokA, ok, err)
	}
	if tok, ok, err := s.AcquireLease(ctx, "queue/duel", "b", time.Minute); err != nil || ok {
		t.Fatalf("b took a's live lease: %d %v %v", tok, ok, err)
	}
	if tok, ok, err := s.AcquireLease(ctx, "queue/duel", "a", time.Minute); err != nil || !ok || tok != tokA {
		t.Fatalf("a's renewal: %d %v %v, want the same token %d", tok, ok, err, tokA)
	}
	if err := s.ReleaseLease(ctx, "queue/duel", "a", tokA); err != nil {
		t.Fatal(err)
	}
	tokB, ok, err := s.AcquireLease(ctx, "queue/duel", "b", time.Minute)
	if err != nil || !ok || tokB <= tokA {
		t.Fatalf("b after a released: %d %v %v, want a token above %d", tokB, ok, err, tokA)
	}
	// A release with a stale token does nothing.
	if err := s.ReleaseLease(ctx, "queue/duel", "a", tokA); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.AcquireLease(ctx, "queue/duel", "a", time.Minute); ok {
		t.Fatal("a's stale release freed b's lease")
	}
	ls, err := s.Leases(ctx)
	if err != nil || len(ls) != 1 || ls[0].Owner != "b" || ls[0].Token != tokB {
		t.Fatalf("leases: %+v %v", ls, err)
	}
	if _, _, err := s.AcquireLease(ctx, "queue/duel", "a", 0); cupid.ErrorCode(err) != cupid.CodeInvalid {
		t.Fatalf("zero ttl: %v", err)
	}
}

func TestLapsedLeaseIsTakenWithANewToken(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	tokA, ok, err := s.AcquireLease(ctx, "queue/duel", "a", 50*time.Millisecond)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		tok, ok, err := s.AcquireLease(ctx, "queue/duel", "b", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if tok <= tokA {
				t.Fatalf("b's token %d after a's %d", tok, tokA)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a's lease never lapsed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// a, back, cannot renew what b holds.
	if _, ok, _ := s.AcquireLease(ctx, "queue/duel", "a", time.Minute); ok {
		t.Fatal("a renewed a lease b took over")
	}
}

// TestFencedWritesRefusedAfterTakeover is the paused owner: a node that lost
// its lease to another can neither commit a match, nor expire a ticket, nor
// release a match with its old token, and nothing changes; with the current
// token the same writes go through.
func TestFencedWritesRefusedAfterTakeover(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, _, err := s.CreateTickets(ctx, nts(ticket("t1", "", 0), ticket("t2", "", 0), ticket("t3", "", 0))); err != nil {
		t.Fatal(err)
	}
	old, _, _ := s.AcquireLease(ctx, "queue/duel", "a", time.Minute)
	if err := s.ReleaseLease(ctx, "queue/duel", "a", old); err != nil {
		t.Fatal(err)
	}
	cur, ok, err := s.AcquireLease(ctx, "queue/duel", "b", time.Minute)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, _, err := s.CommitMatches(ctx, cupid.Fence{Lease: "queue/duel", Holder: "a", Token: old}, []*cupid.Match{pair("m1", "t1", "t2")}); !errors.Is(err, cupid.ErrFenced) {
		t.Fatalf("stale commit: %v", err)
	}
	if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{Lease: "queue/duel", Holder: "a", Token: old}, "t3", cupid.StateExpired, "", t0); !errors.Is(err, cupid.ErrFenced) {
		t.Fatalf("stale expiry: %v", err)
	}
	for _, id := range []string{"t1", "t2", "t3"} {
		if tk, err := s.Ticket(ctx, id); err != nil || tk.State != cupid.StateWaiting {
			t.Fatalf("%s after refused writes: %+v %v", id, tk, err)
		}
	}
	// Another holder's name with the right number is refused too.
	if _, _, err := s.CommitMatches(ctx, cupid.Fence{Lease: "queue/duel", Holder: "a", Token: cur}, []*cupid.Match{pair("m1", "t1", "t2")}); !errors.Is(err, cupid.ErrFenced) {
		t.Fatalf("commit under b's token by a: %v", err)
	}
	res, _, err := s.CommitMatches(ctx, cupid.Fence{Lease: "queue/duel", Holder: "b", Token: cur}, []*cupid.Match{pair("m1", "t1", "t2")})
	if err != nil || !res[0].OK {
		t.Fatalf("commit under the current token: %+v %v", res, err)
	}
	if _, err := lifecycle.Release(ctx, s, cupid.Fence{Lease: "queue/duel", Holder: "a", Token: old}, "m1", cupid.Release{Requeue: true, Reason: "no server"}, t0); !errors.Is(err, cupid.ErrFenced) {
		t.Fatalf("stale release: %v", err)
	}
	if rec, err := s.MatchRecord(ctx, "m1"); err != nil || rec.State != cupid.MatchFormed {
		t.Fatalf("m1 after a refused release: %+v %v", rec, err)
	}
	if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{Lease: "queue/duel", Holder: "b", Token: cur}, "t3", cupid.StateExpired, "", t0); err != nil {
		t.Fatalf("expiry under the current token: %v", err)
	}
}

func TestNodesAnnounceAndLeave(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	for _, n := range []string{"b", "a"} {
		if err := s.Heartbeat(ctx, n, "127.0.0.1:"+n); err != nil {
			t.Fatal(err)
		}
	}
	ns, err := s.Nodes(ctx, time.Minute)
	if err != nil || len(ns) != 2 || ns[0].ID != "a" || ns[1].Addr != "127.0.0.1:b" {
		t.Fatalf("nodes: %+v %v", ns, err)
	}
	if err := s.LeaveCluster(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if ns, _ := s.Nodes(ctx, time.Minute); len(ns) != 1 || ns[0].ID != "b" {
		t.Fatalf("after a left: %+v", ns)
	}
}

// TestListenHearsEveryCommit follows the notifications while tickets are
// created, matched and cancelled: each change names exactly the events
// stored, EventsAt reads them back with their tickets and match, and a
// formed match is announced for its queue.
func TestListenHearsEveryCommit(t *testing.T) {
	s := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := make(chan Change, 100)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Listen(ctx, func() { close(ready) }, func(c Change) { changes <- c })
	}()
	<-ready
	_, evs, err := s.CreateTickets(ctx, nts(ticket("t1", "", 0), ticket("t2", "", 0), ticket("t3", "", 0)))
	if err != nil {
		t.Fatal(err)
	}
	m := pair("m1", "t1", "t2")
	m.Key = cupid.QueueKey{Queue: "duel"}
	_, mevs, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{m})
	if err != nil {
		t.Fatal(err)
	}
	_, cev, err := lifecycle.Finish(ctx, s, cupid.Fence{}, "t3", cupid.StateCancelled, "", t0)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, e := range append(append(evs, mevs...), cev) {
		want = append(want, e.Seq)
	}
	var got []int64
	var queues []string
	timeout := time.After(10 * time.Second)
	for len(got) < len(want) || len(queues) == 0 {
		select {
		case c := <-changes:
			got = append(got, c.Seqs...)
			if c.Queue != "" {
				queues = append(queues, c.Queue)
			}
		case <-timeout:
			t.Fatalf("heard %v and %v, want %v and duel", got, queues, want)
		}
	}
	if !slices.Equal(got, want) || !slices.Equal(queues, []string{"duel"}) {
		t.Fatalf("heard %v and %v, want %v and [duel]", got, queues, want)
	}
	read, err := s.EventsAt(ctx, got)
	if err != nil || len(read) != len(want) {
		t.Fatalf("EventsAt: %d %v", len(read), err)
	}
	for i, c := range read {
		if c.Event.Seq != want[i] || c.Ticket == nil || c.Ticket.ID != c.Event.TicketID || c.Ticket.Key.Queue != "duel" {
			t.Fatalf("change %d: %+v", i, c)
		}
		if c.Event.Kind == cupid.EventMatched && (c.Event.Match == nil || c.Event.Match.ID != "m1") {
			t.Fatalf("matched event without its match: %+v", c.Event)
		}
	}
	if last := read[len(read)-1]; last.Event.Kind != cupid.EventCancelled || last.Ticket.State != cupid.StateCancelled {
		t.Fatalf("last change: %+v", last)
	}
	// Numbers given out of order and twice come back once each, in order;
	// the caller's slice is left as it was.
	twice := append(slices.Clone(got), got...)
	slices.Reverse(twice)
	given := slices.Clone(twice)
	again, err := s.EventsAt(ctx, twice)
	if err != nil || !slices.Equal(twice, given) {
		t.Fatalf("EventsAt of %v: %v, and the slice became %v", given, err, twice)
	}
	var seqs []int64
	for _, c := range again {
		seqs = append(seqs, c.Event.Seq)
	}
	if !slices.Equal(seqs, want) {
		t.Fatalf("EventsAt of %v read %v, want %v", given, seqs, want)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Listen ended with %v", err)
	}
}

func TestParseChange(t *testing.T) {
	for _, tc := range []struct {
		in    string
		seqs  []int64
		queue string
		bad   bool
	}{
		{in: "t:7", seqs: []int64{7}},
		{in: "t:3-5,9", seqs: []int64{3, 4, 5, 9}},
		{in: "m:12-13:assigned,formed:duel", queue: "duel"},
		{in: "r:", bad: true},
		{in: "m:12-13:formed:a:b", queue: "a:b"},
		{in: "m:12-13:duel", bad: true},
		{in: "m:duel", bad: true},
		{in: "m:13-12:formed:duel", bad: true},
		{in: "t:5-3", bad: true},
		{in: "t:x", bad: true},
		{in: "hello", bad: true},
	} {
		c, err := parseChange(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("%q: err %v", tc.in, err)
			continue
		}
		if !tc.bad && (!slices.Equal(c.Seqs, tc.seqs) || c.Queue != tc.queue) {
			t.Errorf("%q: %+v", tc.in, c)
		}
	}
}

// TestFencedDocumentWrites: a pairing event's writes carry the pairing
// lease's fence; after another node took the lease they change nothing.
func TestFencedDocumentWrites(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	old, _, _ := s.AcquireLease(ctx, "pairing", "a", time.Minute)
	mine := cupid.Fence{Lease: "pairing", Holder: "a", Token: old}
	if err := s.PutDocument(ctx, mine, "event", "e1", []byte("v1"), t0); err != nil {
		t.Fatal(err)
	}
	s.ReleaseLease(ctx, "pairing", "a", old)
	if _, ok, _ := s.AcquireLease(ctx, "pairing", "b", time.Minute); !ok {
		t.Fatal("b could not take the lease")
	}
	if err := s.PutDocument(ctx, mine, "event", "e1", []byte("v2"), t0); !errors.Is(err, cupid.ErrFenced) {
		t.Fatalf("stale put: %v", err)
	}
	if err := s.DeleteDocument(ctx, mine, "event", "e1"); !errors.Is(err, cupid.ErrFenced) {
		t.Fatalf("stale delete: %v", err)
	}
	docs, err := s.Documents(ctx, "event", "", 0)
	if err != nil || len(docs) != 1 || string(docs[0].Body) != "v1" {
		t.Fatalf("documents after refused writes: %+v %v", docs, err)
	}
}

// TestPausedWriterDelaysATakeoverBySecondsOnly: a node stopped in the
// middle of a fenced transaction holds the lease row; another node asking
// for the lapsed lease is told at once that the row is busy (its round goes
// on), and the server ends the idle transaction within seconds, after which
// the lease is taken.
func TestPausedWriterDelaysATakeoverBySecondsOnly(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	tok, _, err := s.AcquireLease(ctx, "queue/duel", "a", 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, fenceSQL, "queue/duel", "a", tok); err != nil {
		t.Fatal(err)
	}
	// a stops here, holding the row.
	time.Sleep(300 * time.Millisecond) // a's lease lapses meanwhile
	start := time.Now()
	if _, _, err := s.AcquireLease(ctx, "queue/duel", "b", time.Minute); !errors.Is(err, ErrLeaseBusy) {
		t.Fatalf("b's acquire while a's write holds the row: %v", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("b waited %v for the row", waited)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, ok, err := s.AcquireLease(ctx, "queue/duel", "b", time.Minute)
		if ok {
			break
		}
		if err != nil && !errors.Is(err, ErrLeaseBusy) {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the paused writer's transaction was never ended")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := tx.Exec(ctx, `SELECT 1`); err == nil {
		t.Fatal("the paused writer's transaction is still open")
	}
}
