package ticketsvc

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc/rulesets"
)

// Several nodes over one store, on the in-memory store. PostgreSQL tells
// every node of every committed ticket event and match event; here the test
// is the database's notifier: notify hands the events stored since the last
// call to every node (Changed, MatchLogGrew), so a test decides exactly
// when a node hears of another's write, and nothing sleeps.

// sharedMem is the in-memory store as a store several nodes share: the
// reads a node makes when it is told of a write or takes a queue over.
// Both go through memstore's Tickets, so Fail("Tickets", …) fails them.
type sharedMem struct {
	*memstore.Store
	// read counts the events this node read back (EventsAt).
	read *atomic.Int64
}

func (m sharedMem) EventsAt(ctx context.Context, seqs []int64) ([]cupid.TicketChange, error) {
	if m.read != nil {
		m.read.Add(int64(len(seqs)))
	}
	ts, err := m.Tickets(ctx, cupid.TicketFilter{})
	if err != nil {
		return nil, err
	}
	var out []cupid.TicketChange
	for _, t := range ts {
		evs, err := m.Events(ctx, t.ID, 0)
		if err != nil {
			return nil, err
		}
		for _, ev := range evs {
			if slices.Contains(seqs, ev.Seq) {
				out = append(out, cupid.TicketChange{Event: ev, Ticket: t})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Event.Seq < out[j].Event.Seq })
	return out, nil
}

func (m sharedMem) WaitingTicketsOf(ctx context.Context, queue string) ([]*cupid.Ticket, error) {
	return m.Tickets(ctx, cupid.TicketFilter{Queue: queue, State: cupid.StateWaiting})
}

// cluster is several nodes on one store and one clock.
type cluster struct {
	store *memstore.Store
	clock *testclock.Clock
	nodes []*harness
	// ticketSeen and matchSeen are the last events notify handed out.
	ticketSeen int64
	matchSeen  map[string]int64
}

func newCluster(t *testing.T, n int, qs []Queue) *cluster {
	t.Helper()
	c := &cluster{store: memstore.New(), clock: testclock.At(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), matchSeen: map[string]int64{}}
	for range n {
		read := new(atomic.Int64)
		svc, err := New(Options{Store: c.store, Documents: c.store, Shared: sharedMem{c.store, read}, Queues: qs,
			Now: c.clock.Now, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(svc.Close)
		c.nodes = append(c.nodes, &harness{Service: svc, store: c.store, clock: c.clock, read: read})
	}
	return c
}

// notify tells every node of the ticket and match events stored since the
// last call, as the database's notifications do.
func (c *cluster) notify(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	ts, err := c.store.Tickets(ctx, cupid.TicketFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var news []int64
	for _, tk := range ts {
		evs, err := c.store.Events(ctx, tk.ID, c.ticketSeen)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			news = append(news, ev.Seq)
		}
	}
	slices.Sort(news)
	if len(news) > 0 {
		for _, n := range c.nodes {
			if err := n.Changed(ctx, news); err != nil {
				t.Fatal(err)
			}
		}
		c.ticketSeen = news[len(news)-1]
	}
	for _, q := range c.nodes[0].Queues() {
		evs, err := c.store.MatchEvents(ctx, q, c.matchSeen[q], 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) == 0 {
			continue
		}
		var kinds []string
		for _, ev := range evs {
			kinds = append(kinds, string(ev.Kind))
		}
		for _, n := range c.nodes {
			n.MatchLogGrew(ctx, q, evs[0].Seq, evs[len(evs)-1].Seq, kinds)
		}
		c.matchSeen[q] = evs[len(evs)-1].Seq
	}
}

// wake steps every node's pools.
func (c *cluster) wake(d time.Duration) {
	c.clock.Advance(d)
	for _, n := range c.nodes {
		n.Wake()
	}
}

// waiting counts the tickets a node's pools of a queue hold.
func waiting(t *testing.T, h *harness, queue string) int {
	t.Helper()
	st, err := h.Stats(context.Background(), queue)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range st {
		n += p.Waiting
	}
	return n
}

func fence(queue string, token int64) cupid.Fence {
	return cupid.Fence{Lease: LeaseName(queue), Holder: "node-a", Token: token}
}

// TestClusterTicketFromAnyNodeIsMatchedByTheQueuesNode: only the node
// holding a queue's lease runs its pools; tickets created on another node
// reach them when the node hears of them, and are matched there.
func TestClusterTicketFromAnyNodeIsMatchedByTheQueuesNode(t *testing.T) {
	c := newCluster(t, 2, queues(0))
	a, b := c.nodes[0], c.nodes[1]
	if got := a.LeaseNames(); !slices.Equal(got, []string{"queue/big", "queue/duel"}) {
		t.Fatalf("lease names %v", got)
	}
	if a.Owns("duel") || b.Owns("duel") {
		t.Fatal("a node runs a queue before it holds its lease")
	}
	a.Gain(LeaseName("duel"), fence("duel", 1))
	a.Gain("queue/no-such-queue", fence("no-such-queue", 1)) // ignored
	a.Gain("not-a-queue-lease", fence("x", 1))               // ignored
	if !a.Owns("duel") || b.Owns("duel") || a.Owns("big") {
		t.Fatalf("owns duel: a %v b %v; a owns big %v", a.Owns("duel"), b.Owns("duel"), a.Owns("big"))
	}

	x := b.create(t, ticket("duel", 1000, "x"))
	y := b.create(t, ticket("duel", 1010, "y"))
	c.wake(0)
	if n := waiting(t, b, "duel"); n != 0 {
		t.Fatalf("node b, which does not run duel, pools %d tickets", n)
	}
	if s := b.state(t, x.ID).State; s != cupid.StateWaiting {
		t.Fatalf("matched before the queue's node heard of the tickets: %s", s)
	}
	c.notify(t)
	c.wake(0)
	gx, gy := b.state(t, x.ID), b.state(t, y.ID)
	if gx.State != cupid.StateMatched || gx.MatchID == "" || gx.MatchID != gy.MatchID {
		t.Fatalf("after node a heard: x %s in %q, y %s in %q; want one match", gx.State, gx.MatchID, gy.State, gy.MatchID)
	}
	// Both nodes serve the match.
	for i, n := range c.nodes {
		ids, err := n.Handoff().MatchPlayers(context.Background(), gx.MatchID)
		slices.Sort(ids)
		if err != nil || !slices.Equal(ids, []string{"x", "y"}) {
			t.Fatalf("node %d: match players %v %v", i, ids, err)
		}
	}
}

// TestClusterWatchersHearEventsInCommitOrder: a node's own writes are not
// told to its watchers at once (but for the created event); every node's
// watchers hear them from the notifications, whichever node wrote them.
func TestClusterWatchersHearEventsInCommitOrder(t *testing.T) {
	c := newCluster(t, 2, queues(0))
	a, b := c.nodes[0], c.nodes[1]
	a.Gain(LeaseName("duel"), fence("duel", 1))
	x := b.create(t, ticket("duel", 1000, "x"))

	type watcher struct {
		evs  chan cupid.Event
		done chan error
	}
	watch := func(h *harness) watcher {
		w := watcher{evs: make(chan cupid.Event, 8), done: make(chan error, 1)}
		go func() {
			w.done <- h.Watch(context.Background(), x.ID, 0, func(ev cupid.Event) error { w.evs <- ev; return nil })
		}()
		if ev := <-w.evs; ev.Kind != cupid.EventCreated {
			t.Fatalf("first event %s, want created", ev.Kind)
		}
		return w
	}
	// b created the ticket and replays it from memory; a reads it from the
	// store. Either way the watch is subscribed once it has sent it.
	wa, wb := watch(a), watch(b)

	b.create(t, ticket("duel", 1000, "y"))
	c.notify(t) // a hears of both tickets
	c.wake(0)   // and matches them
	if s := a.state(t, x.ID).State; s != cupid.StateMatched {
		t.Fatalf("x is %s, want matched", s)
	}
	for _, w := range []watcher{wa, wb} {
		select {
		case ev := <-w.evs:
			t.Fatalf("a watcher heard %s before the notification", ev.Kind)
		default:
		}
	}
	c.notify(t)
	for i, w := range []watcher{wa, wb} {
		if ev := <-w.evs; ev.Kind != cupid.EventMatched {
			t.Fatalf("watcher on node %d heard %s, want matched", i, ev.Kind)
		}
		if err := <-w.done; err != nil {
			t.Fatalf("watcher on node %d: %v", i, err)
		}
	}
}

// TestClusterTakeOverKeepsTheTicketsAge: a node that gains a queue reads
// its waiting tickets with their original age; they expire on time.
func TestClusterTakeOverKeepsTheTicketsAge(t *testing.T) {
	c := newCluster(t, 2, queues(0))
	a, b := c.nodes[0], c.nodes[1]
	old := b.create(t, ticket("duel", 1000, "old"))
	c.clock.Advance(40 * time.Second)
	young := b.create(t, ticket("duel", 3000, "young"))
	c.notify(t) // nobody runs duel: nobody pools them

	a.Gain(LeaseName("duel"), fence("duel", 1))
	st, err := a.Stats(context.Background(), "duel")
	if err != nil || len(st) != 1 || st[0].Waiting != 2 || st[0].OldestWait != 40*time.Second {
		t.Fatalf("stats after the take-over %+v %v, want 2 waiting, the oldest 40 s", st, err)
	}
	c.wake(20 * time.Second)
	if s := a.state(t, old.ID).State; s != cupid.StateExpired {
		t.Fatalf("a minute after its creation the old ticket is %s, want expired", s)
	}
	if s := a.state(t, young.ID).State; s != cupid.StateWaiting {
		t.Fatalf("the young ticket is %s, want waiting", s)
	}
}

// TestClusterCancelElsewhereLeavesThePool: a ticket cancelled through a
// node that does not run its queue leaves the pool when the queue's node
// hears, and is not matched.
func TestClusterCancelElsewhereLeavesThePool(t *testing.T) {
	c := newCluster(t, 2, queues(0))
	a, b := c.nodes[0], c.nodes[1]
	a.Gain(LeaseName("big"), fence("big", 1))
	a.Gain(LeaseName("duel"), fence("duel", 1))
	x := b.create(t, ticket("duel", 1000, "x"))
	c.notify(t)
	if n := waiting(t, a, "duel"); n != 1 {
		t.Fatalf("node a pools %d duel tickets, want 1", n)
	}
	if _, err := b.CancelTicket(context.Background(), x.ID); err != nil {
		t.Fatal(err)
	}
	c.notify(t)
	c.wake(0)
	if n := waiting(t, a, "duel"); n != 0 {
		t.Fatalf("node a still pools %d duel tickets after the cancel", n)
	}
	y := b.create(t, ticket("duel", 1000, "y"))
	c.notify(t)
	c.wake(0)
	if s := a.state(t, y.ID).State; s != cupid.StateWaiting {
		t.Fatalf("y is %s: matched with a cancelled ticket?", s)
	}
}

// TestClusterLoseHandsTheQueueOver: a node that loses a queue stops its
// pools and writes nothing more for it; the tickets stay waiting and the
// next node to gain the queue runs them.
func TestClusterLoseHandsTheQueueOver(t *testing.T) {
	c := newCluster(t, 2, queues(0))
	a, b := c.nodes[0], c.nodes[1]
	a.Gain(LeaseName("duel"), fence("duel", 1))
	x := a.create(t, ticket("duel", 1000, "x"))
	a.create(t, ticket("duel", 2000, "y"))
	c.notify(t)
	c.wake(0)
	if n := waiting(t, a, "duel"); n != 2 {
		t.Fatalf("node a pools %d tickets, want 2", n)
	}
	a.Lose("not-a-queue-lease") // ignored
	a.Lose(LeaseName("duel"))
	if a.Owns("duel") || waiting(t, a, "duel") != 0 {
		t.Fatalf("after losing duel: owns %v, pools %d tickets", a.Owns("duel"), waiting(t, a, "duel"))
	}
	z := a.create(t, ticket("duel", 1000, "z"))
	c.notify(t)
	c.wake(time.Minute / 2)
	for _, id := range []string{x.ID, z.ID} {
		if s := a.state(t, id).State; s != cupid.StateWaiting {
			t.Fatalf("a ticket of a queue nobody runs is %s", s)
		}
	}
	// Node b reads the three waiting tickets; its pool may match x and z
	// as soon as they are in, before the wake below.
	b.Gain(LeaseName("duel"), fence("duel", 2))
	c.wake(0)
	if gx, gz := b.state(t, x.ID), b.state(t, z.ID); gx.State != cupid.StateMatched || gx.MatchID != gz.MatchID {
		t.Fatalf("after the take-over: x %s in %q, z %s in %q", gx.State, gx.MatchID, gz.State, gz.MatchID)
	}
	if n := waiting(t, b, "duel"); n != 1 {
		t.Fatalf("node b pools %d tickets after the take-over, want 1 (y, 1,000 from the others)", n)
	}
	// Node a, which runs no queue now, lets deadlines be.
	a.Handoff().ReleaseDue(context.Background())
}

// TestClusterFencedWriteStopsTheQueue: when the store refuses a pool's
// write because the lease moved, the node stops the queue's pools and tells
// the cluster, whatever the write was; the tickets stay waiting.
func TestClusterFencedWriteStopsTheQueue(t *testing.T) {
	for _, tc := range []struct {
		name, op string
		tickets  []*cupid.Ticket
		wait     time.Duration
	}{
		{"a match's commit", "CommitMatches", []*cupid.Ticket{ticket("duel", 1000, "x"), ticket("duel", 1000, "y")}, 0},
		{"an expiry", "FinishTicket", []*cupid.Ticket{ticket("duel", 1000, "x")}, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, 2, queues(0))
			a, b := c.nodes[0], c.nodes[1]
			told := make(chan string, 1)
			a.SetFencedHandler(func(lease string) { told <- lease })
			a.Gain(LeaseName("duel"), fence("duel", 1))
			var ids []string
			for _, tk := range tc.tickets {
				ids = append(ids, b.create(t, tk).ID)
			}
			c.store.FailNext(tc.op, cupid.ErrFenced)
			c.notify(t)
			c.wake(tc.wait)
			if lease := <-told; lease != "queue/duel" {
				t.Fatalf("the cluster was told of lease %q", lease)
			}
			if a.Owns("duel") {
				t.Fatal("node a still runs duel after a fenced write")
			}
			for _, id := range ids {
				if s := b.state(t, id).State; s != cupid.StateWaiting {
					t.Fatalf("ticket %s after the refused write, want waiting", s)
				}
			}
		})
	}
}

// TestClusterGainGivesUpAQueueItCannotRead: a node that cannot read the
// queue's waiting tickets does not run it with some missing; it gives the
// lease up, telling the cluster.
func TestClusterGainGivesUpAQueueItCannotRead(t *testing.T) {
	c := newCluster(t, 1, queues(0))
	a := c.nodes[0]
	var told []string
	a.SetFencedHandler(func(lease string) { told = append(told, lease) })
	c.store.Fail("Tickets", errors.New("connection reset"))
	a.Gain(LeaseName("duel"), fence("duel", 1)) // retries a few times, then gives up
	if a.Owns("duel") || !slices.Equal(told, []string{"queue/duel"}) {
		t.Fatalf("owns %v, told %v; want the lease given up", a.Owns("duel"), told)
	}
}

// TestClusterChangedErrors: a node without a shared store has nothing to
// hear; one whose read of the events fails says so.
func TestClusterChangedErrors(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	if err := h.Changed(context.Background(), []int64{1}); err == nil || !strings.Contains(err.Error(), "shared store") {
		t.Fatalf("Changed without a shared store: %v", err)
	}
	c := newCluster(t, 1, queues(0))
	c.store.Fail("Tickets", errors.New("connection reset"))
	if err := c.nodes[0].Changed(context.Background(), []int64{1}); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("Changed with a failing store: %v", err)
	}
}

