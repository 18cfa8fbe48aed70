package ticketsvc

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
	"github.com/cupid-match/cupid/service/ticketsvc/rulesets"
)

func queueStats(t *testing.T, h *harness, queue string) queuestats.QueueStats {
	t.Helper()
	qs, err := h.Statistics().QueueStatistics(context.Background(), queue)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Queue != queue {
		t.Fatalf("statistics of %q: got %d rows", queue, len(qs))
	}
	return qs[0]
}

// A match made in a queue shows in its statistics: the arrivals, the
// match, the waits of its two tickets, its quality and parts, and the
// recent matches with its teams and waits.
func TestQueueStatisticsFollowMatches(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	before := queueStats(t, h, "duel") // the baseline of the arrivals
	if before.Arrivals.LastMinute != 0 || before.Matches.LastMinute != 0 || before.Wait.Samples != 0 {
		t.Fatalf("a fresh queue has statistics: %+v", before)
	}
	if len(before.Arrivals.PerMinute) != 60 || len(before.Quality.Bins) != queuestats.QualityBins {
		t.Fatalf("series of %d minutes and %d bins", len(before.Arrivals.PerMinute), len(before.Quality.Bins))
	}

	ann := h.create(t, ticket("duel", 1500, "ann"))
	h.wait(6 * time.Second)
	waiting := queueStats(t, h, "duel")
	if waiting.Waiting != 1 || waiting.Players != 1 || waiting.OldestWait != 6 {
		t.Fatalf("one waiting for 6 s: %+v", waiting.KeyStats)
	}
	bob := h.create(t, ticket("duel", 1550, "bob"))
	h.wait(0)
	if got := h.state(t, ann.ID).State; got != cupid.StateMatched {
		t.Fatalf("ann is %s", got)
	}

	after := queueStats(t, h, "duel")
	if after.Arrivals.LastMinute != 2 || sum(after.Arrivals.PerMinute) != 2 {
		t.Errorf("arrivals %+v, want 2", after.Arrivals)
	}
	if after.Matches.LastMinute != 1 || sum(after.Matches.PerMinute) != 1 {
		t.Errorf("matches %+v, want 1", after.Matches)
	}
	if w := after.Wait; w.Samples != 2 || w.P50 != 0 || w.P90 != 6 || w.Max != 6 {
		t.Errorf("waits %+v, want 2 samples of 0 and 6 s", w)
	}
	q := after.Quality
	if q.Matches != 1 || sum(q.Bins) != 1 || q.Mean <= 0 || q.Mean > 1 || q.Bins[bin(q.Mean)] != 1 {
		t.Errorf("quality %+v", q)
	}
	if len(q.Parts) == 0 || q.Parts[0].Matches != 1 {
		t.Errorf("quality parts %+v", q.Parts)
	}
	if after.Waiting != 0 {
		t.Errorf("%d still waiting", after.Waiting)
	}
	if other := queueStats(t, h, "big"); other.Matches.LastMinute != 0 || other.Arrivals.LastMinute != 0 {
		t.Errorf("the other queue counted the duel: %+v", other)
	}

	ms, err := h.Statistics().RecentMatches("duel", "", 0)
	if err != nil || len(ms) != 1 {
		t.Fatalf("recent matches %v, %v", ms, err)
	}
	m := ms[0]
	var players []string
	for _, team := range m.Teams {
		players = append(players, team.Players...)
	}
	slices.Sort(players)
	if !slices.Equal(players, []string{"ann", "bob"}) || m.Waits[ann.ID] != 6*time.Second || m.Waits[bob.ID] != 0 {
		t.Errorf("recent match %+v", m)
	}
	if got, _ := h.Statistics().RecentMatches("big", "", 0); len(got) != 0 {
		t.Errorf("recent matches of big: %v", got)
	}
	if got, _ := h.Statistics().RecentMatches("", "bob", 0); len(got) != 1 {
		t.Errorf("recent matches of bob: %v", got)
	}

	// bob's ticket is found by his name, once matched; cid's while it waits.
	cid := h.create(t, ticket("duel", 2900, "cid"))
	for _, c := range []struct{ player, ticket string }{{"bob", bob.ID}, {"cid", cid.ID}} {
		ts, err := h.Statistics().PlayerTickets(context.Background(), c.player)
		if err != nil || len(ts) != 1 || ts[0].ID != c.ticket {
			t.Errorf("tickets of %s: %v, %v", c.player, ts, err)
		}
	}
}

