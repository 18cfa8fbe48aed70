package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	cupid "github.com/cupid-match/cupid"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// CreateTickets stores new waiting tickets in one transaction and says what
// became of each (see cupid.Store; the storetest package pins the details).
//
// Intake speed is the driver's cost per statement, so the usual batch —
// new request ids, players with no live ticket in the queue, nobody twice
// in the batch — is stored optimistically in three statements (tickets,
// their players in the player index, created events) without reading
// anything first: the request id's UNIQUE constraint and the player index's
// primary key fail an insert if the optimism was wrong. Then, or
// when the batch itself repeats a request id or a player, the transaction
// starts over carefully: it reads the stored tickets of the batch's request
// ids and its players' live tickets, decides ticket by ticket in Go, and
// writes the outcome. Retries, duplicates and replacements are rare, so the
// wasted first attempt (no fsync: it never commits) costs little overall.
func (s *Store) CreateTickets(ctx context.Context, ts []cupid.NewTicket) ([]cupid.Created, []cupid.Event, error) {
	if err := cupid.CheckNewTickets(ts); err != nil {
		return nil, nil, err
	}
	// Copy and encode outside the transaction, which holds the only
	// writer.
	fr := make([]*cupid.Ticket, len(ts))
	bodies := make([][]byte, len(ts))
	for i, n := range ts {
		fr[i] = n.Ticket.AsNew()
		b, err := json.Marshal(fr[i])
		if err != nil {
			return nil, nil, fmt.Errorf("sqlite: encode ticket %s: %w", n.Ticket.ID, err)
		}
		bodies[i] = b
	}
	if simpleBatch(ts) {
		p := simplePlan(fr, bodies)
		err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			return s.apply(ctx, tx, p)
		})
		if err == nil {
			return p.results()
		}
		if !isConstraint(err) {
			return nil, nil, err
		}
	}
	var p *plan
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		lk, err := s.lookup(ctx, tx, ts)
		if err != nil {
			return err
		}
		p = resolve(ts, fr, bodies, lk)
		return s.apply(ctx, tx, p)
	})
	if isConstraint(err) {
		// Request ids and players were read under the write lock, so
		// only a ticket's own id can clash.
		return nil, nil, cupid.Conflict("id", "a ticket id of the batch is taken: %v", err)
	}
	if err != nil {
		return nil, nil, err
	}
	return p.results()
}

type livePair struct{ queue, player string }

// simpleBatch reports whether the batch, on its own, stores every ticket
// as it comes: no request id and no (queue, player) twice. Only then do the
// constraints check everything the careful path would (each ticket's
// request id and each of its players is inserted), so the optimistic
// attempt gives the careful answer whenever it succeeds.
func simpleBatch(ts []cupid.NewTicket) bool {
	rids := make(map[string]bool, len(ts))
	pairs := make(map[livePair]bool, len(ts))
	for _, n := range ts {
		t := n.Ticket
		if t.RequestID != "" {
			if rids[t.RequestID] {
				return false
			}
			rids[t.RequestID] = true
		}
		for _, p := range t.Players {
			k := livePair{t.Key.Queue, p.ID}
			if pairs[k] {
				return false
			}
			pairs[k] = true
		}
	}
	return true
}

// isConstraint reports a failed constraint: in the optimistic attempt, a
// request id or a live player the batch did not know about.
func isConstraint(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}

// lookup is what the careful path reads before deciding: the stored
// tickets with the batch's request ids and the live tickets of its
// players.
type lookup struct {
	byRequest map[string]string        // request id → ticket id
	live      map[livePair]string      // (queue, player) → live ticket id
	tickets   map[string]*cupid.Ticket // the tickets those name, as stored
}

func (s *Store) lookup(ctx context.Context, tx *sql.Tx, ts []cupid.NewTicket) (*lookup, error) {
	lk := &lookup{byRequest: map[string]string{}, live: map[livePair]string{}, tickets: map[string]*cupid.Ticket{}}
	var rids []any
	seenRID := map[string]bool{}
	var pairs []any
	seenPair := map[livePair]bool{}
	for _, n := range ts {
		t := n.Ticket
		if t.RequestID != "" && !seenRID[t.RequestID] {
			seenRID[t.RequestID] = true
			rids = append(rids, t.RequestID)
		}
		for _, p := range t.Players {
			if k := (livePair{t.Key.Queue, p.ID}); !seenPair[k] {
				seenPair[k] = true
				pairs = append(pairs, k.queue, k.player)
			}
		}
	}
	err := s.multi.chunks(ticketsByRequest, len(rids), func(st *sql.Stmt, lo, hi int) error {
		return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, rids[lo:hi]...))(func(r rowScanner) error {
			t, err := scanTicket(r)
			if err != nil {
				return err
			}
			lk.byRequest[t.RequestID] = t.ID
			lk.tickets[t.ID] = t
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	err = s.multi.chunks(liveTickets, len(pairs)/2, func(st *sql.Stmt, lo, hi int) error {
		return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, pairs[2*lo:2*hi]...))(func(r rowScanner) error {
			var k livePair
			t, err := scanTicket(prefixScanner{r, []any{&k.queue, &k.player}})
			if err != nil {
				return err
			}
			lk.live[k] = t.ID
			if lk.tickets[t.ID] == nil {
				lk.tickets[t.ID] = t
			}
			return nil
		})
	})
	return lk, err
}

