package ticketsvc

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/rollout"
	"github.com/cupid-match/cupid/service/ticketsvc/canary"
)

// twoVsTwo needs four one-player tickets: on arrivals that come in pairs it
// keeps the first pair waiting for the next, a canary that worsens waits.
const twoVsTwo = `{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100, "max": 3000}]
}`

// duelWider is the live duel with a wider first step: on the same pairs it
// waits no longer.
const duelWider = `{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 150, "max": 3000}]
}`

// sides hands out player ids by the side of a canary of share on queue.
type sides struct {
	queue string
	share float64
	next  int
}

func (s *sides) player(canary bool) string {
	for {
		s.next++
		id := fmt.Sprintf("p%d", s.next)
		if rollout.InCanary(s.queue, id, s.share) == canary {
			return id
		}
	}
}

// pairs sends n pairs to each side, one pair a side every 5 s; the pools
// step after each.
func pairs(t *testing.T, h *harness, ps *sides, n int) {
	t.Helper()
	for range n {
		for _, canary := range []bool{false, true} {
			for range 2 {
				got := h.create(t, ticket("duel", 1500, ps.player(canary)))
				if (got.Key.Side == rollout.Canary) != canary {
					t.Fatalf("ticket %s on side %q, want canary %v", got.ID, got.Key.Side, canary)
				}
			}
		}
		h.Wake() // the pools step at the arrivals' moment
		h.wait(5 * time.Second)
	}
}

func TestCanaryThatWorsensWaitIsRolledBackAcrossARestart(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	h := start(t, store, queues(0))
	guard := rollout.Guard{WaitMargin: 0.5, Window: 10 * time.Minute, MinSamples: 8}
	// Bad requests name their field and change nothing.
	for _, bad := range []struct {
		o     canary.CanaryOptions
		field string
	}{
		{canary.CanaryOptions{Queue: "duel", Ruleset: []byte(twoVsTwo), Share: 0}, "share"},
		{canary.CanaryOptions{Queue: "duel", Ruleset: []byte(twoVsTwo), Share: 0.9}, "share"},
		{canary.CanaryOptions{Queue: "duel", Ruleset: []byte(twoVsTwo), Share: 0.5, Guard: rollout.Guard{WaitMargin: -1, Window: time.Minute, MinSamples: 1}}, "guard.wait_margin"},
		{canary.CanaryOptions{Queue: "duel", Ruleset: []byte(`{`), Share: 0.5}, "ruleset"},
	} {
		_, err := h.Rollouts().StartCanary(ctx, bad.o)
		wantErr(t, err, cupid.CodeInvalid, bad.field)
	}
	_, err := h.Rollouts().CanaryStatus(ctx, "duel")
	wantErr(t, err, cupid.CodeNotFound, "queue")

	st, err := h.Rollouts().StartCanary(ctx, canary.CanaryOptions{Queue: "duel", Ruleset: []byte(twoVsTwo), Share: 0.5, Guard: guard, Reason: "try 2v2"})
	if err != nil || st.State != "running" {
		t.Fatalf("start: %v %+v", err, st)
	}
	_, err = h.Rollouts().StartCanary(ctx, canary.CanaryOptions{Queue: "duel", Ruleset: []byte(twoVsTwo), Share: 0.5})
	wantErr(t, err, cupid.CodeAlreadyExists, "queue")

	ps := &sides{queue: "duel", share: 0.5}
	pairs(t, h, ps, 3)
	h.Rollouts().CheckCanaries(ctx)
	st, _ = h.Rollouts().CanaryStatus(ctx, "duel")
	if st.State != "running" || !strings.Contains(st.Reason, "waiting for samples") {
		t.Fatalf("before the minimum sample: %+v", st)
	}

	before := st

	// A restart in the middle: the canary resumes with its guard window
	// (package canary's window.go), a waiting canary ticket goes back to the candidate's
	// pool.
	h.Close()
	h2 := start(t, store, queues(0))
	h2.clock.Advance(h.clock.Now().Sub(h2.clock.Now()))
	h2.Rollouts().CheckCanaries(ctx)
	st, _ = h2.Rollouts().CanaryStatus(ctx, "duel")
	same := func(a, b rollout.Figures) bool { // qualities are saved to a thousandth
		ok := math.Abs(a.MeanQuality-b.MeanQuality) < 0.001
		a.MeanQuality, b.MeanQuality = 0, 0
		return ok && a == b
	}
	if st.Live.Samples == 0 || !same(st.Live, before.Live) || !same(st.Canary, before.Canary) {
		t.Fatalf("the guard window after the restart: live %+v canary %+v, before it live %+v canary %+v", st.Live, st.Canary, before.Live, before.Canary)
	}
	pairs(t, h2, ps, 5)
	h2.Rollouts().CheckCanaries(ctx)
	st, err = h2.Rollouts().CanaryStatus(ctx, "duel")
	if err != nil || st.State != "rolled_back" || !strings.HasPrefix(st.Reason, "guard: wait p90") {
		t.Fatalf("after the restart and enough samples: %v %+v", err, st)
	}
	t.Logf("rolled back: %s (live %+v, canary %+v)", st.Reason, st.Live, st.Canary)
	// New tickets all go live now; the ruleset is unchanged.
	if got := h2.create(t, ticket("duel", 1500, ps.player(true))); got.Key.Side != "" {
		t.Fatalf("a ticket after the roll-back went to side %q", got.Key.Side)
	}
	if _, v, _ := h2.Rulesets().Ruleset("duel"); v != 1 {
		t.Fatalf("ruleset version %d after a roll-back", v)
	}
	_, err = h2.Rollouts().PromoteCanary(ctx, "duel", "")
	wantErr(t, err, cupid.CodeConflict, "queue")
	vias := history(t, h2)
	if len(vias) != 3 || vias[1] != "canary-start:try 2v2" || !strings.HasPrefix(vias[2], "canary-rollback:guard: wait p90") {
		t.Fatalf("history %q", vias)
	}
}

