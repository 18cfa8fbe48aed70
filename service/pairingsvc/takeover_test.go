package pairingsvc

import (
	"context"
	"errors"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/pairing"
)

// blockingDocs holds Documents until released, so a test can call the
// service while RunEvents is reading the stored events.
type blockingDocs struct {
	*memDocs
	entered chan struct{}
	release chan struct{}
}

func (b *blockingDocs) Documents(ctx context.Context, kind, after string, limit int) ([]cupid.Document, error) {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	<-b.release
	return b.memDocs.Documents(ctx, kind, after, limit)
}

// While a node that has just taken the pairing lease reads the stored
// events, a call waits for the reading rather than hearing not_found about
// an event not read yet, and a create with that id cannot overwrite it: it
// hears conflict once the stored one is read. A caller who will not
// wait hears unavailable (try again).
func TestCallsWhileTakingEventsOverWait(t *testing.T) {
	clk := testclock.At(t0)
	h := start(t, newMemDocs(), clk, Limits{})
	h.event(t, "ball", pairing.Config{Rooms: 1, Round: time.Hour, Countdown: time.Minute, MinLobby: 2})
	h.s.StopEvents()

	b := &blockingDocs{memDocs: h.docs, entered: make(chan struct{}, 1), release: make(chan struct{})}
	h.s.docs = b
	done := make(chan error, 1)
	go func() { done <- h.s.RunEvents(context.Background(), cupid.Fence{}) }()
	<-b.entered

	ctx := context.Background()
	var e *cupid.Error
	impatient, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := h.s.Join(impatient, "ball", "ann"); !errors.As(err, &e) || e.Code != cupid.CodeUnavailable {
		t.Fatalf("join while loading, not waiting: %v, want unavailable", err)
	}
	joined, created := make(chan error, 1), make(chan error, 1)
	go func() {
		_, _, err := h.s.Join(ctx, "ball", "ann")
		joined <- err
	}()
	go func() {
		_, err := h.s.CreateEvent(ctx, NewEvent{ID: "ball", Config: pairing.Config{Rooms: 1, Round: time.Hour, Countdown: time.Minute, MinLobby: 2}, Seed: 1})
		created <- err
	}()
	select {
	case err := <-joined:
		t.Fatalf("a join answered before the events were read: %v", err)
	case err := <-created:
		t.Fatalf("a create answered before the events were read: %v", err)
	default:
	}

	close(b.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-joined; err != nil {
		t.Fatalf("join made while loading: %v", err)
	}
	if err := <-created; !errors.As(err, &e) || e.Code != cupid.CodeConflict {
		t.Fatalf("create of a stored id made while loading: %v, want conflict", err)
	}
	if _, _, err := h.s.Join(ctx, "nope", "ann"); !errors.As(err, &e) || e.Code != cupid.CodeNotFound {
		t.Fatalf("join of an event that is not there: %v, want not_found", err)
	}
}
