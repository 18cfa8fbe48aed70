package epoch

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

var errUnavailable = errors.New("unavailable")

func TestGate(t *testing.T) {
	fence := cupid.Fence{Token: 7}
	tests := []struct {
		name  string
		steps func(g *Gate)
		serve bool
		fence cupid.Fence
	}{
		{"a new gate loads", func(g *Gate) {}, false, cupid.Fence{}},
		{"a node of its own serves once loaded", func(g *Gate) { g.Loaded(g.ctx) }, true, cupid.Fence{}},
		{"ended before the lease", func(g *Gate) { g.End() }, false, cupid.Fence{}},
		{"a taken lease loads", func(g *Gate) { g.End(); g.Begin(fence) }, false, fence},
		{"a taken lease serves once loaded", func(g *Gate) { g.End(); g.Loaded(g.Begin(fence)) }, true, fence},
		{"a stale load does not serve the new epoch", func(g *Gate) {
			old := g.Begin(fence)
			g.End()
			g.Begin(cupid.Fence{Token: 8})
			g.Loaded(old)
		}, false, cupid.Fence{Token: 8}},
		{"a lease given up", func(g *Gate) { g.Loaded(g.Begin(fence)); g.End() }, false, cupid.Fence{}},
		{"loaded twice", func(g *Gate) { e := g.Begin(fence); g.Loaded(e); g.Loaded(e) }, true, fence},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := New(context.Background(), errUnavailable)
			tt.steps(g)
			ctx, f, err := g.Check()
			if serving := err == nil; serving != tt.serve {
				t.Fatalf("serving = %v (%v), want %v", serving, err, tt.serve)
			}
			if _, cur := g.Current(); cur != tt.fence {
				t.Fatalf("fence %v, want %v", cur, tt.fence)
			}
			select {
			case <-g.Serving():
				if !tt.serve {
					t.Fatal("Serving is closed while nothing is served")
				}
			default:
				if tt.serve {
					t.Fatal("Serving is open while the epoch serves")
				}
			}
			if tt.serve && (ctx.Err() != nil || f != tt.fence) {
				t.Fatalf("served epoch %v fence %v", ctx.Err(), f)
			}
			if !tt.serve && !errors.Is(err, errUnavailable) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

// TestWaitGoesOnWhenLoaded: a call that arrives while the store is read
// is served once it has been, and the mutex is free meanwhile (Loaded is
// called under it).
func TestWaitGoesOnWhenLoaded(t *testing.T) {
	var mu sync.Mutex
	g := New(context.Background(), errUnavailable)
	g.MaxWait = time.Hour // the test's deadline is the hang guard
	epoch := g.Begin(cupid.Fence{Token: 1})
	done := make(chan error)
	go func() {
		mu.Lock()
		defer mu.Unlock()
		_, f, err := g.Wait(context.Background(), &mu)
		if err == nil && f.Token != 1 {
			err = errors.New("wrong fence")
		}
		done <- err
	}()
	mu.Lock()
	g.Loaded(epoch)
	mu.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestWaitGivesUp(t *testing.T) {
	var mu sync.Mutex
	tests := []struct {
		name string
		run  func(g *Gate) error
	}{
		{"the caller's context ends", func(g *Gate) error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, _, err := g.Wait(ctx, &mu)
			return err
		}},
		{"the wait is over", func(g *Gate) error {
			g.MaxWait = time.Nanosecond
			_, _, err := g.Wait(context.Background(), &mu)
			return err
		}},
		{"the epoch ends while waiting", func(g *Gate) error {
			g.MaxWait = time.Hour
			go func() {
				mu.Lock()
				g.End()
				mu.Unlock()
			}()
			_, _, err := g.Wait(context.Background(), &mu)
			return err
		}},
		{"nothing runs here", func(g *Gate) error {
			g.End()
			_, _, err := g.Wait(context.Background(), &mu)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := New(context.Background(), errUnavailable)
			mu.Lock()
			err := tt.run(g)
			mu.Unlock()
			if !errors.Is(err, errUnavailable) {
				t.Fatalf("err = %v, want unavailable", err)
			}
		})
	}
}
