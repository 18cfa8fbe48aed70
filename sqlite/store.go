// Package sqlite is Cupid's embedded store: tickets, matches, events and the
// state of pairing events and opponent finders in one SQLite file, through a
// pure-Go driver so the binary needs no C toolchain.
//
// Durability: the database runs in WAL mode with synchronous=FULL, so a
// transaction that returned has reached the disk; the caller acknowledges a
// ticket only after that. Writes go through one connection (SQLite allows one
// writer at a time anyway); the matchmaker batches concurrent creates into one
// transaction, which is what makes thousands of durable tickets per second
// possible with one fsync per batch.
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store implements cupid.Store on SQLite.
type Store struct {
	w *sql.DB // the single writer connection
	r *sql.DB // readers (WAL lets them run beside the writer)

	// Statements prepared once: the driver would otherwise parse the SQL
	// again on every call, which costs more than running it.
	insEvent, ticketByRequest, stateByID, finish, insMatch *sql.Stmt
	getTicket, getEvents, getMatch                         *sql.Stmt

	// multi holds the statements whose text depends on a row count.
	multi multiStmts
}

var _ cupid.Store = (*Store)(nil)

// Open opens (creating if needed) the database file at path and brings its
// schema up to date.
func Open(path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: create data directory: %w", err)
		}
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)&_txlock=immediate"
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	if _, err := w.Exec(schema); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: create schema in %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&mode=ro")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	s := &Store{w: w, r: r}
	if err := s.prepare(); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: prepare statements: %w", err)
	}
	return s, nil
}

func (s *Store) prepare() error {
	for _, p := range []struct {
		db   *sql.DB
		stmt **sql.Stmt
		sql  string
	}{
		{s.w, &s.insEvent, `INSERT INTO events (ticket_id, kind, at, match_id) VALUES (?, ?, ?, ?)`},
		{s.w, &s.ticketByRequest, `SELECT ` + ticketColumns + ` FROM tickets WHERE request_id = ?`},
		{s.w, &s.stateByID, `SELECT state FROM tickets WHERE id = ?`},
		{s.w, &s.finish, `UPDATE tickets SET state = ?, updated_at = ? WHERE id = ? AND state = 'waiting'`},
		{s.w, &s.insMatch, `INSERT INTO matches (id, created_at, body) VALUES (?, ?, ?)`},
		{s.r, &s.getTicket, `SELECT ` + ticketColumns + ` FROM tickets WHERE id = ?`},
		{s.r, &s.getEvents, `SELECT e.seq, e.kind, e.at, e.match_id, m.body FROM events e LEFT JOIN matches m ON m.id = e.match_id WHERE e.ticket_id = ? AND e.seq > ? ORDER BY e.seq`},
		{s.r, &s.getMatch, `SELECT body FROM matches WHERE id = ?`},
	} {
		st, err := p.db.Prepare(p.sql)
		if err != nil {
			return fmt.Errorf("%s: %w", p.sql, err)
		}
		*p.stmt = st
	}
	m, err := prepareMulti(s.w)
	s.multi = m
	return err
}

// ticketColumns are what scanTicket reads. The body holds the ticket as
// created; state, match and update time live in their own columns, so a
// state change rewrites a few bytes instead of the whole ticket.
const ticketColumns = `body, state, match_id, updated_at`

// Close closes both connections.
func (s *Store) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.insEvent, s.ticketByRequest, s.stateByID, s.finish, s.insMatch, s.getTicket, s.getEvents, s.getMatch} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(append(errs, s.multi.close(), s.r.Close(), s.w.Close())...)
}

const schema = `
CREATE TABLE IF NOT EXISTS tickets (
	id         TEXT PRIMARY KEY,
	queue      TEXT NOT NULL,
	request_id TEXT UNIQUE,
	state      TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	match_id   TEXT,
	body       BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS tickets_state ON tickets (state, created_at);
CREATE INDEX IF NOT EXISTS tickets_queue ON tickets (queue, state, created_at);
CREATE TABLE IF NOT EXISTS matches (
	id         TEXT PRIMARY KEY,
	created_at INTEGER NOT NULL,
	body       BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	ticket_id TEXT NOT NULL,
	kind      TEXT NOT NULL,
	at        INTEGER NOT NULL,
	match_id  TEXT
);
CREATE INDEX IF NOT EXISTS events_ticket ON events (ticket_id, seq);
CREATE TABLE IF NOT EXISTS documents (
	kind TEXT NOT NULL,
	id   TEXT NOT NULL,
	body BLOB NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (kind, id)
);
`

