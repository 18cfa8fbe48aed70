package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/columns"
	"github.com/cupid-match/cupid/lifecycle"
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
	if err := lifecycle.CheckNewTickets(ts); err != nil {
		return nil, nil, err
	}
	// Copy and encode outside the transaction, which holds the only
	// writer.
	fresh := lifecycle.Fresh(ts)
	bodies, err := columns.TicketBodies(fresh)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: %w", err)
	}
	if lifecycle.Simple(ts) {
		p := lifecycle.SimplePlan(fresh)
		err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			return s.apply(ctx, tx, p, bodies)
		})
		if err == nil {
			return p.Results(), p.Events, nil
		}
		if !isConstraint(err) {
			return nil, nil, err
		}
	}
	var p *lifecycle.CreatePlan
	err = s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		lk, err := s.lookup(ctx, tx, ts)
		if err != nil {
			return err
		}
		if p, err = lifecycle.PlanCreate(ts, fresh, lk, nil); err != nil {
			return err
		}
		return s.apply(ctx, tx, p, bodies)
	})
	if isConstraint(err) {
		// Request ids and players were read under the write lock, so
		// only a ticket's own id can clash.
		return nil, nil, cupid.Conflict("id", "a ticket id of the batch is taken: %v", err)
	}
	if err != nil {
		return nil, nil, err
	}
	return p.Results(), p.Events, nil
}

// isConstraint reports a failed constraint: in the optimistic attempt, a
// request id or a live player the batch did not know about.
func isConstraint(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}

// lookup reads what the careful path decides from: the stored tickets
// with the batch's request ids and the live tickets of its players.
func (s *Store) lookup(ctx context.Context, tx *sql.Tx, ts []cupid.NewTicket) (*lifecycle.Lookup, error) {
	lk := lifecycle.NewLookup()
	ps, rs := lifecycle.Pairs(ts)
	rids := make([]any, len(rs))
	for i, r := range rs {
		rids[i] = r
	}
	pairs := make([]any, 0, 2*len(ps))
	for _, k := range ps {
		pairs = append(pairs, k.Queue, k.Player)
	}
	err := s.multi.chunks(ticketsByRequest, len(rids), func(st *sql.Stmt, lo, hi int) error {
		return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, rids[lo:hi]...))(func(r rowScanner) error {
			t, err := scanTicket(r)
			if err != nil {
				return err
			}
			lk.ByRequest[t.RequestID] = t.ID
			lk.Tickets[t.ID] = t
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	err = s.multi.chunks(liveTickets, len(pairs)/2, func(st *sql.Stmt, lo, hi int) error {
		return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, pairs[2*lo:2*hi]...))(func(r rowScanner) error {
			var k lifecycle.LivePair
			t, err := scanTicket(prefixRow{r, []any{&k.Queue, &k.Player}})
			if err != nil {
				return err
			}
			lk.Live[k] = t.ID
			if lk.Tickets[t.ID] == nil {
				lk.Tickets[t.ID] = t
			}
			return nil
		})
	})
	return lk, err
}

// apply writes a plan: the replaced stored tickets are cancelled first (so
// that their players are free when the new tickets go in), then the new
// tickets go in with their final state, the players of those still waiting
// into the index, then every event in the plan's order, which the sequence
// numbers follow.
func (s *Store) apply(ctx context.Context, tx *sql.Tx, p *lifecycle.CreatePlan, bodies [][]byte) error {
	for _, t := range p.Cancels {
		if _, err := tx.StmtContext(ctx, s.finish).ExecContext(ctx, string(t.State), t.Reason, t.UpdatedAt.UnixNano(), t.ID); err != nil {
			return fmt.Errorf("sqlite: cancel replaced ticket %s: %w", t.ID, err)
		}
	}
	if err := s.freePlayers(ctx, tx, p.Cancels...); err != nil {
		return err
	}
	args := make([]any, 0, 8*min(len(p.Rows), maxRows))
	err := s.multi.chunks(insertTickets, len(p.Rows), func(st *sql.Stmt, lo, hi int) error {
		args = args[:0]
		for _, r := range p.Rows[lo:hi] {
			t := r.Ticket
			var rid any
			if t.RequestID != "" {
				rid = t.RequestID
			}
			args = append(args, t.ID, t.Key.Queue, rid, string(t.State), t.CreatedAt.UnixNano(), t.UpdatedAt.UnixNano(), bodies[r.Index], t.Reason)
		}
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, args...)
		return err
	})
	if err != nil {
		return err
	}
	args = args[:0]
	for _, r := range p.Rows {
		if r.Ticket.State != cupid.StateWaiting {
			continue // replaced later in the batch
		}
		for _, pl := range r.Ticket.Players {
			args = append(args, r.Ticket.Key.Queue, pl.ID, r.Ticket.ID)
		}
	}
	err = s.multi.chunks(insertLive, len(args)/3, func(st *sql.Stmt, lo, hi int) error {
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, args[3*lo:3*hi]...)
		return err
	})
	if err != nil {
		return err
	}
	p.Events, err = s.insertEvents(ctx, tx, p.Events)
	return err
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
