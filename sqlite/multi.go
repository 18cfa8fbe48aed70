package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// maxRows bounds the rows of one multi-row statement (SQLite allows 32,766
// bound values, far above 8 × maxRows).
const maxRows = 128

// multiKind is a statement repeated over n rows: head, then the row (or the
// "?" of an IN list) n times joined by sep, then tail.
type multiKind struct {
	name           string
	head, row, sep string
	tail           string
}

// The writes say OR FAIL: with SQLite's default ABORT a multi-row statement
// that may stop half-way first copies every page it changes (that an
// earlier statement of its transaction changed) into a statement journal,
// so that it can undo only itself. Every failure here ends the whole
// transaction anyway (tx rolls it back), so that copy bought nothing; it
// was most of the store's system calls under bulk intake.
var (
	// The request id's UNIQUE constraint fails this on a repeated request.
	insertTickets = &multiKind{name: "insert tickets",
		head: `INSERT OR FAIL INTO tickets (id, queue, request_id, state, created_at, updated_at, body, reason) VALUES `,
		row:  `(?, ?, ?, ?, ?, ?, ?, ?)`, sep: `, `}
	// insertCreated is insertEvents for the common batch of created
	// events only: fewer values to bind per row.
	insertCreated = &multiKind{name: "insert created events",
		head: `INSERT OR FAIL INTO events (ticket_id, kind, at) VALUES `,
		row:  `(?, 'created', ?)`, sep: `, `,
		tail: ` RETURNING seq, ticket_id, kind`}
	insertEvents = &multiKind{name: "insert events",
		head: `INSERT OR FAIL INTO events (ticket_id, kind, at, match_id, reason) VALUES `,
		row:  `(?, ?, ?, ?, ?)`, sep: `, `,
		tail: ` RETURNING seq, ticket_id, kind`}
	// The primary key fails this when a player already has a live
	// ticket in the queue.
	insertLive = &multiKind{name: "insert live players",
		head: `INSERT OR FAIL INTO live_players (queue, player_id, ticket_id) VALUES `,
		row:  `(?, ?, ?)`, sep: `, `}
	insertMatches = &multiKind{name: "insert matches",
		head: `INSERT OR FAIL INTO matches (id, created_at, body, state) VALUES `,
		row:  `(?, ?, ?, ?)`, sep: `, `}
	// matchPlayersOf reads the live matches of players.
	matchPlayersOf = &multiKind{name: "live matches of players",
		head: `SELECT player_id, match_id FROM match_players WHERE player_id IN (`,
		row:  `?`, sep: `, `, tail: `)`}
	insertMatchPlayers = &multiKind{name: "insert players in live matches",
		head: `INSERT OR IGNORE INTO match_players (player_id, match_id) VALUES `,
		row:  `(?, ?)`, sep: `, `}
	ticketsByRequest = &multiKind{name: "tickets by request id",
		head: `SELECT ` + ticketColumns + ` FROM tickets WHERE request_id IN (`,
		row:  `?`, sep: `, `, tail: `)`}
	// liveTickets finds the live tickets of (queue, player) pairs, with
	// the pair that found each.
	liveTickets = &multiKind{name: "live tickets of players",
		head: `SELECT l.queue, l.player_id, ` + ticketColumnsOf("t") + ` FROM (VALUES `,
		row:  `(?, ?)`, sep: `, `,
		tail: `) AS v JOIN live_players l ON l.queue = v.column1 AND l.player_id = v.column2 JOIN tickets t ON t.id = l.ticket_id`}
	// waitingTickets reads which of some tickets wait, with their bodies
	// (for their players). The unary + keeps the planner off the index by
	// state, which would visit every waiting ticket: the ids are the
	// primary key's.
	waitingTickets = &multiKind{name: "waiting tickets' bodies",
		head: `SELECT id, body FROM tickets WHERE id IN (`,
		row:  `?`, sep: `, `, tail: `) AND +state = 'waiting'`}
	// livesOfPlayers are the live tickets of some players, in any queue.
	livesOfPlayers = &multiKind{name: "live tickets of players in any queue",
		head: `SELECT player_id, queue, ticket_id FROM live_players WHERE player_id IN (`,
		row:  `?`, sep: `, `, tail: `)`}
	// deleteLive frees the players of tickets that ended; the ticket id
	// makes sure a row is only removed by the ticket it names.
	deleteLive = &multiKind{name: "delete live players",
		head: `DELETE FROM live_players WHERE (queue, player_id, ticket_id) IN (VALUES `,
		row:  `(?, ?, ?)`, sep: `, `, tail: `)`}
	// setMatched marks tickets matched, each with its own match id and
	// time: (ticket id, match id, time) per row.
	setMatched = &multiKind{name: "set matched",
		head: `UPDATE OR FAIL tickets SET state = 'matched', match_id = v.column2, updated_at = v.column3 FROM (VALUES `,
		row:  `(?, ?, ?)`, sep: `, `, tail: `) AS v WHERE tickets.id = v.column1 AND tickets.state = 'waiting'`}
	// The reads of a lifecycle step (tx.go), in the order of their keys:
	// given sorted keys, the power-of-two runs of chunks come back in order.
	stepTickets = &multiKind{name: "a step's tickets",
		head: `SELECT id, ` + ticketColumns + ` FROM tickets WHERE id IN (`,
		row:  `?`, sep: `, `, tail: `) ORDER BY id`}
	stepLives = &multiKind{name: "a step's live tickets of players",
		head: `SELECT player_id, queue, ticket_id FROM live_players WHERE player_id IN (`,
		row:  `?`, sep: `, `, tail: `) ORDER BY player_id, queue`}
	stepInMatches = &multiKind{name: "a step's players in live matches",
		head: `SELECT player_id, match_id FROM match_players WHERE player_id IN (`,
		row:  `?`, sep: `, `, tail: `) ORDER BY player_id, match_id`}
	// insertMatchEventRows stores match events; AUTOINCREMENT numbers
	// them in the order of the rows.
	insertMatchEventRows = &multiKind{name: "insert match events",
		head: `INSERT OR FAIL INTO match_events (match_id, queue, kind, at, detail) VALUES `,
		row:  `(?, ?, ?, ?, ?)`, sep: `, `,
		tail: ` RETURNING seq, match_id`}
)

