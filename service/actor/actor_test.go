package actor_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cupid-match/cupid/service/actor"
)

// The tests run in synctest bubbles: the timer runs on a fake clock that
// jumps when every goroutine waits, so a deadline an hour away costs
// nothing, and a send that would block forever fails the test as a
// deadlock instead of hanging it.

// recorder is an owner that writes down what the loop does: the batches it
// applied, in order, and, for a timer that fired alone, an empty batch.
type recorder struct {
	batches [][]int
	cur     []int
}

func (r *recorder) apply(v int) { r.cur = append(r.cur, v) }

func (r *recorder) after() {
	r.batches = append(r.batches, r.cur)
	r.cur = nil
}

func (r *recorder) applied() int {
	n := 0
	for _, b := range r.batches {
		n += len(b)
	}
	return n
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i + 1
	}
	return s
}

// TestBatching puts operations in the inbox before the loop starts, so
// what waits at each batch is known: a batch takes what waits, up to
// MaxBatch, and ends early after an operation that asks so.
func TestBatching(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  int
		ops  []int
		end  []int // operations after which the batch must end
		want [][]int
	}{
		{name: "one batch takes all that waits", max: 10, ops: seq(5), want: [][]int{{1, 2, 3, 4, 5}}},
		{name: "exactly the bound", max: 5, ops: seq(5), want: [][]int{{1, 2, 3, 4, 5}}},
		{name: "the bound splits", max: 2, ops: seq(5), want: [][]int{{1, 2}, {3, 4}, {5}}},
		{name: "one at a time", max: 1, ops: seq(3), want: [][]int{{1}, {2}, {3}}},
		{name: "an operation ends its batch", max: 10, ops: seq(5), end: []int{2}, want: [][]int{{1, 2}, {3, 4, 5}}},
		{name: "the first operation ends its batch", max: 10, ops: seq(3), end: []int{1}, want: [][]int{{1}, {2, 3}}},
		{name: "ends and the bound together", max: 2, ops: seq(6), end: []int{1, 4}, want: [][]int{{1}, {2, 3}, {4}, {5, 6}}},
		{name: "the last operation ends its batch", max: 10, ops: seq(3), end: []int{3}, want: [][]int{{1, 2, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := actor.New[int](t.Context(), len(tc.ops))
				for _, v := range tc.ops {
					if !a.Do(v) {
						t.Fatalf("Do(%d) refused before the loop started", v)
					}
				}
				var r recorder
				go a.Run(actor.Loop[int]{
					MaxBatch: tc.max,
					Apply: func(v int) bool {
						r.apply(v)
						return slices.Contains(tc.end, v)
					},
					After: func() bool {
						r.after()
						return r.applied() == len(tc.ops)
					},
				})
				<-a.Done()
				if fmt.Sprint(r.batches) != fmt.Sprint(tc.want) {
					t.Errorf("batches %v, want %v", r.batches, tc.want)
				}
			})
		})
	}
}

// TestOrdering sends from one or many goroutines while the loop runs:
// every operation is applied once, each sender's in the order it sent
// them, never two at a time, and After runs once each batch is applied
// whole — so a reply given in After (the pairing service's store, then
// answer) reaches a caller only after its own operation and every one
// before it in the batch.
func TestOrdering(t *testing.T) {
	for _, tc := range []struct {
		name    string
		senders int
		each    int
		max     int
		inbox   int
		send    string // "Do" or "Send"
	}{
		{name: "one sender", senders: 1, each: 100, max: 8, inbox: 4, send: "Do"},
		{name: "many senders", senders: 8, each: 50, max: 16, inbox: 4, send: "Do"},
		{name: "many senders through Send", senders: 8, each: 50, max: 16, inbox: 4, send: "Send"},
		{name: "unbuffered inbox", senders: 4, each: 20, max: 3, inbox: 0, send: "Do"},
		{name: "one at a time", senders: 4, each: 20, max: 1, inbox: 16, send: "Send"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				type op struct {
					sender, n int
					reply     chan int // the number of operations stored when told
				}
				a := actor.New[op](t.Context(), tc.inbox)
				var (
					applied  []op
					waiting  []op
					stored   int
					inAfter  bool
					maxBatch int
				)
				total := tc.senders * tc.each
				go a.Run(actor.Loop[op]{
					MaxBatch: tc.max,
					Apply: func(o op) bool {
						if inAfter {
							t.Error("Apply ran inside After")
						}
						applied = append(applied, o)
						waiting = append(waiting, o)
						maxBatch = max(maxBatch, len(waiting))
						return false
					},
					After: func() bool {
						inAfter = true
						defer func() { inAfter = false }()
						stored = len(applied)
						for _, o := range waiting {
							o.reply <- stored
						}
						waiting = waiting[:0]
						return stored == total
					},
				})
				var wg sync.WaitGroup
				for s := range tc.senders {
					wg.Go(func() {
						for n := range tc.each {
							o := op{sender: s, n: n, reply: make(chan int, 1)}
							if tc.send == "Send" {
								if err := a.Send(context.Background(), o); err != nil {
									t.Errorf("Send: %v", err)
									return
								}
							} else if !a.Do(o) {
								t.Error("Do refused while the loop runs")
								return
							}
							// A sender that waits for its reply, as the
							// pairing service's callers do.
							// Its earlier operations and this one were all
							// stored before it was told.
							if got := <-o.reply; got < n+1 {
								t.Errorf("sender %d op %d told with only %d stored", s, n, got)
							}
						}
					})
				}
				wg.Wait()
				<-a.Done()
				if len(applied) != total {
					t.Fatalf("applied %d operations, want %d", len(applied), total)
				}
				if maxBatch > tc.max {
					t.Errorf("a batch held %d operations, more than MaxBatch %d", maxBatch, tc.max)
				}
				next := make([]int, tc.senders)
				for _, o := range applied {
					if o.n != next[o.sender] {
						t.Fatalf("sender %d: applied %d, want %d next", o.sender, o.n, next[o.sender])
					}
					next[o.sender]++
				}
			})
		})
	}
}