// prefixScanner scans some leading columns into pre, the rest into what
// its caller asks for.
type prefixScanner struct {
	r   rowScanner
	pre []any
}

func (p prefixScanner) Scan(dest ...any) error {
	return p.r.Scan(append(slices.Clip(p.pre), dest...)...)
}

// plan is the outcome of a batch, decided in Go before anything is written.
type plan struct {
	out []cupid.Created
	// The careful path's results name their tickets, filled in at the end
	// from tickets, so that each shows its ticket as stored when the call
	// ends.
	resultID []string   // the ticket each result shows; "" when refused
	replaced [][]string // the tickets each new ticket replaced
	// tickets are every ticket the careful path touches, as they will be
	// stored when it ends: new ones, and stored ones it replaced or
	// returns.
	tickets map[string]*cupid.Ticket
	cancels []string // stored tickets to cancel (replaced)
	rows    []row    // new tickets to insert, in their final state
	events  []cupid.Event
}

type row struct {
	t    *cupid.Ticket
	body []byte
}

// simplePlan is the plan of a simple batch on an empty store: every ticket
// stored as it comes. It is the optimistic path's, built without resolve's
// maps.
func simplePlan(fr []*cupid.Ticket, bodies [][]byte) *plan {
	p := &plan{out: make([]cupid.Created, len(fr)), rows: make([]row, len(fr)), events: make([]cupid.Event, len(fr))}
	for i, t := range fr {
		p.out[i].Ticket = t
		p.rows[i] = row{t, bodies[i]}
		p.events[i] = cupid.Event{TicketID: t.ID, Kind: cupid.EventCreated, At: t.CreatedAt}
	}
	return p
}

// resolve decides the batch ticket by ticket, in order, as if each were
// stored before the next is looked at: the contract's rules, given what
// the store holds (lk). fr are the batch's tickets as stored new, bodies
// their encodings.
func resolve(ts []cupid.NewTicket, fr []*cupid.Ticket, bodies [][]byte, lk *lookup) *plan {
	p := &plan{
		out: make([]cupid.Created, len(ts)), resultID: make([]string, len(ts)), replaced: make([][]string, len(ts)),
		tickets: make(map[string]*cupid.Ticket, len(ts)+len(lk.tickets)), events: make([]cupid.Event, 0, len(ts)),
	}
	byRequest, live := lk.byRequest, lk.live
	stored := make(map[string]bool, len(lk.tickets)) // tickets stored before the call
	for id, t := range lk.tickets {
		p.tickets[id] = t
		stored[id] = true
	}
	for i, n := range ts {
		t := n.Ticket
		if t.RequestID != "" {
			if id, ok := byRequest[t.RequestID]; ok {
				p.resultID[i] = id
				p.out[i].Existed = true
				continue
			}
		}
		if err := cupid.DuplicatePlayer(t); err != nil {
			p.out[i].Err = err
			continue
		}
		q := t.Key.Queue
		var conflicts []string
		for j, pl := range t.Players {
			id, ok := live[livePair{q, pl.ID}]
			if !ok || slices.Contains(conflicts, id) {
				continue
			}
			if !n.Replace {
				p.out[i].Err = cupid.LiveTicketExists(j, pl.ID, id, q)
				break
			}
			conflicts = append(conflicts, id)
		}
		if p.out[i].Err != nil {
			continue
		}
		for _, id := range conflicts {
			// A ticket of this batch replaced here is inserted
			// cancelled: its row is this same value.
			old := p.tickets[id]
			old.State, old.Reason, old.UpdatedAt = cupid.StateCancelled, cupid.ReplacedReason(t.ID), t.CreatedAt.UTC()
			for _, pl := range old.Players {
				if k := (livePair{old.Key.Queue, pl.ID}); live[k] == id {
					delete(live, k)
				}
			}
			if stored[id] {
				p.cancels = append(p.cancels, id)
			}
			p.events = append(p.events, cupid.Event{TicketID: id, Kind: cupid.EventCancelled, At: t.CreatedAt, Reason: old.Reason})
		}
		p.tickets[t.ID] = fr[i]
		p.rows = append(p.rows, row{fr[i], bodies[i]})
		if t.RequestID != "" {
			byRequest[t.RequestID] = t.ID
		}
		for _, pl := range t.Players {
			live[livePair{q, pl.ID}] = t.ID
		}
		p.events = append(p.events, cupid.Event{TicketID: t.ID, Kind: cupid.EventCreated, At: t.CreatedAt})
		p.resultID[i], p.replaced[i] = t.ID, conflicts
	}
	return p
}

