package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	cupid "github.com/cupid-match/cupid"
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
func (s *Store) CommitMatches(ctx context.Context, ms []*cupid.Match) ([]cupid.Committed, []cupid.Event, error) {
	if _, err := cupid.CheckMatches(ms); err != nil {
		return nil, nil, err
	}
	if len(ms) == 0 {
		return []cupid.Committed{}, nil, nil
	}
	bodies := make([][]byte, len(ms))
	copies := make([]*cupid.Match, len(ms))
	for i, m := range ms {
		if !storable(m.ID) {
			return nil, nil, cupid.Invalid(fmt.Sprintf("matches[%d].id", i), "must be UTF-8 without NUL bytes: PostgreSQL cannot store it")
		}
		b, err := json.Marshal(m)
		if err != nil {
			return nil, nil, fmt.Errorf("postgres: encode match %s: %w", m.ID, err)
		}
		bodies[i] = b
		// The events carry a copy, decoded from what is stored, so the
		// caller's match and the events' do not share memory.
		copies[i] = new(cupid.Match)
		if err := json.Unmarshal(b, copies[i]); err != nil {
			return nil, nil, fmt.Errorf("postgres: decode match %s: %w", m.ID, err)
		}
	}
	var out []cupid.Committed
	var evs []cupid.Event
	err := retry(ctx, func() error {
		var err error
		out, evs, err = s.commitOnce(ctx, ms, bodies, copies)
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

const takenMatchesSQL = `SELECT id FROM matches WHERE id = ANY($1::text[])`

// other is a live ticket of a player of a matched ticket, in another queue.
type other struct{ ticket, player, queue string }

func (s *Store) commitOnce(ctx context.Context, ms []*cupid.Match, bodies [][]byte, copies []*cupid.Match) ([]cupid.Committed, []cupid.Event, error) {
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
	out := make([]cupid.Committed, len(ms))
	var events []cupid.Event
	err := s.inTx(ctx, func(conn *pgxpool.Conn) error {
		state := map[string]cupid.TicketState{}
		othersOf := map[string][]other{}
		otherTickets := map[string]*cupid.Ticket{}
		taken := map[string]bool{}
		b := &pgx.Batch{}
		queueBegin(b)
		queueFenceBegin(ctx, b)
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
				var mine string
				var o other
				t, err := scanTicket(rows, &mine, &o.player, &o.queue)
				if err != nil {
					return err
				}
				o.ticket = t.ID
				othersOf[mine] = append(othersOf[mine], o)
				if otherTickets[t.ID] == nil {
					otherTickets[t.ID] = t
				}
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
		for id := range otherTickets {
			if _, ok := state[id]; !ok {
				state[id] = cupid.StateWaiting // locked waiting by othersSQL
			}
		}

		var fin []finishRow
		var stored []int
		for i, m := range ms {
			tids := m.TicketIDs()
			for _, id := range tids {
				if state[id] != cupid.StateWaiting {
					out[i].NotWaiting = append(out[i].NotWaiting, id)
				}
			}
			if len(out[i].NotWaiting) > 0 {
				continue
			}
			if taken[m.ID] {
				return cupid.Conflict("match_id", "match id %q is taken", m.ID)
			}
			at := m.CreatedAt.UnixNano()
			for _, id := range tids {
				state[id] = cupid.StateMatched
				fin = append(fin, finishRow{id: id, state: string(cupid.StateMatched), matchID: m.ID, at: at})
				events = append(events, cupid.Event{TicketID: id, Kind: matchedKind(m), At: m.CreatedAt, Match: copies[i]})
			}
			// Each other ticket once, in id order, named by the smallest
			// player it shares with the match (then the smallest queue).
			why := map[string]other{}
			for _, id := range tids {
				for _, o := range othersOf[id] {
					if slices.Contains(tids, o.ticket) || state[o.ticket] != cupid.StateWaiting {
						continue
					}
					w, ok := why[o.ticket]
					if !ok || o.player < w.player || (o.player == w.player && o.queue < w.queue) {
						why[o.ticket] = o
					}
				}
			}
			for _, oid := range slices.Sorted(maps.Keys(why)) {
				w := why[oid]
				reason := cupid.MatchedElsewhereReason(w.player, w.queue, m.ID)
				state[oid] = cupid.StateCancelled
				fin = append(fin, finishRow{id: oid, state: string(cupid.StateCancelled), reason: reason, at: at})
				t := copyTicket(otherTickets[oid])
				t.State, t.Reason, t.UpdatedAt = cupid.StateCancelled, reason, m.CreatedAt.UTC()
				out[i].Cancelled = append(out[i].Cancelled, t)
				events = append(events, cupid.Event{TicketID: oid, Kind: cupid.EventCancelled, At: m.CreatedAt, Reason: reason})
			}
			out[i].OK = true
			stored = append(stored, i)
		}

		b = &pgx.Batch{}
		queueFinish(b, "commit matches", fin)
		if len(stored) > 0 {
			n := len(stored)
			mids, ats, mbodies := make([]string, n), make([]int64, n), make([][]byte, n)
			for j, i := range stored {
				mids[j], ats[j], mbodies[j] = ms[i].ID, ms[i].CreatedAt.UnixNano(), bodies[i]
			}
			b.Queue(insertMatchesSQL, mids, ats, mbodies)
			queuePending(b, ms, stored)
			queueFormed(b, ms, stored, out)
		}
		queueEvents(b, events)
		queueFence(ctx, b)
		b.Queue(commitSQL)
		return send(ctx, conn, b)
	})
	if err != nil {
		return nil, nil, err
	}
	return out, events, nil
}
