package testclock

import (
	"sync"
	"testing"
	"time"
)

func TestClockMovesOnlyWhenTold(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := At(t0)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("Now = %v, want %v", got, t0)
	}
	c.Advance(90 * time.Second)
	if got, want := c.Now(), t0.Add(90*time.Second); !got.Equal(want) {
		t.Fatalf("after Advance: Now = %v, want %v", got, want)
	}
	c.Set(t0.Add(-time.Hour))
	if got, want := c.Now(), t0.Add(-time.Hour); !got.Equal(want) {
		t.Fatalf("after Set: Now = %v, want %v", got, want)
	}
}

// TestClockIsSafeToShare moves the clock while other goroutines read it
// (run with -race): every step is seen whole.
func TestClockIsSafeToShare(t *testing.T) {
	c := At(time.Time{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := time.Time{}
			for range 1000 {
				now := c.Now()
				if now.Before(last) {
					t.Errorf("clock went back: %v after %v", now, last)
					return
				}
				last = now
			}
		}()
	}
	for range 1000 {
		c.Advance(time.Millisecond)
	}
	wg.Wait()
	if got, want := c.Now(), (time.Time{}).Add(time.Second); !got.Equal(want) {
		t.Fatalf("Now = %v, want %v", got, want)
	}
}
