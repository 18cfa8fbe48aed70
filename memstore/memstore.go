// Package memstore is an in-memory cupid.Store and cupid.DocumentStore with
// the same rules as the SQLite store (sequence numbers, per-ticket results,
// reasons, one live ticket per player and queue, cross-queue cancellation on
// a match, documents in id order), so that the services can be unit-tested
// quickly against what production does. The storetest suite holds both
// implementations to one contract.
//
// Nothing is durable. The store is safe for concurrent use: one mutex
// serialises every call, as SQLite's single writer does. Tickets, matches
// and documents are copied on the way in and on the way out, so neither the
// caller's values nor the ones it reads share memory with the store.
//
// # Making it fail
//
// Tests of the layer above need a store that fails or stalls on demand. The
// operations are named after the methods: "CreateTickets", "Ticket",
// "Tickets", "WaitingTickets", "FinishTicket", "CommitMatches", "Match",
// "Events", "MatchRecord", "Matches", "MatchEvents", "AssignMatch",
// "ReleaseMatch", "Ping", "PutDocument", "DeleteDocument", "Documents", and
// the rating store's "SaveResult", "SaveResults", "Result", "PutRatingRows", "RatingRows",
// "RatingHistory" (ratings.go).
//
//   - Fail(op, err) makes every later call of op return err, changing
//     nothing, until Fail(op, nil).
//   - FailNext(op, err) makes only the next call of op return err;
//     FailNext(op, nil) takes back a failure not yet used.
//   - Block(op) holds the next call of op before it does anything, until
//     the returned release function is called (or the call's context
//     ends: the call then returns the context's error). The returned
//     channel is closed when the call arrives, so a test can wait for a
//     commit to be in flight, change the store meanwhile (other calls are
//     not held), then release it.
//
// A held call that is released then checks Fail and FailNext, so a test can
// hold a call and have it fail as well. Naming an unknown operation panics:
// it is a typo in a test.
package memstore

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// Store is the in-memory store. The zero value is not usable; call New.
type Store struct {
	mu sync.Mutex

	tickets   map[string]*cupid.Ticket
	byRequest map[string]string // request id → ticket id
	// live is the player index: player id → queue → the player's live
	// ticket in that queue. Keyed by player first, so a match finds the
	// player's tickets in other queues without a scan.
	live    map[string]map[string]string
	matches map[string]*cupid.Match
	// hand holds each match's hand-off state; mlog is the match log, in
	// sequence order, numbered by mseq.
	hand   map[string]*cupid.MatchRecord
	mlog   []cupid.MatchEvent
	mseq   int64
	events map[string][]cupid.Event // by ticket, in sequence order
	seq    int64
	docs   map[string]map[string][]byte // kind → id → body
	// rt holds the ratings service's rows (ratings.go).
	rt     ratingState
	closed bool

	// undo holds the inverse of every change of the call in progress, so
	// a call-level error leaves the store as it was, like a rolled back
	// transaction.
	undo []func()

	faults faults

	// answers are the ready checks' answers by match (accept.go).
	answers map[string][]cupid.Answer

	// inMatch and byPlayer are the index of players in live matches:
	// match → its players while it is live, player → those matches
	// (tx.go).
	inMatch  map[string][]string
	byPlayer map[string]map[string]bool

	// retention keeps what pruning needs between calls (retention.go).
	retention retentionState
	// enc holds who met whom and the block and avoid lists (encounters.go).
	enc encounterState
}

var (
	_ cupid.Store         = (*Store)(nil)
	_ cupid.DocumentStore = (*Store)(nil)
)

// New returns an empty store.
func New() *Store {
	return &Store{
		tickets:   map[string]*cupid.Ticket{},
		byRequest: map[string]string{},
		live:      map[string]map[string]string{},
		matches:   map[string]*cupid.Match{},
		hand:      map[string]*cupid.MatchRecord{},
		events:    map[string][]cupid.Event{},
		docs:      map[string]map[string][]byte{},
		inMatch:   map[string][]string{},
		byPlayer:  map[string]map[string]bool{},
		faults:    faults{always: map[string]error{}, next: map[string]error{}, held: map[string]*hold{}},
	}
}

// errClosed is returned by every call after Close.
var errClosed = errors.New("memstore: closed")

