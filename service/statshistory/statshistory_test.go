package statshistory

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
)

// source is a ticket service's minutes as a test sets them.
type source struct {
	mu      sync.Mutex
	minutes []queuestats.Minute
}

func (s *source) Queues() []string { return []string{"duel", "squad"} }

func (s *source) QueueMinutes(from, to time.Time) []queuestats.Minute {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []queuestats.Minute
	for _, m := range s.minutes {
		if !m.At.Before(from) && m.At.Before(to) {
			out = append(out, m)
		}
	}
	return out
}

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func minute(queue string, at time.Time, arrivals, matches, waited int, p50 float64, quality float64) queuestats.Minute {
	return queuestats.Minute{Queue: queue, At: at, Arrivals: arrivals, Matches: matches, Waited: waited, P50: p50, P90: 2 * p50, P99: 3 * p50,
		Scored: matches, Quality: quality}
}

// Minutes written by one process, then by the next after a restart within
// the same minute, are read back together; a range is summed per step.
func TestMinutesSurviveARestart(t *testing.T) {
	docs := memstore.New()
	src := &source{}
	now := t0.Add(10 * time.Second)
	clock := func() time.Time { return now }
	first := New(Options{Source: src, Docs: docs, Now: clock})
	src.minutes = []queuestats.Minute{
		minute("duel", t0, 10, 4, 8, 10, 0.8),
		minute("duel", t0.Add(time.Minute), 6, 2, 4, 40, 0.5),
		minute("squad", t0.Add(time.Minute), 1, 0, 0, 0, 0),
	}
	now = t0.Add(time.Minute + 30*time.Second)
	// One whole minute has ended: only it is written.
	if err := first.Flush(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if ds, _ := docs.Documents(context.Background(), Kind("duel"), "", 0); len(ds) != 1 || !strings.HasPrefix(ds[0].ID, "2026-03-02T10:00Z/") {
		t.Fatalf("after the first minute: %v", ds)
	}
	// Stopping writes the current, partial minute.
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The next process, within the same minute, writes its own share.
	now = now.Add(time.Second)
	second := New(Options{Source: src, Docs: docs, Now: clock})
	src.minutes = []queuestats.Minute{minute("duel", t0.Add(time.Minute), 2, 2, 4, 20, 1)}
	now = t0.Add(2*time.Minute + 5*time.Second)
	if err := second.Flush(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	ps, err := second.Read(context.Background(), "duel", t0, t0.Add(2*time.Minute), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(ps[0].Arrivals, ps[0].Matches, ps[0].P50, ps[0].Quality, "|", ps[1].Arrivals, ps[1].Matches, ps[1].Waited, ps[1].P50, ps[1].Quality)
	// Minute 2: arrivals 6+2, matches 2+2, p50 weighted (40·4+20·4)/8,
	// quality (0.5·2+1·2)/4.
	if want := "10 4 10 0.8|8 4 8 30 0.75"; got != want {
		t.Fatalf("read %s, want %s", got, want)
	}
	// A wider step sums the minutes; empty steps are there.
	ps, err = second.Read(context.Background(), "duel", t0.Add(-5*time.Minute), t0.Add(5*time.Minute), 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Arrivals != 0 || ps[1].Arrivals != 18 || !ps[1].At.Equal(t0) {
		t.Fatalf("5-minute steps: %+v", ps)
	}
}

// Minutes older than Keep are deleted, at most once an hour.
func TestOldMinutesArePruned(t *testing.T) {
	docs := memstore.New()
	src := &source{}
	now := t0
	s := New(Options{Source: src, Docs: docs, Keep: 2 * time.Hour, Now: func() time.Time { return now }})
	for i := range 5 * 60 {
		at := t0.Add(time.Duration(i) * time.Minute)
		src.minutes = []queuestats.Minute{minute("duel", at, 1, 0, 0, 0, 0)}
		now = at.Add(time.Minute + time.Second)
		if err := s.Flush(context.Background(), false); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := docs.Documents(context.Background(), Kind("duel"), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	// Kept: the last two hours, and at most the hour since the last prune.
	if len(ds) < 120 || len(ds) > 180 {
		t.Fatalf("%d minutes kept of 300, want 120 to 180", len(ds))
	}
	horizon := now.Add(-3 * time.Hour).Format(idLayout)
	if ds[0].ID < horizon {
		t.Fatalf("oldest kept %s, before %s", ds[0].ID, horizon)
	}
}

// Start writes each minute as it ends, on the injected clock.
func TestStartWritesEachMinute(t *testing.T) {
	docs := memstore.New()
	src := &source{minutes: []queuestats.Minute{minute("duel", t0, 3, 1, 2, 5, 0.9)}}
	var mu sync.Mutex
	now := t0.Add(20 * time.Second)
	waited := make(chan time.Duration)
	s := New(Options{Source: src, Docs: docs,
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
		Wait: func(ctx context.Context, d time.Duration) error {
			select {
			case waited <- d:
			case <-ctx.Done():
				return ctx.Err()
			}
			mu.Lock()
			now = now.Add(d)
			mu.Unlock()
			return nil
		}})
	s.Start()
	if d := <-waited; d != 42*time.Second {
		t.Fatalf("first wait %v, want until 2 s past the minute", d)
	}
	<-waited // the first minute is written before the second wait
	if ds, _ := docs.Documents(context.Background(), Kind("duel"), "", 0); len(ds) != 1 {
		t.Fatalf("%d minutes written", len(ds))
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
