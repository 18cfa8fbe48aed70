package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// maxRows bounds the rows of one multi-row statement (SQLite allows 32,766
// bound values, far above 7 × maxRows).
const maxRows = 128

// multiKind is a statement repeated over n rows: head, then the row (or the
// "?" of an IN list) n times joined by sep, then tail.
type multiKind struct {
	name           string
	head, row, sep string
	tail           string
}

var (
	insertTickets = &multiKind{name: "insert tickets",
		head: `INSERT INTO tickets (id, queue, request_id, state, created_at, updated_at, body) VALUES `,
		row:  `(?, ?, ?, ?, ?, ?, ?)`, sep: `, `,
		tail: ` ON CONFLICT (request_id) DO NOTHING RETURNING id`}
	insertCreatedEvents = &multiKind{name: "insert created events",
		head: `INSERT INTO events (ticket_id, kind, at, match_id) VALUES `,
		row:  `(?, 'created', ?, NULL)`, sep: `, `,
		tail: ` RETURNING seq, ticket_id`}
	insertMatchedEvents = &multiKind{name: "insert matched events",
		head: `INSERT INTO events (ticket_id, kind, at, match_id) VALUES `,
		row:  `(?, 'matched', ?, ?)`, sep: `, `,
		tail: ` RETURNING seq, ticket_id`}
	countWaiting = &multiKind{name: "count waiting",
		head: `SELECT count(*) FROM tickets WHERE state = 'waiting' AND id IN (`,
		row:  `?`, sep: `, `, tail: `)`}
	setMatched = &multiKind{name: "set matched",
		head: `UPDATE tickets SET state = 'matched', match_id = ?, updated_at = ? WHERE state = 'waiting' AND id IN (`,
		row:  `?`, sep: `, `, tail: `)`}
)

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

func prepareMulti(db *sql.DB) (multiStmts, error) {
	m := make(multiStmts)
	for _, k := range []*multiKind{insertTickets, insertCreatedEvents, insertMatchedEvents, countWaiting, setMatched} {
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
