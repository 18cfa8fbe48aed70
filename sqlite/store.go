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
//
// The store keeps the rule "one live ticket per player and queue" itself:
// the live_players table (schema.go), kept in step with the tickets' states
// in the same transactions, is the index CreateTickets checks and
// CommitMatches uses to cancel a matched player's tickets in other queues.
// Where the cupid.Store contract leaves a choice open, the storetest package
// pins the reading; this store and memstore both pass it.
//
// The schema carries a version (PRAGMA user_version) and Open applies the
// numbered migrations a database lacks, in order (schema.go).
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/columns"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store implements cupid.Store and cupid.DocumentStore on SQLite.
type Store struct {
	w *sql.DB // the single writer connection
	r *sql.DB // readers (WAL lets them run beside the writer)

	// Statements prepared once: the driver would otherwise parse the SQL
	// again on every call, which costs more than running it.
	stateByID, finish, ping        *sql.Stmt
	getTicket, getEvents, getMatch *sql.Stmt

	// step holds the statements of a lifecycle step's reads and writes
	// (tx.go), prepared on the writer.
	step stepStmts

	// multi holds the statements whose text depends on a row count;
	// readMulti those of them that read outside a transaction.
	multi, readMulti multiStmts
	// getResult reads a match's rating result.
	getResult *sql.Stmt
}

// stepStmts are what a lifecycle step runs inside its transaction, one row
// at a time: a session change or an answer is a handful of them, and
// parsing their text each time cost more than running them.
type stepStmts struct {
	ticket, reborn, live   *sql.Stmt
	match, unindex, answer *sql.Stmt
	readMatch, readAnswers *sql.Stmt
}

func (st *stepStmts) all() []*sql.Stmt {
	return []*sql.Stmt{st.ticket, st.reborn, st.live, st.match, st.unindex, st.answer, st.readMatch, st.readAnswers}
}

var (
	_ cupid.Store         = (*Store)(nil)
	_ cupid.DocumentStore = (*Store)(nil)
)

// Open opens (creating if needed) the database file at path and brings its
// schema up to date (see schema.go).
func Open(path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: create data directory: %w", err)
		}
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)&_txlock=immediate" + retentionPragmas
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	if err := migrate(context.Background(), w); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: bring the schema of %s up to date: %w", path, err)
	}
	if err := useIncrementalVacuum(context.Background(), w); err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
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
		{s.w, &s.stateByID, `SELECT state FROM tickets WHERE id = ?`},
		// The body returned names the players to free.
		{s.w, &s.finish, `UPDATE tickets SET state = ?, reason = ?, updated_at = ? WHERE id = ? AND state = 'waiting' RETURNING ` + ticketColumns},
		{s.w, &s.ping, `INSERT INTO heartbeat (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at`},
		{s.r, &s.getTicket, `SELECT ` + ticketColumns + ` FROM tickets WHERE id = ?`},
		{s.r, &s.getEvents, `SELECT e.seq, e.kind, e.at, e.match_id, e.reason, m.body FROM events e LEFT JOIN matches m ON m.id = e.match_id WHERE e.ticket_id = ? AND e.seq > ? ORDER BY e.seq`},
		{s.r, &s.getMatch, `SELECT body FROM matches WHERE id = ?`},
		{s.r, &s.getResult, `SELECT at, body FROM rating_results WHERE match_id = ?`},
		{s.w, &s.step.ticket, `UPDATE tickets SET state = ?, match_id = ?, reason = ?, updated_at = ? WHERE id = ?`},
		{s.w, &s.step.reborn, `UPDATE tickets SET created_at = ?, body = ? WHERE id = ?`},
		{s.w, &s.step.live, `INSERT INTO live_players (queue, player_id, ticket_id) VALUES (?, ?, ?)`},
		{s.w, &s.step.match, `UPDATE matches SET body = ?, state = ?, assignment = ?, reason = ?, updated_at = ? WHERE id = ?`},
		{s.w, &s.step.unindex, `DELETE FROM match_players WHERE match_id = ?`},
		{s.w, &s.step.answer, `INSERT INTO match_answers (match_id, player_id, accept, at) VALUES (?, ?, ?, ?)`},
		{s.w, &s.step.readMatch, `SELECT ` + matchColumns + ` FROM matches WHERE id = ?`},
		{s.w, &s.step.readAnswers, answersOf},
	} {
		st, err := p.db.Prepare(p.sql)
		if err != nil {
			return fmt.Errorf("%s: %w", p.sql, err)
		}
		*p.stmt = st
	}
	m, err := prepareMulti(s.w, multiKinds)
	s.multi = m
	if err != nil {
		return err
	}
	s.readMulti, err = prepareMulti(s.r, readMultiKinds)
	return err
}

