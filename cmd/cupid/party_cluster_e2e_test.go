package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/service/partysvc"
)

// TestPartiesMoveWithTheirLease: on two nodes, the parties run on the node
// that holds their lease; calls reaching the other node are handed to it.
// When that node is killed, the other takes the lease and serves the
// parties from the store: members, invites and the join code.
func TestPartiesMoveWithTheirLease(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	config := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(config, []byte(`queues:
  - name: trios
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 3, player_max_number: 3}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &testCluster{t: t, db: postgresURL(t), config: config, nodes: map[string]*process{}}
	a, b := c.start(), c.start()
	ctx := context.Background()
	owner := c.waitSettled(ctx, 6)[partysvc.Lease] // the queue's and five singletons
	other := a
	if owner == a {
		other = b
	}
	c.mu.Lock()
	far := c.nodes[other]
	c.mu.Unlock()
	cl := client.New(far.url)
	// The second node may take leases over while this runs: a call that
	// meets a lease on the move hears "unavailable, try again" and does.
	var ann *client.Party
	var created *cupidv1.Party
	untilAvailable(t, func() (err error) {
		ann, created, err = cl.CreateParty(ctx, "ann", map[string]any{"mmr": 1500}, nil)
		return err
	})
	untilAvailable(t, func() error { _, err := ann.Invite(ctx, "bob"); return err })
	untilAvailable(t, func() error { _, err := ann.Invite(ctx, "dan"); return err })
	untilAvailable(t, func() error { _, err := cl.Party(ann.ID(), "bob").Answer(ctx, true, nil, nil); return err })
	// Kill the node that runs the parties: the other takes them over.
	p := c.remove(owner)
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
	c.waitLease(ctx, partysvc.Lease, other)
	got, err := ann.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.GetMembers()) != 2 || len(got.GetInvites()) != 1 || got.GetCode() != created.GetCode() {
		t.Fatalf("after the takeover: %v", got)
	}
	if _, err := cl.Party(ann.ID(), "dan").Answer(ctx, true, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := ann.Get(ctx); len(got.GetMembers()) != 3 {
		t.Fatalf("dan accepted after the takeover: %v", got)
	}
	if _, _, err := cl.JoinByCode(ctx, created.GetCode(), "cid", nil, nil); err == nil {
		t.Fatal("cid joined a full party (three is the most the queue takes)")
	}
}

// waitLease waits until a node holds lease (node, when not empty) and
// returns it; the deadline guards against a hang.
func (c *testCluster) waitLease(ctx context.Context, lease, node string) string {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if owner := c.leases(ctx)[lease]; owner != "" && (node == "" || owner == node) {
			return owner
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("lease %s never went to %q: %v", lease, node, c.leases(ctx))
		}
		time.Sleep(20 * time.Millisecond) // another process's lease: polled as waitCovered does
	}
}

// untilAvailable runs call until it is not refused as unavailable (a lease
// on the move), as the error tells a client to; the deadline guards
// against a hang.
func untilAvailable(t *testing.T, call func() error) {
	t.Helper()
	if err := retryUnavailable(call); err != nil {
		t.Fatal(err)
	}
}

// retryUnavailable is untilAvailable for another goroutine than the
// test's: it returns the last error.
func retryUnavailable(call func() error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := call()
		if connect.CodeOf(err) != connect.CodeUnavailable || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond) // "try again in a few seconds": the client's pause, not a wait for an outcome
	}
}
