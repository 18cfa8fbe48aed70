package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/cluster"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// lastMigration matches an entry of postgres.migrations ({"name", sql},):
// the last one in the file is the newest schema step.
var lastMigration = regexp.MustCompile(`(?m)^\t\{"([^"]+)", `)

// previousRelease finds the commit a rolling upgrade comes from: the last
// one before the newest PostgreSQL schema migration was added (or HEAD
// when that migration is not committed yet). It skips the test when git or
// the repository's history is not there (a tarball, a shallow clone).
func previousRelease(t *testing.T) (root, commit, newest string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: the rolling upgrade test builds the previous release from the repository's history")
	}
	gitOut := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	root, err := gitOut("rev-parse", "--show-toplevel") // from the package's directory
	if err != nil {
		t.Skipf("not in a git repository (%v): the rolling upgrade test builds the previous release from its history", err)
	}
	if shallow, _ := gitOut("rev-parse", "--is-shallow-repository"); shallow == "true" {
		t.Skip("a shallow clone: the rolling upgrade test needs the history to build the previous release (git fetch --unshallow)")
	}
	src, err := os.ReadFile(filepath.Join(root, "postgres", "schema.go"))
	if err != nil {
		t.Fatal(err)
	}
	all := lastMigration.FindAllSubmatch(src, -1)
	if len(all) < 2 {
		t.Fatalf("found %d migrations in postgres/schema.go: has the list's layout changed?", len(all))
	}
	newest = string(all[len(all)-1][1])
	added, err := gitOut("log", "--format=%H", "-S", `{"`+newest+`", `, "--", "postgres/schema.go")
	if err != nil {
		t.Skipf("git log failed (%v): no history to build the previous release from", err)
	}
	if added == "" {
		// The newest migration is in the working tree only: HEAD is the
		// release before it.
		commit, err = gitOut("rev-parse", "HEAD")
	} else {
		lines := strings.Split(added, "\n")
		commit, err = gitOut("rev-parse", lines[len(lines)-1]+"^")
	}
	if err != nil {
		t.Skipf("the commit before migration %q is not in this clone (%v)", newest, err)
	}
	return root, commit, newest
}

// buildRelease builds cmd/cupid as it was at commit, from a copy of the
// tree taken with git archive (nothing is added to the repository's
// worktrees, so an interrupted test leaves nothing behind but a temporary
// directory). Go's build cache makes a second build quick (-trimpath: the
// temporary directory's name is then not part of what is cached).
func buildRelease(t *testing.T, root, commit string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command: the rolling upgrade test builds the previous release")
	}
	dir := t.TempDir()
	archive := exec.Command("git", "-C", root, "archive", "--format=tar", commit)
	untar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	untar.Stdin = pipe
	if err := untar.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s: %v\n%s", commit, err, stderr.Bytes())
	}
	if err := untar.Wait(); err != nil {
		t.Fatalf("untar %s: %v", commit, err)
	}
	bin := filepath.Join(dir, "cupid-previous")
	build := exec.Command(goTool, "build", "-trimpath", "-o", bin, "./cmd/cupid")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the previous release (%s): %v\n%s", commit, err, out)
	}
	return bin
}