// begin runs the fault checks of op (outside the lock, so that a held call
// does not hold up the others), then takes the lock. On success the caller
// must call s.end.
func (s *Store) begin(ctx context.Context, op string) error {
	if err := s.faults.enter(ctx, op); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed
	}
	return nil
}

// end commits (err == nil) or undoes the call's changes and releases the
// lock.
func (s *Store) end(err error) {
	if err != nil {
		for i := len(s.undo) - 1; i >= 0; i-- {
			s.undo[i]()
		}
	}
	s.undo = s.undo[:0]
	s.mu.Unlock()
}

// The setters below are the only ways state changes, each recording its
// inverse.

func (s *Store) putTicket(t *cupid.Ticket) {
	old, had := s.tickets[t.ID]
	s.tickets[t.ID] = t
	s.undo = append(s.undo, func() {
		if had {
			s.tickets[t.ID] = old
		} else {
			delete(s.tickets, t.ID)
		}
	})
}

func (s *Store) putRequest(rid, id string) {
	s.byRequest[rid] = id
	s.undo = append(s.undo, func() { delete(s.byRequest, rid) })
}

// setLive records id as player's live ticket in queue, or removes the
// entry when id is empty.
func (s *Store) setLive(player, queue, id string) {
	old, had := s.live[player][queue]
	set := func(v string, keep bool) {
		if !keep {
			delete(s.live[player], queue)
			if len(s.live[player]) == 0 {
				delete(s.live, player)
			}
			return
		}
		if s.live[player] == nil {
			s.live[player] = map[string]string{}
		}
		s.live[player][queue] = v
	}
	set(id, id != "")
	s.undo = append(s.undo, func() { set(old, had) })
}

func (s *Store) addEvent(e cupid.Event) cupid.Event {
	s.seq++
	e.Seq = s.seq
	s.events[e.TicketID] = append(s.events[e.TicketID], e)
	s.undo = append(s.undo, func() {
		s.seq--
		evs := s.events[e.TicketID]
		if len(evs) == 1 {
			delete(s.events, e.TicketID)
		} else {
			s.events[e.TicketID] = evs[:len(evs)-1]
		}
	})
	return e
}

func (s *Store) putMatch(m *cupid.Match) {
	s.matches[m.ID] = m
	s.undo = append(s.undo, func() { delete(s.matches, m.ID) })
}

// CreateTickets stores new waiting tickets as lifecycle.PlanCreate decides
// from the store's maps.
func (s *Store) CreateTickets(ctx context.Context, ts []cupid.NewTicket) (out []cupid.Created, events []cupid.Event, err error) {
	if err := s.begin(ctx, "CreateTickets"); err != nil {
		return nil, nil, err
	}
	defer func() { s.end(err) }()
	if err := lifecycle.CheckNewTickets(ts); err != nil {
		return nil, nil, err
	}
	lk := lifecycle.NewLookup()
	pairs, rids := lifecycle.Pairs(ts)
	for _, k := range pairs {
		if id, ok := s.live[k.Player][k.Queue]; ok {
			lk.Live[k], lk.Tickets[id] = id, cloneTicket(s.tickets[id])
		}
	}
	for _, rid := range rids {
		if id, ok := s.byRequest[rid]; ok {
			lk.ByRequest[rid], lk.Tickets[id] = id, cloneTicket(s.tickets[id])
		}
	}
	for _, n := range ts {
		if _, ok := s.tickets[n.Ticket.ID]; ok {
			lk.Taken[n.Ticket.ID] = true
		}
	}
	fresh := lifecycle.Fresh(ts)
	p, err := lifecycle.PlanCreate(ts, fresh, lk, nil)
	if err != nil {
		return nil, nil, err
	}
	for _, t := range p.Cancels {
		s.end1(t)
	}
	for _, r := range p.Rows {
		t := cloneTicket(r.Ticket)
		s.putTicket(t)
		if t.RequestID != "" {
			s.putRequest(t.RequestID, t.ID)
		}
		if t.State == cupid.StateWaiting {
			for _, pl := range t.Players {
				s.setLive(pl.ID, t.Key.Queue, t.ID)
			}
		}
	}
	for i, e := range p.Events {
		p.Events[i] = s.addEvent(e)
	}
	return p.Results(), p.Events, nil
}

