// Package postgres is Cupid's PostgreSQL store: tickets, matches, events and
// documents in a database that several server processes can share, through
// pgx's connection pool. It implements cupid.Store and cupid.DocumentStore
// with the semantics of the sqlite and memstore packages; the storetest suite
// holds all three to one contract.
//
// Open takes a postgres:// URL (anything pgxpool.ParseConfig reads, such as
// pool_max_conns or search_path as URL parameters) and brings the schema up
// to date: numbered migrations (schema.go), recorded in schema_migrations
// and applied in one transaction under an advisory lock, so that two nodes
// starting together do not race.
//
// # Concurrency: READ COMMITTED with explicit locks
//
// The sqlite store has one writer, so what a transaction reads cannot change
// before it writes. Here several transactions, from this process or from
// other nodes, run at once, and every write is made correct on its own:
//
//   - Every transaction runs at READ COMMITTED, asked for explicitly so that
//     a server whose default is another level behaves the same.
//   - Unique constraints carry the rules that are about keys: the player
//     index's primary key (queue, player_id) is "one live ticket per player
//     and queue", tickets.request_id is UNIQUE, ids are primary keys. Two
//     concurrent creates for one player cannot both commit: the second
//     insert waits for the first transaction and fails if it committed.
//   - Row locks carry the rules that are about states. A transaction that
//     will change tickets locks them first (SELECT … ORDER BY id FOR UPDATE,
//     re-checking state = 'waiting' on the row version it waited for), then
//     decides, then writes with conditional updates (… WHERE state =
//     'waiting') whose row counts the server checks (cupid_expect_rows).
//     CommitMatches locks its tickets and its players' other live tickets
//     in one pass in id order, so two concurrent commits can never put one
//     ticket in two matches, nor one player in two matches from two queues,
//     and do not deadlock each other.
//   - A create that cannot go the optimistic way (see CreateTickets) also
//     depends on rows that do not exist — a player it found free must stay
//     free — which no row lock can hold: it takes an advisory lock per queue,
//     exclusive, which the optimistic creates of those queues take shared.
//     Optimistic creates never wait for each other; creates in a queue take
//     turns only while one goes the careful way (a retry, a replace, a
//     conflict).
//   - A unique violation tells CreateTickets that what it assumed is out of
//     date: it reads again and decides again. A deadlock (possible only in
//     rare crossings, such as a replace and a commit taking the same tickets
//     in two steps) or a serialization failure rolls the attempt back and
//     runs it again, a bounded number of times.
//
// Why not SERIALIZABLE with a retry loop: the rules are all about single
// rows and keys, which locks and constraints state exactly; SERIALIZABLE's
// predicate locks also conflict on mere neighbours in the same index pages,
// so concurrent intake batches — many inserts into the same indexes — would
// fail and retry for conflicts that break no rule, costing a round trip and
// a wasted transaction each time, under exactly the load that can least
// afford it. READ COMMITTED with explicit locks waits where two
// transactions really touch the same ticket or player, and retries only on
// the rare deadlock.
//
// Event sequence numbers come from one sequence. Within a call they follow
// the contract's order; between concurrent transactions they are drawn
// before commit, so a later commit can hold smaller numbers than one seen
// earlier. A ticket's own events are never concurrent (each later event
// needs its ticket's row, committed and waiting), so Events(ticket, after)
// misses nothing, which is what watchers rely on.
//
// # Round trips
//
// Statements go out in pgx batches: a pipeline of statements with one sync,
// one round trip. Row sets go in as arrays (unnest), so a statement's text
// is the same for 1 row or 256 and is prepared once per connection. The
// usual CreateTickets (new request ids, free players) is one round trip in
// an implicit transaction; the careful path is two (read and lock, then
// write and COMMIT), three when an optimistic attempt failed first;
// CommitMatches is two; FinishTicket and Ping one, whatever the number of
// rows (TestRoundTrips counts them).
//
// Each call honours its context: a network store must be able to give up on
// a server that stopped answering. A call cancelled after its COMMIT was
// sent may or may not have committed; a retried create with the same
// request id then finds its first ticket.
//
// Strings the server cannot store in text — a NUL byte or invalid UTF-8,
// which SQLite would take — refuse the ticket alone with CodeInvalid on its
// field, as a player named twice does, rather than failing the whole batch.
//
// # Tests
//
// The tests need a PostgreSQL server: CUPID_TEST_POSTGRES is the URL of its
// postgres database (default postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable),
// through which each run creates a database with a random name and drops
// it at the end. When no server answers within two seconds, they skip and
// say so; any other failure to set up fails them.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/columns"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store implements cupid.Store and cupid.DocumentStore on PostgreSQL.
type Store struct {
	pool *pgxpool.Pool
}

