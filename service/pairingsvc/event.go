package pairingsvc

import (
	"context"
	"sync/atomic"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/service/actor"
)

// event is one running event: the goroutine that owns its pairing.Event,
// the inbox through which calls reach it, and its watchers.
type event struct {
	s *Service
	// ctx is the epoch the event runs in, fence its lease's (see
	// Service.fence): its store writes carry both.
	ctx   context.Context
	fence cupid.Fence
	// inbox runs the event's goroutine (package actor); its Done is closed
	// when the goroutine has exited (deleted, or the service closed).
	inbox *actor.Actor[*op]
	// view is the event as of its last stored change; readers on other
	// goroutines (ListEvents) load it without asking the goroutine.
	view atomic.Pointer[EventView]

	// The rest belongs to the goroutine.

	ev *pairing.Event
	// batch gathers the calls of one batch as the actor applies them; they
	// are processed together once it ends.
	batch []*op
	// doc is the last stored document: what the event goes back to when a
	// write to the store fails.
	doc document
	// retryAt delays the next timed step after the store failed.
	retryAt time.Time
	// lobby is the lobby size last added to the lobby gauge.
	lobby int
	// all are the organiser's watchers (every notification); byKey the
	// participants' watchers, by participant key.
	all   map[*subscriber]struct{}
	byKey map[string]map[*subscriber]struct{}
}

// op is one call on an event. The goroutine runs write (if any) with the
// other writes of its batch, stores the result, publishes, and then runs
// read (if any) on the stored state. err and whatever read captures are
// for the caller once done is closed.
type op struct {
	write func(ev *pairing.Event, now time.Time) ([]pairing.Notification, error)
	read  func(e *event)
	// del deletes the event.
	del  bool
	err  error
	done chan struct{}
}

// inboxSize is how many calls may wait for an event's goroutine before
// callers wait to hand theirs over.
const inboxSize = 256

// maxBatch bounds the calls applied and stored together.
const maxBatch = 1024

// retryAfter is the wait before a timed step is tried again after the store
// failed.
const retryAfter = time.Second

func newEvent(s *Service, doc document, ev *pairing.Event) *event {
	epoch, fence := s.gate.Current()
	e := &event{
		s:     s,
		ctx:   epoch,
		fence: fence,
		inbox: actor.New[*op](epoch, inboxSize),
		ev:    ev,
		doc:   doc,
		all:   map[*subscriber]struct{}{},
		byKey: map[string]map[*subscriber]struct{}{},
	}
	ev.SetHistoryLimits(s.historyLimits())
	v := viewOf(&doc)
	e.view.Store(v)
	e.lobby = len(v.Lobby)
	return e
}

// run is the event's goroutine: it waits for calls or the next deadline and
// processes them in batches, until the event is deleted or the service
// closes.
func (e *event) run() {
	defer e.s.wg.Done()
	e.inbox.Run(actor.Loop[*op]{
		MaxBatch: maxBatch,
		Apply:    e.take,
		After:    e.afterBatch,
		Next:     e.next,
		Now:      e.s.now,
	})
}

// take adds a call to the batch. A deletion ends its batch, so that nothing
// that arrived after it is applied.
func (e *event) take(o *op) (endBatch bool) {
	e.batch = append(e.batch, o)
	return o.del
}

// afterBatch processes the batch taken, or, when the timer fired, the
// deadline alone; a timer that fires before a retry is due does nothing.
// It reports whether the event was deleted.
func (e *event) afterBatch() (deleted bool) {
	if len(e.batch) == 0 && e.s.now().Before(e.retryAt) {
		return false
	}
	deleted = e.process(e.batch)
	// The calls are answered: drop them. The room is kept for the next
	// batch unless a flood made it large, so that a quiet event holds
	// little.
	clear(e.batch)
	e.batch = e.batch[:0]
	if cap(e.batch) > 64 {
		e.batch = nil
	}
	return deleted
}

// next is the event's next deadline, or the retry after a failed write to
// the store. With nothing due the actor still wakes hourly.
func (e *event) next(now time.Time) (time.Time, bool) {
	if e.retryAt.After(now) {
		return e.retryAt, true
	}
	return e.ev.NextDeadline()
}

