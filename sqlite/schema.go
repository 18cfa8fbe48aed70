package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/columns"
)

// The schema's version is SQLite's user_version: the number of migrations
// applied. Open applies the missing ones in order, each in its own
// transaction together with the new version number, so a database is always
// at one numbered version and a failed migration is retried whole at the
// next Open. A later change to the schema is one more entry at the end of
// migrations; entries are never edited once released, because databases in
// the field have run them.
//
// Databases written before versioning have user_version 0 and the tables
// of migration 1 already; its IF NOT EXISTS makes it a no-op for them.
var migrations = []struct {
	name  string
	apply func(context.Context, *sql.Tx) error
}{
	{"tickets, matches, events and documents", execSQL(`
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
);`)},
	{"reasons on tickets and events", migrateReasons},
	{"one live ticket per player and queue", migrateLivePlayers},
	{"heartbeat row for Ping", execSQL(`
CREATE TABLE heartbeat (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	at INTEGER NOT NULL
);`)},
	{"match hand-off: state, assignment and the match log", execSQL(matchesSchema)},
	{"game sessions: open backfill index, match event details", execSQL(sessionsSchema)},
	{"ready checks: the players' answers to pending matches", execSQL(acceptSchema)},
	{"ratings: match results, rating rows and history", execSQL(ratingsSchema)},
	{"the index of players in live matches", execSQL(matchPlayersSchema)},
	{"retention: match log horizons, match log entries by match", execSQL(retentionSchema)},
	{"encounters: who met whom, block and avoid lists", execSQL(columns.EncountersSchema)},
	// Nothing to change: the version alone makes a build from before the
	// binary form of players' ratings (service/ratingsvc/codec.go), which
	// could not read them, refuse to open a database that may hold them.
	{"ratings: players' states and history lines in a binary form", execSQL(`SELECT 1`)},
}

// schemaVersion is the version this code writes and reads.
var schemaVersion = len(migrations)

func execSQL(q string) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, q)
		return err
	}
}

// migrate brings the database up to schemaVersion. The version is read
// inside each migration's write transaction, so two processes opening one
// file at once do not both apply a migration.
func migrate(ctx context.Context, db *sql.DB) error {
	for {
		done, err := migrateOne(ctx, db)
		if err != nil || done {
			return err
		}
	}
}

func migrateOne(ctx context.Context, db *sql.DB) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return false, err
	}
	switch {
	case v > schemaVersion:
		return false, fmt.Errorf("schema version %d is newer than this build of Cupid knows (%d): a newer Cupid wrote this database", v, schemaVersion)
	case v == schemaVersion:
		return true, tx.Commit()
	}
	m := migrations[v]
	if err := m.apply(ctx, tx); err != nil {
		return false, fmt.Errorf("migration %d (%s): %w", v+1, m.name, err)
	}
	// PRAGMA takes no parameters; v is an int we computed.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
		return false, err
	}
	return false, tx.Commit()
}

// migrateReasons adds the reason columns. They are added only when missing,
// so a database that somehow has them (a hand-made one) still migrates.
func migrateReasons(ctx context.Context, tx *sql.Tx) error {
	for _, table := range []string{"tickets", "events"} {
		has, err := hasColumn(ctx, tx, table, "reason")
		if err != nil {
			return err
		}
		if has {
			continue
		}
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+table+` ADD COLUMN reason TEXT NOT NULL DEFAULT ''`); err != nil {
			return err
		}
	}
	return nil
}

func hasColumn(ctx context.Context, tx *sql.Tx, table, column string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, column).Scan(&n)
	return n > 0, err
}

// liveSchema is the player index. A row says "this player has this live
// ticket in this queue". The primary key on (player, queue) is the rule
// itself — one live ticket per player and queue, whatever the version or
// custom key — and, with the player first, also the index by player that
// finds a matched player's tickets in other queues; lookups by (queue,
// player) use it as well. A key on (queue, player) plus a separate index by
// player, the obvious layout, is one more B-tree to write per player, which
// measured a fifth off intake throughput (36.7k → 28.8k tickets/s at batch
// 32, against 33.4k with this key).
//
// Every statement that moves a ticket into or out of waiting has a partner
// on this table in the same transaction: a multi-row insert beside the
// tickets' own (its primary key fails on a second live ticket, which
// CreateTickets relies on; see create.go) and a multi-row delete by
// (queue, player, ticket) when tickets end, with the players read from the
// bodies the ending statements return. Triggers would make that automatic,
// but the table then needs an index by ticket, or SQL that reads each
// body's JSON, and both measured far dearer on the intake path than the Go
// that knows the players anyway.
const liveSchema = `
CREATE TABLE live_players (
	queue     TEXT NOT NULL,
	player_id TEXT NOT NULL,
	ticket_id TEXT NOT NULL,
	PRIMARY KEY (player_id, queue)
) WITHOUT ROWID;
`

// migrateLivePlayers creates the player index and fills it from the waiting
// tickets. Before it, nothing stopped a player from having two waiting
// tickets in one queue; the index cannot hold both, so the older ticket
// keeps its place (it has waited longer, and "already exists" would have
// kept it) and each newer one is cancelled, with a reason and an event, as
// if the rule had always applied. Tickets naming a player twice (possible
// before Ticket.Validate) are indexed once.
func migrateLivePlayers(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, liveSchema); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, queue, body FROM tickets WHERE state = 'waiting' ORDER BY created_at, id`)
	if err != nil {
		return err
	}
	type waiting struct {
		id, queue string
		players   []string
	}
	var ws []waiting
	for rows.Next() {
		var w waiting
		var body []byte
		if err := rows.Scan(&w.id, &w.queue, &body); err != nil {
			rows.Close()
			return err
		}
		var t cupid.Ticket
		if err := json.Unmarshal(body, &t); err != nil {
			rows.Close()
			return fmt.Errorf("decode ticket %s: %w", w.id, err)
		}
		w.players = t.PlayerIDs()
		ws = append(ws, w)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	type key struct{ queue, player string }
	owner := map[key]string{}
	now := time.Now().UnixNano()
	for _, w := range ws {
		var taken *key
		for _, p := range w.players {
			if o, ok := owner[key{w.queue, p}]; ok && o != w.id {
				taken = &key{w.queue, p}
				break
			}
		}
		if taken != nil {
			reason := fmt.Sprintf("player %s already had live ticket %s in queue %s when the store began to allow one per player and queue",
				taken.player, owner[*taken], taken.queue)
			if _, err := tx.ExecContext(ctx, `UPDATE tickets SET state = 'cancelled', reason = ?, updated_at = ? WHERE id = ?`, reason, now, w.id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO events (ticket_id, kind, at, reason) VALUES (?, 'cancelled', ?, ?)`, w.id, now, reason); err != nil {
				return err
			}
			continue
		}
		for _, p := range w.players {
			if _, dup := owner[key{w.queue, p}]; dup {
				continue
			}
			owner[key{w.queue, p}] = w.id
			if _, err := tx.ExecContext(ctx, `INSERT INTO live_players (queue, player_id, ticket_id) VALUES (?, ?, ?)`, w.queue, p, w.id); err != nil {
				return err
			}
		}
	}
	return nil
}