// CreateTickets stores the tickets in one transaction. A ticket whose
// RequestID was seen before is not stored again; the earlier one is returned
// in its place.
//
// Rows go in with multi-row statements: the driver's cost per statement,
// not SQLite's own work, dominated when every ticket had statements of its
// own.
func (s *Store) CreateTickets(ctx context.Context, ts []*cupid.Ticket) ([]*cupid.Ticket, []cupid.Event, error) {
	out := make([]*cupid.Ticket, len(ts))
	var events []cupid.Event
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		inserted := make(map[string]bool, len(ts))
		args := make([]any, 0, 7*min(len(ts), maxRows))
		err := s.multi.chunks(insertTickets, len(ts), func(st *sql.Stmt, lo, hi int) error {
			args = args[:0]
			for _, t := range ts[lo:hi] {
				body, err := json.Marshal(t)
				if err != nil {
					return err
				}
				var rid any
				if t.RequestID != "" {
					rid = t.RequestID
				}
				at := t.CreatedAt.UnixNano()
				args = append(args, t.ID, t.Key.Queue, rid, string(t.State), at, at, body)
			}
			// RETURNING names the rows inserted: not those whose request
			// id was taken, by an earlier call or earlier in this batch.
			return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, args...))(func(r rowScanner) error {
				var id string
				err := r.Scan(&id)
				inserted[id] = true
				return err
			})
		})
		if err != nil {
			return err
		}
		var fresh []*cupid.Ticket
		for i, t := range ts {
			if inserted[t.ID] {
				out[i] = t
				fresh = append(fresh, t)
				continue
			}
			prev, err := scanTicket(tx.StmtContext(ctx, s.ticketByRequest).QueryRowContext(ctx, t.RequestID))
			if err != nil {
				return fmt.Errorf("sqlite: ticket %s was not stored and no ticket has its request id: %w", t.ID, err)
			}
			out[i] = prev
		}
		events = make([]cupid.Event, 0, len(fresh))
		return s.multi.chunks(insertCreatedEvents, len(fresh), func(st *sql.Stmt, lo, hi int) error {
			args = args[:0]
			for _, t := range fresh[lo:hi] {
				args = append(args, t.ID, t.CreatedAt.UnixNano())
			}
			return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, args...))(func(r rowScanner) error {
				ev := cupid.Event{Kind: cupid.EventCreated}
				if err := r.Scan(&ev.Seq, &ev.TicketID); err != nil {
					return err
				}
				events = append(events, ev)
				return nil
			})
		})
	})
	if err != nil {
		return nil, nil, err
	}
	// RETURNING promises no order; the ids say whose each event is.
	created := make(map[string]time.Time, len(ts))
	for i, t := range ts {
		if out[i] == t {
			created[t.ID] = t.CreatedAt
		}
	}
	if len(events) != len(created) {
		return nil, nil, fmt.Errorf("sqlite: %d created events for %d new tickets", len(events), len(created))
	}
	for i := range events {
		events[i].At = created[events[i].TicketID]
	}
	slices.SortFunc(events, func(a, b cupid.Event) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, events, nil
}

