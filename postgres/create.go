package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/columns"
	"github.com/cupid-match/cupid/lifecycle"
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
	if err := lifecycle.CheckNewTickets(ts); err != nil {
		return nil, nil, err
	}
	if len(ts) == 0 {
		return []cupid.Created{}, nil, nil
	}
	fresh := lifecycle.Fresh(ts)
	bodies, err := columns.TicketBodies(fresh)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: %w", err)
	}
	if simpleBatch(ts) {
		out, evs, err := s.createSimple(ctx, ts, fresh, bodies)
		if err == nil {
			return out, evs, nil
		}
		if pgCode(err) != codeUniqueViolation && !retryable(err) {
			return nil, nil, wrap("create tickets", err)
		}
	}
	var out []cupid.Created
	var evs []cupid.Event
	err = retry(ctx, func() error {
		var err error
		out, evs, err = s.createCareful(ctx, ts, fresh, bodies)
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

// simpleBatch reports whether the batch can be tried optimistically
// (lifecycle.Simple) and holds nothing the server cannot hold in text. Only
// then do the constraints check all that the careful path would, so the
// optimistic attempt gives the careful answer whenever it succeeds.
func simpleBatch(ts []cupid.NewTicket) bool {
	for _, n := range ts {
		if unstorable(n.Ticket) != nil {
			return false
		}
	}
	return lifecycle.Simple(ts)
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
func (s *Store) createSimple(ctx context.Context, ts []cupid.NewTicket, fresh []*cupid.Ticket, bodies [][]byte) ([]cupid.Created, []cupid.Event, error) {
	p := lifecycle.SimplePlan(fresh)
	b := &pgx.Batch{}
	b.Queue(shareQueuesSQL, queuesOf(ts), createLockSpace)
	queueInsertTickets(b, p.Rows, bodies)
	queueEvents(b, p.Events)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, err
	}
	return p.Results(), p.Events, nil
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
// batch depends on, has the lifecycle decide ticket by ticket, and writes
// the outcome: two round trips, the second ending with COMMIT.
func (s *Store) createCareful(ctx context.Context, ts []cupid.NewTicket, fresh []*cupid.Ticket, bodies [][]byte) ([]cupid.Created, []cupid.Event, error) {
	var ok []cupid.NewTicket
	var ids []string
	for _, n := range ts {
		if unstorable(n.Ticket) == nil { // the others are refused whatever the database holds
			ok = append(ok, n)
			ids = append(ids, n.Ticket.ID)
		}
	}
	pairs, rids := lifecycle.Pairs(ok)
	qs, ps := make([]string, len(pairs)), make([]string, len(pairs))
	for i, k := range pairs {
		qs[i], ps[i] = k.Queue, k.Player
	}
	var p *lifecycle.CreatePlan
	err := s.inTx(ctx, func(conn *pgxpool.Conn) error {
		lk := lifecycle.NewLookup()
		b := &pgx.Batch{}
		queueBegin(b)
		b.Queue(lockQueuesSQL, queuesOf(ts), createLockSpace)
		// The locking read goes before the others: a ticket more than
		// one read returns is kept as the lock holder sees it.
		b.Queue(lockLiveSQL, qs, ps).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var k lifecycle.LivePair
				t, err := scanTicket(rows, &k.Queue, &k.Player)
				if err != nil {
					return err
				}
				lk.Live[k] = t.ID
				if lk.Tickets[t.ID] == nil {
					lk.Tickets[t.ID] = t
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
				lk.ByRequest[t.RequestID] = t.ID
				if lk.Tickets[t.ID] == nil {
					lk.Tickets[t.ID] = t
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
				lk.Taken[id] = true
			}
			return rows.Err()
		})
		if err := send(ctx, conn, b); err != nil {
			return err
		}
		var err error
		if p, err = lifecycle.PlanCreate(ts, fresh, lk, unstorable); err != nil {
			return err
		}
		b = &pgx.Batch{}
		// Replaced tickets end first, so their players are free when
		// the new tickets' players go in.
		var fin []finishRow
		for _, t := range p.Cancels {
			fin = append(fin, finishRow{id: t.ID, state: string(t.State), reason: t.Reason, at: t.UpdatedAt.UnixNano()})
		}
		queueFinish(b, "cancel replaced tickets", fin)
		queueInsertTickets(b, p.Rows, bodies)
		queueEvents(b, p.Events)
		b.Queue(commitSQL)
		return send(ctx, conn, b)
	})
	if err != nil {
		return nil, nil, err
	}
	return p.Results(), p.Events, nil
}
