package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	cupid "github.com/cupid-match/cupid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CreateTickets stores new waiting tickets in one transaction and says what
// became of each (see cupid.Store; the storetest package pins the details).
//
// The usual batch — new request ids, players with no live ticket in their
// queue, nobody twice in the batch — is stored optimistically: its queues'
// create locks (shared), its tickets, their players in the index and their
// created events, four statements in one round trip and one implicit
// transaction, without reading anything first. The request id's UNIQUE
// constraint and the player index's primary key fail it if the optimism was
// wrong, a concurrent transaction's rows included. Then, or when the batch
// itself repeats a request id or a player, the careful path takes its
// queues' create locks exclusively, reads and locks the live tickets it may
// replace, and decides ticket by ticket from what the database holds; it
// runs again if a concurrent create in another queue stored one of its
// request ids after it looked.
func (s *Store) CreateTickets(ctx context.Context, ts []cupid.NewTicket) ([]cupid.Created, []cupid.Event, error) {
	if err := cupid.CheckNewTickets(ts); err != nil {
		return nil, nil, err
	}
	if len(ts) == 0 {
		return []cupid.Created{}, nil, nil
	}
	bodies := make([][]byte, len(ts))
	for i, n := range ts {
		b, err := json.Marshal(n.Ticket.AsNew())
		if err != nil {
			return nil, nil, fmt.Errorf("postgres: encode ticket %s: %w", n.Ticket.ID, err)
		}
		bodies[i] = b
	}
	if simpleBatch(ts) {
		out, evs, err := s.createSimple(ctx, ts, bodies)
		if err == nil {
			return out, evs, nil
		}
		if pgCode(err) != codeUniqueViolation && !retryable(err) {
			return nil, nil, wrap("create tickets", err)
		}
	}
	var out []cupid.Created
	var evs []cupid.Event
	err := retry(ctx, func() error {
		var err error
		out, evs, err = s.createCareful(ctx, ts, bodies)
		if pgCode(err) == codeUniqueViolation {
			// A concurrent transaction stored a ticket with one of
			// the batch's request ids, or a live ticket for one of
			// its players, after this one looked: look again.
			return errors.Join(errTryAgain, err)
		}
		return err
	})
	if err != nil {
		return nil, nil, wrap("create tickets", err)
	}
	return out, evs, nil
}

type livePair struct{ queue, player string }

