package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5"

	"github.com/cupid-match/cupid/cluster"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// clusterQueues is how many queues the several-node test shares out.
const clusterQueues = 6

// clusterConfig writes a configuration of clusterQueues one-against-one
// queues.
func clusterConfig(t *testing.T) string {
	var b strings.Builder
	b.WriteString("queues:\n")
	for i := range clusterQueues {
		fmt.Fprintf(&b, `  - name: q%d
    ticket_ttl: 10m
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 100, max: 3000}
`, i)
	}
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// cluster is the test's view of the nodes: which run, and which is which.
type testCluster struct {
	t      *testing.T
	db     string
	config string
	mu     sync.Mutex
	nodes  map[string]*process // node id → process, the live ones
	starts int
}

func (c *testCluster) start() string {
	c.mu.Lock()
	c.starts++
	id := fmt.Sprintf("node%d", c.starts)
	c.mu.Unlock()
	p := startProcess(c.t, c.t.TempDir(), "--store", c.db, "--config", c.config, "--node-id", id, "--lease-ttl", "1s")
	c.mu.Lock()
	c.nodes[id] = p
	c.mu.Unlock()
	return id
}

// live returns the live nodes in id order.
func (c *testCluster) live() []*process {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]string, 0, len(c.nodes))
	for id := range c.nodes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]*process, len(ids))
	for i, id := range ids {
		out[i] = c.nodes[id]
	}
	return out
}

func (c *testCluster) remove(id string) *process {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.nodes[id]
	delete(c.nodes, id)
	return p
}