var (
	_ cupid.Store         = (*Store)(nil)
	_ cupid.DocumentStore = (*Store)(nil)
)

// Open connects to the database at url (postgres://user@host:5432/db?…),
// checks that it answers and brings its schema up to date.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "cupid"
	}
	return openConfig(ctx, cfg)
}

// openConfig is Open after the URL is read; tests reach it to add a tracer.
func openConfig(ctx context.Context, cfg *pgxpool.Config) (*Store, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect to %s: %w", describe(cfg), err)
	}
	if err := migrate(ctx, pool, migrations); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: bring the schema of %s up to date: %w", describe(cfg), err)
	}
	return &Store{pool: pool}, nil
}

// describe names the database for errors without the password.
func describe(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return fmt.Sprintf("database %q on %s:%d as %q", c.Database, c.Host, c.Port, c.User)
}

// Close waits for the connections in use to be returned and closes them all.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// ticketColumns are what scanTicket reads. The body holds the ticket as
// created; state, match, update time and reason live in their own columns,
// so a state change rewrites a few values instead of the whole ticket.
const ticketColumns = `body, state, COALESCE(match_id, ''), updated_at, reason`

// ticketColumnsOf is ticketColumns qualified by a table alias, for joins.
func ticketColumnsOf(a string) string {
	return a + `.body, ` + a + `.state, COALESCE(` + a + `.match_id, ''), ` + a + `.updated_at, ` + a + `.reason`
}

// scanTicket reads ticketColumns, after any leading columns given in pre.
func scanTicket(row pgx.Row, pre ...any) (*cupid.Ticket, error) {
	var body []byte
	var state, matchID, reason string
	var updated int64
	if err := row.Scan(append(pre, &body, &state, &matchID, &updated, &reason)...); err != nil {
		return nil, err
	}
	return columns.Ticket(body, state, matchID, updated, reason)
}

