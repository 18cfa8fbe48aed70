package retentionsvc

import (
	"context"
	"fmt"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/memstore"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// seed stores n tickets created a second apart from t0, the first
// cancelled ones ended at t0 plus a minute, the rest waiting.
func seed(t *testing.T, s *memstore.Store, n, cancelled int) {
	t.Helper()
	var ts []cupid.NewTicket
	for i := range n {
		ts = append(ts, cupid.NewTicket{Ticket: &cupid.Ticket{
			ID: fmt.Sprintf("t%03d", i), Key: cupid.QueueKey{Queue: "duel"}, State: cupid.StateWaiting,
			CreatedAt: t0.Add(time.Duration(i) * time.Second), ExpiresAt: t0.Add(time.Hour),
			Players: []cupid.Player{{ID: fmt.Sprintf("p%03d", i)}},
		}})
	}
	if _, _, err := s.CreateTickets(context.Background(), ts); err != nil {
		t.Fatal(err)
	}
	for i := range cancelled {
		if _, _, err := lifecycle.Finish(context.Background(), s, cupid.Fence{}, fmt.Sprintf("t%03d", i), cupid.StateCancelled, "", t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPass(t *testing.T) {
	for _, c := range []struct {
		name    string
		now     time.Time
		keep    map[cupid.RetentionKind]time.Duration
		batch   int
		removed int
		batches int
		pauses  int
		kinds   int
	}{
		{name: "nothing old yet", now: t0.Add(24 * time.Hour), keep: map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: 7 * 24 * time.Hour},
			batch: 4, removed: 0, batches: 1, pauses: 0, kinds: 1},
		{name: "old, in batches", now: t0.Add(8 * 24 * time.Hour), keep: map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: 7 * 24 * time.Hour},
			batch: 4, removed: 10, batches: 4, pauses: 3, kinds: 1},
		{name: "one batch", now: t0.Add(8 * 24 * time.Hour), keep: map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: 7 * 24 * time.Hour},
			batch: 500, removed: 10, batches: 1, pauses: 0, kinds: 1},
		{name: "tickets kept for ever", now: t0.Add(800 * 24 * time.Hour), keep: map[cupid.RetentionKind]time.Duration{cupid.RetainMatches: time.Hour},
			batch: 4, removed: 0, batches: 1, pauses: 0, kinds: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := memstore.New()
			seed(t, st, 15, 10)
			pauses := 0
			s, err := New(Options{Store: st, Keep: c.keep, Batch: c.batch, Pause: time.Second,
				Now: func() time.Time { return c.now },
				Wait: func(ctx context.Context, d time.Duration) error {
					if d != time.Second {
						t.Errorf("waited %v between batches, want the pause", d)
					}
					pauses++
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := s.Pass(context.Background(), cupid.Fence{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Kinds) != c.kinds {
				t.Fatalf("kinds %+v", rep.Kinds)
			}
			k := rep.Kinds[0]
			if k.Removed != c.removed || k.Batches != c.batches || pauses != c.pauses {
				t.Errorf("removed %d in %d batches with %d pauses, want %d in %d with %d", k.Removed, k.Batches, pauses, c.removed, c.batches, c.pauses)
			}
			if k.Kind == cupid.RetainTickets && k.Removed > 0 && k.Related != 2*k.Removed {
				t.Errorf("related %d, want the created and cancelled events of each", k.Related)
			}
			waiting, _ := st.WaitingTickets(context.Background())
			if len(waiting) != 5 {
				t.Errorf("%d waiting tickets after the pass, want 5: nothing live goes", len(waiting))
			}
			if len(rep.Retained) != len(cupid.RetentionKinds) || rep.Retained[0].Rows != int64(15-c.removed) {
				t.Errorf("retained %+v", rep.Retained)
			}
		})
	}
}

// TestStartStopAndFence drives the passes' loop with a Wait the test
// answers: a pass, the interval, another pass; a fenced batch stops the
// loop for good (the lease moved to another node).
func TestStartStopAndFence(t *testing.T) {
	st := memstore.New()
	seed(t, st, 4, 2)
	now := t0.Add(8 * 24 * time.Hour)
	waits := make(chan time.Duration)
	resume := make(chan error)
	s, err := New(Options{Store: st, Keep: map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: 7 * 24 * time.Hour},
		Interval: time.Minute, Now: func() time.Time { return now },
		Wait: func(ctx context.Context, d time.Duration) error {
			select {
			case waits <- d:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case err := <-resume:
				return err
			case <-ctx.Done():
				return ctx.Err()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second) // a failure guard, not a timing
	next := func() time.Duration {
		select {
		case d := <-waits:
			return d
		case <-deadline:
			t.Fatal("the loop did not come to its wait")
		}
		return 0
	}
	s.Start(cupid.Fence{Lease: "retention", Holder: "a", Token: 1})
	if d := next(); d != time.Minute {
		t.Fatalf("waited %v after a pass, want the interval", d)
	}
	if got := s.Last().Kinds[0].Removed; got != 2 || !s.Running() {
		t.Fatalf("first pass removed %d (running %v)", got, s.Running())
	}
	st.Fail("Prune", fmt.Errorf("postgres: %w", cupid.ErrFenced))
	resume <- nil
	s.Stop() // returns once the fenced pass has ended the loop, or stops it
	if s.Running() {
		t.Fatal("still running after Stop")
	}
	st.Fail("Prune", nil)
	s.Start(cupid.Fence{})
	next()
	s.Stop()
	if s.Running() {
		t.Fatal("running after Stop")
	}
}

// countingStore counts the readings of what the store holds.
type countingStore struct {
	cupid.Pruner
	readings int
}

func (c *countingStore) Retained(ctx context.Context) ([]cupid.Retained, error) {
	c.readings++
	return c.Pruner.Retained(ctx)
}

// TestRetainedIsReadAtMostEveryMeasureEvery: a reading of what the store
// holds reads the whole database, so passes a second apart reuse the last
// reading until MeasureEvery has passed, and every report says when it was
// made.
func TestRetainedIsReadAtMostEveryMeasureEvery(t *testing.T) {
	st := &countingStore{Pruner: memstore.New()}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s, err := New(Options{Store: st, Keep: map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: time.Hour},
		MeasureEvery: 10 * time.Minute, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	first := now
	for i, step := range []struct {
		after    time.Duration
		readings int
		at       time.Time
	}{
		{0, 1, first},
		{time.Second, 1, first},
		{9 * time.Minute, 1, first},
		{time.Minute, 2, first.Add(10*time.Minute + time.Second)},
	} {
		now = now.Add(step.after)
		rep, err := s.Pass(context.Background(), cupid.Fence{})
		if err != nil {
			t.Fatal(err)
		}
		if st.readings != step.readings || !rep.RetainedAt.Equal(step.at) || rep.Retained == nil {
			t.Fatalf("pass %d: %d readings, report's at %v (%d kinds), want %d at %v", i, st.readings, rep.RetainedAt, len(rep.Retained), step.readings, step.at)
		}
	}
}