// TestClusterRulesetReplacedThroughAnotherNode: a ruleset put through one
// node is installed by the others when they are told (RulesetChanged); the
// queue's node cancels the tickets the new rules cannot match.
func TestClusterRulesetReplacedThroughAnotherNode(t *testing.T) {
	c := newCluster(t, 2, queues(0))
	a, b := c.nodes[0], c.nodes[1]
	a.Gain(LeaseName("big"), fence("big", 1))
	party := b.create(t, ticket("big", 1, "p1", "p2", "p3"))
	solo := b.create(t, ticket("big", 1, "s1"))
	c.notify(t)
	const twoASide = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2}}`
	if v, err := b.Rulesets().Put(context.Background(), "big", []byte(twoASide), 1, "api"); err != nil || v != 2 {
		t.Fatalf("put: %d %v", v, err)
	}
	if _, v, _ := a.Rulesets().Ruleset("big"); v != 1 {
		t.Fatalf("node a runs version %d before it is told", v)
	}
	for range 2 { // twice: the second finds nothing newer
		if err := a.RulesetChanged(context.Background(), "big"); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.RulesetChanged(context.Background(), "no-such-queue"); err != nil {
		t.Fatal(err)
	}
	src, v, err := a.Rulesets().Ruleset("big")
	if err != nil || v != 2 || !strings.Contains(strings.ReplaceAll(string(src), " ", ""), `"player_max_number":2`) {
		t.Fatalf("node a runs version %d (%v): %s", v, err, src)
	}
	c.wake(0)
	got := a.state(t, party.ID)
	if got.State != cupid.StateCancelled || !strings.Contains(got.Reason, "version 2") {
		t.Fatalf("party of 3 under 2-a-side rules: %s %q", got.State, got.Reason)
	}
	if s := a.state(t, solo.ID).State; s != cupid.StateWaiting {
		t.Fatalf("solo ticket %s, want waiting", s)
	}
	// A stored ruleset that does not parse is reported, not installed.
	if err := c.store.PutDocument(context.Background(), cupid.Fence{}, rulesets.Kind, "big", []byte(`{"version": 3, "ruleset": {"alliance": 7}}`), c.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := a.RulesetChanged(context.Background(), "big"); err == nil {
		t.Fatal("a stored ruleset that does not load was installed without an error")
	}
	if _, v, _ := a.Rulesets().Ruleset("big"); v != 2 {
		t.Fatalf("after a bad stored ruleset node a runs version %d, want 2", v)
	}
}

// TestClusterResyncCatchesUp: after notifications were lost a node's
// watchers hear what they missed, replaced rulesets are installed and the
// queues it runs are read again from the store.
func TestClusterResyncCatchesUp(t *testing.T) {
	c := newCluster(t, 2, queues(0))
	a, b := c.nodes[0], c.nodes[1]
	a.Gain(LeaseName("duel"), fence("duel", 1))
	x := b.create(t, ticket("duel", 1000, "x"))
	evs := make(chan cupid.Event, 8)
	done := make(chan error, 1)
	go func() {
		done <- b.Watch(context.Background(), x.ID, 0, func(ev cupid.Event) error { evs <- ev; return nil })
	}()
	<-evs // created: the watch is subscribed
	// Node a missed both tickets' notifications and the ruleset.
	b.create(t, ticket("duel", 1005, "y"))
	if _, err := b.Rulesets().Put(context.Background(), "duel", []byte(duelRules), 0, "api"); err != nil {
		t.Fatal(err)
	}
	a.Resync(context.Background())
	if _, v, _ := a.Rulesets().Ruleset("duel"); v != 2 {
		t.Fatalf("after the resync node a runs version %d, want 2", v)
	}
	c.wake(0)
	if s := a.state(t, x.ID).State; s != cupid.StateMatched {
		t.Fatalf("x after node a read the queue again: %s, want matched", s)
	}
	// Node b missed the match's notification.
	b.Resync(context.Background())
	if ev := <-evs; ev.Kind != cupid.EventMatched {
		t.Fatalf("b's watcher heard %s, want matched", ev.Kind)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestClusterSessionChangedThroughAnotherNode: a leaver reported through a
// node that does not run the queue reopens the seat in the pools of the
// node that does, once it hears of the match event; a session that closes
// is let go.
func TestClusterSessionChangedThroughAnotherNode(t *testing.T) {
	c := newCluster(t, 2, squadQueues(time.Minute))
	a, b := c.nodes[0], c.nodes[1]
	ctx := context.Background()
	a.Gain(LeaseName("squad"), fence("squad", 1))
	var ids []string
	for _, p := range []string{"ann", "ben", "cat", "dan"} {
		ids = append(ids, b.create(t, ticket("squad", 1500, p)).ID)
		c.notify(t)
		c.wake(0)
	}
	id := a.state(t, ids[0]).MatchID
	if rec := b.record(t, id); count(rec.Match) != 4 || rec.Match.Backfill {
		t.Fatalf("the session: %s backfill=%v, want four players and closed", players(rec.Match), rec.Match.Backfill)
	}
	c.notify(t)
	if _, err := b.Handoff().AssignMatch(ctx, id, cupid.Assignment{Server: "10.0.0.9:7777"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Handoff().ReportLeavers(ctx, id, []string{"ann"}); err != nil {
		t.Fatal(err)
	}
	eve := b.create(t, ticket("squad", 1500, "eve"))
	c.notify(t)
	c.wake(0)
	if got := a.state(t, eve.ID); got.State != cupid.StateMatched || got.MatchID != id {
		t.Fatalf("eve: %s in %q, want ann's seat in %s", got.State, got.MatchID, id)
	}
	// Ben's seat reopens on node a, then is closed through node b: node a
	// lets the session go.
	if _, err := b.Handoff().ReportLeavers(ctx, id, []string{"ben"}); err != nil {
		t.Fatal(err)
	}
	c.notify(t)
	c.wake(0) // the pool has taken what it was told
	held := func() int32 { return a.existingPool(cupid.QueueKey{Queue: "squad"}).heldSessions.Load() }
	if n := held(); n != 1 {
		t.Fatalf("node a holds %d sessions open after ben left, want 1", n)
	}
	if _, err := b.Handoff().CloseBackfill(ctx, id); err != nil {
		t.Fatal(err)
	}
	c.notify(t)
	c.wake(0)
	if n := held(); n != 0 {
		t.Fatalf("node a holds %d sessions open after the close, want 0", n)
	}
	fay := b.create(t, ticket("squad", 1500, "fay"))
	c.notify(t)
	c.wake(0)
	if got := a.state(t, fay.ID); got.MatchID == id {
		t.Fatalf("fay took a seat of a closed session")
	}
}

// TestClusterTakeOverKeepsOpenSessions: the node that takes a queue over
// reads its sessions open to backfill (only that queue's) before its
// tickets, and fills them first.
func TestClusterTakeOverKeepsOpenSessions(t *testing.T) {
	c := newCluster(t, 2, squadQueues(0))
	a, b := c.nodes[0], c.nodes[1]
	a.Gain(LeaseName("squad"), fence("squad", 1))
	ann := a.create(t, ticket("squad", 1500, "ann"))
	a.create(t, ticket("squad", 1500, "ben"))
	c.notify(t)
	c.wake(0)
	id := a.state(t, ann.ID).MatchID
	if rec := a.record(t, id); !rec.Match.Backfill || count(rec.Match) != 2 {
		t.Fatalf("the session: %s backfill=%v, want two players and open", players(rec.Match), rec.Match.Backfill)
	}
	c.notify(t)
	a.Lose(LeaseName("squad"))
	cat := b.create(t, ticket("squad", 1500, "cat"))
	dan := b.create(t, ticket("squad", 1500, "dan"))
	b.Gain(LeaseName("duel"), fence("duel", 1)) // another queue's sessions are not read
	b.Gain(LeaseName("squad"), fence("squad", 2))
	c.notify(t)
	c.wake(0)
	for _, tk := range []*cupid.Ticket{cat, dan} {
		if got := b.state(t, tk.ID); got.State != cupid.StateMatched || got.MatchID != id {
			t.Fatalf("%s: %s in %q, want a seat in the open session %s", tk.Players[0].ID, got.State, got.MatchID, id)
		}
	}
}

// TestClusterBackfillIntoASessionClosedElsewhere: a session closed through
// another node before this one heard of it refuses the backfill the pool
// proposes; the newcomer waits on, the pool lets the session go, and the
// newcomer is matched with the next player instead.
func TestClusterBackfillIntoASessionClosedElsewhere(t *testing.T) {
	c := newCluster(t, 2, squadQueues(0))
	a, b := c.nodes[0], c.nodes[1]
	a.Gain(LeaseName("squad"), fence("squad", 1))
	ann := b.create(t, ticket("squad", 1500, "ann"))
	b.create(t, ticket("squad", 1500, "ben"))
	c.notify(t)
	c.wake(0)
	id := a.state(t, ann.ID).MatchID
	c.notify(t)
	if _, err := b.Handoff().CloseBackfill(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	// Node a has not heard of the close: it still offers the seats.
	c.matchSeen["squad"] = lastMatchEvent(t, c, "squad")
	fay := b.create(t, ticket("squad", 1500, "fay"))
	c.notify(t)
	c.wake(0)
	if got := a.state(t, fay.ID); got.State != cupid.StateWaiting {
		t.Fatalf("fay: %s in %q, want waiting: the session is closed", got.State, got.MatchID)
	}
	if n := a.existingPool(cupid.QueueKey{Queue: "squad"}).heldSessions.Load(); n != 0 {
		t.Fatalf("node a still holds %d sessions after the store refused the backfill", n)
	}
	gus := b.create(t, ticket("squad", 1500, "gus"))
	c.notify(t)
	c.wake(0)
	gf, gg := a.state(t, fay.ID), a.state(t, gus.ID)
	if gf.State != cupid.StateMatched || gf.MatchID != gg.MatchID || gf.MatchID == id {
		t.Fatalf("fay %s in %q, gus %s in %q: want a new match together", gf.State, gf.MatchID, gg.State, gg.MatchID)
	}
}

// lastMatchEvent is the sequence number of a queue's last match event.
func lastMatchEvent(t *testing.T, c *cluster, queue string) int64 {
	t.Helper()
	evs, err := c.store.MatchEvents(context.Background(), queue, 0, 1000)
	if err != nil || len(evs) == 0 {
		t.Fatalf("match events of %s: %d %v", queue, len(evs), err)
	}
	return evs[len(evs)-1].Seq
}