// scanEach runs f on every row of a query's result and closes it; written
// to take QueryContext's two results directly.
func scanEach(rows *sql.Rows, err error) func(f func(rowScanner) error) error {
	return func(f func(rowScanner) error) error {
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := f(rows); err != nil {
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return rows.Close()
	}
}

// Ticket returns one ticket.
func (s *Store) Ticket(ctx context.Context, id string) (*cupid.Ticket, error) {
	t, err := scanTicket(s.getTicket.QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, cupid.NotFound("id", "no ticket %q", id)
	}
	return t, err
}

// Tickets lists tickets oldest first.
func (s *Store) Tickets(ctx context.Context, f cupid.TicketFilter) ([]*cupid.Ticket, error) {
	var where []string
	var args []any
	if f.Queue != "" {
		where = append(where, "queue = ?")
		args = append(args, f.Queue)
	}
	if f.State != "" {
		where = append(where, "state = ?")
		args = append(args, string(f.State))
	}
	q := `SELECT ` + ticketColumns + ` FROM tickets`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY created_at, id"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return s.queryTickets(ctx, s.r, q, args...)
}

// WaitingTickets returns every waiting ticket, oldest first.
func (s *Store) WaitingTickets(ctx context.Context) ([]*cupid.Ticket, error) {
	return s.queryTickets(ctx, s.r, `SELECT `+ticketColumns+` FROM tickets WHERE state = ? ORDER BY created_at, id`, string(cupid.StateWaiting))
}

// FinishTicket moves a waiting ticket to a final state.
func (s *Store) FinishTicket(ctx context.Context, id string, state cupid.TicketState, now time.Time) (*cupid.Ticket, cupid.Event, error) {
	if state != cupid.StateCancelled && state != cupid.StateExpired {
		return nil, cupid.Event{}, cupid.Invalid("state", "a ticket can only be finished as cancelled or expired, not %q", state)
	}
	kind := cupid.EventCancelled
	if state == cupid.StateExpired {
		kind = cupid.EventExpired
	}
	var ev cupid.Event
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.StmtContext(ctx, s.finish).ExecContext(ctx, string(state), now.UnixNano(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var cur string
			err := tx.StmtContext(ctx, s.stateByID).QueryRowContext(ctx, id).Scan(&cur)
			if errors.Is(err, sql.ErrNoRows) {
				return cupid.NotFound("id", "no ticket %q", id)
			}
			if err != nil {
				return err
			}
			return cupid.Conflict("id", "ticket %q is already %s", id, cur)
		}
		res, err = tx.StmtContext(ctx, s.insEvent).ExecContext(ctx, id, string(kind), now.UnixNano(), nil)
		if err != nil {
			return err
		}
		seq, _ := res.LastInsertId()
		ev = cupid.Event{Seq: seq, TicketID: id, Kind: kind, At: now}
		return nil
	})
	if err != nil {
		return nil, cupid.Event{}, err
	}
	t, err := s.Ticket(ctx, id)
	if err != nil {
		return nil, cupid.Event{}, err
	}
	return t, ev, nil
}

// CommitMatches stores each match atomically with its tickets' state change,
// in one transaction for the batch. A match naming a ticket that is not
// waiting (cancelled meanwhile, or in another match) is refused whole.
func (s *Store) CommitMatches(ctx context.Context, ms []*cupid.Match) ([]bool, []cupid.Event, error) {
	ok := make([]bool, len(ms))
	var events []cupid.Event
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		events = events[:0]
		for i, m := range ms {
			committed, evs, err := s.commitMatch(ctx, tx, m)
			if err != nil {
				return err
			}
			ok[i] = committed
			events = append(events, evs...)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return ok, events, nil
}

// commitMatch commits one match inside tx. The writer connection holds
// the database's write lock for the whole transaction, so the states read
// first cannot change before the update; the update still carries the
// "still waiting" condition as a second guard. Each step covers many
// tickets per statement.
func (s *Store) commitMatch(ctx context.Context, tx *sql.Tx, m *cupid.Match) (bool, []cupid.Event, error) {
	ids := m.TicketIDs()
	if len(ids) == 0 {
		return false, nil, fmt.Errorf("sqlite: match %s has no tickets", m.ID)
	}
	idArgs := make([]any, len(ids))
	for i, id := range ids {
		idArgs[i] = id
	}
	waiting := 0
	err := s.multi.chunks(countWaiting, len(ids), func(st *sql.Stmt, lo, hi int) error {
		var n int
		err := tx.StmtContext(ctx, st).QueryRowContext(ctx, idArgs[lo:hi]...).Scan(&n)
		waiting += n
		return err
	})
	if err != nil || waiting != len(ids) {
		return false, nil, err
	}
	body, err := json.Marshal(m)
	if err != nil {
		return false, nil, err
	}
	at := m.CreatedAt.UnixNano()
	if _, err := tx.StmtContext(ctx, s.insMatch).ExecContext(ctx, m.ID, at, body); err != nil {
		return false, nil, err
	}
	changed := int64(0)
	err = s.multi.chunks(setMatched, len(ids), func(st *sql.Stmt, lo, hi int) error {
		res, err := tx.StmtContext(ctx, st).ExecContext(ctx, append([]any{m.ID, at}, idArgs[lo:hi]...)...)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		changed += n
		return err
	})
	if err != nil {
		return false, nil, err
	}
	if changed != int64(len(ids)) {
		return false, nil, fmt.Errorf("sqlite: match %s: %d of its %d tickets changed state under the write lock", m.ID, changed, len(ids))
	}
	events := make([]cupid.Event, 0, len(ids))
	err = s.multi.chunks(insertMatchedEvents, len(ids), func(st *sql.Stmt, lo, hi int) error {
		args := make([]any, 0, 3*(hi-lo))
		for _, id := range ids[lo:hi] {
			args = append(args, id, at, m.ID)
		}
		return scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, args...))(func(r rowScanner) error {
			events = append(events, cupid.Event{Kind: cupid.EventMatched, At: m.CreatedAt, Match: m})
			return r.Scan(&events[len(events)-1].Seq, &events[len(events)-1].TicketID)
		})
	})
	if err != nil {
		return false, nil, err
	}
	if len(events) != len(ids) {
		return false, nil, fmt.Errorf("sqlite: match %s: %d events stored for %d tickets", m.ID, len(events), len(ids))
	}
	// RETURNING promises no order; watchers and tests expect seq order.
	slices.SortFunc(events, func(a, b cupid.Event) int { return cmp.Compare(a.Seq, b.Seq) })
	return true, events, nil
}