// simpleBatch reports whether the batch, on its own, stores every ticket as
// it comes: no request id and no (queue, player) twice, and nothing the
// server cannot hold in text. Only then do the constraints check all that
// the careful path would, so the optimistic attempt gives the careful
// answer whenever it succeeds.
func simpleBatch(ts []cupid.NewTicket) bool {
	rids := make(map[string]bool, len(ts))
	pairs := make(map[livePair]bool, len(ts))
	for _, n := range ts {
		t := n.Ticket
		if unstorable(t) != nil {
			return false
		}
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

// unstorable refuses a ticket with a string the server cannot hold in a
// text column, naming the field as Ticket.Validate would.
func unstorable(t *cupid.Ticket) error {
	bad := func(field string) error {
		return cupid.Invalid(field, "must be UTF-8 without NUL bytes: PostgreSQL cannot store it")
	}
	switch {
	case !storable(t.ID):
		return bad("id")
	case !storable(t.Key.Queue):
		return bad("queue")
	case !storable(t.RequestID):
		return bad("request_id")
	}
	for i, p := range t.Players {
		if !storable(p.ID) {
			return bad(fmt.Sprintf("players[%d].id", i))
		}
	}
	return nil
}

// createSimple is the optimistic path: one round trip, one implicit
// transaction (a batch without BEGIN commits at its end, or not at all).
func (s *Store) createSimple(ctx context.Context, ts []cupid.NewTicket, bodies [][]byte) ([]cupid.Created, []cupid.Event, error) {
	out := make([]cupid.Created, len(ts))
	rows := make([]newRow, len(ts))
	evs := make([]cupid.Event, len(ts))
	for i, n := range ts {
		t := n.Ticket.AsNew()
		out[i].Ticket = t
		rows[i] = newRow{t, bodies[i]}
		evs[i] = cupid.Event{TicketID: t.ID, Kind: cupid.EventCreated, At: t.CreatedAt}
	}
	b := &pgx.Batch{}
	b.Queue(shareQueuesSQL, queuesOf(ts), createLockSpace)
	queueInsertTickets(b, rows)
	queueEvents(b, evs)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, err
	}
	return out, evs, nil
}

// lookup is what the careful path reads before deciding: the live tickets
// of the batch's players (locked), the stored tickets with its request ids,
// and which of its ticket ids are taken.
type lookup struct {
	live      map[livePair]string      // (queue, player) → live ticket id
	byRequest map[string]string        // request id → ticket id
	tickets   map[string]*cupid.Ticket // the tickets those name, as read
	taken     map[string]bool          // ticket ids of the batch already stored
}

// lockLiveSQL reads the live tickets of (queue, player) pairs and locks
// them, in id order so that transactions locking overlapping sets queue
// up instead of deadlocking. A ticket that a concurrent transaction ends
// while this waits for it is checked again on the version that transaction
// left, and drops out. No new live ticket can appear for these pairs
// meanwhile: the careful path holds its queues' create locks.
var lockLiveSQL = `SELECT l.queue, l.player_id, ` + ticketColumnsOf("t") + `
FROM unnest($1::text[], $2::text[]) AS v(queue, player_id)
JOIN live_players l ON l.queue = v.queue AND l.player_id = v.player_id
JOIN tickets t ON t.id = l.ticket_id
WHERE ` + stillWaiting("t") + `
ORDER BY t.id
FOR UPDATE OF t`

const byRequestSQL = `SELECT ` + ticketColumns + ` FROM tickets WHERE request_id = ANY($1::text[])`

const takenSQL = `SELECT id FROM tickets WHERE id = ANY($1::text[])`

// The create locks are advisory locks, one per queue, held to the end of
// the transaction: the optimistic path takes its queues' shared, the
// careful path exclusive. Row locks can hold only rows that exist, and the
// careful path depends on rows that do not: a player it finds free must
// stay free until it commits. Without the lock, a stream of optimistic
// creates for the same players could take such a key between its read and
// its insert, again and again, and the careful batch would start over each
// time. With it, the careful path's reads stay true, and creates in a queue
// take turns only while one of them goes the careful way (a retry, a
// replace, a conflict), which is rare; optimistic creates never wait for
// each other. Only creates take these locks, always before anything else
// and in one statement, in key order, so they cannot deadlock among
// themselves.
//
// The key is (createLockSpace, hashtext(queue)): the two-number form of
// advisory locks, a space apart from the migration lock's. Two queues whose
// hashes collide share a lock, which costs only some waiting.
const (
	createLockSpace int32 = 0x63757069 // "cupi" in ASCII
	lockQueuesSQL         = `SELECT pg_advisory_xact_lock($2::int4, h) FROM (SELECT DISTINCT hashtext(q) AS h FROM unnest($1::text[]) AS q) AS k ORDER BY h`
	shareQueuesSQL        = `SELECT pg_advisory_xact_lock_shared($2::int4, h) FROM (SELECT DISTINCT hashtext(q) AS h FROM unnest($1::text[]) AS q) AS k ORDER BY h`
)

// queuesOf lists the distinct storable queues of a batch.
func queuesOf(ts []cupid.NewTicket) []string {
	var qs []string
	for _, n := range ts {
		if q := n.Ticket.Key.Queue; storable(q) && !slices.Contains(qs, q) {
			qs = append(qs, q)
		}
	}
	return qs
}

// createCareful takes its queues' create locks, reads and locks what the
// batch depends on, decides ticket by ticket, and writes the outcome: two
// round trips, the second ending with COMMIT.
func (s *Store) createCareful(ctx context.Context, ts []cupid.NewTicket, bodies [][]byte) ([]cupid.Created, []cupid.Event, error) {
	var qs, ps, rids, ids []string
	seenPair := map[livePair]bool{}
	seenRID := map[string]bool{}
	for _, n := range ts {
		t := n.Ticket
		if unstorable(t) != nil {
			continue // refused whatever the database holds
		}
		ids = append(ids, t.ID)
		if t.RequestID != "" && !seenRID[t.RequestID] {
			seenRID[t.RequestID] = true
			rids = append(rids, t.RequestID)
		}
		for _, p := range t.Players {
			if k := (livePair{t.Key.Queue, p.ID}); !seenPair[k] {
				seenPair[k] = true
				qs, ps = append(qs, k.queue), append(ps, k.player)
			}
		}
	}
	var p *plan
	err := s.inTx(ctx, func(conn *pgxpool.Conn) error {
		lk := &lookup{live: map[livePair]string{}, byRequest: map[string]string{}, tickets: map[string]*cupid.Ticket{}, taken: map[string]bool{}}
		b := &pgx.Batch{}
		queueBegin(b)
		b.Queue(lockQueuesSQL, queuesOf(ts), createLockSpace)
		// The locking read goes before the others: a ticket more than
		// one read returns is kept as the lock holder sees it.
		b.Queue(lockLiveSQL, qs, ps).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var k livePair
				t, err := scanTicket(rows, &k.queue, &k.player)
				if err != nil {
					return err
				}
				lk.live[k] = t.ID
				if lk.tickets[t.ID] == nil {
					lk.tickets[t.ID] = t
				}
			}
			return rows.Err()
		})
		b.Queue(byRequestSQL, rids).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				t, err := scanTicket(rows)
				if err != nil {
					return err
				}
				lk.byRequest[t.RequestID] = t.ID
				if lk.tickets[t.ID] == nil {
					lk.tickets[t.ID] = t
				}
			}
			return rows.Err()
		})
		b.Queue(takenSQL, ids).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					return err
				}
				lk.taken[id] = true
			}
			return rows.Err()
		})
		if err := send(ctx, conn, b); err != nil {
			return err
		}
		var err error
		if p, err = resolve(ts, bodies, lk); err != nil {
			return err
		}
		b = &pgx.Batch{}
		// Replaced tickets end first, so their players are free when
		// the new tickets' players go in.
		queueFinish(b, "cancel replaced tickets", p.cancels)
		queueInsertTickets(b, p.rows)
		queueEvents(b, p.events)
		b.Queue(commitSQL)
		return send(ctx, conn, b)
	})
	if err != nil {
		return nil, nil, err
	}
	return p.results(), p.events, nil
}

