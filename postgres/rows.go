package postgres

import (
	"cmp"
	"fmt"
	"slices"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/jackc/pgx/v5"
)

// The statements that write many rows take them as arrays, one per column,
// and unnest them: the text is the same whatever the number of rows, so
// each is prepared once per connection, and 256 rows are one statement.

// insertTicketsSQL stores new tickets in their final state (a ticket
// replaced later in its own batch goes in cancelled). The request id's
// UNIQUE constraint and the id's primary key fail it on a repeat.
const insertTicketsSQL = `INSERT INTO tickets (id, queue, request_id, state, created_at, updated_at, reason, body)
SELECT id, queue, NULLIF(rid, ''), state, created, updated, reason, body
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::json[])
	AS v(id, queue, rid, state, created, updated, reason, body)`

// insertLiveSQL indexes the players of new waiting tickets. The primary
// key (queue, player_id) fails it when a player already has a live ticket
// in the queue, including one a concurrent transaction has just stored:
// the insert waits for that transaction to end.
const insertLiveSQL = `INSERT INTO live_players (queue, player_id, ticket_id)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[])`

// insertMatchesSQL stores committed matches.
const insertMatchesSQL = `INSERT INTO matches (id, created_at, body, state)
SELECT * FROM unnest($1::text[], $2::bigint[], $3::json[], $4::text[])`

// stillWaiting is how statements that take tickets by id check that they
// still wait. IS NOT DISTINCT FROM means "=" here (state is never NULL),
// but an index cannot serve it, so the planner cannot prefer the state
// indexes, which list every waiting ticket, to the primary key: without
// statistics (a table autovacuum has not analysed yet) it takes "state =
// 'waiting'" for a rare value, and was seen to read every waiting ticket to
// update 32.
func stillWaiting(alias string) string {
	return alias + `.state IS NOT DISTINCT FROM 'waiting'`
}

// finishSQLMany moves waiting tickets to another state: matched, or
// cancelled with a reason. The rows are locked by the transaction already,
// so the state condition cannot fail; if it did, cupid_expect_rows raises
// an error and the COMMIT later in the same batch is skipped. The trigger
// frees the tickets' players.
var finishSQLMany = `WITH u AS (
	UPDATE tickets t SET state = v.state, match_id = NULLIF(v.match_id, ''), reason = v.reason, updated_at = v.at
	FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) AS v(id, state, match_id, reason, at)
	WHERE t.id = v.id AND ` + stillWaiting("t") + `
	RETURNING 1
)
SELECT cupid_expect_rows($6, count(*), $7) FROM u`

// insertEventsSQL stores events and returns their sequence numbers. The
// numbers are drawn from the sequence first, then handed to the events in
// the order given (by rank), so the i-th event has the i-th smallest
// number whatever order the server evaluates rows in; SQL promises no
// order for a default or for RETURNING, and this does not rely on one.
const insertEventsSQL = `WITH v AS (
	SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[]) WITH ORDINALITY
		AS v(ticket_id, kind, at, match_id, reason, ord)
), s AS (
	SELECT seq, row_number() OVER (ORDER BY seq) AS ord FROM (SELECT nextval('events_seq') AS seq FROM v) AS drawn
)
INSERT INTO events (seq, ticket_id, kind, at, match_id, reason)
SELECT s.seq, v.ticket_id, v.kind, v.at, NULLIF(v.match_id, ''), v.reason FROM v JOIN s ON s.ord = v.ord
RETURNING seq`

// queueInsertTickets queues the inserts of new tickets and of the players
// of those still waiting. The index rows go in sorted by key, so that two
// batches naming the same players lock their keys in the same order rather
// than deadlock.
func queueInsertTickets(b *pgx.Batch, rows []lifecycle.NewRow, bodies [][]byte) {
	if len(rows) == 0 {
		return
	}
	n := len(rows)
	ids, queues, rids, states := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	created, updated := make([]int64, n), make([]int64, n)
	reasons, bodys := make([]string, n), make([][]byte, n)
	type live struct{ queue, player, ticket string }
	var lives []live
	for i, r := range rows {
		t := r.Ticket
		ids[i], queues[i], rids[i], states[i] = t.ID, t.Key.Queue, t.RequestID, string(t.State)
		created[i], updated[i], reasons[i], bodys[i] = t.CreatedAt.UnixNano(), t.UpdatedAt.UnixNano(), t.Reason, bodies[r.Index]
		if t.State == cupid.StateWaiting {
			for _, p := range t.Players {
				lives = append(lives, live{t.Key.Queue, p.ID, t.ID})
			}
		}
	}
	b.Queue(insertTicketsSQL, ids, queues, rids, states, created, updated, reasons, bodys)
	if len(lives) == 0 {
		return
	}
	slices.SortFunc(lives, func(a, b live) int { return cmp.Or(cmp.Compare(a.queue, b.queue), cmp.Compare(a.player, b.player)) })
	lq, lp, lt := make([]string, len(lives)), make([]string, len(lives)), make([]string, len(lives))
	for i, l := range lives {
		lq[i], lp[i], lt[i] = l.queue, l.player, l.ticket
	}
	b.Queue(insertLiveSQL, lq, lp, lt)
}

// finishRow is one waiting ticket's end: its new state, match (when
// matched), reason and time.
type finishRow struct {
	id, state, matchID, reason string
	at                         int64
}

// queueFinish queues the state changes of rows, all of them tickets the
// transaction holds locked and knows to be waiting; what names the step in
// the server's error should that not hold.
func queueFinish(b *pgx.Batch, what string, rows []finishRow) {
	if len(rows) == 0 {
		return
	}
	n := len(rows)
	ids, states, mids, reasons, ats := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]int64, n)
	for i, r := range rows {
		ids[i], states[i], mids[i], reasons[i], ats[i] = r.id, r.state, r.matchID, r.reason, r.at
	}
	b.Queue(finishSQLMany, ids, states, mids, reasons, ats, what, int64(n))
}

// queueEvents queues the insert of evs and fills in their sequence
// numbers, in order, when the batch's results are read.
func queueEvents(b *pgx.Batch, evs []cupid.Event) {
	if len(evs) == 0 {
		return
	}
	n := len(evs)
	tids, kinds, mids, reasons, ats := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]int64, n)
	for i, e := range evs {
		tids[i], kinds[i], reasons[i], ats[i] = e.TicketID, string(e.Kind), e.Reason, e.At.UnixNano()
		if e.Match != nil {
			mids[i] = e.Match.ID
		}
	}
	b.Queue(insertEventsSQL, tids, kinds, ats, mids, reasons).Query(numbered("events", n, func(i int, seq int64) { evs[i].Seq = seq }))
}

// numbered reads the sequence numbers a statement drew for n rows and
// hands them out in order: the i-th row given gets the i-th smallest.
func numbered(what string, n int, set func(i int, seq int64)) func(pgx.Rows) error {
	return func(rows pgx.Rows) error {
		seqs := make([]int64, 0, n)
		for rows.Next() {
			var seq int64
			if err := rows.Scan(&seq); err != nil {
				return err
			}
			seqs = append(seqs, seq)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(seqs) != n {
			return fmt.Errorf("postgres: %d %s stored for %d asked", len(seqs), what, n)
		}
		slices.Sort(seqs)
		for i, seq := range seqs {
			set(i, seq)
		}
		return nil
	}
}