// leases reads who holds which live lease.
func (c *testCluster) leases(ctx context.Context) map[string]string {
	conn, err := pgx.Connect(ctx, c.db)
	if err != nil {
		c.t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT name, owner FROM cluster_leases WHERE expires_at > clock_timestamp()`)
	if err != nil {
		c.t.Fatal(err)
	}
	out := map[string]string{}
	for rows.Next() {
		var name, owner string
		if err := rows.Scan(&name, &owner); err != nil {
			c.t.Fatal(err)
		}
		out[name] = owner
	}
	return out
}

// busiest is the node holding the most leases.
func (c *testCluster) busiest(ctx context.Context) string {
	per := map[string]int{}
	for _, owner := range c.leases(ctx) {
		per[owner]++
	}
	best := ""
	for owner, n := range per {
		if best == "" || n > per[best] || (n == per[best] && owner < best) {
			best = owner
		}
	}
	return best
}

// waitSettled waits until each of the leases is held by the node the cluster
// means it for (cluster.Owner among the live nodes): from then on no lease
// moves until a node comes or goes, so a test may rely on who runs what.
// Covered is not enough: right after a node joins, the others hand it its
// share one lease at a time.
func (c *testCluster) waitSettled(ctx context.Context, leases int) map[string]string {
	c.t.Helper()
	c.mu.Lock()
	ids := make([]string, 0, len(c.nodes))
	for id := range c.nodes {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ls := c.leases(ctx)
		ok := len(ls) == leases
		for name, owner := range ls {
			ok = ok && owner == cluster.Owner(name, ids)
		}
		if ok {
			return ls
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the %d leases did not settle on their nodes %v within 30s: %v", leases, ids, ls)
		}
		time.Sleep(20 * time.Millisecond) // another process's leases: polled as waitCovered does
	}
}

// waitCovered waits until every queue's lease is held by a node other than
// the excluded ones and returns how long that took.
func (c *testCluster) waitCovered(ctx context.Context, since time.Time, exclude ...string) time.Duration {
	deadline := time.Now().Add(30 * time.Second)
	for {
		ls := c.leases(ctx)
		ok := len(ls) == clusterQueues+5 // and the speed-dating events, retention, the lobbies, the parties and the encounter followers
		for _, owner := range ls {
			for _, x := range exclude {
				ok = ok && owner != x
			}
		}
		if ok {
			return time.Since(since)
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("queues not all taken over within 30s: %v (excluding %v)", ls, exclude)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSeveralNodesLoseNothing runs three nodes (processes) on one
// PostgreSQL database, drives tickets through all three, kills the owner of
// the most queues with SIGKILL twice and pauses one past its lease
// (SIGSTOP), and then checks: every acknowledged ticket is found; every pair
// that should match did, with each other; no ticket was matched twice; and
// watchers, reconnecting to another node with their last seq when theirs
// died, heard every event of their ticket once, in sequence order.
func TestSeveralNodesLoseNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	c := &testCluster{t: t, db: postgresURL(t), config: clusterConfig(t), nodes: map[string]*process{}}
	for range 3 {
		c.start()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c.waitCovered(ctx, time.Now())

	type acked struct {
		id, pair string
		created  time.Time
	}
	var (
		mu       sync.Mutex
		acks     []acked
		watchers sync.WaitGroup
		watched  = map[string][]*cupidv1.TicketEvent{}
		watching = map[string]bool{}
		wg       sync.WaitGroup
	)
	// create stores one ticket, retrying through the next live node with
	// the same request id until one acknowledges it.
	create := func(ctx context.Context, n int, req *cupidv1.CreateTicketRequest) (*cupidv1.Ticket, bool) {
		for attempt := 0; ; attempt++ {
			nodes := c.live()
			if ctx.Err() != nil {
				return nil, false
			}
			if len(nodes) == 0 {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			p := nodes[(n+attempt)%len(nodes)]
			cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
			res, err := p.client().CreateTicket(cctx, connect.NewRequest(req))
			ccancel()
			if err == nil {
				return res.Msg.GetTicket(), true
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// watch follows a ticket to its match, reconnecting to another live
	// node after its last seq when a stream breaks, until watchCtx ends
	// (the test ends the watchers of tickets left without a partner).
	watchCtx, stopWatching := context.WithCancel(context.Background())
	defer stopWatching()
	watch := func(id string, n int) {
		defer watchers.Done()
		var got []*cupidv1.TicketEvent
		last := int64(0)
		deadline := time.Now().Add(90 * time.Second)
		for attempt := n; time.Now().Before(deadline) && watchCtx.Err() == nil; attempt++ {
			nodes := c.live()
			if len(nodes) == 0 {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			wctx, wcancel := context.WithDeadline(watchCtx, deadline)
			st, err := nodes[attempt%len(nodes)].client().WatchTicket(wctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: id, AfterSeq: last}))
			done := false
			for err == nil && st.Receive() {
				ev := st.Msg()
				got = append(got, ev)
				last = ev.GetSeq()
				if ev.GetKind() == "matched" {
					done = true
					break
				}
			}
			wcancel()
			if done {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		mu.Lock()
		watched[id] = got
		mu.Unlock()
	}
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				pair := fmt.Sprintf("w%d-p%d", w, i/2)
				req := &cupidv1.CreateTicketRequest{
					Queue: fmt.Sprintf("q%d", (w+i/2)%clusterQueues), Version: pair, RequestId: fmt.Sprintf("w%d-%d", w, i),
					Players: []*cupidv1.Player{player(fmt.Sprintf("w%d-%d", w, i), 1500)},
				}
				tk, ok := create(ctx, w+i, req)
				if !ok {
					return // the load stopped while this one was unacknowledged
				}
				mu.Lock()
				acks = append(acks, acked{tk.GetId(), pair, tk.GetCreatedAt().AsTime()})
				mu.Unlock()
				if i%4 == 0 {
					mu.Lock()
					watching[tk.GetId()] = true
					mu.Unlock()
					watchers.Add(1)
					go watch(tk.GetId(), w+i+1)
				}
			}
		}(w)
	}
	ackedNow := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acks)
	}
	waitAcks := func(n int) {
		deadline := time.Now().Add(60 * time.Second)
		for ackedNow() < n {
			if time.Now().After(deadline) {
				t.Fatalf("only %d tickets acknowledged, waiting for %d", ackedNow(), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	var takeovers []time.Duration
	for round := 1; round <= 2; round++ {
		waitAcks(ackedNow() + 200)
		victim := c.busiest(ctx)
		p := c.remove(victim)
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
		killed := time.Now()
		took := c.waitCovered(ctx, killed, victim)
		takeovers = append(takeovers, took)
		t.Logf("SIGKILL %d: %s's queues taken over in %v", round, victim, took.Round(time.Millisecond))
		c.start()
	}
	// Pause the busiest node past its lease: the others take its queues;
	// when it wakes, the database refuses what it still tries to write.
	waitAcks(ackedNow() + 200)
	victim := c.busiest(ctx)
	c.mu.Lock()
	paused := c.nodes[victim]
	c.mu.Unlock()
	c.remove(victim) // no client traffic to it while it sleeps
	paused.cmd.Process.Signal(syscall.SIGSTOP)
	stopped := time.Now()
	took := c.waitCovered(ctx, stopped, victim)
	takeovers = append(takeovers, took)
	t.Logf("SIGSTOP: %s's queues taken over in %v", victim, took.Round(time.Millisecond))
	waitAcks(ackedNow() + 200)
	paused.cmd.Process.Signal(syscall.SIGCONT)
	c.mu.Lock()
	c.nodes[victim] = paused
	c.mu.Unlock()
	waitAcks(ackedNow() + 200)

	cancel()
	wg.Wait()

	// Every pair matches, with each other, through whichever node.
	byPair := map[string][]acked{}
	for _, a := range acks {
		byPair[a.pair] = append(byPair[a.pair], a)
	}
	nodes := c.live()
	client := nodes[0].client()
	matchOf := map[string]string{}
	deadline := time.Now().Add(60 * time.Second)
	for _, a := range acks {
		for {
			res, err := client.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: a.id}))
			if err != nil {
				t.Fatalf("acknowledged ticket %s lost: %v", a.id, err)
			}
			tk := res.Msg.GetTicket()
			if !tk.GetCreatedAt().AsTime().Equal(a.created) {
				t.Fatalf("ticket %s created_at %v, acknowledged as %v", a.id, tk.GetCreatedAt().AsTime(), a.created)
			}
			if tk.GetState() == cupidv1.TicketState_TICKET_STATE_MATCHED {
				matchOf[a.id] = tk.GetMatch().GetId()
				break
			}
			if len(byPair[a.pair]) < 2 {
				break // its partner was never acknowledged (the load stopped): it waits alone
			}
			if tk.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING || time.Now().After(deadline) {
				t.Fatalf("ticket %s of a full pair is %v, never matched", a.id, tk.GetState())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for pair, as := range byPair {
		if len(as) == 2 && matchOf[as[0].id] != matchOf[as[1].id] {
			t.Fatalf("pair %s matched apart: %s and %s", pair, matchOf[as[0].id], matchOf[as[1].id])
		}
	}
	conn, err := pgx.Connect(context.Background(), c.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var twice int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM (SELECT ticket_id FROM events WHERE kind = 'matched' GROUP BY ticket_id HAVING count(*) > 1) AS d`).Scan(&twice); err != nil {
		t.Fatal(err)
	}
	if twice != 0 {
		t.Fatalf("%d tickets were matched more than once", twice)
	}

	// The matched tickets' watchers hear their match soon; the others
	// wait for nothing.
	quiet := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		waiting := 0
		for id := range watching {
			if _, matched := matchOf[id]; matched {
				if evs := watched[id]; len(evs) == 0 || evs[len(evs)-1].GetKind() != "matched" {
					waiting++
				}
			}
		}
		mu.Unlock()
		if waiting == 0 || time.Now().After(quiet) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopWatching()
	watchers.Wait()
	complete := 0
	for id, evs := range watched {
		for i := 1; i < len(evs); i++ {
			if evs[i].GetSeq() <= evs[i-1].GetSeq() {
				t.Fatalf("watcher of %s heard seq %d after %d", id, evs[i].GetSeq(), evs[i-1].GetSeq())
			}
		}
		if _, matched := matchOf[id]; !matched {
			continue
		}
		if len(evs) != 2 || evs[0].GetKind() != "created" || evs[1].GetKind() != "matched" {
			var kinds []string
			for _, e := range evs {
				kinds = append(kinds, fmt.Sprintf("%s@%d", e.GetKind(), e.GetSeq()))
			}
			t.Fatalf("watcher of matched ticket %s heard %v, want created then matched, once each", id, kinds)
		}
		complete++
	}
	t.Logf("%d tickets acknowledged through 3 nodes, %d matched, %d watchers heard created then matched exactly once; takeovers %v",
		len(acks), len(matchOf), complete, takeovers)
}

