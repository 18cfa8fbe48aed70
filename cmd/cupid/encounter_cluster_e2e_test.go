package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// TestRematchAskedOnTwoNodesAtOnce: on a cluster, two players who ask
// each other for a rematch at the same moment through different nodes
// both count: asking is accepting when the other asked first, so the
// rematch is accepted and its match formed. Each ask is a read, a decision
// and a write of one document; served side by side on two nodes, the
// second write would drop the first player's answer and leave the rematch
// waiting for an answer already given.
func TestRematchAskedOnTwoNodesAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	config := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(config, []byte(`queues:
  - name: duel
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &testCluster{t: t, db: postgresURL(t), config: config, nodes: map[string]*process{}}
	a, b := c.start(), c.start()
	ctx := context.Background()
	c.waitSettled(ctx, 6) // the queue's and five singletons': none moves under the test
	c.mu.Lock()
	ca, cb := client.New(c.nodes[a].url), client.New(c.nodes[b].url)
	c.mu.Unlock()

	const pairs = 12
	for i := range pairs {
		ann, bob, ref := fmt.Sprintf("ann%d", i), fmt.Sprintf("bob%d", i), fmt.Sprintf("m-%d", i)
		untilAvailable(t, func() error {
			_, err := ca.RecordEncounter(ctx, &cupidv1.RecordEncounterRequest{
				Mode: "queue", Place: "duel", Ref: ref, At: timestamppb.Now(),
				Teams: []*cupidv1.EncounterTeam{{PlayerIds: []string{ann}}, {PlayerIds: []string{bob}}},
			})
			return err
		})
		var wg sync.WaitGroup
		ids, errs := make([]string, 2), make([]error, 2)
		for k, ask := range []struct {
			cl            *client.Client
			player, other string
		}{{ca, ann, bob}, {cb, bob, ann}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[k] = retryUnavailable(func() error {
					r, err := ask.cl.RequestRematch(ctx, ask.player, ask.other, ref)
					ids[k] = r.GetId()
					return err
				})
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("pair %d: %v", i, err)
			}
		}
		id := ids[0]
		if id == "" || id != ids[1] {
			t.Fatalf("pair %d: rematch ids %q", i, ids)
		}
		r, err := cb.GetRematch(ctx, bob, id)
		if err != nil {
			t.Fatal(err)
		}
		if r.GetState() != "accepted" || r.GetMatchId() == "" {
			t.Fatalf("pair %d asked each other at once on two nodes: %v, want accepted with a match", i, r)
		}
	}
}
