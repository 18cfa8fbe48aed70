// Package testclock is the settable clock the tests of the services and
// the API hand to the code under test as its "now": time moves only when
// a test says so, so deadlines, relaxations and expiries happen exactly
// when a test expects them, never by the wall clock. It is safe for the
// code under test's goroutines to read while a test moves it.
package testclock

import (
	"sync"
	"time"
)

// Clock is a time that moves only when told.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// At is a clock that reads t until moved.
func At(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time; pass the method value (c.Now) as a service's
// clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t, which may be earlier than its time.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}
