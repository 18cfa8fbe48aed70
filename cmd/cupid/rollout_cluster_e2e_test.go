package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cupid-match/cupid/rollout"
)

// TestCanaryReachesEveryNode runs two nodes on one PostgreSQL database: a
// canary started through the node that runs the queue routes the tickets
// created through the other node, and a roll-back through the queue's node
// stops that routing, each without a restart.
func TestCanaryReachesEveryNode(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	ctx := context.Background()
	c := &testCluster{t: t, db: postgresURL(t), config: clusterConfig(t), nodes: map[string]*process{}}
	c.start()
	c.start()
	c.waitSettled(ctx, clusterQueues+5)
	owner := c.leases(ctx)["queue/q0"]
	c.mu.Lock()
	var queueNode, other *process
	for id, p := range c.nodes {
		if id == owner {
			queueNode = p
		} else {
			other = p
		}
	}
	c.mu.Unlock()
	if queueNode == nil || other == nil {
		t.Fatalf("q0 is run by %q, not one of the two nodes", owner)
	}
	conn, err := pgx.Connect(ctx, c.db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	const share = 0.5
	n := 0
	// sideOfNext creates a ticket through the other node for a player the
	// canary takes and returns the side the server stored it on.
	sideOfNext := func() string {
		for {
			n++
			id := fmt.Sprintf("p%d", n)
			if !rollout.InCanary("q0", id, share) {
				continue
			}
			// The side is stored with the ticket, matched or not.
			tk := create(t, other.client(), "q0", player(id, 1500))
			var side string
			if err := conn.QueryRow(ctx, `SELECT coalesce(body->'key'->>'side', '') FROM tickets WHERE id = $1`, tk.GetId()).Scan(&side); err != nil {
				t.Fatal(err)
			}
			return side
		}
	}
	// waitSide creates tickets until one lands on want.
	waitSide := func(want, what string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for sideOfNext() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: tickets created through the other node are still not on side %q after 15s", what, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	if side := sideOfNext(); side != "" {
		t.Fatalf("before any canary a ticket is on side %q", side)
	}
	postOK(t, queueNode.url, "/cupid.v1.RolloutService/StartCanary", `{"queue":"q0","share":0.5,
	  "ruleset":"{\"alliance\":{\"min_number\":2,\"max_number\":2,\"player_min_number\":1,\"player_max_number\":1},\"matching_rule\":[{\"attribute\":\"mmr\",\"criteria\":\"distance\",\"reference\":50,\"max\":3000}]}"}`)
	waitSide(rollout.Canary, "a canary started through the queue's node")
	// From then on every such ticket goes to the canary.
	for range 5 {
		if side := sideOfNext(); side != rollout.Canary {
			t.Fatalf("a ticket of the canary's share went to side %q while the canary runs", side)
		}
	}

	postOK(t, queueNode.url, "/cupid.v1.RolloutService/RollbackCanary", `{"queue":"q0","reason":"test"}`)
	waitSide("", "a canary rolled back through the queue's node")
	for range 5 {
		if side := sideOfNext(); side != "" {
			t.Fatalf("a ticket went to side %q after the roll-back", side)
		}
	}
	// The other node's status says so too.
	var st struct {
		Status struct{ State, Reason string }
	}
	if err := json.Unmarshal(postOK(t, other.url, "/cupid.v1.RolloutService/CanaryStatus", `{"queue":"q0"}`), &st); err != nil {
		t.Fatal(err)
	}
	if st.Status.State != "rolled_back" || st.Status.Reason != "by the operator: test" {
		t.Fatalf("the other node's canary status: %+v", st.Status)
	}
}

// TestCanaryGuardWindowMovesWithItsQueue: the node that runs a canary's
// queue stops; the node that takes the queue over goes on with the guards'
// window as it was (both sides' matched tickets), not from nothing.
func TestCanaryGuardWindowMovesWithItsQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	ctx := context.Background()
	c := &testCluster{t: t, db: postgresURL(t), config: clusterConfig(t), nodes: map[string]*process{}}
	c.start()
	c.start()
	c.waitSettled(ctx, clusterQueues+5)
	nodes := c.live()
	first := nodes[0]
	postOK(t, first.url, "/cupid.v1.RolloutService/StartCanary", `{"queue":"q0","share":0.5,
	  "ruleset":"{\"alliance\":{\"min_number\":2,\"max_number\":2,\"player_min_number\":1,\"player_max_number\":1},\"matching_rule\":[{\"attribute\":\"mmr\",\"criteria\":\"distance\",\"reference\":50,\"max\":3000}]}"}`)
	// status is a node's word on the canary; none before it heard of it.
	status := func(p *process) (state, reason string) {
		code, body, _ := postRaw(t, p.url, "/cupid.v1.RolloutService/CanaryStatus", `{"queue":"q0"}`)
		var st struct {
			Status struct{ State, Reason string }
		}
		if code != http.StatusOK || json.Unmarshal(body, &st) != nil {
			return "", string(body)
		}
		return st.Status.State, st.Status.Reason
	}
	// Both nodes know of the canary before any ticket: the node that runs
	// the queue counts the matches of a canary it knows.
	for _, p := range nodes {
		deadline := time.Now().Add(15 * time.Second)
		for state, _ := status(p); state != "running"; state, _ = status(p) {
			if time.Now().After(deadline) {
				t.Fatalf("node %s does not know of the canary after 15s", p.url)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// A pair on each side, created through the node the canary started on
	// (it routes at once).
	n := 0
	for _, canary := range []bool{false, true} {
		var ids []string
		for len(ids) < 2 {
			n++
			if id := fmt.Sprintf("p%d", n); rollout.InCanary("q0", id, 0.5) == canary {
				ids = append(ids, create(t, first.client(), "q0", player(id, 1500)).GetId())
			}
		}
		for _, id := range ids {
			if ev := waitFinal(t, first.client(), id, 0); ev.GetKind() != "matched" {
				t.Fatalf("ticket %s ended %s", id, ev.GetKind())
			}
		}
	}
	const window = "waiting for samples: 2 live and 2 canary matched tickets"
	// The node that runs the queue (the lease may have moved since the
	// nodes started) sees the window.
	var owner, other *process
	var ownerID string
	deadline := time.Now().Add(15 * time.Second)
	for owner == nil {
		ownerID = c.leases(ctx)["queue/q0"]
		c.mu.Lock()
		p := c.nodes[ownerID]
		c.mu.Unlock()
		if state, reason := status(p); state == "running" && strings.HasPrefix(reason, window) {
			owner = p
			for _, q := range nodes {
				if q != p {
					other = q
				}
			}
		}
		if owner == nil && time.Now().After(deadline) {
			t.Fatalf("the queue's node does not see the window %q after 15s", window)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A graceful stop hands the queue over; its node saves the window first.
	c.remove(ownerID)
	owner.cmd.Process.Signal(syscall.SIGTERM)
	owner.cmd.Wait()
	c.waitCovered(ctx, time.Now(), ownerID)
	deadline = time.Now().Add(15 * time.Second)
	for {
		state, reason := status(other)
		if state == "running" && strings.HasPrefix(reason, window) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the node that took the queue over: the canary is %s: %q", state, reason)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