// TestTimer checks when the loop wakes with no operation: at the owner's
// next deadline, at once for one already past, and at most MaxSleep ahead.
// The deadline is on the owner's clock, which may differ from the
// runtime's.
func TestTimer(t *testing.T) {
	skew := 10 * time.Minute // the owner's clock runs this far ahead
	for _, tc := range []struct {
		name  string
		next  func(now time.Time) (time.Time, bool) // nil: no Next
		now   func() time.Time                      // nil: time.Now
		after time.Duration                         // wanted wait before After
	}{
		{name: "a deadline ahead", next: in(5 * time.Second), after: 5 * time.Second},
		{name: "a deadline now", next: in(0), after: 0},
		{name: "a deadline past", next: in(-time.Minute), after: 0},
		{name: "no deadline", next: func(time.Time) (time.Time, bool) { return time.Time{}, false }, after: actor.MaxSleep},
		{name: "no Next", after: actor.MaxSleep},
		{name: "a deadline beyond MaxSleep", next: in(3 * time.Hour), after: actor.MaxSleep},
		{
			name: "the owner's clock",
			next: func(now time.Time) (time.Time, bool) {
				if !now.Equal(time.Now().Add(skew)) {
					panic("Next was not given the owner's clock")
				}
				return now.Add(5 * time.Second), true
			},
			now:   func() time.Time { return time.Now().Add(skew) },
			after: 5 * time.Second,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := actor.New[int](t.Context(), 1)
				start := time.Now()
				var woke time.Duration
				go a.Run(actor.Loop[int]{
					MaxBatch: 1,
					Apply:    func(int) bool { t.Error("no operation was sent"); return false },
					After:    func() bool { woke = time.Since(start); return true },
					Next:     tc.next,
					Now:      tc.now,
				})
				<-a.Done()
				if woke != tc.after {
					t.Errorf("After ran %v after the start, want %v", woke, tc.after)
				}
			})
		})
	}
}

// in is a Next whose deadline is always d after now.
func in(d time.Duration) func(time.Time) (time.Time, bool) {
	return func(now time.Time) (time.Time, bool) { return now.Add(d), true }
}

// TestTimerRearms: an operation before the deadline runs After at once,
// and the timer is armed again for whatever Next says after it; a deadline
// that moves earlier is honoured.
func TestTimerRearms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := actor.New[time.Duration](t.Context(), 1)
		start := time.Now()
		deadline := start.Add(10 * time.Second)
		type wake struct {
			at  time.Duration
			ops int
		}
		var wakes []wake
		ops := 0
		go a.Run(actor.Loop[time.Duration]{
			MaxBatch: 10,
			// An operation moves the deadline to d after the start.
			Apply: func(d time.Duration) bool { ops++; deadline = start.Add(d); return false },
			After: func() bool {
				wakes = append(wakes, wake{at: time.Since(start), ops: ops})
				ops = 0
				if !time.Now().Before(deadline) {
					deadline = start.Add(time.Hour * 24) // passed: none until MaxSleep
				}
				return len(wakes) == 4
			},
			Next: func(time.Time) (time.Time, bool) { return deadline, true },
		})
		time.Sleep(4 * time.Second)
		a.Do(10 * time.Second) // same deadline: wakes now, then at 10 s
		time.Sleep(2 * time.Second)
		a.Do(7 * time.Second) // earlier: wakes now, then at 7 s
		<-a.Done()
		want := []wake{{4 * time.Second, 1}, {6 * time.Second, 1}, {7 * time.Second, 0}, {7*time.Second + actor.MaxSleep, 0}}
		if !slices.Equal(wakes, want) {
			t.Errorf("woke %v, want %v", wakes, want)
		}
	})
}

