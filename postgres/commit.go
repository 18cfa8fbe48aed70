package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// CommitMatches stores each match atomically with its tickets' state
// change, in one transaction for the batch. A match naming a ticket that is
// not waiting (cancelled meanwhile, in another match, unknown) is refused
// whole and changes nothing. A stored match cancels its players' live
// tickets in other queues, so no player is in two matches.
//
// Two round trips. The first begins the transaction and locks, in one pass
// in id order, every ticket the batch names and the other live tickets of
// their players, which it may cancel; then, with those held, it reads the
// others with what the contract needs to name them, and which match ids
// are taken. Go then decides match by match, as if each were stored before the
// next is looked at. The second round trip writes every ticket's new state
// in one statement, the matches in another, the events in a third, and
// commits.
//
// Why this is safe against a concurrent commit on another node: each
// commit holds its own tickets and its players' other live tickets before
// it decides. Two commits sharing a player each find the other's ticket
// live and lock it, so one waits for the other; the later one then finds
// its ticket cancelled and refuses the match.
func (s *Store) CommitMatches(ctx context.Context, fence cupid.Fence, ms []*cupid.Match) ([]cupid.Committed, []cupid.Event, error) {
	if _, err := lifecycle.CheckMatches(ms); err != nil {
		return nil, nil, err
	}
	if len(ms) == 0 {
		return []cupid.Committed{}, nil, nil
	}
	bodies := make([][]byte, len(ms))
	for i, m := range ms {
		if !storable(m.ID) {
			return nil, nil, cupid.Invalid(fmt.Sprintf("matches[%d].id", i), "must be UTF-8 without NUL bytes: PostgreSQL cannot store it")
		}
		b, err := json.Marshal(m)
		if err != nil {
			return nil, nil, fmt.Errorf("postgres: encode match %s: %w", m.ID, err)
		}
		bodies[i] = b
	}
	var out []cupid.Committed
	var evs []cupid.Event
	err := retry(ctx, func() error {
		var err error
		out, evs, err = s.commitOnce(ctx, fence, ms, bodies)
		if pgCode(err) == codeUniqueViolation {
			// A concurrent transaction stored a match with one of
			// these ids: the next attempt reads it as taken.
			return errors.Join(errTryAgain, err)
		}
		return err
	})
	if err != nil {
		return nil, nil, wrap("commit matches", fenced(err))
	}
	return out, evs, nil
}

// lockTicketsSQL locks, in one pass in id order, the batch's tickets and
// the other live tickets of their players, which a commit may cancel, and
// reads their states as the lock holder sees them. Taking both sets in one
// sorted pass is what keeps two commits sharing a player (in two queues,
// from two nodes) from deadlocking: each wants the other's ticket, and
// both ask for the lower id first.
//
// Each lookup is a LATERAL subquery that the planner cannot merge into a
// join (OFFSET 0, FOR UPDATE), so each is an index probe per array element
// whatever the statistics say: with none (a table autovacuum has not
// analysed yet), a join was planned as a scan of the whole player index
// and of every ticket ever stored. The ids are sorted before the tickets
// are probed, and a nested loop keeps that order, so the locks are taken
// in id order.
var lockTicketsSQL = `SELECT t.id, t.state
FROM (
	SELECT x.id FROM unnest($1::text[]) AS x(id)
	UNION
	SELECT o.ticket_id FROM unnest($1::text[]) AS x(id)
	CROSS JOIN LATERAL (SELECT player_id FROM live_players WHERE ticket_id = x.id OFFSET 0) AS m
	CROSS JOIN LATERAL (SELECT ticket_id FROM live_players WHERE player_id = m.player_id OFFSET 0) AS o
	ORDER BY 1
) AS k(id)
CROSS JOIN LATERAL (SELECT id, state FROM tickets WHERE id = k.id FOR UPDATE) AS t`

// othersSQL reads, for the batch's tickets, the other live tickets of their
// players: rows of (matched ticket, shared player, its queue, the other
// ticket). It runs after lockTicketsSQL, with a snapshot taken once those
// locks were granted, so the batch's waiting tickets and their index rows
// cannot change any more. A ticket created for one of their players in
// between is locked here, outside the id order (a deadlock the server
// breaks is possible then, and the attempt runs again); the others are
// held already. Its lookups are index probes as in lockTicketsSQL.
var othersSQL = `SELECT x.id, m.player_id, m.queue, ` + ticketColumnsOf("t") + `
FROM unnest($1::text[]) AS x(id)
CROSS JOIN LATERAL (SELECT player_id, queue FROM live_players WHERE ticket_id = x.id OFFSET 0) AS m
CROSS JOIN LATERAL (SELECT ticket_id FROM live_players WHERE player_id = m.player_id AND ticket_id <> x.id OFFSET 0) AS o
CROSS JOIN LATERAL (SELECT * FROM tickets AS w WHERE w.id = o.ticket_id AND ` + stillWaiting("w") + ` FOR UPDATE) AS t`

// takenMatchesSQL reads which of the batch's match ids are stored already,
// by a probe of the primary key per id (a LATERAL subquery the planner
// cannot merge, as in lockTicketsSQL): "id = ANY($1)" was planned, with no
// statistics, as a scan of every match ever stored.
const takenMatchesSQL = `SELECT m.id FROM unnest($1::text[]) AS x(id)
CROSS JOIN LATERAL (SELECT id FROM matches WHERE id = x.id OFFSET 0) AS m`