func TestCanaryThatHoldsIsPromoted(t *testing.T) {
	ctx := context.Background()
	h := start(t, memstore.New(), queues(0))
	guard := rollout.Guard{WaitMargin: 0.5, QualityMargin: 0.2, Window: 10 * time.Minute, MinSamples: 8}
	if _, err := h.Rollouts().StartCanary(ctx, canary.CanaryOptions{Queue: "duel", Ruleset: []byte(duelWider), Share: 0.5, Guard: guard}); err != nil {
		t.Fatal(err)
	}
	ps := &sides{queue: "duel", share: 0.5}
	pairs(t, h, ps, 6)
	h.Rollouts().CheckCanaries(ctx)
	st, _ := h.Rollouts().CanaryStatus(ctx, "duel")
	if st.State != "running" || !strings.HasPrefix(st.Reason, "within the guards") || st.Canary.Samples < 8 {
		t.Fatalf("a canary as good as live: %+v", st)
	}
	st, err := h.Rollouts().PromoteCanary(ctx, "duel", "as fast, wider pairs")
	if err != nil || st.State != "promoted" {
		t.Fatalf("promote: %v %+v", err, st)
	}
	src, v, _ := h.Rulesets().Ruleset("duel")
	if v != 2 || string(src) != duelWider {
		t.Fatalf("after the promotion the queue runs version %d: %s", v, src)
	}
	if got := h.create(t, ticket("duel", 1500, ps.player(true))); got.Key.Side != "" {
		t.Fatalf("a ticket after the promotion went to side %q", got.Key.Side)
	}
	vias := history(t, h)
	want := []string{"seen:", "canary-start:a canary sends its share of new tickets to the candidate ruleset", "canary:", "canary-promote:as fast, wider pairs"}
	if fmt.Sprint(vias) != fmt.Sprint(want) {
		t.Fatalf("history %q, want %q", vias, want)
	}
}

func history(t *testing.T, h *harness) []string {
	t.Helper()
	hist, err := h.Rulesets().History(context.Background(), "duel")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range hist {
		out = append(out, v.Via+":"+v.Reason)
	}
	return out
}