// apply writes a plan: the replaced stored tickets are cancelled first (so
// that their players are free when the new tickets go in), then the new
// tickets go in with their final state, the players of those still waiting
// into the index, then every event in the plan's order, which the sequence
// numbers follow.
func (s *Store) apply(ctx context.Context, tx *sql.Tx, p *plan) error {
	cancelled := make([]*cupid.Ticket, 0, len(p.cancels))
	for _, id := range p.cancels {
		t := p.tickets[id]
		got, err := scanTicket(tx.StmtContext(ctx, s.finish).QueryRowContext(ctx, string(t.State), t.Reason, t.UpdatedAt.UnixNano(), id))
		if err != nil {
			return fmt.Errorf("sqlite: cancel replaced ticket %s: %w", id, err)
		}
		p.tickets[id] = got
		cancelled = append(cancelled, got)
	}
	if err := s.freePlayers(ctx, tx, cancelled...); err != nil {
		return err
	}
	args := make([]any, 0, 8*min(len(p.rows), maxRows))
	err := s.multi.chunks(insertTickets, len(p.rows), func(st *sql.Stmt, lo, hi int) error {
		args = args[:0]
		for _, r := range p.rows[lo:hi] {
			t := r.t
			var rid any
			if t.RequestID != "" {
				rid = t.RequestID
			}
			args = append(args, t.ID, t.Key.Queue, rid, string(t.State), t.CreatedAt.UnixNano(), t.UpdatedAt.UnixNano(), r.body, t.Reason)
		}
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, args...)
		return err
	})
	if err != nil {
		return err
	}
	args = args[:0]
	for _, r := range p.rows {
		if r.t.State != cupid.StateWaiting {
			continue // replaced later in the batch
		}
		for _, pl := range r.t.Players {
			args = append(args, r.t.Key.Queue, pl.ID, r.t.ID)
		}
	}
	err = s.multi.chunks(insertLive, len(args)/3, func(st *sql.Stmt, lo, hi int) error {
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, args[3*lo:3*hi]...)
		return err
	})
	if err != nil {
		return err
	}
	p.events, err = s.insertEvents(ctx, tx, p.events)
	return err
}

// results are the plan's answers. The careful path's get each its own copy
// of its ticket as stored at the end of the call; the optimistic path's
// already hold their own.
func (p *plan) results() ([]cupid.Created, []cupid.Event, error) {
	if p.tickets == nil {
		return p.out, p.events, nil
	}
	for i, id := range p.resultID {
		if id == "" {
			continue
		}
		p.out[i].Ticket = copyTicket(p.tickets[id])
		for _, r := range p.replaced[i] {
			p.out[i].Replaced = append(p.out[i].Replaced, copyTicket(p.tickets[r]))
		}
	}
	return p.out, p.events, nil
}

func copyTicket(t *cupid.Ticket) *cupid.Ticket {
	c := *t
	return &c
}

// insertEvents stores events in the order given, which their sequence
// numbers follow, and returns them with those numbers, in that order. A
// batch of created events only, the common intake, binds two values per
// row instead of five.
//
// RETURNING promises no order, so each row is checked against the event in
// its position and, if it is another's, found by ticket and kind: within
// one call a ticket has at most one event of each kind, since every kind
// but created ends the ticket. (SQLite returns them in order today; the
// check costs a comparison and keeps the code from relying on it.)
func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, evs []cupid.Event) ([]cupid.Event, error) {
	type key struct {
		id   string
		kind cupid.EventKind
	}
	var index map[key]int // built when a row comes out of order
	onlyCreated := true
	for _, e := range evs {
		onlyCreated = onlyCreated && e.Kind == cupid.EventCreated
	}
	kind, width := insertEvents, 5
	if onlyCreated {
		kind, width = insertCreated, 2
	}
	args := make([]any, 0, width*min(len(evs), maxRows))
	err := s.multi.chunks(kind, len(evs), func(st *sql.Stmt, lo, hi int) error {
		args = args[:0]
		for _, e := range evs[lo:hi] {
			if onlyCreated {
				args = append(args, e.TicketID, e.At.UnixNano())
				continue
			}
			var matchID any
			if e.Match != nil {
				matchID = e.Match.ID
			}
			args = append(args, e.TicketID, string(e.Kind), e.At.UnixNano(), matchID, e.Reason)
		}
		next := lo
		return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, args...))(func(r rowScanner) error {
			var k key
			var seq int64
			if err := r.Scan(&seq, &k.id, &k.kind); err != nil {
				return err
			}
			i := next
			if i >= hi || evs[i].TicketID != k.id || evs[i].Kind != k.kind {
				if index == nil {
					index = make(map[key]int, len(evs))
					for j, e := range evs {
						index[key{e.TicketID, e.Kind}] = j
					}
				}
				var ok bool
				if i, ok = index[k]; !ok {
					return fmt.Errorf("sqlite: stored a %s event for ticket %s that was not asked for", k.kind, k.id)
				}
			}
			evs[i].Seq = seq
			next++
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(evs, func(a, b cupid.Event) int { return cmp.Compare(a.Seq, b.Seq) })
	for i := range evs {
		if evs[i].Seq == 0 || (i > 0 && evs[i].Seq == evs[i-1].Seq) {
			return nil, fmt.Errorf("sqlite: %d events asked for, stored events do not match them one to one", len(evs))
		}
	}
	return evs, nil
}