// busySQL reads the live matches the players of the batch's waiting tickets
// are in (a player is in one at most). Its lookups are index probes as in
// lockTicketsSQL: as joins, they were planned as a read of the whole index
// of players in matches, which under bulk intake holds every match formed
// and not yet ended.
const busySQL = `SELECT l.ticket_id, mp.player_id, mp.match_id FROM unnest($1::text[]) AS x(id)
CROSS JOIN LATERAL (SELECT ticket_id, player_id FROM live_players WHERE ticket_id = x.id OFFSET 0) AS l
CROSS JOIN LATERAL (SELECT player_id, match_id FROM match_players WHERE player_id = l.player_id OFFSET 0) AS mp`

// queueCommitBegin starts a commit's transaction: queueBegin's, and no
// bitmap scans to its end. Every lookup of a commit is a probe of an index
// by one key that finds a row or a few (a ticket's players, a player's live
// tickets); without statistics the planner expects hundreds and plans each
// probe as a bitmap, built and then read, which costs the backend more than
// the plain index scan it plans with statistics. A commit under bulk intake
// makes thousands of these probes: turning bitmaps off took a fifth to a
// third off its two locking reads (lockTicketsSQL, othersSQL).
func queueCommitBegin(b *pgx.Batch) {
	queueBegin(b)
	b.Queue(noBitmapsSQL)
}

const noBitmapsSQL = `SELECT set_config('enable_bitmapscan', 'off', true)`

func (s *Store) commitOnce(ctx context.Context, fence cupid.Fence, ms []*cupid.Match, bodies [][]byte) ([]cupid.Committed, []cupid.Event, error) {
	var ids, mids []string
	seen := map[string]bool{}
	for _, m := range ms {
		mids = append(mids, m.ID)
		for _, id := range m.TicketIDs() {
			if !seen[id] && storable(id) {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	tids, _ := lifecycle.CheckMatches(ms)
	var p *lifecycle.CommitPlan
	err := s.inTx(ctx, func(conn *pgxpool.Conn) error {
		state := map[string]cupid.TicketState{}
		var others []lifecycle.Other
		otherTickets := map[string]*cupid.Ticket{}
		taken := map[string]bool{}
		b := &pgx.Batch{}
		queueCommitBegin(b)
		queueFenceBegin(fence, b)
		b.Queue(lockTicketsSQL, ids).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id, st string
				if err := rows.Scan(&id, &st); err != nil {
					return err
				}
				state[id] = cupid.TicketState(st)
			}
			return rows.Err()
		})
		b.Queue(othersSQL, ids).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var o lifecycle.Other
				t, err := scanTicket(rows, &o.Mine, &o.Player, &o.Queue)
				if err != nil {
					return err
				}
				o.Ticket = t.ID
				others = append(others, o)
				if otherTickets[t.ID] == nil {
					otherTickets[t.ID] = t
				}
			}
			return rows.Err()
		})
		var busy []cupid.Busy
		b.Queue(busySQL, ids).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var x cupid.Busy
				if err := rows.Scan(&x.Ticket, &x.Player, &x.Match); err != nil {
					return err
				}
				busy = append(busy, x)
			}
			return rows.Err()
		})
		b.Queue(takenMatchesSQL, mids).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					return err
				}
				taken[id] = true
			}
			return rows.Err()
		})
		if err := send(ctx, conn, b); err != nil {
			return err
		}
		p = lifecycle.PlanCommit(ms, tids, func(id string) bool { return state[id] == cupid.StateWaiting }, others, busy)

		var fin []finishRow
		var stored []int
		for i, m := range ms {
			if !p.Out[i].OK {
				continue
			}
			if taken[m.ID] {
				return cupid.Conflict("match_id", "match id %q is taken", m.ID)
			}
			stored = append(stored, i)
			for _, id := range tids[i] {
				fin = append(fin, finishRow{id: id, state: string(cupid.StateMatched), matchID: m.ID, at: m.CreatedAt.UnixNano()})
			}
		}
		for _, c := range p.Cancels {
			at := ms[c.Match].CreatedAt
			fin = append(fin, finishRow{id: c.Ticket, state: string(cupid.StateCancelled), reason: c.Reason, at: at.UnixNano()})
			t := *otherTickets[c.Ticket]
			t.State, t.Reason, t.UpdatedAt = cupid.StateCancelled, c.Reason, at.UTC()
			p.Out[c.Match].Cancelled = append(p.Out[c.Match].Cancelled, &t)
		}
		b = &pgx.Batch{}
		queueFinish(b, "commit matches", fin)
		if len(stored) > 0 {
			n := len(stored)
			mids, ats, mbodies, states := make([]string, n), make([]int64, n), make([][]byte, n), make([]string, n)
			for j, i := range stored {
				mids[j], ats[j], mbodies[j], states[j] = ms[i].ID, ms[i].CreatedAt.UnixNano(), bodies[i], string(cupid.MatchFormed)
				if !ms[i].AcceptBy.IsZero() {
					states[j] = string(cupid.MatchPending) // not logged until its players accept (lifecycle.Answer)
				}
			}
			b.Queue(insertMatchesSQL, mids, ats, mbodies, states)
			sm := make([]*cupid.Match, n)
			for j, i := range stored {
				sm[j] = ms[i]
			}
			queueIndexMatches(b, sm...)
			queueMatchEvents(b, p.Formed(ms))
		}
		queueEvents(b, p.Events)
		queueFence(fence, b)
		b.Queue(commitSQL)
		return send(ctx, conn, b)
	})
	if err != nil {
		return nil, nil, err
	}
	return p.Out, p.Events, nil
}