// end1 stores a waiting ticket's end (t as it now is) and frees its
// players.
func (s *Store) end1(t *cupid.Ticket) {
	s.putTicket(cloneTicket(t))
	for _, p := range t.Players {
		if s.live[p.ID][t.Key.Queue] == t.ID {
			s.setLive(p.ID, t.Key.Queue, "")
		}
	}
}

// Ticket returns a copy of one ticket.
func (s *Store) Ticket(ctx context.Context, id string) (*cupid.Ticket, error) {
	if err := s.begin(ctx, "Ticket"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	t, ok := s.tickets[id]
	if !ok {
		return nil, cupid.NotFound("id", "no ticket %q", id)
	}
	return cloneTicket(t), nil
}

// Tickets lists copies of the tickets f selects, oldest first.
func (s *Store) Tickets(ctx context.Context, f cupid.TicketFilter) ([]*cupid.Ticket, error) {
	if err := s.begin(ctx, "Tickets"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	if len(f.IDs) > cupid.MaxFilterIDs {
		return nil, cupid.Invalid("ids", "at most %d, got %d", cupid.MaxFilterIDs, len(f.IDs))
	}
	return s.list(func(t *cupid.Ticket) bool {
		return (f.Queue == "" || t.Key.Queue == f.Queue) && (f.State == "" || t.State == f.State) &&
			(len(f.IDs) == 0 || slices.Contains(f.IDs, t.ID))
	}, f.Limit), nil
}

// WaitingTickets lists copies of the waiting tickets, oldest first.
func (s *Store) WaitingTickets(ctx context.Context) ([]*cupid.Ticket, error) {
	if err := s.begin(ctx, "WaitingTickets"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	return s.list(func(t *cupid.Ticket) bool { return t.State == cupid.StateWaiting }, 0), nil
}

// list sorts on every call: this store is for tests, where a few thousand
// tickets are many.
func (s *Store) list(keep func(*cupid.Ticket) bool, limit int) []*cupid.Ticket {
	var out []*cupid.Ticket
	for _, t := range s.tickets {
		if keep(t) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *cupid.Ticket) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	for i, t := range out {
		out[i] = cloneTicket(t)
	}
	return out
}

// CommitMatches stores the matches lifecycle.PlanCommit decides to.
func (s *Store) CommitMatches(ctx context.Context, fence cupid.Fence, ms []*cupid.Match) (out []cupid.Committed, events []cupid.Event, err error) {
	ids, err := lifecycle.CheckMatches(ms)
	if err != nil {
		return nil, nil, err
	}
	if err := s.begin(ctx, "CommitMatches"); err != nil {
		return nil, nil, err
	}
	defer func() { s.end(err) }()
	var others []lifecycle.Other
	for _, tids := range ids {
		for _, id := range tids {
			t, ok := s.tickets[id]
			if !ok || t.State != cupid.StateWaiting {
				continue
			}
			for _, p := range t.Players {
				for _, other := range s.live[p.ID] {
					if other != id {
						others = append(others, lifecycle.Other{Mine: id, Player: p.ID, Queue: t.Key.Queue, Ticket: other})
					}
				}
			}
		}
	}
	var busy []cupid.Busy
	for _, tids := range ids {
		for _, id := range tids {
			if t, ok := s.tickets[id]; ok && t.State == cupid.StateWaiting {
				for _, p := range t.Players {
					for _, m := range slices.Sorted(maps.Keys(s.byPlayer[p.ID])) {
						busy = append(busy, cupid.Busy{Ticket: id, Player: p.ID, Match: m})
					}
				}
			}
		}
	}
	p := lifecycle.PlanCommit(ms, ids, func(id string) bool {
		t, ok := s.tickets[id]
		return ok && t.State == cupid.StateWaiting
	}, others, busy)
	stored := make([]*cupid.Match, len(ms))
	for i, m := range ms {
		if p.Out[i].OK {
			if _, taken := s.matches[m.ID]; taken {
				return nil, nil, cupid.Conflict("match_id", "match id %q is taken", m.ID)
			}
			stored[i] = m.Clone()
			s.putMatch(stored[i])
			state := cupid.MatchFormed
			if !m.AcceptBy.IsZero() {
				state = cupid.MatchPending // not in the log until its players accept (lifecycle.Answer)
			}
			s.setHand(&cupid.MatchRecord{Match: stored[i], State: state, UpdatedAt: m.CreatedAt.UTC()})
			s.indexMatch(stored[i], true)
		}
	}
	for id, i := range p.Matched {
		t := *s.tickets[id]
		t.State, t.MatchID, t.UpdatedAt = cupid.StateMatched, ms[i].ID, ms[i].CreatedAt.UTC()
		s.end1(&t)
	}
	for _, c := range p.Cancels {
		t := *s.tickets[c.Ticket]
		t.State, t.Reason, t.UpdatedAt = cupid.StateCancelled, c.Reason, ms[c.Match].CreatedAt.UTC()
		s.end1(&t)
		p.Out[c.Match].Cancelled = append(p.Out[c.Match].Cancelled, cloneTicket(&t))
	}
	for _, e := range p.Formed(ms) {
		c := *e
		c.Match = nil
		*e = s.logMatch(c)
	}
	for i, e := range p.Events {
		if e.Match != nil {
			e.Match = stored[p.Matched[e.TicketID]]
		}
		p.Events[i] = s.addEvent(e)
		p.Events[i].Match = e.Match.Clone()
	}
	return p.Out, p.Events, nil
}

// Match returns a copy of a committed match.
func (s *Store) Match(ctx context.Context, id string) (*cupid.Match, error) {
	if err := s.begin(ctx, "Match"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	m, ok := s.matches[id]
	if !ok {
		return nil, cupid.NotFound("match_id", "no match %q", id)
	}
	return m.Clone(), nil
}

// Events returns a ticket's events after seq, matched events with a copy
// of their match.
func (s *Store) Events(ctx context.Context, ticketID string, afterSeq int64) ([]cupid.Event, error) {
	if err := s.begin(ctx, "Events"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	var out []cupid.Event
	for _, e := range s.events[ticketID] {
		if e.Seq > afterSeq {
			if e.Match != nil && s.matches[e.Match.ID] != nil {
				e.Match = s.matches[e.Match.ID] // as it is now, as the SQL stores read it
			}
			e.Match, e.Assignment = e.Match.Clone(), cloneAssignment(e.Assignment)
			out = append(out, e)
		}
	}
	return out, nil
}

// Ping succeeds unless told to fail; there is nothing to write.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.begin(ctx, "Ping"); err != nil {
		return err
	}
	s.end(nil)
	return nil
}

// Close makes every later call fail. Calls held by Block stay held until
// released.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// PutDocument stores a copy of body under kind and id, replacing any
// earlier one.
func (s *Store) PutDocument(ctx context.Context, fence cupid.Fence, kind, id string, body []byte, now time.Time) error {
	if err := s.begin(ctx, "PutDocument"); err != nil {
		return err
	}
	defer s.end(nil)
	if s.docs[kind] == nil {
		s.docs[kind] = map[string][]byte{}
	}
	s.docs[kind][id] = slices.Clone(body)
	return nil
}

// DeleteDocument removes a document; removing a missing one is not an error.
func (s *Store) DeleteDocument(ctx context.Context, fence cupid.Fence, kind, id string) error {
	if err := s.begin(ctx, "DeleteDocument"); err != nil {
		return err
	}
	defer s.end(nil)
	delete(s.docs[kind], id)
	return nil
}

// Documents lists copies of a kind's documents in id order after the
// cursor (exclusive), at most limit of them (all when limit ≤ 0).
func (s *Store) Documents(ctx context.Context, kind, after string, limit int) ([]cupid.Document, error) {
	if err := s.begin(ctx, "Documents"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	var out []cupid.Document
	for _, id := range slices.Sorted(maps.Keys(s.docs[kind])) {
		if id <= after {
			continue
		}
		if limit > 0 && len(out) == limit {
			break
		}
		out = append(out, cupid.Document{ID: id, Body: slices.Clone(s.docs[kind][id])})
	}
	return out, nil
}

// cloneTicket copies everything a caller could change through a pointer:
// players and their attributes, latencies, ticket attributes.
func cloneTicket(t *cupid.Ticket) *cupid.Ticket {
	c := *t
	c.Players = slices.Clone(t.Players)
	for i := range c.Players {
		c.Players[i].Attributes = c.Players[i].Attributes.Clone()
	}
	c.Attributes = t.Attributes.Clone()
	c.Latencies = maps.Clone(t.Latencies)
	return &c
}