// plan is the outcome of a careful batch, decided in Go before anything is
// written.
type plan struct {
	out []cupid.Created
	// The results name their tickets, filled in at the end from tickets,
	// so that each shows its ticket as stored when the call ends.
	resultID []string   // the ticket each result shows; "" when refused
	replaced [][]string // the tickets each new ticket replaced
	// tickets are every ticket the batch touches or returns, as they will
	// be stored when it ends.
	tickets map[string]*cupid.Ticket
	cancels []finishRow // stored tickets to cancel (replaced)
	rows    []newRow    // new tickets to insert, in their final state
	events  []cupid.Event
}

// resolve decides the batch ticket by ticket, in order, as if each were
// stored before the next is looked at: the contract's rules, given what
// the database holds (lk, which it updates as it goes). The only call-level
// outcome is a ticket id already stored.
func resolve(ts []cupid.NewTicket, bodies [][]byte, lk *lookup) (*plan, error) {
	p := &plan{
		out: make([]cupid.Created, len(ts)), resultID: make([]string, len(ts)), replaced: make([][]string, len(ts)),
		tickets: make(map[string]*cupid.Ticket, len(ts)+len(lk.tickets)), events: make([]cupid.Event, 0, len(ts)),
	}
	stored := make(map[string]bool, len(lk.tickets))
	for id, t := range lk.tickets {
		p.tickets[id] = t
		stored[id] = true
	}
	for i, n := range ts {
		t := n.Ticket
		if t.RequestID != "" {
			if id, ok := lk.byRequest[t.RequestID]; ok {
				p.resultID[i], p.out[i].Existed = id, true
				continue
			}
		}
		if err := cupid.DuplicatePlayer(t); err != nil {
			p.out[i].Err = err
			continue
		}
		if err := unstorable(t); err != nil {
			p.out[i].Err = err
			continue
		}
		q := t.Key.Queue
		var conflicts []string
		for j, pl := range t.Players {
			id, ok := lk.live[livePair{q, pl.ID}]
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
		if lk.taken[t.ID] {
			return nil, cupid.Conflict("id", "ticket id %q is taken", t.ID)
		}
		for _, id := range conflicts {
			// A ticket of this batch replaced here is inserted
			// cancelled: its row is this same value.
			old := p.tickets[id]
			old.State, old.Reason, old.UpdatedAt = cupid.StateCancelled, cupid.ReplacedReason(t.ID), t.CreatedAt.UTC()
			for _, pl := range old.Players {
				if k := (livePair{old.Key.Queue, pl.ID}); lk.live[k] == id {
					delete(lk.live, k)
				}
			}
			if stored[id] {
				p.cancels = append(p.cancels, finishRow{id: id, state: string(cupid.StateCancelled), reason: old.Reason, at: t.CreatedAt.UnixNano()})
			}
			p.events = append(p.events, cupid.Event{TicketID: id, Kind: cupid.EventCancelled, At: t.CreatedAt, Reason: old.Reason})
		}
		nt := t.AsNew()
		p.tickets[t.ID] = nt
		p.rows = append(p.rows, newRow{nt, bodies[i]})
		if t.RequestID != "" {
			lk.byRequest[t.RequestID] = t.ID
		}
		for _, pl := range t.Players {
			lk.live[livePair{q, pl.ID}] = t.ID
		}
		p.events = append(p.events, cupid.Event{TicketID: t.ID, Kind: cupid.EventCreated, At: t.CreatedAt})
		p.resultID[i], p.replaced[i] = t.ID, conflicts
	}
	return p, nil
}

// results are the plan's answers, each with its own copy of its ticket as
// stored at the end of the call.
func (p *plan) results() []cupid.Created {
	for i, id := range p.resultID {
		if id == "" {
			continue
		}
		p.out[i].Ticket = copyTicket(p.tickets[id])
		for _, r := range p.replaced[i] {
			p.out[i].Replaced = append(p.out[i].Replaced, copyTicket(p.tickets[r]))
		}
	}
	return p.out
}

func copyTicket(t *cupid.Ticket) *cupid.Ticket {
	c := *t
	return &c
}
