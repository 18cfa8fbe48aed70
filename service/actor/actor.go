// Package actor is the loop of a goroutine that owns some state alone: a
// ticket pool, a speed-dating event. Everything that touches the state
// reaches the goroutine as an operation through an inbox, so the state
// needs no locks and its changes happen in one order.
//
// The goroutine takes the operations waiting in its inbox as one batch (up
// to a bound), applies them one by one, then runs the owner's after-batch
// hook, where the work that is worth doing once per batch happens: the
// pool steps its engine, the event stores its snapshot and only then
// answers. Between batches it sleeps until an operation arrives or the
// owner's next deadline comes, whichever is first; a deadline alone also
// runs the hook, with no operation.
//
// Both services had this loop written out in two styles; it lives here once
// so that its subtle parts — the batch bound, the timer, never blocking a
// sender on an actor that has ended — are right in one place and tested
// there.
package actor

import (
	"context"
	"errors"
	"time"
)

// MaxSleep is the longest the goroutine sleeps without an operation. With
// nothing due it still wakes at this interval: a wake costs nothing, and a
// clock that jumped cannot stall an actor for longer than this.
const MaxSleep = time.Hour

// ErrEnded is Send's error for an actor that has ended (its owner stopped
// it, or the context it was made with is done).
var ErrEnded = errors.New("actor: ended")

// Actor is the inbox of one goroutine and the means to run its loop. Make
// it with New, hand it operations with Do, Send or TryDo from any
// goroutine, and call Run once, on the goroutine that owns the state.
type Actor[T any] struct {
	// ctx is the context of the service the actor belongs to: when it
	// ends, so does the loop, and no sender waits on it any longer.
	ctx   context.Context
	inbox chan T
	done  chan struct{}
}

// New makes an actor whose inbox holds size operations before senders
// wait. ctx bounds its life: Run returns when it is done, and so does a
// Do that waits for room, even if Run never started.
func New[T any](ctx context.Context, size int) *Actor[T] {
	return &Actor[T]{ctx: ctx, inbox: make(chan T, size), done: make(chan struct{})}
}

// Loop is what the goroutine does; the owner's hooks, all run on the
// goroutine that called Run.
type Loop[T any] struct {
	// MaxBatch bounds the operations applied before After runs, so that a
	// flood of operations cannot starve what After does (a pool's step)
	// nor make one batch unbounded (an event's store write). At least 1.
	MaxBatch int
	// Apply runs one operation, in the order the inbox gave them. It
	// reports whether the batch must end after this operation even if
	// more wait (a deletion, after which nothing else may apply).
	Apply func(op T) (endBatch bool)
	// After runs after each batch, and when the timer fires with no
	// operation. It reports whether the actor must stop; it then ends
	// without taking anything more from its inbox.
	After func() (stop bool)
	// Next reports the owner's next deadline as of now, false when it has
	// none; the timer is armed for it (at most MaxSleep ahead) before each
	// wait. A deadline not after now fires at once. Nil means none.
	Next func(now time.Time) (time.Time, bool)
	// Now is the owner's clock, which Next's deadlines are on; time.Now
	// when nil.
	Now func() time.Time
}

// Run is the goroutine's loop: it returns when After asks it to stop or
// the actor's context is done, and Done is closed then. Operations still in
// the inbox are left there, never applied: a sender that needs to know
// whether its operation ran waits for a reply of its own and for Done.
func (a *Actor[T]) Run(l Loop[T]) {
	defer close(a.done)
	if l.MaxBatch < 1 {
		panic("actor: Loop.MaxBatch must be at least 1")
	}
	if l.Now == nil {
		l.Now = time.Now
	}
	timer := time.NewTimer(MaxSleep)
	defer timer.Stop()
	for {
		// An ended context wins over waiting operations: the service is
		// closing, and what they would do (store writes) would fail.
		// Without this check select would pick at random.
		if a.ctx.Err() != nil {
			return
		}
		// Since Go 1.23 Reset also discards a value the timer sent before
		// it, so a stale fire never wakes the loop early.
		timer.Reset(a.sleep(l))
		select {
		case op := <-a.inbox:
			a.batch(l, op)
		case <-timer.C:
		case <-a.ctx.Done():
			return
		}
		if l.After() {
			return
		}
	}
}

// batch applies op and then whatever waits in the inbox, up to MaxBatch in
// all. It takes only what is there already: waiting for more would delay
// the operations it holds.
func (a *Actor[T]) batch(l Loop[T], op T) {
	if l.Apply(op) {
		return
	}
	for n := 1; n < l.MaxBatch; n++ {
		select {
		case op = <-a.inbox:
			if l.Apply(op) {
				return
			}
		default:
			return
		}
	}
}

// sleep is how long to wait for the owner's next deadline.
func (a *Actor[T]) sleep(l Loop[T]) time.Duration {
	if l.Next == nil {
		return MaxSleep
	}
	now := l.Now()
	at, ok := l.Next(now)
	if !ok {
		return MaxSleep
	}
	return min(max(at.Sub(now), 0), MaxSleep)
}

// Do hands op to the actor, waiting while its inbox is full, and reports
// whether it was handed over. It never waits past the actor's end or its
// context's. Handed over is not applied: an actor that ends leaves its
// inbox unread, and a full inbox that gets room as the actor ends may
// still take op.
func (a *Actor[T]) Do(op T) bool {
	select {
	case a.inbox <- op:
		return true
	case <-a.done:
	case <-a.ctx.Done():
	}
	return false
}

// Send is Do for a caller with its own deadline: it returns ctx's error
// when ctx ends first, ErrEnded when the actor has ended.
func (a *Actor[T]) Send(ctx context.Context, op T) error {
	select {
	case a.inbox <- op:
		return nil
	case <-a.done:
	case <-a.ctx.Done():
	case <-ctx.Done():
		return ctx.Err()
	}
	return ErrEnded
}

// TryDo hands op over only if the inbox has room now and the actor has not
// ended; it never waits. It suits a message that may be lost because the
// actor notices the same thing later by itself.
func (a *Actor[T]) TryDo(op T) bool {
	select {
	case <-a.done:
		return false
	case <-a.ctx.Done():
		return false
	default:
	}
	select {
	case a.inbox <- op:
		return true
	default:
		return false
	}
}

// Done is closed when Run has returned.
func (a *Actor[T]) Done() <-chan struct{} { return a.done }

// Len is how many operations wait in the inbox. Only the goroutine itself
// can trust it, and only as far as "nothing waited just now" (an idle
// owner retiring).
func (a *Actor[T]) Len() int { return len(a.inbox) }