// upgradeConfig is clusterConfig's queues and "hold", a queue whose
// tickets the test spaces too far apart to ever match: they must still be
// waiting after the upgrade.
func upgradeConfig(t *testing.T) string {
	path := clusterConfig(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, `  - name: hold
    ticket_ttl: 1h
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 100}
`...)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// schemaVersion reads the highest migration the database has.
func schemaVersion(t *testing.T, db string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var v int
	if err := conn.QueryRow(context.Background(), `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRollingUpgradeLosesNothing upgrades a three-node cluster on
// PostgreSQL under traffic: three nodes of the previous release (built
// from git history: the commit before the newest schema migration) are
// replaced one at a time, each stopped with SIGTERM and a node of this
// build started in its place. The first new node applies the migration
// while two old nodes keep serving on the newer schema. Meanwhile clients
// create pairs of tickets and tickets that wait, through whichever nodes
// live, retrying with the same request id. At the end every acknowledged
// ticket is there with its creation time, every pair matched each other,
// nothing was matched twice, and every waiting ticket still waits; an old
// node started after the migration refuses the newer schema.
func TestRollingUpgradeLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the previous release and starts server processes")
	}
	db := postgresURL(t)
	root, commit, newest := previousRelease(t)
	old := buildRelease(t, root, commit)
	t.Logf("previous release: %.12s (before migration %q)", commit, newest)
	config := upgradeConfig(t)
	args := func(id string) []string {
		return []string{"--store", db, "--config", config, "--node-id", id, "--lease-ttl", "1s"}
	}
	startOld := func(id string) *process {
		full := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--log-format", "json"}, args(id)...)
		return startCmd(t, exec.Command(old, full...))
	}
	c := &testCluster{t: t, db: db, config: config, nodes: map[string]*process{}}
	for i := 1; i <= 3; i++ {
		id := fmt.Sprintf("old%d", i)
		c.nodes[id] = startOld(id)
	}
	before := schemaVersion(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// queuesCovered waits until every queue's lease is held by a live
	// node: the singletons an old node does not know (retention, lobbies)
	// may go unheld while old nodes are the ones that should hold them.
	queuesCovered := func() {
		deadline := time.Now().Add(30 * time.Second)
		for {
			ls := c.leases(ctx)
			n := 0
			for i := range clusterQueues {
				if owner, ok := ls[fmt.Sprintf("queue/q%d", i)]; ok && c.isLive(owner) {
					n++
				}
			}
			if owner, ok := ls["queue/hold"]; ok && c.isLive(owner) {
				n++
			}
			if n == clusterQueues+1 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("queues not all held by live nodes within 30s: %v", ls)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	queuesCovered()

	type acked struct {
		id, pair, node string
		hold           bool
		schema         int // the phase: 0 before the migration, 1 after
		created        time.Time
	}
	var (
		mu       sync.Mutex
		acks     []acked
		migrated int // set to 1 once the first new node has migrated
		wg       sync.WaitGroup
	)
	create := func(n int, req *cupidv1.CreateTicketRequest) (*cupidv1.Ticket, string, int, bool) {
		for attempt := 0; ; attempt++ {
			if ctx.Err() != nil {
				return nil, "", 0, false
			}
			c.mu.Lock()
			phase := migrated
			c.mu.Unlock()
			nodes := c.liveIDs()
			if len(nodes) == 0 {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			id := nodes[(n+attempt)%len(nodes)]
			c.mu.Lock()
			p := c.nodes[id]
			c.mu.Unlock()
			if p == nil {
				continue
			}
			cctx, ccancel := context.WithTimeout(ctx, 3*time.Second)
			res, err := p.client().CreateTicket(cctx, connect.NewRequest(req))
			ccancel()
			if err == nil {
				return res.Msg.GetTicket(), id, phase, true
			}
			if connect.CodeOf(err) == connect.CodeInvalidArgument {
				t.Errorf("create %s through %s: %v", req.GetRequestId(), id, err)
				return nil, "", 0, false
			}
			if attempt%20 == 19 {
				t.Logf("create %s through %s, attempt %d: %v", req.GetRequestId(), id, attempt+1, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				pair := fmt.Sprintf("w%d-p%d", w, i/2)
				queue, mmr, hold := fmt.Sprintf("q%d", (w+i/2)%clusterQueues), 1500.0, i%10 == 9
				if hold {
					// Each 10,000 from every other: never matched.
					queue, mmr, pair = "hold", float64(10_000*(1+w+4*i)), fmt.Sprintf("w%d-h%d", w, i)
				}
				req := &cupidv1.CreateTicketRequest{
					Queue: queue, Version: pair, RequestId: fmt.Sprintf("w%d-%d", w, i),
					Players: []*cupidv1.Player{player(fmt.Sprintf("w%d-%d", w, i), mmr)},
				}
				tk, node, phase, ok := create(w+i, req)
				if !ok {
					return // the load stopped (or the test failed)
				}
				mu.Lock()
				acks = append(acks, acked{id: tk.GetId(), pair: pair, node: node, hold: hold, schema: phase, created: tk.GetCreatedAt().AsTime()})
				mu.Unlock()
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

	for i := 1; i <= 3; i++ {
		waitAcks(ackedNow() + 150)
		// Replace old<i>: stop it as an orchestrator does (SIGTERM: it
		// hands its queues back), then start a new node in its place.
		p := c.remove(fmt.Sprintf("old%d", i))
		p.cmd.Process.Signal(syscall.SIGTERM)
		p.cmd.Wait()
		id := fmt.Sprintf("new%d", i)
		np := startProcess(t, t.TempDir(), args(id)...)
		c.mu.Lock()
		c.nodes[id] = np
		migrated = 1
		c.mu.Unlock()
		if i == 1 {
			after := schemaVersion(t, db)
			if after <= before {
				t.Fatalf("schema version %d after the first new node started, %d before: it did not migrate", after, before)
			}
			t.Logf("the first new node migrated the schema from version %d to %d; two old nodes keep serving", before, after)
			// An old node that (re)starts now refuses the newer schema.
			full := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir(), "--log-format", "json"}, args("late-old")...)
			lctx, lcancel := context.WithTimeout(ctx, 60*time.Second) // a failure guard: it should exit at once
			out, err := exec.CommandContext(lctx, old, full...).CombinedOutput()
			lcancel()
			if err == nil || !bytes.Contains(out, []byte("newer than this build")) {
				t.Fatalf("an old node started on the migrated schema: %v\n%s", err, out)
			}
		}
		queuesCovered()
		t.Logf("replaced old%d with %s; leases %v", i, id, c.leases(ctx))
	}
	waitAcks(ackedNow() + 150)
	cancel()
	wg.Wait()

	// What the old nodes acknowledged on the newer schema proves they kept
	// working beside the new ones.
	perNode := map[string]int{}
	oldAfter := 0
	for _, a := range acks {
		perNode[a.node]++
		if a.schema == 1 && strings.HasPrefix(a.node, "old") {
			oldAfter++
		}
	}
	if oldAfter == 0 {
		t.Fatalf("no ticket was acknowledged by an old node after the migration (per node: %v)", perNode)
	}

	byPair := map[string][]acked{}
	for _, a := range acks {
		if !a.hold {
			byPair[a.pair] = append(byPair[a.pair], a)
		}
	}
	client := c.live()[0].client()
	matchOf := map[string]string{}
	holds := 0
	deadline := time.Now().Add(60 * time.Second)
	for _, a := range acks {
		for {
			res, err := client.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: a.id}))
			if err != nil {
				t.Fatalf("acknowledged ticket %s (through %s) lost: %v", a.id, a.node, err)
			}
			tk := res.Msg.GetTicket()
			if !tk.GetCreatedAt().AsTime().Equal(a.created) {
				t.Fatalf("ticket %s created_at %v, acknowledged as %v", a.id, tk.GetCreatedAt().AsTime(), a.created)
			}
			if a.hold {
				if tk.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
					t.Fatalf("waiting ticket %s (through %s) is %v after the upgrade", a.id, a.node, tk.GetState())
				}
				holds++
				break
			}
			if tk.GetState() == cupidv1.TicketState_TICKET_STATE_MATCHED {
				matchOf[a.id] = tk.GetMatch().GetId()
				break
			}
			if len(byPair[a.pair]) < 2 {
				break // its partner was never acknowledged (the load stopped)
			}
			if tk.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING || time.Now().After(deadline) {
				t.Fatalf("ticket %s of a full pair (through %s) is %v, never matched", a.id, a.node, tk.GetState())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	for pair, as := range byPair {
		if len(as) == 2 && matchOf[as[0].id] != matchOf[as[1].id] {
			t.Fatalf("pair %s matched apart: %s and %s", pair, matchOf[as[0].id], matchOf[as[1].id])
		}
	}
	conn, err := pgx.Connect(context.Background(), db)
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
	// With only new nodes left, the singletons the old nodes did not know
	// are held too.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ls := c.leases(context.Background())
		if c.isLive(ls[cluster.RetentionLease]) && c.isLive(ls[cluster.LobbiesLease]) && c.isLive(ls[cluster.PairingLease]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the singletons are not all held by the new nodes within 30s: %v", ls)
		}
	}
	t.Logf("%d tickets acknowledged (per node %v; %d by old nodes on the new schema), %d matched, %d still waiting",
		len(acks), perNode, oldAfter, len(matchOf), holds)
}

// isLive says whether id is one of the nodes the test runs now.
func (c *testCluster) isLive(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.nodes[id]
	return ok
}

// liveIDs returns the live nodes' ids in order.
func (c *testCluster) liveIDs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return cupid.SortedKeys(c.nodes)
}