func fromNanos(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// storable reports whether the server can hold s in a text column: valid
// UTF-8 without NUL. Nothing stored holds another string, so a lookup by
// one that is not storable finds nothing without asking.
func storable(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// Ticket returns one ticket.
func (s *Store) Ticket(ctx context.Context, id string) (*cupid.Ticket, error) {
	if !storable(id) {
		return nil, cupid.NotFound("id", "no ticket %q", id)
	}
	t, err := scanTicket(s.pool.QueryRow(ctx, `SELECT `+ticketColumns+` FROM tickets WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, cupid.NotFound("id", "no ticket %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: read ticket %s: %w", id, err)
	}
	return t, nil
}

// Tickets lists tickets oldest first. Each combination of filters has its
// own statement text, so each gets a plan that uses its index.
func (s *Store) Tickets(ctx context.Context, f cupid.TicketFilter) ([]*cupid.Ticket, error) {
	if !storable(f.Queue) || !storable(string(f.State)) {
		return nil, nil
	}
	if len(f.IDs) > cupid.MaxFilterIDs {
		return nil, cupid.Invalid("ids", "at most %d, got %d", cupid.MaxFilterIDs, len(f.IDs))
	}
	if len(f.IDs) > 0 {
		// A match's or a session's tickets: by primary key, the other
		// filters applied to what it finds.
		ts, err := s.queryTickets(ctx, `SELECT `+ticketColumns+` FROM tickets WHERE id = ANY($1) ORDER BY created_at, id`, f.IDs)
		if err != nil {
			return nil, err
		}
		ts = slices.DeleteFunc(ts, func(t *cupid.Ticket) bool {
			return (f.Queue != "" && t.Key.Queue != f.Queue) || (f.State != "" && t.State != f.State)
		})
		if f.Limit > 0 && len(ts) > f.Limit {
			ts = ts[:f.Limit]
		}
		return ts, nil
	}
	q, args := listing(`SELECT `+ticketColumns+` FROM tickets`, f.Queue, string(f.State), f.Limit)
	return s.queryTickets(ctx, q, args...)
}

// listing completes a listing's statement: the queue and state filters
// that are set, oldest first, at most limit rows when limit > 0. Each
// combination of filters has its own text, so each gets a plan that uses
// its index.
func listing(sel, queue, state string, limit int) (string, []any) {
	var where []string
	var args []any
	if queue != "" {
		args = append(args, queue)
		where = append(where, fmt.Sprintf("queue = $%d", len(args)))
	}
	if state != "" {
		args = append(args, state)
		where = append(where, fmt.Sprintf("state = $%d", len(args)))
	}
	q := sel
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY created_at, id"
	if limit > 0 {
		args = append(args, int64(limit))
		q += fmt.Sprintf(" LIMIT $%d", len(args))
	}
	return q, args
}

// WaitingTickets returns every waiting ticket, oldest first.
func (s *Store) WaitingTickets(ctx context.Context) ([]*cupid.Ticket, error) {
	return s.queryTickets(ctx, `SELECT `+ticketColumns+` FROM tickets WHERE state = 'waiting' ORDER BY created_at, id`)
}

func (s *Store) queryTickets(ctx context.Context, q string, args ...any) ([]*cupid.Ticket, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list tickets: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*cupid.Ticket, error) { return scanTicket(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list tickets: %w", err)
	}
	return out, nil
}

// finishSQL ends one waiting ticket and records its event in one
// statement, so FinishTicket is one round trip in an implicit transaction.
// The conditional update is the whole concurrency story: a transaction
// holding the ticket (a commit, a replace) makes it wait, and the state is
// checked again on the version that transaction left. The trigger frees
// the ticket's players.
var finishSQL = `WITH t AS (
	UPDATE tickets AS w SET state = $2, reason = $3, updated_at = $4 WHERE id = $1 AND ` + stillWaiting("w") + `
	RETURNING ` + ticketColumns + `
), e AS (
	INSERT INTO events (ticket_id, kind, at, reason) SELECT $1::text, $5::text, $4::bigint, $3::text FROM t RETURNING seq
)
SELECT e.seq, t.* FROM t, e`

// Ping upserts the heartbeat row: readiness then fails when writes do (a
// read-only standby after a failover, a full disk, a lost connection), not
// only when the server answers.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO heartbeat (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at`, time.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

// Match returns a committed match.
func (s *Store) Match(ctx context.Context, id string) (*cupid.Match, error) {
	if !storable(id) {
		return nil, cupid.NotFound("match_id", "no match %q", id)
	}
	var body []byte
	err := s.pool.QueryRow(ctx, `SELECT body FROM matches WHERE id = $1`, id).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, cupid.NotFound("match_id", "no match %q", id)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: read match %s: %w", id, err)
	}
	var m cupid.Match
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("postgres: decode match %s: %w", id, err)
	}
	return &m, nil
}

// Events returns a ticket's events after seq, each matched event with its
// whole match, read in the same query.
func (s *Store) Events(ctx context.Context, ticketID string, afterSeq int64) ([]cupid.Event, error) {
	if !storable(ticketID) {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT e.seq, e.kind, e.at, COALESCE(e.match_id, ''), e.reason, m.body
		FROM events e LEFT JOIN matches m ON m.id = e.match_id
		WHERE e.ticket_id = $1 AND e.seq > $2 ORDER BY e.seq`, ticketID, afterSeq)
	if err != nil {
		return nil, fmt.Errorf("postgres: read events of %s: %w", ticketID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cupid.Event, error) {
		ev := cupid.Event{TicketID: ticketID}
		var kind, matchID string
		var at int64
		var body []byte
		if err := r.Scan(&ev.Seq, &kind, &at, &matchID, &ev.Reason, &body); err != nil {
			return ev, err
		}
		ev.Kind, ev.At = cupid.EventKind(kind), fromNanos(at)
		if matchID != "" {
			if body == nil {
				return ev, fmt.Errorf("event %d names match %s, which is not stored", ev.Seq, matchID)
			}
			ev.Match = new(cupid.Match)
			if err := json.Unmarshal(body, ev.Match); err != nil {
				return ev, fmt.Errorf("decode match %s: %w", matchID, err)
			}
		}
		return ev, nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: read events of %s: %w", ticketID, err)
	}
	return out, nil
}

// PutDocument stores a document of a kind under an id, replacing any
// earlier one.
func (s *Store) PutDocument(ctx context.Context, fence cupid.Fence, kind, id string, body []byte, now time.Time) error {
	if !storable(kind) {
		return cupid.Invalid("kind", "must be UTF-8 without NUL")
	}
	if !storable(id) {
		return cupid.Invalid("id", "must be UTF-8 without NUL")
	}
	if body == nil {
		body = []byte{} // pgx sends nil as NULL
	}
	err := s.execFenced(ctx, fence, `INSERT INTO documents (kind, id, body, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (kind, id) DO UPDATE SET body = EXCLUDED.body, updated_at = EXCLUDED.updated_at`, kind, id, body, now.UnixNano())
	if err != nil {
		return fmt.Errorf("postgres: put document %s/%s: %w", kind, id, fenced(err))
	}
	return nil
}

// DeleteDocument removes a document; removing a missing one is not an error.
func (s *Store) DeleteDocument(ctx context.Context, fence cupid.Fence, kind, id string) error {
	if !storable(kind) || !storable(id) {
		return nil
	}
	if err := s.execFenced(ctx, fence, `DELETE FROM documents WHERE kind = $1 AND id = $2`, kind, id); err != nil {
		return fmt.Errorf("postgres: delete document %s/%s: %w", kind, id, fenced(err))
	}
	return nil
}

// Documents lists a kind's documents in id order after the cursor
// (exclusive), at most limit of them (all when limit ≤ 0).
func (s *Store) Documents(ctx context.Context, kind, after string, limit int) ([]cupid.Document, error) {
	if !storable(kind) {
		return nil, nil
	}
	// No stored id holds a NUL, so every id after "ab\x00c" is after "ab"
	// and the other way round: the cursor can be cut there.
	if i := strings.IndexByte(after, 0); i >= 0 {
		after = after[:i]
	}
	if !utf8.ValidString(after) {
		return nil, cupid.Invalid("after", "must be UTF-8")
	}
	q := `SELECT id, body FROM documents WHERE kind = $1 AND id > $2 ORDER BY id`
	args := []any{kind, after}
	if limit > 0 {
		q += ` LIMIT $3`
		args = append(args, int64(limit))
	}
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list documents of %s: %w", kind, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cupid.Document, error) {
		var d cupid.Document
		err := r.Scan(&d.ID, &d.Body)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list documents of %s: %w", kind, err)
	}
	return out, nil
}

// SQLSTATE codes this package acts on.
const (
	codeUniqueViolation      = "23505"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
)

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// errTryAgain asks retry for another attempt without a server error: what
// the attempt read changed before it could act on it.
var errTryAgain = errors.New("postgres: state changed under the attempt")

// maxAttempts bounds retry: conflicts that keep coming back this often are
// a sign of something other than bad luck, and the caller hears about it.
const maxAttempts = 12

// retryable reports whether an attempt may simply be run again: it was
// rolled back whole, and another try can succeed.
func retryable(err error) bool {
	if errors.Is(err, errTryAgain) {
		return true
	}
	switch pgCode(err) {
	case codeDeadlockDetected, codeSerializationFailure:
		return true
	}
	return false
}

// retry runs attempt until it succeeds, fails for good or has been tried
// maxAttempts times, sleeping a little (randomised, growing) between tries
// so that two transactions that collided do not collide again in step.
func retry(ctx context.Context, attempt func() error) error {
	for n := 1; ; n++ {
		err := attempt()
		if err == nil || !retryable(err) || n == maxAttempts {
			return err
		}
		if err := pause(ctx, n); err != nil {
			return err
		}
	}
}

func pause(ctx context.Context, n int) error {
	d := time.Duration(rand.Int64N(int64(time.Millisecond) << min(n, 6)))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// wrap prefixes a store failure with what was being done; the contract's
// own errors (*cupid.Error) pass unchanged, since callers read their codes.
func wrap(what string, err error) error {
	var ce *cupid.Error
	if errors.As(err, &ce) {
		return err
	}
	return fmt.Errorf("postgres: %s: %w", what, err)
}

// send runs a batch, one round trip, and the callbacks queued with it, in
// order; it returns the first error, after which the server skipped the
// rest of the batch (a COMMIT in it included).
func send(ctx context.Context, conn *pgxpool.Conn, b *pgx.Batch) error {
	return conn.SendBatch(ctx, b).Close()
}

// inTx runs f on a connection of its own; f begins the transaction in its
// first batch and commits in its last, so that BEGIN and COMMIT cost no
// round trip of their own. When f fails, whatever transaction it left open
// is rolled back. A connection that cannot roll back is closed, and the
// pool replaces it.
func (s *Store) inTx(ctx context.Context, f func(conn *pgxpool.Conn) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	err = f(conn)
	if pc := conn.Conn().PgConn(); !pc.IsClosed() && pc.TxStatus() != 'I' {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, rerr := conn.Exec(rctx, "ROLLBACK"); rerr != nil {
			conn.Conn().Close(rctx)
		}
		if err == nil {
			err = errors.New("postgres: transaction left open")
		}
	}
	return err
}

// queueBegin starts an explicit transaction as the first statements of b,
// at READ COMMITTED (see the package doc for why), with two settings that
// end with it (SET LOCAL, so they also work through a transaction pooler):
//
//   - A bound on how long it may sit idle between two of its batches. Only
//     the time between a transaction's first and last round trip is idle,
//     microseconds of Go; a node that stops there (frozen, cut off by a
//     network that does not say so) would otherwise keep its tickets locked
//     for every other node until TCP gives up, which can take hours.
//   - Custom plans for every statement. The statements of these
//     transactions join rows given as arrays (unnest) with the tickets and
//     the player index; a generic plan, which PostgreSQL switches a prepared
//     statement to after five runs when its estimate looks no worse, must
//     guess the array's length, and was seen to hash-join whole tables, a
//     cost that grows with the number of waiting tickets. Planning each run
//     with the real arrays costs a fraction of a millisecond and keeps every
//     lookup an index probe.
//   - No JIT compilation. Without statistics the planner can estimate
//     these statements, index probes all, at many thousand rows, past the
//     cost where PostgreSQL compiles a query to machine code first, which
//     takes longer than running it a hundred times.
func queueBegin(b *pgx.Batch) {
	b.Queue(`BEGIN ISOLATION LEVEL READ COMMITTED`)
	b.Queue(`SELECT set_config('idle_in_transaction_session_timeout', $1, true),
	set_config('plan_cache_mode', 'force_custom_plan', true), set_config('jit', 'off', true)`, idleInTransaction)
}

// idleInTransaction is the bound queueBegin sets (a variable for tests).
var idleInTransaction = "30s"

// commitSQL ends a transaction's last batch. The server skips it when a
// statement before it in the batch failed, and the transaction stays open
// and aborted until inTx rolls it back.
const commitSQL = `COMMIT`