// process runs one batch: time first (a countdown or round whose deadline
// passed), then the writes in arrival order, one store write for all of
// it, then the notifications, the answers to writers, and the reads on the
// stored state; a deletion, always last in its batch, comes after all of
// that. It reports whether the event was deleted.
func (e *event) process(batch []*op) (deleted bool) {
	now := e.s.now()
	var notes []pairing.Notification
	var rounds []roundStat
	changed := false
	took := func(n []pairing.Notification, start time.Time) {
		if len(n) > 0 {
			rounds = appendRounds(rounds, n, time.Since(start))
			notes = append(notes, n...)
			changed = true
		}
	}
	start := time.Now()
	took(e.ev.Advance(now), start)
	for _, o := range batch {
		if o.write == nil {
			continue
		}
		start := time.Now()
		n, err := o.write(e.ev, now)
		took(n, start)
		o.err = err
		// A call that succeeded may have changed the event without telling
		// anyone (a record cleared); one that failed changed nothing
		// itself.
		changed = changed || err == nil
	}

	if changed {
		err := e.putRounds(notes, now)
		if err == nil {
			err = e.recordEncounters(notes)
		}
		if err == nil {
			err = e.store(now)
		}
		if err != nil {
			e.s.metrics.storeErrors.Inc()
			e.s.log.Error("storing a pairing event failed; its last stored state is kept", "event", e.doc.ID, "err", err)
			e.rollback()
			for _, o := range batch {
				if o.write != nil && o.err == nil {
					o.err = cupid.Errorf(cupid.CodeUnavailable, "", "the change could not be stored; nothing changed, try again")
				}
			}
			notes, rounds = nil, nil
			e.retryAt = now.Add(retryAfter)
		} else {
			e.retryAt = time.Time{}
			e.deleteRounds(e.ev.TakeDropped())
			e.s.metrics.observe(rounds)
			e.publish(notes)
		}
	}

	for _, o := range batch {
		switch {
		case o.del:
			if err := e.delete(now); err != nil {
				o.err = err
			} else {
				deleted = true
			}
		case o.read != nil:
			o.read(e)
		}
		close(o.done)
	}
	return deleted
}

// store writes the event's snapshot and makes it the event's view.
func (e *event) store(now time.Time) error {
	doc := e.doc
	doc.Event = e.ev.Snapshot()
	if err := e.s.put(e.ctx, e.fence, doc, now); err != nil {
		return err
	}
	e.doc = doc
	v := viewOf(&doc)
	e.view.Store(v)
	e.s.metrics.lobby.Add(float64(len(v.Lobby) - e.lobby))
	e.lobby = len(v.Lobby)
	return nil
}

// rollback puts the event back to its last stored state.
func (e *event) rollback() {
	ev, err := pairing.Restore(e.doc.Event)
	if err != nil {
		// The snapshot came from the event itself; Restore accepting it is
		// the pairing package's own guarantee (fuzzed). Should it ever
		// fail, going on would let memory and store disagree; a restart
		// reloads the stored state, which is consistent.
		panic("pairingsvc: the last stored snapshot does not restore: " + err.Error())
	}
	ev.SetHistoryLimits(e.s.historyLimits())
	e.ev = ev
}

// delete removes the event from the store, then from the service, and ends
// its watches.
func (e *event) delete(now time.Time) error {
	ctx, cancel := context.WithTimeout(e.ctx, storeTimeout)
	err := e.s.docs.DeleteDocument(ctx, e.fence, DocumentKind, e.doc.ID)
	cancel()
	if err != nil {
		e.s.metrics.storeErrors.Inc()
		e.s.log.Error("deleting a pairing event failed", "event", e.doc.ID, "err", err)
		return cupid.Errorf(cupid.CodeUnavailable, "", "the event could not be deleted; try again")
	}
	// The rounds go before the id is free again, so that a new event of
	// the same id never has its records deleted. Records a crash leaves
	// behind are overwritten by the new event's rounds before it reads
	// them (reads never go past its own seq).
	e.s.deleteAllRounds(e.doc.ID)
	e.s.removeEvent(e)
	e.s.metrics.lobby.Add(float64(-e.lobby))
	e.lobby = 0
	e.endWatches(now.UTC())
	return nil
}

// roundStat is one round started: how long computing it took and how many
// pairs it seated.
type roundStat struct {
	seconds float64
	pairs   int
}

// appendRounds adds the rounds started among notes; took is the time of
// the call that produced them.
func appendRounds(rounds []roundStat, notes []pairing.Notification, took time.Duration) []roundStat {
	first := len(rounds)
	byRound := map[int]int{}
	for _, n := range notes {
		switch n.Kind {
		case pairing.KindRoundStarted:
			byRound[n.Round] = len(rounds)
			rounds = append(rounds, roundStat{seconds: took.Seconds()})
		case pairing.KindPaired:
			if i, ok := byRound[n.Round]; ok {
				rounds[i].pairs++ // each pair is told twice
			}
		}
	}
	for i := first; i < len(rounds); i++ {
		rounds[i].pairs /= 2
	}
	return rounds
}