// TestClusterFlagsNeedASharedStore: the cluster flags mean nothing on the
// embedded store and are refused there, naming the flag; a lease too short
// to renew is refused on PostgreSQL. Nothing starts either way.
func TestClusterFlagsNeedASharedStore(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--node-id", "a"}, "--node-id: only with a postgres:// --store"},
		{[]string{"--lease-ttl", "10s"}, "--lease-ttl: only with a postgres:// --store"},
		{[]string{"--advertise", "10.0.0.1:7070"}, "--advertise: only with a postgres:// --store"},
		{[]string{"--store", "postgres://nobody@127.0.0.1:1/x", "--lease-ttl", "100ms"}, "--lease-ttl: at least 500ms"},
	} {
		_, err := run(append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestPairingEventsMoveWithTheirLease: on two nodes, the speed-dating
// events run on the node that holds their lease; calls reaching the other
// node, over Connect and gRPC, are handed to it. When that node is killed,
// the other takes the lease and serves the event from the store, with
// everyone who joined.
func TestPairingEventsMoveWithTheirLease(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	c := &testCluster{t: t, db: postgresURL(t), config: clusterConfig(t), nodes: map[string]*process{}}
	a, b := c.start(), c.start()
	ctx := context.Background()
	owner := c.waitSettled(ctx, clusterQueues+5)[cluster.PairingLease]
	other := a
	if owner == a {
		other = b
	}
	c.mu.Lock()
	far := c.nodes[other]
	c.mu.Unlock()
	viaConnect := cupidv1connect.NewPairingServiceClient(http.DefaultClient, far.url)
	viaGRPC := cupidv1connect.NewPairingServiceClient(h2cClient(), far.url, connect.WithGRPC())
	createPairingEvent(t, viaConnect, &cupidv1.CreateEventRequest{Id: "ball", Settings: &cupidv1.EventSettings{Rooms: 2, MinLobby: 3}})
	for i, call := range []participantCall{viaConnect.Join, viaGRPC.Join, viaConnect.Join, viaGRPC.Join} {
		mustCall(t, call, "ball", fmt.Sprintf("guest%d", i))
	}
	if got := len(getPairingEvent(t, viaGRPC, "ball").GetParticipants()); got != 4 {
		t.Fatalf("the far node sees %d participants, want 4", got)
	}
	// Kill the node that runs the events: the other takes them over.
	p := c.remove(owner)
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for c.leases(ctx)[cluster.PairingLease] != other {
		if time.Now().After(deadline) {
			t.Fatalf("the pairing lease never moved to %s: %v", other, c.leases(ctx))
		}
		time.Sleep(20 * time.Millisecond)
	}
	ev := getPairingEvent(t, viaConnect, "ball")
	if len(ev.GetParticipants()) != 4 {
		t.Fatalf("after the takeover the event has %d participants, want 4", len(ev.GetParticipants()))
	}
	mustCall(t, viaConnect.Join, "ball", "late")
	if got := len(getPairingEvent(t, viaGRPC, "ball").GetParticipants()); got != 5 {
		t.Fatalf("a join after the takeover: %d participants, want 5", got)
	}
}

// TestRulesetReplacedThroughOneNodeHoldsOnAll: a ruleset put through one
// node is the one every node checks tickets against, and the one the
// queue's pools run, whichever node that is.
func TestRulesetReplacedThroughOneNodeHoldsOnAll(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	c := &testCluster{t: t, db: postgresURL(t), config: clusterConfig(t), nodes: map[string]*process{}}
	c.start()
	c.start()
	c.waitCovered(context.Background(), time.Now())
	nodes := c.live()
	// Skill beyond 1000 is refused from now on.
	strict := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},` +
		`"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100, "max": 1000}]}`
	body, _ := json.Marshal(map[string]string{"queue": "q0", "ruleset": strict})
	postOK(t, nodes[0].url, "/cupid.v1.RulesetService/PutRuleset", string(body))
	for _, p := range nodes {
		// The other node hears of the replacement a moment later.
		deadline := time.Now().Add(10 * time.Second)
		for attempt := 0; ; attempt++ {
			_, err := p.client().CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{
				Queue: "q0", Players: []*cupidv1.Player{player(fmt.Sprintf("strong-%s-%d", p.url, attempt), 2000)},
			}))
			if connect.CodeOf(err) == connect.CodeInvalidArgument {
				break
			}
			if (err != nil && connect.CodeOf(err) != connect.CodeInvalidArgument) || time.Now().After(deadline) {
				t.Fatalf("node %s still takes mmr 2000 after the ruleset was replaced elsewhere: %v", p.url, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