// ticketColumns are what scanTicket reads. The body holds the ticket as
// created; state, match, reason and update time live in their own columns,
// so a state change rewrites a few bytes instead of the whole ticket.
const ticketColumns = `body, state, match_id, updated_at, reason`

// ticketColumnsOf is ticketColumns qualified by a table alias, for joins.
func ticketColumnsOf(alias string) string {
	cols := strings.Split(ticketColumns, ", ")
	for i := range cols {
		cols[i] = alias + "." + cols[i]
	}
	return strings.Join(cols, ", ")
}

// Close closes both connections.
func (s *Store) Close() error {
	var errs []error
	for _, st := range append([]*sql.Stmt{s.stateByID, s.finish, s.ping, s.getTicket, s.getEvents, s.getMatch, s.getResult}, s.step.all()...) {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	errs = append(errs, s.multi.close(), s.readMulti.close())
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	return errors.Join(append(errs, s.w.Close())...)
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
	if len(f.IDs) > cupid.MaxFilterIDs {
		return nil, cupid.Invalid("ids", "at most %d, got %d", cupid.MaxFilterIDs, len(f.IDs))
	}
	if len(f.IDs) > 0 {
		where = append(where, "id IN ("+marks(len(f.IDs))+")")
		args = append(args, anys(f.IDs)...)
	}
	return s.queryTickets(ctx, s.r, listing(`SELECT `+ticketColumns+` FROM tickets`, where, f.Limit), args...)
}

// WaitingTickets returns every waiting ticket, oldest first.
func (s *Store) WaitingTickets(ctx context.Context) ([]*cupid.Ticket, error) {
	return s.queryTickets(ctx, s.r, `SELECT `+ticketColumns+` FROM tickets WHERE state = ? ORDER BY created_at, id`, string(cupid.StateWaiting))
}

// freePlayers removes the player index's rows of tickets that have just
// left waiting, in one statement per 128 players.
func (s *Store) freePlayers(ctx context.Context, tx *sql.Tx, ts ...*cupid.Ticket) error {
	var args []any
	for _, t := range ts {
		for _, p := range t.Players {
			args = append(args, t.Key.Queue, p.ID, t.ID)
		}
	}
	return s.multi.chunks(deleteLive, len(args)/3, func(st *sql.Stmt, lo, hi int) error {
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, args[3*lo:3*hi]...)
		return err
	})
}

// Ping upserts the heartbeat row in a write transaction: readiness then
// fails when writes do (a full disk, a read-only file, a lock held too
// long), not only when the file cannot be opened.
func (s *Store) Ping(ctx context.Context) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.StmtContext(ctx, s.ping).ExecContext(ctx, time.Now().UnixNano())
		return err
	})
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
		if err := r.Scan(&ev.Seq, &kind, &at, &matchID, &ev.Reason, &body); err != nil {
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
func (s *Store) PutDocument(ctx context.Context, fence cupid.Fence, kind, id string, body []byte, now time.Time) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO documents (kind, id, body, updated_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`, kind, id, body, now.UnixNano())
		return err
	})
}

// DeleteDocument removes a document; removing a missing one is not an error.
func (s *Store) DeleteDocument(ctx context.Context, fence cupid.Fence, kind, id string) error {
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

// readTx runs f in a read-only transaction on a reader connection: one
// snapshot of the database, without taking the writer.
func (s *Store) readTx(ctx context.Context, f func(context.Context, *sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	defer tx.Rollback()
	return f(ctx, tx)
}

type rowScanner interface{ Scan(...any) error }

func scanTicket(row rowScanner) (*cupid.Ticket, error) {
	var body []byte
	var state string
	var matchID sql.NullString
	var updated int64
	var reason string
	if err := row.Scan(&body, &state, &matchID, &updated, &reason); err != nil {
		return nil, err
	}
	return columns.Ticket(body, state, matchID.String, updated, reason)
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
