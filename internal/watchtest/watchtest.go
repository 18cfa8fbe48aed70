// Package watchtest runs a watch (a ticket's events, a queue's match log)
// in tests: its events arrive on a channel, read one at a time with a
// deadline, so a test that waits for an event that never comes fails
// instead of hanging.
package watchtest

import (
	"testing"
	"time"
)

// Collect runs watch in a goroutine; the events arrive on the channel,
// which is closed when the watch returns, and the error after it.
func Collect[E any](watch func(send func(E) error) error) (<-chan E, <-chan error) {
	evs, done := make(chan E, 64), make(chan error, 1)
	go func() {
		err := watch(func(e E) error { evs <- e; return nil })
		close(evs)
		done <- err
	}()
	return evs, done
}

// Next is the next event, failing the test when the watch ended or none
// came within 10 s.
func Next[E any](t testing.TB, evs <-chan E) E {
	t.Helper()
	return Within(t, evs, 10*time.Second)
}

// Within is the next event, failing the test when the watch ended or none
// came within d: a test through a whole server, whose events cross the
// store and the network, waits longer than one over a service.
func Within[E any](t testing.TB, evs <-chan E, d time.Duration) E {
	t.Helper()
	select {
	case e, ok := <-evs:
		if !ok {
			t.Fatal("the watch ended early")
		}
		return e
	case <-time.After(d):
		t.Fatalf("no event within %v", d)
	}
	panic("unreachable")
}
