package ticketsvc

import (
	"context"
	"testing"

	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/rollout"
	"github.com/cupid-match/cupid/service/ticketsvc/canary"
)

// TestRolloutsFollowTheStore: a second node on the same documents follows
// what the first starts and decides (Sync, run every second on a
// shared store): a shadow appears and goes, a canary routes the second
// node's tickets, and its promotion installs the candidate there.
func TestRolloutsFollowTheStore(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	a := start(t, store, queues(0))
	b := start(t, store, queues(0))
	ps := &sides{queue: "duel", share: 0.5}

	steps := []struct {
		name string
		do   func() error
		// what the second node must show after it synced
		shadow bool
		canary string // the canary's state, "" for none
		side   string // of a new ticket of the canary's share
		ver    int
	}{
		{"nothing yet", func() error { return nil }, false, "", "", 1},
		{"shadow started", func() error {
			_, err := a.Rollouts().StartShadow(ctx, canary.ShadowOptions{Queue: "duel", Ruleset: []byte(duelWider)})
			return err
		}, true, "", "", 1},
		{"canary started", func() error {
			_, err := a.Rollouts().StartCanary(ctx, canary.CanaryOptions{Queue: "duel", Ruleset: []byte(duelWider), Share: 0.5})
			return err
		}, true, "running", rollout.Canary, 1},
		{"shadow stopped", func() error { return a.Rollouts().StopShadow(ctx, "duel", "") }, false, "running", rollout.Canary, 1},
		{"canary promoted", func() error {
			_, err := a.Rollouts().PromoteCanary(ctx, "duel", "")
			return err
		}, false, "promoted", "", 2},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if err := b.Rollouts().Sync(ctx); err != nil {
			t.Fatalf("%s: sync: %v", st.name, err)
		}
		if _, err := b.Rollouts().ShadowReport(ctx, "duel"); (err == nil) != st.shadow {
			got := err == nil
			t.Errorf("%s: the second node runs a shadow: %v, want %v", st.name, got, st.shadow)
		}
		state := ""
		if cs, err := b.Rollouts().CanaryStatus(ctx, "duel"); err == nil {
			state = cs.State
		}
		if state != st.canary {
			t.Errorf("%s: the second node's canary is %q, want %q", st.name, state, st.canary)
		}
		if got := b.create(t, ticket("duel", 1500, ps.player(true))); got.Key.Side != st.side {
			t.Errorf("%s: a ticket created on the second node went to side %q, want %q", st.name, got.Key.Side, st.side)
		}
		if _, v, _ := b.Rulesets().Ruleset("duel"); v != st.ver {
			t.Errorf("%s: the second node runs version %d, want %d", st.name, v, st.ver)
		}
	}
}
