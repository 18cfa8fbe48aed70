package canary

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/rollout"
	"github.com/cupid-match/cupid/ruleset"
)

// The unit tests run over the in-memory document store with stand-ins for
// the pools (they compile rulesets for real: packages ruleset and engine
// are pure) and for the run-time replacement; both record what they are
// asked.

const (
	duelRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`
	trioRules = `{"alliance": {"min_number": 3, "max_number": 3, "player_min_number": 1, "player_max_number": 1}}`
)

var (
	t0          = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	errDiskFull = errors.New("disk full")
)

// fakePools stands for the pools of one node running the duel queue.
type fakePools struct {
	mu         sync.Mutex
	queues     map[string]bool
	elsewhere  map[string]bool // queues another node runs
	fence      cupid.Fence
	shadows    map[string]*Shadow    // attached, by queue
	canaryWith map[string]*Candidate // the canary side's rules; nil: the queue's own
	calls      []string
}

func newFakePools() *fakePools {
	return &fakePools{queues: map[string]bool{"duel": true}, elsewhere: map[string]bool{}, fence: cupid.Fence{Lease: "queue/duel", Token: 7},
		shadows: map[string]*Shadow{}, canaryWith: map[string]*Candidate{}}
}

func (f *fakePools) Configured(queue string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queues[queue]
}

func (f *fakePools) Compile(queue string, src []byte) (*ruleset.Compiled, *engine.Pool, ruleset.Problems) {
	rs, err := ruleset.Load(src)
	if err != nil {
		var ps ruleset.Problems
		if errors.As(err, &ps) {
			return nil, nil, ps
		}
		return nil, nil, ruleset.Problems{{Message: err.Error()}}
	}
	check, err := engine.New(cupid.QueueKey{Queue: queue}, rs, engine.Options{})
	if err != nil {
		return nil, nil, ruleset.Problems{{Message: err.Error()}}
	}
	return rs, check, nil
}

func (f *fakePools) Owned(queue string) (cupid.Fence, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fence, !f.elsewhere[queue]
}

func (f *fakePools) AttachShadow(queue string, sh *Shadow) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shadows[queue] = sh
	f.calls = append(f.calls, "attach "+queue)
}

func (f *fakePools) DetachShadow(queue string, sh *Shadow) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shadows[queue] == sh {
		delete(f.shadows, queue)
	}
	f.calls = append(f.calls, "detach "+queue)
}

func (f *fakePools) SetCanaryRules(queue string, c *Candidate) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.canaryWith[queue] = c
	if c == nil {
		f.calls = append(f.calls, "live rules "+queue)
	} else {
		f.calls = append(f.calls, "candidate rules "+queue)
	}
}

func (f *fakePools) attached(queue string) *Shadow {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.shadows[queue]
}

// fakeRulesets stands for the run-time replacement.
type fakeRulesets struct {
	mu        sync.Mutex
	putErr    error
	puts      []string // queue:via:ruleset
	changed   []string
	decisions []string // queue via: reason
}

func (f *fakeRulesets) Put(_ context.Context, queue string, src []byte, _ int, via string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.putErr != nil {
		return 0, f.putErr
	}
	f.puts = append(f.puts, queue+":"+via+":"+string(src))
	return 2, nil
}

func (f *fakeRulesets) Changed(_ context.Context, queue string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changed = append(f.changed, queue)
	return nil
}

func (f *fakeRulesets) NoteDecision(_ context.Context, queue, via string, _ []byte, reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decisions = append(f.decisions, queue+" "+via+": "+reason)
}

type node struct {
	*Service
	pools    *fakePools
	rulesets *fakeRulesets
	clock    *testclock.Clock
}

// newNode builds a node's service over docs (nil: none).
func newNode(t *testing.T, docs cupid.DocumentStore) *node {
	t.Helper()
	n := &node{pools: newFakePools(), rulesets: &fakeRulesets{}, clock: testclock.At(t0)}
	s, err := New(Options{Pools: n.pools, Rulesets: n.rulesets, Documents: docs, Seed: 1,
		Logger: slog.New(slog.DiscardHandler), Now: n.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	n.Service = s
	return n
}

func wantCode(t *testing.T, err error, code cupid.Code, field string) {
	t.Helper()
	var e *cupid.Error
	if !errors.As(err, &e) || e.Code != code || e.Field != field {
		t.Fatalf("error %v, want %s on %q", err, code, field)
	}
}

// player is a one-player ticket of the duel queue created at.
func player(id string, mmr float64, at time.Time) *cupid.Ticket {
	return &cupid.Ticket{ID: "t-" + id, Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: at, ExpiresAt: at.Add(time.Minute),
		Latencies: map[string]int32{"eu": 40},
		Players:   []cupid.Player{{ID: id, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(mmr)})}}}
}

func TestNewRequiresPoolsAndRulesets(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"no pools", Options{Rulesets: &fakeRulesets{}}, "pools"},
		{"no rulesets", Options{Pools: newFakePools()}, "rulesets"},
	}
	for _, tt := range tests {
		if _, err := New(tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming the %s", tt.name, err, tt.want)
		}
	}
}

func TestStartRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, nil)
	big := strings.Repeat(" ", ruleset.MaxSourceBytes+1)
	long := strings.Repeat("x", 501)
	tests := []struct {
		name  string
		start func() error
		code  cupid.Code
		field string
	}{
		{"shadow: no queue", func() error {
			_, err := n.StartShadow(ctx, ShadowOptions{Queue: "nope", Ruleset: []byte(duelRules)})
			return err
		}, cupid.CodeNotFound, "queue"},
		{"shadow: no ruleset", func() error { _, err := n.StartShadow(ctx, ShadowOptions{Queue: "duel"}); return err }, cupid.CodeInvalid, "ruleset"},
		{"shadow: too large", func() error {
			_, err := n.StartShadow(ctx, ShadowOptions{Queue: "duel", Ruleset: []byte(big)})
			return err
		}, cupid.CodeInvalid, "ruleset"},
		{"shadow: long reason", func() error {
			_, err := n.StartShadow(ctx, ShadowOptions{Queue: "duel", Ruleset: []byte(duelRules), Reason: long})
			return err
		}, cupid.CodeInvalid, "reason"},
		{"shadow: long skill", func() error {
			_, err := n.StartShadow(ctx, ShadowOptions{Queue: "duel", Ruleset: []byte(duelRules), SkillAttribute: long[:65]})
			return err
		}, cupid.CodeInvalid, "skill_attribute"},
		{"shadow: bad ruleset", func() error {
			_, err := n.StartShadow(ctx, ShadowOptions{Queue: "duel", Ruleset: []byte(`{"alliance": 3}`)})
			return err
		}, cupid.CodeInvalid, "ruleset"},
		{"canary: no queue", func() error {
			_, err := n.StartCanary(ctx, CanaryOptions{Queue: "nope", Ruleset: []byte(duelRules), Share: 0.1})
			return err
		}, cupid.CodeNotFound, "queue"},
		{"canary: no ruleset", func() error {
			_, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Share: 0.1})
			return err
		}, cupid.CodeInvalid, "ruleset"},
		{"canary: too large", func() error {
			_, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(big), Share: 0.1})
			return err
		}, cupid.CodeInvalid, "ruleset"},
		{"canary: share past half", func() error {
			_, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.6})
			return err
		}, cupid.CodeInvalid, "share"},
		{"canary: no share", func() error {
			_, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules)})
			return err
		}, cupid.CodeInvalid, "share"},
		{"canary: bad guard", func() error {
			_, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.1,
				Guard: rollout.Guard{WaitMargin: 0.1, Window: time.Minute}})
			return err
		}, cupid.CodeInvalid, "guard.min_samples"},
		{"canary: long reason", func() error {
			_, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.1, Reason: long})
			return err
		}, cupid.CodeInvalid, "reason"},
		{"canary: bad ruleset", func() error {
			_, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(`{`), Share: 0.1})
			return err
		}, cupid.CodeInvalid, "ruleset"},
		{"stop: long reason", func() error { return n.StopShadow(ctx, "duel", long) }, cupid.CodeInvalid, "reason"},
		{"stop: no shadow", func() error { return n.StopShadow(ctx, "duel", "") }, cupid.CodeNotFound, "queue"},
		{"report: no queue", func() error { _, err := n.ShadowReport(ctx, "nope"); return err }, cupid.CodeNotFound, "queue"},
		{"report: no shadow", func() error { _, err := n.ShadowReport(ctx, "duel"); return err }, cupid.CodeNotFound, "queue"},
		{"status: no queue", func() error { _, err := n.CanaryStatus(ctx, "nope"); return err }, cupid.CodeNotFound, "queue"},
		{"status: no canary", func() error { _, err := n.CanaryStatus(ctx, "duel"); return err }, cupid.CodeNotFound, "queue"},
		{"promote: long reason", func() error { _, err := n.PromoteCanary(ctx, "duel", long); return err }, cupid.CodeInvalid, "reason"},
		{"rollback: long reason", func() error { _, err := n.RollbackCanary(ctx, "duel", long); return err }, cupid.CodeInvalid, "reason"},
		{"promote: no queue", func() error { _, err := n.PromoteCanary(ctx, "nope", ""); return err }, cupid.CodeNotFound, "queue"},
		{"promote: no canary", func() error { _, err := n.PromoteCanary(ctx, "duel", ""); return err }, cupid.CodeConflict, "queue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantCode(t, tt.start(), tt.code, tt.field) })
	}
	if len(n.pools.calls) != 0 || len(n.rulesets.decisions) != 0 {
		t.Fatalf("refused calls reached the pools %q or the history %q", n.pools.calls, n.rulesets.decisions)
	}
}

// TestShadowFiguresBesideLive: a shadow's pool takes the tickets that
// arrive after it started, matches them under the candidate and reports
// both sides per queue key, with the skill gap and the ping.
func TestShadowFiguresBesideLive(t *testing.T) {
	ctx := context.Background()
	n := newNode(t, memstore.New())
	if _, err := n.StartShadow(ctx, ShadowOptions{Queue: "duel", Ruleset: []byte(duelRules), Reason: "try it"}); err != nil {
		t.Fatal(err)
	}
	sh := n.pools.attached("duel")
	if sh == nil {
		t.Fatal("the shadow was not attached to the pools")
	}
	key := cupid.QueueKey{Queue: "duel"}
	if n.ShadowPool(cupid.QueueKey{Queue: "duel", Side: rollout.Canary}) != nil {
		t.Fatal("the canary's side got a shadow pool")
	}
	if n.ShadowPool(cupid.QueueKey{Queue: "other"}) != nil {
		t.Fatal("a queue without a shadow got a shadow pool")
	}
	sp := n.ShadowPool(key)
	if sp == nil || sp.Shadow() != sh {
		t.Fatal("a live pool got no shadow pool of the queue's shadow")
	}

	n.clock.Advance(10 * time.Second)
	now := n.clock.Now()
	sp.Add(player("old", 1500, t0.Add(-time.Second))) // before the shadow: never enters it
	sp.Add(player("a", 1500, now.Add(-4*time.Second)))
	sp.Add(player("b", 1600, now.Add(-2*time.Second)))
	sp.Add(player("c", 1550, now.Add(-time.Second)))
	if _, ok := sp.NextWake(now); !ok {
		t.Log("the engine asks for no wake: fine, the step below runs anyway")
	}
	sp.Step(now)
	// c is left over and leaves the live pool (matched there), "gone"
	// was never in the shadow.
	sp.Leave("t-c", now)
	sp.Leave("t-gone", now)
	sp.LiveExpired(now.UnixNano())                  // a live ticket of the shadow's time
	sp.LiveExpired(t0.Add(-time.Second).UnixNano()) // one from before: not counted

	// A live match of two tickets, one from before the shadow started.
	m := &cupid.Match{Key: key, Region: "eu", Quality: cupid.Quality{Score: 0.5}}
	n.LiveMatched(key, m, nil, []time.Duration{3 * time.Second, -1}, now)

	rep, err := n.ShadowReport(ctx, "duel")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Keys) != 1 {
		t.Fatalf("report keys %+v, want the duel's one", rep.Keys)
	}
	k := rep.Keys[0]
	if k.Shadow.Matches != 1 || k.Live.Matches != 1 {
		t.Errorf("matches: shadow %d live %d, want 1 and 1", k.Shadow.Matches, k.Live.Matches)
	}
	if k.Shadow.SkillGap.Count != 1 || k.Shadow.SkillGap.Mean != 100 {
		t.Errorf("shadow skill gap %+v, want one of 100", k.Shadow.SkillGap)
	}
	if k.Shadow.PingMS.Count != 0 {
		t.Errorf("shadow ping %+v, want none: the duel's matches have no region", k.Shadow.PingMS)
	}
	if k.Shadow.TakenByLive != 1 || k.Live.Expired != 1 || k.Shadow.Refused != 0 {
		t.Errorf("shadow taken by live %d, live expired %d, refused %d: want 1, 1, 0", k.Shadow.TakenByLive, k.Live.Expired, k.Shadow.Refused)
	}
	if rep.WindowSeconds <= 10 || rep.WindowSeconds > 11 {
		t.Errorf("window %v s, want the 10 s since the shadow started", rep.WindowSeconds)
	}
}

// TestShadowStartStop: one shadow a queue; a stop detaches it, removes its
// document and notes both decisions; a store failure refuses the start and
// leaves nothing behind.
func TestShadowStartStop(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	n := newNode(t, store)

	store.Fail("PutDocument", errDiskFull)
	_, err := n.StartShadow(ctx, ShadowOptions{Queue: "duel", Ruleset: []byte(duelRules)})
	wantCode(t, err, cupid.CodeUnavailable, "")
	if n.pools.attached("duel") != nil || n.ShadowPool(cupid.QueueKey{Queue: "duel"}) != nil {
		t.Fatal("a shadow that was not stored runs")
	}
	store.Fail("PutDocument", nil)

	rep, err := n.StartShadow(ctx, ShadowOptions{Queue: "duel", Ruleset: []byte(duelRules)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Keys) != 0 || rep.Keys == nil {
		t.Fatalf("a new shadow's keys %#v, want an empty list", rep.Keys)
	}
	_, err = n.StartShadow(ctx, ShadowOptions{Queue: "duel", Ruleset: []byte(trioRules)})
	wantCode(t, err, cupid.CodeAlreadyExists, "queue")

	store.Fail("DeleteDocument", errDiskFull)
	wantCode(t, n.StopShadow(ctx, "duel", ""), cupid.CodeUnavailable, "")
	store.Fail("DeleteDocument", nil)
	if err := n.StopShadow(ctx, "duel", "enough"); err != nil {
		t.Fatal(err)
	}
	if n.pools.attached("duel") != nil {
		t.Fatal("a stopped shadow is still attached")
	}
	if docs, _ := store.Documents(ctx, rolloutKind, "", 0); len(docs) != 0 {
		t.Fatalf("a stopped shadow's document is left: %d", len(docs))
	}
	want := []string{"duel shadow-start: a candidate ruleset runs in the shadow of the live one", "duel shadow-stop: enough"}
	if fmt.Sprint(n.rulesets.decisions) != fmt.Sprint(want) {
		t.Fatalf("decisions %q, want %q", n.rulesets.decisions, want)
	}
}

// routeUntil routes new tickets of fresh players until one lands on the
// wanted side; it returns that ticket.
func routeUntil(t *testing.T, n *node, canary bool, next *int) *cupid.Ticket {
	t.Helper()
	for range 1000 {
		*next++
		tk := player(fmt.Sprintf("p%d", *next), 1500, n.clock.Now())
		tk.Key.Side = "forged"
		n.Route(tk)
		if (tk.Key.Side == rollout.Canary) == canary {
			return tk
		}
		if tk.Key.Side != "" && tk.Key.Side != rollout.Canary {
			t.Fatalf("the caller's side %q was kept", tk.Key.Side)
		}
	}
	t.Fatal("no ticket reached the wanted side in 1000 players")
	return nil
}

// TestCanaryGuardRollsBack: a running canary routes its share to the
// candidate, its rings take both sides' matches, and a guard that trips
// rolls it back: routing stops and the canary's pools take the live rules.
func TestCanaryGuardRollsBack(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	n := newNode(t, store)
	guard := rollout.Guard{WaitMargin: 0.25, Window: time.Minute, MinSamples: 2}
	st, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.5, Guard: guard})
	if err != nil {
		t.Fatal(err)
	}
	if st.State != "running" || st.Share != 0.5 {
		t.Fatalf("status %+v, want running at 0.5", st)
	}
	_, err = n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.5})
	wantCode(t, err, cupid.CodeAlreadyExists, "queue")
	canaryKey := cupid.QueueKey{Queue: "duel", Side: rollout.Canary}
	liveKey := cupid.QueueKey{Queue: "duel"}
	if n.Candidate(canaryKey) == nil || n.Candidate(liveKey) != nil {
		t.Fatal("the candidate is not the canary side's alone")
	}
	if n.pools.canaryWith["duel"] == nil {
		t.Fatal("the canary side's pools did not take the candidate")
	}
	next := 0
	routeUntil(t, n, true, &next)
	routeUntil(t, n, false, &next)
	empty := &cupid.Ticket{Key: liveKey}
	if n.Route(empty); empty.Key.Side != "" {
		t.Fatal("a ticket without players went to the canary")
	}

	// Within the guards: the same waits on both sides.
	n.clock.Advance(time.Second)
	m := &cupid.Match{Quality: cupid.Quality{Score: 1}}
	n.LiveMatched(liveKey, m, nil, []time.Duration{time.Second, time.Second}, n.clock.Now())
	n.LiveMatched(canaryKey, m, nil, []time.Duration{time.Second, time.Second}, n.clock.Now())
	n.CheckCanaries(ctx)
	if st, _ := n.CanaryStatus(ctx, "duel"); st.State != "running" || !strings.Contains(st.Reason, "within the guards") {
		t.Fatalf("status %s %q, want running within the guards", st.State, st.Reason)
	}
	// The canary's waits grow past the margin.
	n.LiveMatched(canaryKey, m, nil, []time.Duration{20 * time.Second, 20 * time.Second}, n.clock.Now())
	n.CheckCanaries(ctx)
	st, err = n.CanaryStatus(ctx, "duel")
	if err != nil {
		t.Fatal(err)
	}
	if st.State != "rolled_back" || !strings.HasPrefix(st.Reason, "guard: wait p90") || !st.Decided.Equal(n.clock.Now()) {
		t.Fatalf("status %s %q at %s, want rolled back by the wait guard", st.State, st.Reason, st.Decided)
	}
	if n.Candidate(canaryKey) != nil || n.pools.canaryWith["duel"] != nil {
		t.Fatal("a rolled-back canary's side still runs the candidate")
	}
	routeUntil(t, n, false, &next)
	for range 20 {
		tk := player(fmt.Sprintf("after%d", next), 1500, n.clock.Now())
		next++
		if n.Route(tk); tk.Key.Side != "" {
			t.Fatal("a ticket went to a rolled-back canary")
		}
	}
	// Matches after the decision feed nothing.
	n.LiveMatched(canaryKey, m, nil, []time.Duration{time.Second}, n.clock.Now())
	if got, _ := n.CanaryStatus(ctx, "duel"); got.Canary.Samples != st.Canary.Samples {
		t.Fatalf("a decided canary took samples: %d, then %d", st.Canary.Samples, got.Canary.Samples)
	}
	_, err = n.RollbackCanary(ctx, "duel", "")
	wantCode(t, err, cupid.CodeConflict, "queue")

	// A new canary replaces the decided one.
	if _, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(trioRules), Share: 0.1}); err != nil {
		t.Fatal(err)
	}
}

// TestCanaryPromoteAndRollback: a promotion replaces the queue's ruleset
// through the run-time replacement ("canary"); a refused replacement
// leaves the canary running; an operator's roll-back says so.
func TestCanaryPromoteAndRollback(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	n := newNode(t, store)
	if _, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(trioRules), Share: 0.2}); err != nil {
		t.Fatal(err)
	}
	n.rulesets.putErr = cupid.Conflict("expected_version", "moved on")
	_, err := n.PromoteCanary(ctx, "duel", "")
	wantCode(t, err, cupid.CodeConflict, "expected_version")
	if st, _ := n.CanaryStatus(ctx, "duel"); st.State != "running" || st.Reason != "" || !st.Decided.IsZero() {
		t.Fatalf("after a refused promotion: %+v, want running as before", st)
	}
	n.rulesets.putErr = nil
	n.clock.Advance(time.Minute)
	st, err := n.PromoteCanary(ctx, "duel", "")
	if err != nil {
		t.Fatal(err)
	}
	if st.State != "promoted" || st.Reason != "promoted by the operator" {
		t.Fatalf("status %+v, want promoted by the operator", st)
	}
	if want := []string{"duel:canary:" + trioRules}; fmt.Sprint(n.rulesets.puts) != fmt.Sprint(want) {
		t.Fatalf("puts %q, want %q", n.rulesets.puts, want)
	}
	if n.Candidate(cupid.QueueKey{Queue: "duel", Side: rollout.Canary}) != nil {
		t.Fatal("a promoted canary's side keeps a candidate apart from the queue's ruleset")
	}

	if _, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.2}); err != nil {
		t.Fatal(err)
	}
	store.Fail("PutDocument", errDiskFull) // the decision stands on this node
	st, err = n.RollbackCanary(ctx, "duel", "long queues")
	store.Fail("PutDocument", nil)
	if err != nil || st.State != "rolled_back" || st.Reason != "by the operator: long queues" {
		t.Fatalf("rollback: %+v %v", st, err)
	}
	want := []string{
		"duel canary-start: a canary sends its share of new tickets to the candidate ruleset",
		"duel canary-promote: promoted by the operator",
		"duel canary-start: a canary sends its share of new tickets to the candidate ruleset",
		"duel canary-rollback: by the operator: long queues",
	}
	if fmt.Sprint(n.rulesets.decisions) != fmt.Sprint(want) {
		t.Fatalf("decisions %q, want %q", n.rulesets.decisions, want)
	}
}

// TestStartCanaryStoreFailure: a canary that was not stored does not run,
// and the one before it stays.
func TestStartCanaryStoreFailure(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	n := newNode(t, store)
	store.Fail("PutDocument", errDiskFull)
	_, err := n.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.2})
	wantCode(t, err, cupid.CodeUnavailable, "")
	if n.Candidate(cupid.QueueKey{Queue: "duel", Side: rollout.Canary}) != nil {
		t.Fatal("a canary that was not stored runs")
	}
	_, err = n.CanaryStatus(ctx, "duel")
	wantCode(t, err, cupid.CodeNotFound, "queue")
}

func TestMeanPing(t *testing.T) {
	pair := func(a, b int32, players int) []*cupid.Ticket {
		t1 := &cupid.Ticket{Latencies: map[string]int32{"eu": a}, Players: make([]cupid.Player, players)}
		t2 := &cupid.Ticket{Latencies: map[string]int32{"eu": b}, Players: []cupid.Player{{}}}
		return []*cupid.Ticket{t1, t2}
	}
	tests := []struct {
		name   string
		ts     []*cupid.Ticket
		region string
		want   float64
		ok     bool
	}{
		{"one player each", pair(20, 60, 1), "eu", 40, true},
		{"weighted by players", pair(20, 80, 2), "eu", 40, true},
		{"a ticket without the region", pair(20, 60, 1), "us", 0, false},
		{"no players", []*cupid.Ticket{{Latencies: map[string]int32{"eu": 10}}}, "eu", 0, false},
	}
	for _, tt := range tests {
		if got, ok := meanPing(tt.ts, tt.region); got != tt.want || ok != tt.ok {
			t.Errorf("%s: meanPing = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestSyncFollowsAnotherNode: a second node on the same documents follows
// what the first starts and decides: a shadow appears and goes, a canary
// starts there, and its promotion installs the replaced ruleset there.
func TestSyncFollowsAnotherNode(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	a, b := newNode(t, store), newNode(t, store)
	canaryKey := cupid.QueueKey{Queue: "duel", Side: rollout.Canary}
	steps := []struct {
		name      string
		do        func() error
		shadow    bool
		state     string // the canary's, "" for none
		candidate bool   // the canary's side runs a candidate
		changed   int    // rulesets read again on the second node
	}{
		{"nothing yet", func() error { return nil }, false, "", false, 0},
		{"shadow started", func() error {
			_, err := a.StartShadow(ctx, ShadowOptions{Queue: "duel", Ruleset: []byte(duelRules)})
			return err
		}, true, "", false, 0},
		{"shadow started again", func() error {
			if err := a.StopShadow(ctx, "duel", ""); err != nil {
				return err
			}
			a.clock.Advance(time.Second)
			_, err := a.StartShadow(ctx, ShadowOptions{Queue: "duel", Ruleset: []byte(trioRules)})
			return err
		}, true, "", false, 0},
		{"canary started", func() error {
			_, err := a.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(trioRules), Share: 0.5})
			return err
		}, true, "running", true, 0},
		{"shadow stopped", func() error { return a.StopShadow(ctx, "duel", "") }, false, "running", true, 0},
		{"canary promoted", func() error {
			_, err := a.PromoteCanary(ctx, "duel", "")
			return err
		}, false, "promoted", false, 1},
		{"nothing new", func() error { return nil }, false, "promoted", false, 1},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if err := b.Sync(ctx); err != nil {
			t.Fatalf("%s: sync: %v", st.name, err)
		}
		sh := b.pools.attached("duel")
		if (sh != nil) != st.shadow {
			t.Errorf("%s: the second node runs a shadow: %v, want %v", st.name, sh != nil, st.shadow)
		}
		if sh != nil {
			if want, _ := a.ShadowReport(ctx, "duel"); !sh.started.Equal(want.Started) {
				t.Errorf("%s: the second node's shadow started %s, want %s", st.name, sh.started, want.Started)
			}
		}
		state := ""
		if cs, err := b.CanaryStatus(ctx, "duel"); err == nil {
			state = cs.State
		}
		if state != st.state {
			t.Errorf("%s: the second node's canary is %q, want %q", st.name, state, st.state)
		}
		if got := b.Candidate(canaryKey) != nil; got != st.candidate {
			t.Errorf("%s: the second node's canary side runs a candidate: %v, want %v", st.name, got, st.candidate)
		}
		if got := len(b.rulesets.changed); got != st.changed {
			t.Errorf("%s: the second node read the ruleset again %d times, want %d", st.name, got, st.changed)
		}
	}
	// A roll-back through the first node reaches the second too. (A
	// canary is known by its start: a new one starts later.)
	a.clock.Advance(time.Second)
	if _, err := a.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.5}); err != nil {
		t.Fatal(err)
	}
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RollbackCanary(ctx, "duel", ""); err != nil {
		t.Fatal(err)
	}
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if cs, _ := b.CanaryStatus(ctx, "duel"); cs.State != "rolled_back" || b.pools.canaryWith["duel"] != nil {
		t.Fatalf("the second node's canary %q, candidate %v: want rolled back on the live rules", cs.State, b.pools.canaryWith["duel"])
	}
}

// TestSyncSetsAsideWhatDoesNotLoad: stored documents that do not read,
// whose queue is gone or whose ruleset no longer compiles are set aside
// (warned of once) and the rest loads; a store that cannot be read fails
// the sync.
func TestSyncSetsAsideWhatDoesNotLoad(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	put := func(id, body string) {
		t.Helper()
		if err := store.PutDocument(ctx, cupid.Fence{}, rolloutKind, id, []byte(body), t0); err != nil {
			t.Fatal(err)
		}
	}
	put("canary/broken", `{`)
	put("canary/gone", `{"kind":"canary","queue":"gone","ruleset":"{}","share":0.1}`)
	put("shadow/duel", `{"kind":"shadow","queue":"duel","ruleset":"{\"alliance\": 3}"}`)
	put("canary/duel", fmt.Sprintf(`{"kind":"canary","queue":"duel","ruleset":%q,"share":0.1,"started":"2026-01-02T03:04:05Z"}`, duelRules))
	n := newNode(t, store)
	if n.pools.attached("duel") != nil {
		t.Fatal("a shadow whose ruleset does not compile runs")
	}
	st, err := n.CanaryStatus(ctx, "duel")
	if err != nil || st.State != "running" || st.Guard != rollout.DefaultGuard {
		t.Fatalf("the stored canary: %+v %v, want running with the default guard", st, err)
	}
	if len(n.setAside) != 3 {
		t.Fatalf("set aside %v, want the three that do not load", n.setAside)
	}
	if err := n.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	store.Fail("Documents", errDiskFull)
	if err := n.Sync(ctx); !errors.Is(err, errDiskFull) {
		t.Fatalf("sync on a failing store: %v", err)
	}
}

// TestGuardWindowMovesWithTheQueue: the node that runs a queue saves its
// canary's guard window; the node that runs it next reads it back, so the
// guards go on over the whole window. A node that does not run the queue
// neither judges nor saves.
func TestGuardWindowMovesWithTheQueue(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	a := newNode(t, store)
	guard := rollout.Guard{WaitMargin: 0.25, Window: time.Minute, MinSamples: 50}
	if _, err := a.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.5, Guard: guard}); err != nil {
		t.Fatal(err)
	}
	a.CheckCanaries(ctx) // a runs the queue from here on
	a.clock.Advance(time.Second)
	m := &cupid.Match{Quality: cupid.Quality{Score: 1}}
	for _, side := range []string{"", rollout.Canary} {
		a.LiveMatched(cupid.QueueKey{Queue: "duel", Side: side}, m, nil, []time.Duration{time.Second, 2 * time.Second}, a.clock.Now())
	}
	a.SaveWindow(ctx, "duel", cupid.Fence{Lease: "queue/duel", Token: 6}) // another fence: not saved
	if d, _ := a.windowDocument(ctx, "duel"); d != nil {
		t.Fatal("a window was saved under a fence the node did not read it under")
	}
	// Run saves the window as it stops.
	stop, cancel := context.WithCancel(ctx)
	cancel()
	a.Run(stop)
	if d, err := a.windowDocument(ctx, "duel"); err != nil || d == nil || len(d.Live.Waits) != 2 {
		t.Fatalf("saved window %+v %v, want the live side's two waits", d, err)
	}

	b := newNode(t, store)
	b.clock.Advance(time.Second)
	b.pools.elsewhere["duel"] = true
	b.CheckCanaries(ctx)
	if st, _ := b.CanaryStatus(ctx, "duel"); st.Live.Samples != 0 {
		t.Fatalf("a node that does not run the queue read its window: %+v", st.Live)
	}
	b.saveWindows(ctx) // nothing of its own to save
	b.pools.elsewhere["duel"] = false
	b.CheckCanaries(ctx)
	st, _ := b.CanaryStatus(ctx, "duel")
	if st.Live.Samples != 2 || st.Canary.Samples != 2 || !strings.Contains(st.Reason, "waiting for samples") {
		t.Fatalf("the next runner's canary %+v %q, want both sides' two samples read back", st, st.Reason)
	}

	store.Fail("Documents", errDiskFull)
	c := newNode(t, nil) // keeps its guards going without documents
	c.docs = store
	if _, err := c.StartCanary(ctx, CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.5}); err != nil {
		t.Fatal(err)
	}
	c.CheckCanaries(ctx) // the window does not read: the guards start again
	if st, _ := c.CanaryStatus(ctx, "duel"); st.State != "running" {
		t.Fatalf("the canary is %s after its window did not read", st.State)
	}
}
