package memstore

import (
	"context"
	"fmt"
	"sync"
)

// ops are the operations Fail, FailNext and Block accept.
var ops = map[string]bool{
	"CreateTickets": true, "Ticket": true, "Tickets": true, "WaitingTickets": true, "FinishTicket": true,
	"CommitMatches": true, "Match": true, "Events": true, "Ping": true,
	"MatchRecord": true, "Matches": true, "MatchEvents": true, "AssignMatch": true, "ReleaseMatch": true,
	"PutDocument": true, "DeleteDocument": true, "Documents": true,
}

// faults are the failures and holds tests asked for. They have their own
// lock: a held call waits outside the store's lock, so a test can change
// the store while a commit is in flight.
type faults struct {
	mu     sync.Mutex
	always map[string]error
	next   map[string]error
	held   map[string]*hold
}

type hold struct {
	arrived, released chan struct{}
	once              sync.Once
}

func checkOp(op string) {
	if !ops[op] {
		panic(fmt.Sprintf("memstore: unknown operation %q", op))
	}
}

// Fail makes every later call of op return err without changing anything,
// until Fail(op, nil).
func (s *Store) Fail(op string, err error) {
	checkOp(op)
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if err == nil {
		delete(s.faults.always, op)
		return
	}
	s.faults.always[op] = err
}

// FailNext makes the next call of op return err without changing
// anything; FailNext(op, nil) takes back a failure not yet used.
func (s *Store) FailNext(op string, err error) {
	checkOp(op)
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if err == nil {
		delete(s.faults.next, op)
		return
	}
	s.faults.next[op] = err
}

// Block holds the next call of op, before it does anything, until release
// is called; arrived is closed when that call arrives. A held call whose
// context ends returns the context's error. release may be called more
// than once, and before the call arrives (the call then goes through).
// Blocking an op already blocked replaces the earlier hold, releasing it.
func (s *Store) Block(op string) (arrived <-chan struct{}, release func()) {
	checkOp(op)
	h := &hold{arrived: make(chan struct{}), released: make(chan struct{})}
	s.faults.mu.Lock()
	if old := s.faults.held[op]; old != nil {
		old.release()
	}
	s.faults.held[op] = h
	s.faults.mu.Unlock()
	return h.arrived, func() {
		h.release()
		s.faults.mu.Lock()
		if s.faults.held[op] == h {
			delete(s.faults.held, op)
		}
		s.faults.mu.Unlock()
	}
}

func (h *hold) release() { h.once.Do(func() { close(h.released) }) }

// enter applies the faults to a call of op: it waits if the call is held,
// then returns the failure asked for, if any.
func (f *faults) enter(ctx context.Context, op string) error {
	f.mu.Lock()
	h := f.held[op]
	delete(f.held, op)
	f.mu.Unlock()
	if h != nil {
		close(h.arrived)
		select {
		case <-h.released:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err, ok := f.next[op]; ok {
		delete(f.next, op)
		return err
	}
	return f.always[op]
}