// TestStop: the loop ends when After asks it to or the context ends; Done
// is closed then, and what still waits in the inbox is never applied.
func TestStop(t *testing.T) {
	for _, tc := range []struct {
		name        string
		stopAfter   bool // After asks to stop after the first batch
		cancel      bool // the context ends before the loop starts
		wantApplied []int
		wantAfter   int
	}{
		{name: "After stops", stopAfter: true, wantApplied: []int{1}, wantAfter: 1},
		{name: "the context ends", cancel: true, wantApplied: nil, wantAfter: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				a := actor.New[int](ctx, 3)
				for _, v := range seq(3) {
					a.Do(v)
				}
				if tc.cancel {
					cancel()
				}
				var applied []int
				afters := 0
				go a.Run(actor.Loop[int]{
					MaxBatch: 1,
					Apply:    func(v int) bool { applied = append(applied, v); return false },
					After:    func() bool { afters++; return tc.stopAfter },
				})
				<-a.Done()
				if !slices.Equal(applied, tc.wantApplied) || afters != tc.wantAfter {
					t.Errorf("applied %v with %d After, want %v with %d", applied, afters, tc.wantApplied, tc.wantAfter)
				}
				if a.Len() != 3-len(tc.wantApplied) {
					t.Errorf("%d operations left in the inbox, want %d", a.Len(), 3-len(tc.wantApplied))
				}
			})
		})
	}
}

// TestSendAfterEnd: once the actor has ended, or its context has, no way
// of sending waits, however full the inbox; a caller's own context also
// ends Send. A send that blocked would deadlock the bubble and fail.
func TestSendAfterEnd(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inbox  int
		ended  string // "stopped", "cancelled" (never run), "running" (Run not started yet)
		caller bool   // the caller's context is done
		want   error  // Send's error
	}{
		{name: "stopped, unbuffered", inbox: 0, ended: "stopped", want: actor.ErrEnded},
		{name: "stopped, inbox full", inbox: 2, ended: "stopped", want: actor.ErrEnded},
		{name: "context done, never run, unbuffered", inbox: 0, ended: "cancelled", want: actor.ErrEnded},
		{name: "context done, never run, inbox full", inbox: 2, ended: "cancelled", want: actor.ErrEnded},
		{name: "alive but busy, the caller gives up", inbox: 2, ended: "running", caller: true, want: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				a := actor.New[int](ctx, tc.inbox)
				for range tc.inbox {
					a.Do(0) // fill the inbox
				}
				switch tc.ended {
				case "stopped":
					// The loop takes one operation and stops after it;
					// while it holds it, the test fills the inbox again
					// (a Do to a live actor with room never refuses).
					taken, filled := make(chan struct{}), make(chan struct{})
					l := actor.Loop[int]{
						MaxBatch: 1,
						Apply:    func(int) bool { close(taken); <-filled; return false },
						After:    func() bool { return true },
					}
					if tc.inbox == 0 {
						l.Next = in(0) // nothing to take: the timer stops it
					}
					go a.Run(l)
					if tc.inbox > 0 {
						<-taken
						a.Do(0)
						close(filled)
					}
					<-a.Done()
				case "cancelled":
					cancel()
				}
				callerCtx, callerCancel := context.WithCancel(context.Background())
				if tc.caller {
					callerCancel()
				}
				defer callerCancel()
				if err := a.Send(callerCtx, 1); !errors.Is(err, tc.want) {
					t.Errorf("Send: %v, want %v", err, tc.want)
				}
				if tc.ended == "running" {
					return // Do would wait for room, as it should
				}
				if a.Do(1) {
					t.Error("Do handed over to an ended actor")
				}
				if a.TryDo(1) {
					t.Error("TryDo handed over to an ended actor")
				}
			})
		})
	}
}

// TestTryDo never waits: it hands over while there is room and the actor
// lives, and refuses otherwise.
func TestTryDo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := actor.New[int](t.Context(), 1)
		if !a.TryDo(1) {
			t.Fatal("TryDo refused with room in the inbox")
		}
		if a.TryDo(2) {
			t.Fatal("TryDo handed over to a full inbox")
		}
		if a.Len() != 1 {
			t.Fatalf("Len %d, want 1", a.Len())
		}
	})
}

func TestMaxBatchRequired(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Run accepted MaxBatch 0")
		}
	}()
	a := actor.New[int](t.Context(), 0)
	a.Run(actor.Loop[int]{Apply: func(int) bool { return false }, After: func() bool { return true }})
}
