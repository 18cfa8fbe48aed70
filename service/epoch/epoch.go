// Package epoch is the life of a service that one node runs at a time:
// the parties, the lobbies and the speed-dating events are each run by the
// node that holds their lease (or by the only node), which loads them from
// the store and then serves them.
//
// The rule it keeps, once for every such service: a call is served only in
// a live epoch whose store has been read. While the node that just took a
// lease is still reading, a call waits for the reading to finish (a short
// while at most) rather than hearing "not found" about something not read
// yet, or creating something with an id a stored one already has. A call
// that reaches a node that runs nothing hears "unavailable, try again".
package epoch

import (
	"context"
	"sync"
	"time"

	"github.com/cupid-match/cupid"
)

// DefaultMaxWait is how long a call waits for a loading epoch before it
// hears "unavailable": long enough for a takeover's reading of a few
// thousand documents, short enough that a client's own timeout is not the
// first thing to end.
const DefaultMaxWait = 5 * time.Second

// Gate is one service's epoch. It has no lock of its own: every method is
// called with the owner's mutex held, so the owner checks the epoch and
// reads its own maps in one step (a stop that forgets them cannot come in
// between).
type Gate struct {
	base    context.Context
	ctx     context.Context
	cancel  context.CancelFunc
	fence   cupid.Fence
	loading bool
	// served is closed while the epoch serves; a new one is made when the
	// epoch ends or a new one begins.
	served      chan struct{}
	unavailable error
	// MaxWait bounds Wait; zero is DefaultMaxWait.
	MaxWait time.Duration
}

// New is a gate whose first epoch, the node's own under the zero fence, is
// loading: a node of its own serves once its Start has read the store and
// called Loaded; a node of several calls End before it first takes the
// lease. unavailable is what a call hears when nothing is served.
func New(base context.Context, unavailable error) *Gate {
	g := &Gate{base: base, unavailable: unavailable, served: make(chan struct{}), loading: true}
	g.ctx, g.cancel = context.WithCancel(base)
	return g
}

// Begin starts a new epoch whose writes carry fence (the lease the node
// took); it loads until Loaded. It returns the epoch's context, which ends
// when the epoch does.
func (g *Gate) Begin(fence cupid.Fence) context.Context {
	g.cancel()
	g.ctx, g.cancel = context.WithCancel(g.base)
	g.fence = fence
	g.loading = true
	g.reopen()
	return g.ctx
}

// Loaded says the epoch's store has been read: waiting calls go on. It
// does nothing when epoch is no longer the current one (the lease moved on
// while it was loading).
func (g *Gate) Loaded(epoch context.Context) {
	if epoch != g.ctx || epoch.Err() != nil || !g.loading {
		return
	}
	g.loading = false
	close(g.served)
}

// End ends the epoch: nothing is served until the next Begin.
func (g *Gate) End() {
	g.cancel()
	g.ctx, g.cancel = ended, func() {}
	g.fence = cupid.Fence{}
	g.loading = false
	g.reopen()
}

// reopen makes a fresh served channel unless the current one is still
// open.
func (g *Gate) reopen() {
	select {
	case <-g.served:
		g.served = make(chan struct{})
	default:
	}
}

// ended is the context of an epoch that is over.
var ended = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// Current is the epoch's context and fence as they are, served or not.
func (g *Gate) Current() (context.Context, cupid.Fence) { return g.ctx, g.fence }

// Serving is closed while the epoch serves; a test waits on it rather than
// on time.
func (g *Gate) Serving() <-chan struct{} { return g.served }

// Check returns the serving epoch and its fence, or unavailable without
// waiting.
func (g *Gate) Check() (context.Context, cupid.Fence, error) {
	if g.loading || g.ctx.Err() != nil {
		return nil, cupid.Fence{}, g.unavailable
	}
	return g.ctx, g.fence, nil
}

// Wait is Check that, while the epoch is loading, waits for it: it lets mu
// go while it waits and holds it again when it returns. It gives up with
// unavailable when ctx ends, the epoch ends or MaxWait has passed.
func (g *Gate) Wait(ctx context.Context, mu sync.Locker) (context.Context, cupid.Fence, error) {
	if !g.loading || g.ctx.Err() != nil {
		return g.Check()
	}
	wait := g.MaxWait
	if wait <= 0 {
		wait = DefaultMaxWait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for g.loading && g.ctx.Err() == nil {
		served, epoch := g.served, g.ctx
		mu.Unlock()
		gaveUp := false
		select {
		case <-served:
		case <-epoch.Done():
		case <-ctx.Done():
			gaveUp = true
		case <-timer.C:
			gaveUp = true
		}
		mu.Lock()
		if gaveUp {
			break
		}
	}
	return g.Check()
}