func TestStatisticsRefuseBadInput(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	_, err := h.Statistics().QueueStatistics(context.Background(), "nope")
	wantErr(t, err, cupid.CodeNotFound, "queue", "nope")
	_, err = h.Statistics().RecentMatches("nope", "", 0)
	wantErr(t, err, cupid.CodeNotFound, "queue", "nope")
	_, err = h.Statistics().PlayerTickets(context.Background(), " ")
	wantErr(t, err, cupid.CodeInvalid, "player", "required")
}

// The history holds every version put, from the editor or the API (two
// API puts between two reads included), oldest first, and no more than
// rulesets.Kept.
func TestRulesetHistory(t *testing.T) {
	store := memstore.New()
	h := start(t, store, queues(0))
	ctx := context.Background()
	hist, err := h.Rulesets().History(ctx, "duel")
	if err != nil || len(hist) != 1 || hist[0].Version != 1 || hist[0].Via != "seen" || hist[0].Ruleset != duelRules {
		t.Fatalf("history at start: %+v, %v", hist, err)
	}
	if _, err := h.Rulesets().Put(ctx, "duel", []byte(bigRules), 1, "editor"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Rulesets().Put(ctx, "duel", []byte(duelRules), 2, "api"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Rulesets().Put(ctx, "duel", []byte(bigRules), 3, "api"); err != nil {
		t.Fatal(err)
	}
	hist, err = h.Rulesets().History(ctx, "duel")
	var got []string
	for _, v := range hist {
		got = append(got, fmt.Sprint(v.Version, v.Via))
	}
	if err != nil || !slices.Equal(got, []string{"1seen", "2editor", "3api", "4api"}) {
		t.Fatalf("history %v, %v", got, err)
	}
	if _, err := h.Rulesets().Put(ctx, "duel", []byte(bigRules), 3, "editor"); err == nil {
		t.Fatal("a put at a stale version was taken")
	}
	for range rulesets.Kept + 5 {
		if _, err := h.Rulesets().Put(ctx, "duel", []byte(duelRules), 0, "editor"); err != nil {
			t.Fatal(err)
		}
	}
	hist, _ = h.Rulesets().History(ctx, "duel")
	if len(hist) != rulesets.Kept || hist[len(hist)-1].Version != rulesets.Kept+9 {
		t.Fatalf("%d versions kept, the last %d", len(hist), hist[len(hist)-1].Version)
	}
	if other, _ := h.Rulesets().History(ctx, "big"); len(other) != 1 {
		t.Fatalf("big's history: %+v", other)
	}
	_, err = h.Rulesets().History(ctx, "nope")
	wantErr(t, err, cupid.CodeNotFound, "queue", "nope")
}

// BenchmarkRecordMatch is the cost the dashboard's statistics add to each
// committed match of a 1v1 queue: the copies and the rings (the proposal's
// creation times, read in the pool, are left out).
func BenchmarkRecordMatch(b *testing.B) {
	store := memstore.New()
	s, err := New(Options{Store: store, Queues: queues(0), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const pairs = 1024
	ms := make([]*cupid.Match, pairs)
	for i := range ms {
		a, c := fmt.Sprintf("a%d", i), fmt.Sprintf("b%d", i)
		ms[i] = &cupid.Match{ID: "m", Teams: []cupid.Team{{TicketIDs: []string{a}, PlayerIDs: []string{a}}, {TicketIDs: []string{c}, PlayerIDs: []string{c}}},
			Quality: cupid.Quality{Score: 0.9, Parts: cupid.QualityParts{{Name: "skill_gap", Score: 0.8}, {Name: "wait", Score: 1}}}}
	}
	key := cupid.QueueKey{Queue: "duel"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		s.recordMatch(key, ms[i%pairs], nil, now.Add(time.Duration(i)*time.Millisecond))
	}
}

// BenchmarkQueueStatistics is one snapshot of the queues page with every
// ring full.
func BenchmarkQueueStatistics(b *testing.B) {
	store := memstore.New()
	s, err := New(Options{Store: store, Queues: queues(0), Logger: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }})
	if err != nil {
		b.Fatal(err)
	}
	now := s.now()
	r := s.statsRec
	m := &cupid.Match{Quality: cupid.Quality{Score: 0.9, Parts: cupid.QualityParts{{Name: "skill_gap", Score: 0.8}, {Name: "wait", Score: 1}}}}
	for i := range 2048 { // every wait slot
		r.Matched(cupid.QueueKey{Queue: "duel"}, m, []time.Duration{time.Duration(i) * time.Millisecond, 0}, now)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := s.Statistics().QueueStatistics(context.Background(), ""); err != nil {
			b.Fatal(err)
		}
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// bin is the quality bin of a score in [0,1].
func bin(score float64) int { return min(int(score*queuestats.QualityBins), queuestats.QualityBins-1) }

// A waiting ticket's view estimates its wait from its queue key's recent
// tickets: here 25 pairs, the first of each waiting i seconds for the
// second, and two tickets that left unmatched after 30 s.
func TestGetTicketEstimatesTheWait(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	ctx := context.Background()
	lone := h.create(t, ticket("duel", 3000, "zed"))
	if v, err := h.GetTicket(ctx, lone.ID); err != nil || v.Estimate != nil {
		t.Fatalf("an estimate with no history: %+v %v", v, err)
	}
	if _, err := h.CancelTicket(ctx, lone.ID); err != nil {
		t.Fatal(err)
	}
	for i := range 25 {
		first := h.create(t, ticket("duel", 1500, fmt.Sprintf("a%d", i)))
		h.wait(time.Duration(i) * time.Second)
		h.create(t, ticket("duel", 1500, fmt.Sprintf("b%d", i)))
		h.wait(0)
		if got := h.state(t, first.ID).State; got != cupid.StateMatched {
			t.Fatalf("pair %d: %s", i, got)
		}
	}
	for _, p := range []string{"x", "y"} {
		tk := h.create(t, ticket("duel", 3000, p))
		h.wait(30 * time.Second)
		if _, err := h.CancelTicket(ctx, tk.ID); err != nil {
			t.Fatal(err)
		}
	}
	waiting := h.create(t, ticket("duel", 0, "w"))
	v, err := h.GetTicket(ctx, waiting.ID)
	if err != nil || v.Estimate == nil {
		t.Fatalf("no estimate: %+v %v", v, err)
	}
	// 53 tickets: 26 matched at once (the second players and a0), a1..a24
	// after 1..24 s; zed left at once, x and y after 30 s. Zed is no
	// evidence past 0 s, so the median is 1 s, not 0 (26 of 53). Half
	// are matched at 0 s, so the interval is one-sided: [0, the 80th
	// percentile], 16 s.
	e := v.Estimate
	if e.Samples != 53 || e.Low != 0 || e.Expected != time.Second || !e.HighKnown || e.High != 16*time.Second || e.Coverage != 0.8 {
		t.Fatalf("estimate %+v", e)
	}
	qs := queueStats(t, h, "duel")
	if qs.Estimate == nil || qs.Estimate.Samples != 53 || qs.Estimate.High == nil {
		t.Fatalf("queue estimate %+v", qs.Estimate)
	}

	// A watch hears the estimate on the created event while it is the
	// ticket's last; the stored event has none.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := make(chan cupid.Event, 1)
	go h.Watch(ctx, waiting.ID, 0, func(ev cupid.Event) error {
		got <- ev
		return context.Canceled
	})
	ev := <-got
	if ev.Kind != cupid.EventCreated || ev.Estimate == nil || *ev.Estimate != *e {
		t.Fatalf("the created event of a waiting ticket: %+v (estimate %+v), want %+v", ev, ev.Estimate, e)
	}
	stored, err := h.store.Events(ctx, waiting.ID, 0)
	if err != nil || len(stored) != 1 || stored[0].Estimate != nil {
		t.Fatalf("stored events %+v %v", stored, err)
	}
}

// A ticket created through the service is known to the hub with its key
// and creation time, so a watch of it estimates without reading the store;
// the hub's values are the stored ticket's.
func TestHubKnowsANewTicketsKeyAndAge(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	tk := h.create(t, ticket("duel", 1500, "a"))
	evs, err := h.store.Events(context.Background(), tk.ID, 0)
	if err != nil || len(evs) != 1 {
		t.Fatalf("events %+v %v", evs, err)
	}
	key, at, ok := h.hub.waiting(tk.ID, evs[0].Seq)
	stored := h.state(t, tk.ID)
	if !ok || key != stored.Key || !at.Equal(stored.CreatedAt) {
		t.Fatalf("hub: %v %v %v; stored: %v %v", key, at, ok, stored.Key, stored.CreatedAt)
	}
}
