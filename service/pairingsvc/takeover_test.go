package pairingsvc

import (
	"context"
	"errors"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
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
// events, a call for an event it has not read yet is answered unavailable
// (try again), not not_found, and a create with that id cannot overwrite
// it; once loaded, the event answers.
func TestCallsWhileTakingEventsOverAreRetried(t *testing.T) {
	clk := &clock{t: t0}
	h := start(t, newMemDocs(), clk, Limits{})
	h.event(t, "ball", pairing.Config{Rooms: 1, Round: time.Hour, Countdown: time.Minute, MinLobby: 2})
	h.s.StopEvents()

	b := &blockingDocs{memDocs: h.docs, entered: make(chan struct{}, 1), release: make(chan struct{})}
	h.s.docs = b
	done := make(chan error, 1)
	go func() { done <- h.s.RunEvents(context.Background(), cupid.Fence{}) }()
	<-b.entered

	ctx := context.Background()
	_, _, err := h.s.Join(ctx, "ball", "ann")
	var e *cupid.Error
	if !errors.As(err, &e) || e.Code != cupid.CodeUnavailable {
		t.Fatalf("join while loading: %v, want unavailable", err)
	}
	_, err = h.s.CreateEvent(ctx, NewEvent{ID: "ball", Config: pairing.Config{Rooms: 1, Round: time.Hour, Countdown: time.Minute, MinLobby: 2}, Seed: 1})
	if !errors.As(err, &e) || e.Code != cupid.CodeUnavailable {
		t.Fatalf("create while loading: %v, want unavailable", err)
	}

	close(b.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.s.Join(ctx, "ball", "ann"); err != nil {
		t.Fatalf("join once loaded: %v", err)
	}
	if _, _, err := h.s.Join(ctx, "nope", "ann"); !errors.As(err, &e) || e.Code != cupid.CodeNotFound {
		t.Fatalf("join of an event that is not there: %v, want not_found", err)
	}
}