var multiKinds = []*multiKind{
	insertTickets, insertLive, insertCreated, insertEvents, insertMatches, insertMatchPlayers, matchPlayersOf, ticketsByRequest, liveTickets,
	waitingTickets, livesOfPlayers, deleteLive, setMatched, insertMatchEventRows,
	stepTickets, stepLives, stepInMatches,
}

// sql is the statement's text for n rows.
func (k *multiKind) sql(n int) string {
	var b strings.Builder
	b.WriteString(k.head)
	for i := range n {
		if i > 0 {
			b.WriteString(k.sep)
		}
		b.WriteString(k.row)
	}
	b.WriteString(k.tail)
	return b.String()
}

// multiStmts holds every kind prepared for each power-of-two row count up
// to maxRows, so that any number of rows is a few statements (35 tickets:
// 32 + 2 + 1) and every statement is prepared once, at Open. They cannot be
// prepared on first use: that happens inside a transaction, which holds
// the only writer connection.
type multiStmts map[multiKey]*sql.Stmt

type multiKey struct {
	kind *multiKind
	n    int
}

// readMultiKinds are the kinds prepared on the readers, outside of any
// transaction.
var readMultiKinds []*multiKind

func prepareMulti(db *sql.DB, kinds []*multiKind) (multiStmts, error) {
	m := make(multiStmts)
	for _, k := range kinds {
		for n := 1; n <= maxRows; n *= 2 {
			st, err := db.Prepare(k.sql(n))
			if err != nil {
				m.close()
				return nil, fmt.Errorf("%s for %d rows: %w", k.name, n, err)
			}
			m[multiKey{k, n}] = st
		}
	}
	return m, nil
}

// chunks cuts n rows into power-of-two runs, largest first, and calls f
// with each run's bounds and its statement; it stops at f's first error.
func (m multiStmts) chunks(k *multiKind, n int, f func(st *sql.Stmt, lo, hi int) error) error {
	lo := 0
	for size := maxRows; size >= 1; size /= 2 {
		for n-lo >= size {
			if err := f(m[multiKey{k, size}], lo, lo+size); err != nil {
				return err
			}
			lo += size
		}
	}
	return nil
}

func (m multiStmts) close() error {
	var errs []error
	for _, st := range m {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}
