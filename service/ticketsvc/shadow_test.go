package ticketsvc

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc/canary"
	"github.com/cupid-match/cupid/service/ticketsvc/rulesets"
	"github.com/cupid-match/cupid/sim"
	"github.com/cupid-match/cupid/sqlite"
)

// neverRules need fifty players a team: the shadow tests' live ruleset,
// which matches nothing, so every ticket stays in the live pool until it
// is cancelled or expires — as the simulator replays it.
const neverRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 50, "player_max_number": 50}}`

// startOn starts a service on any store with documents.
func startOn(t *testing.T, store interface {
	cupid.Store
	cupid.DocumentStore
}, qs []Queue, c *testclock.Clock) *Service {
	t.Helper()
	svc, err := New(Options{Store: store, Documents: store, Queues: qs, Now: c.Now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}

// TestShadowEqualsTheSimulator runs a candidate in the shadow of a live
// ruleset that matches nothing, on the real SQLite store, then records the
// same arrivals from the store and replays them through the simulator with
// the candidate: matches, waits, quality, skill gap and expiries agree.
func TestShadowEqualsTheSimulator(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "cupid.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := testclock.At(time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC))
	ttl := time.Minute
	svc := startOn(t, st, []Queue{{Name: "duel", TTL: ttl, Ruleset: []byte(neverRules)}}, c)
	from := c.Now()
	if _, err := svc.Rollouts().StartShadow(ctx, canary.ShadowOptions{Queue: "duel", Ruleset: []byte(duelRules)}); err != nil {
		t.Fatal(err)
	}
	tick := func() { c.Advance(time.Second); svc.Wake() }
	// Three minutes of arrivals, a few a second apart, with skills that
	// sometimes need the flex to meet; some players cancel.
	var ids []string
	for i := range 60 {
		mmr := 1000 + float64((i*137)%700)
		tk, _, err := svc.CreateTicket(ctx, ticket("duel", mmr, fmt.Sprintf("p%d", i)), false)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tk.ID)
		svc.Wake()
		if i%7 == 3 {
			if _, err := svc.CancelTicket(ctx, ids[i-2]); err != nil && cupid.ErrorCode(err) != cupid.CodeConflict {
				t.Fatal(err)
			}
			svc.Wake()
		}
		for range 1 + i%4 {
			tick()
		}
	}
	for range int(ttl.Seconds()) + 2 { // every ticket has left
		tick()
	}
	rep, err := svc.Rollouts().ShadowReport(ctx, "duel")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Keys) != 1 {
		t.Fatalf("report keys %+v", rep.Keys)
	}
	got := rep.Keys[0]

	var traffic bytes.Buffer
	if _, err := sim.Record(ctx, st, "duel", from, c.Now().Add(time.Second), &traffic); err != nil {
		t.Fatal(err)
	}
	tr, err := sim.ParseTraffic(&traffic)
	if err != nil {
		t.Fatal(err)
	}
	cand, err := sim.LoadRuleset("candidate", []byte(duelRules))
	if err != nil {
		t.Fatal(err)
	}
	simRep, err := sim.RunTraffic("shadow", tr, sim.Config{Rulesets: []sim.Ruleset{cand}, TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	run := simRep.Runs[0]
	t.Logf("shadow: %d matches, wait p50 %v p90 %v p99 %v, quality %.3f, gap p50 %v, expired %d, taken by live %d; simulator: %d matches, wait %+v, quality %+v, gap %+v, expired %d",
		got.Shadow.Matches, got.Shadow.Wait.P50, got.Shadow.Wait.P90, got.Shadow.Wait.P99, got.Shadow.Quality.Mean, got.Shadow.SkillGap.P50,
		got.Shadow.Expired, got.Shadow.TakenByLive, run.Matches, run.Wait, run.Quality, run.SkillGap, run.Expired)
	if run.Matches < 10 {
		t.Fatalf("the simulator formed %d matches: the test needs more", run.Matches)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.002 }
	if got.Shadow.Matches != run.Matches {
		t.Errorf("matches: shadow %d, simulator %d", got.Shadow.Matches, run.Matches)
	}
	if !near(got.Shadow.Wait.P50, run.Wait.P50) || !near(got.Shadow.Wait.P90, run.Wait.P90) || !near(got.Shadow.Wait.P99, run.Wait.P99) {
		t.Errorf("waits: shadow %+v, simulator %+v", got.Shadow.Wait, run.Wait)
	}
	if run.Quality == nil || !near(got.Shadow.Quality.Mean, run.Quality.Mean) {
		t.Errorf("quality: shadow %v, simulator %+v", got.Shadow.Quality.Mean, run.Quality)
	}
	if run.SkillGap == nil || got.Shadow.SkillGap.Count != run.SkillGap.Count || !near(got.Shadow.SkillGap.P50, run.SkillGap.P50) || !near(got.Shadow.SkillGap.P90, run.SkillGap.P90) {
		t.Errorf("skill gap: shadow %+v, simulator %+v", got.Shadow.SkillGap, run.SkillGap)
	}
	if got.Shadow.Expired != run.Expired {
		t.Errorf("expired: shadow %d, simulator %d", got.Shadow.Expired, run.Expired)
	}
	// The live side matched nothing and every ticket that was not
	// cancelled expired.
	if got.Live.Matches != 0 || got.Live.Expired == 0 {
		t.Errorf("live side %+v", got.Live)
	}
}

// TestShadowFollowsTheLivePool: tickets the live ruleset matches leave the
// shadow, which sees only the live population; a queue takes one shadow at
// a time; the shadow is a document that a restart resumes; every decision
// is in the ruleset history.
func TestShadowFollowsTheLivePool(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	h := start(t, store, queues(0))
	// Bad requests change nothing and name their field.
	_, err := h.Rollouts().StartShadow(ctx, canary.ShadowOptions{Queue: "nope", Ruleset: []byte(duelRules)})
	wantErr(t, err, cupid.CodeNotFound, "queue")
	_, err = h.Rollouts().StartShadow(ctx, canary.ShadowOptions{Queue: "duel", Ruleset: []byte(`{"alliance": 3}`)})
	wantErr(t, err, cupid.CodeInvalid, "ruleset")
	_, err = h.Rollouts().StartShadow(ctx, canary.ShadowOptions{Queue: "duel"})
	wantErr(t, err, cupid.CodeInvalid, "ruleset")
	_, err = h.Rollouts().ShadowReport(ctx, "duel")
	wantErr(t, err, cupid.CodeNotFound, "queue")

	// The candidate needs the same pair as the live one but within 10 mmr
	// and no flex: a live match of a pair 50 apart takes both tickets
	// from the shadow too.
	strict := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
	  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 10, "max": 3000}]}`
	if _, err := h.Rollouts().StartShadow(ctx, canary.ShadowOptions{Queue: "duel", Ruleset: []byte(strict), Reason: "try a strict pairing"}); err != nil {
		t.Fatal(err)
	}
	_, err = h.Rollouts().StartShadow(ctx, canary.ShadowOptions{Queue: "duel", Ruleset: []byte(strict)})
	wantErr(t, err, cupid.CodeAlreadyExists, "queue", "one at a time")

	h.create(t, ticket("duel", 1000, "ann"))
	h.create(t, ticket("duel", 1050, "bob"))
	h.wait(time.Second)
	rep, err := h.Rollouts().ShadowReport(ctx, "duel")
	if err != nil {
		t.Fatal(err)
	}
	if k := rep.Keys[0]; k.Live.Matches != 1 || k.Shadow.Matches != 0 || k.Shadow.TakenByLive != 2 || k.Live.SkillGap.Count != 1 || k.Live.SkillGap.P50 != 50 {
		t.Fatalf("after a live match: %+v", rep.Keys)
	}
	// Two the candidate pairs at once: the shadow records the match, the
	// live pool commits its own.
	h.create(t, ticket("duel", 2000, "cat"))
	h.create(t, ticket("duel", 2005, "dan"))
	h.wait(time.Second)
	rep, _ = h.Rollouts().ShadowReport(ctx, "duel")
	if k := rep.Keys[0]; k.Live.Matches != 2 || k.Shadow.Matches != 1 || k.Shadow.Quality.Matches != 1 {
		t.Fatalf("after a match on both sides: %+v", rep.Keys)
	}

	// A restart resumes the shadow (its figures start again).
	h.Close()
	h2 := start(t, store, queues(0))
	h2.clock.Advance(h.clock.Now().Sub(h2.clock.Now()))
	rep, err = h2.Rollouts().ShadowReport(ctx, "duel")
	if err != nil || rep.Ruleset != strict {
		t.Fatalf("after a restart: %v %+v", err, rep)
	}
	h2.create(t, ticket("duel", 2500, "eve"))
	h2.create(t, ticket("duel", 2501, "fay"))
	h2.wait(time.Second)
	rep, _ = h2.Rollouts().ShadowReport(ctx, "duel")
	if len(rep.Keys) != 1 || rep.Keys[0].Shadow.Matches != 1 {
		t.Fatalf("the resumed shadow: %+v", rep.Keys)
	}
	if err := h2.Rollouts().StopShadow(ctx, "duel", ""); err != nil {
		t.Fatal(err)
	}
	wantErr(t, h2.Rollouts().StopShadow(ctx, "duel", ""), cupid.CodeNotFound, "queue")
	hist, err := h2.Rulesets().History(ctx, "duel")
	if err != nil {
		t.Fatal(err)
	}
	var vias []string
	for _, v := range hist {
		vias = append(vias, v.Via+":"+v.Reason)
	}
	want := []string{"seen:", "shadow-start:try a strict pairing", "shadow-stop:stopped by the operator"}
	if fmt.Sprint(vias) != fmt.Sprint(want) {
		t.Fatalf("history %q, want %q", vias, want)
	}
	if docs, _ := store.Documents(ctx, "rollout", "", 0); len(docs) != 0 { // package canary's document kind
		t.Fatalf("a stopped shadow's document is left: %d", len(docs))
	}
	_ = rulesets.Kept
}
