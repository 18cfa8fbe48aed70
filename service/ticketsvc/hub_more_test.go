package ticketsvc

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/internal/watchtest"
	"github.com/cupid-match/cupid/memstore"
)

// TestHubDropsAWatcherThatFallsBehind: publishing never waits for a slow
// watcher; one that lets its buffer fill keeps what it has and its stream
// ends, the others hear on.
func TestHubDropsAWatcherThatFallsBehind(t *testing.T) {
	h := newHub(8)
	slow, _, _ := h.subscribe("a", 0)
	for i := range subscribeBuffer {
		h.Publish(ev(int64(i+1), "a", cupid.EventRequeued))
	}
	fast, _, _ := h.subscribe("a", 0)
	defer h.unsubscribe(fast)
	last := int64(subscribeBuffer + 1)
	h.Publish(ev(last, "a", cupid.EventMatched)) // overflows slow's buffer
	if got := <-fast.ch; got.Seq != last {
		t.Fatalf("the other watcher heard seq %d, want %d", got.Seq, last)
	}
	var got []int64
	for e := range slow.ch { // ends: the stream was closed
		got = append(got, e.Seq)
	}
	if len(got) != subscribeBuffer || got[0] != 1 {
		t.Fatalf("the slow watcher kept %v, want the first %d events", got, subscribeBuffer)
	}
	if n := h.watchers(); n != 1 {
		t.Fatalf("%d watchers counted, want the one that kept up", n)
	}
	h.unsubscribe(slow) // already dropped: nothing to close twice
}

// TestSharedHubTellsOnlyTheCreatedEventAtOnce: when nodes share the store
// the events reach watchers from the database's notifications; of a node's
// own publishing only the created event is told at once (nothing can come
// before it), and a notification that brings it again is not told twice.
func TestSharedHubTellsOnlyTheCreatedEventAtOnce(t *testing.T) {
	h := newHub(8)
	h.shared = true
	sub, _, _ := h.subscribe("a", 0)
	defer h.unsubscribe(sub)
	h.Publish(ev(1, "a", cupid.EventCreated), ev(2, "a", cupid.EventMatched))
	h.deliver(ev(1, "a", cupid.EventCreated), ev(2, "a", cupid.EventMatched))
	var heard []cupid.Event
	for len(sub.ch) > 0 {
		heard = append(heard, <-sub.ch)
	}
	if !slices.Equal(seqs(heard), []int64{1, 1, 2}) {
		t.Fatalf("heard %v: the created event at once, then the notification's", seqs(heard))
	}
	s2, past, known := h.subscribe("a", 0)
	defer h.unsubscribe(s2)
	if !known || !slices.Equal(seqs(past), []int64{1, 2}) {
		t.Fatalf("history %v (known %v), want each event once", seqs(past), known)
	}
	if got := h.watched(); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("watched %v", got)
	}
}

// TestWatchersGauge: the open watches are a metric.
func TestWatchersGauge(t *testing.T) {
	reg := prometheus.NewRegistry()
	store := memstore.New()
	h := &harness{store: store, clock: testclock.At(time.Time{})}
	svc, err := New(Options{Store: store, Queues: queues(0), Now: h.clock.Now, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	h.Service = svc
	gauge := func() float64 {
		t.Helper()
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "cupid_ticket_watchers" {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		t.Fatal("no cupid_ticket_watchers")
		return 0
	}
	a := h.create(t, ticket("big", 1, "a"))
	ctx, cancel := context.WithCancel(context.Background())
	evs, done := watchtest.Collect(func(send func(cupid.Event) error) error { return h.Watch(ctx, a.ID, 0, send) })
	watchtest.Next(t, evs) // subscribed
	if g := gauge(); g != 1 {
		t.Fatalf("%v watchers with one watch open", g)
	}
	cancel()
	<-done
	if g := gauge(); g != 0 {
		t.Fatalf("%v watchers after the watch ended", g)
	}
}