// Match returns a committed match.
func (s *Store) Match(ctx context.Context, id string) (*cupid.Match, error) {
	var body []byte
	err := s.getMatch.QueryRowContext(ctx, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, cupid.NotFound("match_id", "no match %q", id)
	}
	if err != nil {
		return nil, err
	}
	var m cupid.Match
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("sqlite: decode match %s: %w", id, err)
	}
	return &m, nil
}

// Events returns a ticket's events after seq, each matched event with its
// whole match (read in the same query: a watcher that connects after its
// match formed, the common case under load, costs one query).
func (s *Store) Events(ctx context.Context, ticketID string, afterSeq int64) ([]cupid.Event, error) {
	var out []cupid.Event
	err := scanEach(s.getEvents.QueryContext(ctx, ticketID, afterSeq))(func(r rowScanner) error {
		ev := cupid.Event{TicketID: ticketID}
		var at int64
		var kind string
		var matchID sql.NullString
		var body []byte
		if err := r.Scan(&ev.Seq, &kind, &at, &matchID, &body); err != nil {
			return err
		}
		ev.Kind = cupid.EventKind(kind)
		ev.At = time.Unix(0, at).UTC()
		if matchID.Valid {
			if body == nil {
				return fmt.Errorf("sqlite: event %d names match %s, which is not stored", ev.Seq, matchID.String)
			}
			ev.Match = new(cupid.Match)
			if err := json.Unmarshal(body, ev.Match); err != nil {
				return fmt.Errorf("sqlite: decode match %s: %w", matchID.String, err)
			}
		}
		out = append(out, ev)
		return nil
	})
	return out, err
}

// PutDocument stores a JSON document of a kind (a pairing event, a sizing
// model) under an id, replacing any earlier one.
func (s *Store) PutDocument(ctx context.Context, kind, id string, body []byte, now time.Time) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO documents (kind, id, body, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`, kind, id, body, now.UnixNano())
		return err
	})
}

// DeleteDocument removes a document; removing a missing one is not an error.
func (s *Store) DeleteDocument(ctx context.Context, kind, id string) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE kind = ? AND id = ?`, kind, id)
		return err
	})
}

// Documents returns every document of a kind, by id, in id order after the
// cursor (exclusive), at most limit of them (all when limit ≤ 0).
func (s *Store) Documents(ctx context.Context, kind, after string, limit int) ([]cupid.Document, error) {
	q := `SELECT id, body FROM documents WHERE kind = ? AND id > ? ORDER BY id`
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := s.r.QueryContext(ctx, q, kind, after)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cupid.Document
	for rows.Next() {
		var d cupid.Document
		if err := rows.Scan(&d.ID, &d.Body); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// tx runs f in a write transaction. Once begun, a transaction runs to its
// end even if the caller's context is cancelled: it is short, and a context
// the driver must watch costs a goroutine for every statement, which at
// thousands of tickets per second is a measurable share of the server's CPU.
func (s *Store) tx(ctx context.Context, f func(context.Context, *sql.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	if err := f(ctx, tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	return nil
}

type rowScanner interface{ Scan(...any) error }

func scanTicket(row rowScanner) (*cupid.Ticket, error) {
	var body []byte
	var state string
	var matchID sql.NullString
	var updated int64
	if err := row.Scan(&body, &state, &matchID, &updated); err != nil {
		return nil, err
	}
	var t cupid.Ticket
	if err := json.Unmarshal(body, &t); err != nil {
		return nil, fmt.Errorf("sqlite: decode ticket: %w", err)
	}
	t.State = cupid.TicketState(state)
	t.UpdatedAt = time.Unix(0, updated).UTC()
	if matchID.Valid {
		t.MatchID = matchID.String
	}
	return &t, nil
}

func (s *Store) queryTickets(ctx context.Context, db *sql.DB, q string, args ...any) ([]*cupid.Ticket, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cupid.Ticket
	for rows.Next() {
		t, err := scanTicket(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
