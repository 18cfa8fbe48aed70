package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// retentionSchema is the migration of retention. retention_horizons keeps,
// per queue, the highest match log sequence number retention removed, so a
// backend resuming from before it is told instead of silently missing
// events; match_events_match finds a removed match's log entries without
// reading the whole log.
const retentionSchema = `
CREATE TABLE retention_horizons (
	queue TEXT PRIMARY KEY,
	seq   INTEGER NOT NULL
);
CREATE INDEX match_events_match ON match_events (match_id);
`

var _ cupid.Pruner = (*Store)(nil)

// pruneKind is how this store prunes one cupid.RetentionKind: read the
// batch's candidates in the order of an index, from the cursor; remove the
// rows Aged chose with what goes with them. A kind of data added later is
// one more entry of pruneKinds.
type pruneKind struct {
	kind cupid.RetentionKind
	// read returns the candidates after cursor and the cursor after them;
	// next is "" when the rows read reached the young ones (or the end).
	read func(ctx context.Context, tx *sql.Tx, before time.Time, cursor string, limit int) (cs []lifecycle.Candidate, next string, err error)
	// remove deletes the rows by key, with their related rows.
	remove func(ctx context.Context, tx *sql.Tx, ids []string) (removed, related int, err error)
	// table is the kind's own table, others the related ones (for the
	// bytes of Retained); oldest reads the oldest row's time.
	table  string
	others []string
	oldest string
}

// pruneKinds is the table of kinds, in cupid.RetentionKinds order.
var pruneKinds = []pruneKind{
	{
		kind: cupid.RetainTickets, read: readTicketCandidates, remove: removeTickets,
		table: "tickets", others: []string{"events"},
		oldest: `SELECT created_at FROM tickets ORDER BY rowid LIMIT 1`,
	},
	{
		kind: cupid.RetainMatches, read: readMatchCandidates, remove: removeMatches,
		table: "matches", others: []string{"match_events", "match_answers"},
		oldest: `SELECT created_at FROM matches ORDER BY rowid LIMIT 1`,
	},
	{
		kind: cupid.RetainRatingHistory, table: "rating_history",
		read:   readBySeq(`SELECT seq, at, seq FROM rating_history WHERE seq > ? ORDER BY seq LIMIT ?`),
		remove: removeByKey(`DELETE FROM rating_history WHERE seq IN (%s)`, ""),
		oldest: `SELECT at FROM rating_history ORDER BY seq LIMIT 1`,
	},
	{
		kind: cupid.RetainRatingResults, table: "rating_results",
		// A result's id is its match's (what Result reads, for an
		// export); the cursor is its rowid.
		read:   readBySeq(`SELECT rowid, at, match_id FROM rating_results WHERE rowid > ? ORDER BY rowid LIMIT ?`),
		remove: removeByKey(`DELETE FROM rating_results WHERE match_id IN (%s)`, ""),
		oldest: `SELECT at FROM rating_results ORDER BY rowid LIMIT 1`,
	},
	{
		kind: cupid.RetainEncounters, table: "encounters",
		read:   readEncounterCandidates,
		remove: removeByKey(`DELETE FROM encounters WHERE rowid IN (%s)`, ""),
		oldest: `SELECT min(at) FROM encounters`,
	},
}

// readEncounterCandidates reads encounters older than the horizon oldest
// first, along the encounters_at index (whose entries end with the rowid):
// a meeting a backend records late, with an old time, is read as soon as
// it is old, wherever it was inserted. The cursor is "at rowid".
func readEncounterCandidates(ctx context.Context, tx *sql.Tx, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
	at, row := int64(math.MinInt64), int64(-1)
	if cursor != "" {
		f := strings.Fields(cursor)
		var err1, err2 error
		if len(f) == 2 {
			at, err1 = strconv.ParseInt(f[0], 10, 64)
			row, err2 = strconv.ParseInt(f[1], 10, 64)
		}
		if len(f) != 2 || err1 != nil || err2 != nil {
			return nil, "", cupid.Invalid("after", "not a cursor of this store: %q", cursor)
		}
	}
	var cs []lifecycle.Candidate
	err := scanEach(tx.QueryContext(ctx, `SELECT rowid, at FROM encounters INDEXED BY encounters_at
		WHERE at < ? AND (at, rowid) > (?, ?) ORDER BY at, rowid LIMIT ?`, before.UnixNano(), at, row, limit))(func(r rowScanner) error {
		if err := r.Scan(&row, &at); err != nil {
			return err
		}
		cs = append(cs, lifecycle.Candidate{ID: strconv.FormatInt(row, 10), At: time.Unix(0, at).UTC()})
		return nil
	})
	if err != nil || len(cs) < limit {
		return cs, "", err
	}
	return cs, fmt.Sprintf("%d %d", at, row), nil
}

// Prune removes one batch of a kind's old rows in one transaction. The
// single writer connection serialises it with intake and commits: a batch
// is a few indexed statements over at most req.Limit rows, so it holds the
// writer for about as long as a commit batch does.
func (s *Store) Prune(ctx context.Context, _ cupid.Fence, req cupid.PruneRequest) (cupid.Pruned, error) {
	p, err := lifecycle.PruneKind(req, pruneKinds, func(p pruneKind) cupid.RetentionKind { return p.kind })
	if err != nil {
		return cupid.Pruned{}, err
	}
	var out cupid.Pruned
	var ids []string
	choose := func(ctx context.Context, tx *sql.Tx) error {
		cs, next, err := p.read(ctx, tx, req.Before, req.After, req.Limit)
		if err != nil {
			return err
		}
		ids, out.Next = lifecycle.PruneIDs(req, cs), next
		return nil
	}
	if req.Select {
		// A Select only reads: a reader's transaction, not the writer.
		err = s.readTx(ctx, choose)
		out.IDs = ids
	} else {
		err = s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			if err := choose(ctx, tx); err != nil || len(ids) == 0 {
				return err
			}
			out.Removed, out.Related, err = p.remove(ctx, tx, ids)
			return err
		})
	}
	if err != nil {
		return cupid.Pruned{}, fmt.Errorf("sqlite: prune %s: %w", req.Kind, err)
	}
	return out, nil
}

// endedStates are the ticket states a ticket retention may remove can be
// in; the tickets_state index is read one state at a time, so each read
// follows the index in (created_at, rowid) order.
var endedStates = []cupid.TicketState{cupid.StateCancelled, cupid.StateExpired, cupid.StateMatched}

// readTicketCandidates reads ended tickets created before the horizon
// (a ticket that ended before it was created before it), state by state.
// The cursor is "state-index created_at rowid".
func readTicketCandidates(ctx context.Context, tx *sql.Tx, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
	st, at, row := 0, int64(0), int64(-1)
	if cursor != "" {
		f := strings.Fields(cursor)
		if len(f) != 3 {
			return nil, "", cupid.Invalid("after", "not a cursor of this store: %q", cursor)
		}
		st, _ = strconv.Atoi(f[0])
		at, _ = strconv.ParseInt(f[1], 10, 64)
		row, _ = strconv.ParseInt(f[2], 10, 64)
	}
	if st < 0 || st >= len(endedStates) {
		return nil, "", nil
	}
	var cs []lifecycle.Candidate
	err := scanEach(tx.QueryContext(ctx, `SELECT t.rowid, t.id, t.state, t.created_at, t.updated_at, m.state, COALESCE(m.updated_at, m.created_at)
		FROM tickets t LEFT JOIN matches m ON m.id = t.match_id
		WHERE t.state = ? AND (t.created_at, t.rowid) > (?, ?) AND t.created_at < ?
		ORDER BY t.created_at, t.rowid LIMIT ?`,
		string(endedStates[st]), at, row, before.UnixNano(), limit))(func(r rowScanner) error {
		var c lifecycle.Candidate
		var updated int64
		var mstate sql.NullString
		var mat sql.NullInt64
		if err := r.Scan(&row, &c.ID, &c.State, &at, &updated, &mstate, &mat); err != nil {
			return err
		}
		c.At = time.Unix(0, updated).UTC()
		if mstate.Valid {
			c.MatchState, c.MatchAt = cupid.MatchState(mstate.String), time.Unix(0, mat.Int64).UTC()
		}
		cs = append(cs, c)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if len(cs) < limit {
		// This state is done; the next batch starts the next one.
		if st+1 == len(endedStates) {
			return cs, "", nil
		}
		return cs, fmt.Sprintf("%d 0 -1", st+1), nil
	}
	return cs, fmt.Sprintf("%d %d %d", st, at, row), nil
}

// removeTickets deletes tickets with their events. Only ended tickets
// are candidates, so none is in the player index.
func removeTickets(ctx context.Context, tx *sql.Tx, ids []string) (removed, related int, err error) {
	for lo := 0; lo < len(ids); lo += maxRows {
		part := anys(ids[lo:min(lo+maxRows, len(ids))])
		n, err := execCount(ctx, tx, `DELETE FROM tickets WHERE id IN (`+marks(len(part))+`) AND state <> 'waiting'`, part...)
		if err != nil {
			return 0, 0, err
		}
		m, err := execCount(ctx, tx, `DELETE FROM events WHERE ticket_id IN (`+marks(len(part))+`)`, part...)
		if err != nil {
			return 0, 0, err
		}
		removed, related = removed+n, related+m
	}
	return removed, related, nil
}

// readMatchCandidates reads matches in the order they were stored
// (rowid), which is the order of their creation; the first one created at
// or after the horizon ends the pass.
func readMatchCandidates(ctx context.Context, tx *sql.Tx, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
	row := int64(-1)
	if cursor != "" {
		var err error
		if row, err = strconv.ParseInt(cursor, 10, 64); err != nil {
			return nil, "", cupid.Invalid("after", "not a cursor of this store: %q", cursor)
		}
	}
	var cs []lifecycle.Candidate
	young := false
	err := scanEach(tx.QueryContext(ctx, `SELECT rowid, id, state, created_at, COALESCE(updated_at, created_at)
		FROM matches WHERE rowid > ? ORDER BY rowid LIMIT ?`, row, limit))(func(r rowScanner) error {
		var c lifecycle.Candidate
		var created, updated int64
		if err := r.Scan(&row, &c.ID, &c.State, &created, &updated); err != nil {
			return err
		}
		if created >= before.UnixNano() {
			young = true
			return nil
		}
		c.At = time.Unix(0, updated).UTC()
		if !young {
			cs = append(cs, c)
		}
		return nil
	})
	if err != nil || young || len(cs) < limit {
		return cs, "", err
	}
	return cs, strconv.FormatInt(row, 10), nil
}

// removeMatches deletes matches that are no longer live with their ready
// check answers and match log entries, and moves each queue's horizon past
// the entries removed.
func removeMatches(ctx context.Context, tx *sql.Tx, ids []string) (removed, related int, err error) {
	for lo := 0; lo < len(ids); lo += maxRows {
		part := anys(ids[lo:min(lo+maxRows, len(ids))])
		in := `(` + marks(len(part)) + `)`
		n, err := execCount(ctx, tx, `DELETE FROM matches WHERE id IN `+in+` AND state IN ('released', 'ended')`, part...)
		if err != nil {
			return 0, 0, err
		}
		a, err := execCount(ctx, tx, `DELETE FROM match_answers WHERE match_id IN `+in, part...)
		if err != nil {
			return 0, 0, err
		}
		horizons := map[string]int64{}
		e := 0
		err = scanEach(tx.QueryContext(ctx, `DELETE FROM match_events WHERE match_id IN `+in+` RETURNING queue, seq`, part...))(func(r rowScanner) error {
			var q string
			var seq int64
			if err := r.Scan(&q, &seq); err != nil {
				return err
			}
			horizons[q] = max(horizons[q], seq)
			e++
			return nil
		})
		if err != nil {
			return 0, 0, err
		}
		for q, seq := range horizons {
			if _, err := tx.ExecContext(ctx, `INSERT INTO retention_horizons (queue, seq) VALUES (?, ?)
				ON CONFLICT (queue) DO UPDATE SET seq = max(seq, excluded.seq)`, q, seq); err != nil {
				return 0, 0, err
			}
		}
		removed, related = removed+n, related+a+e
	}
	return removed, related, nil
}

// readBySeq reads rows in the order of an increasing integer key, each
// with its time and its id (the key itself, or another unique column);
// the first row at or after the horizon ends the pass.
func readBySeq(q string) func(ctx context.Context, tx *sql.Tx, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
	return func(ctx context.Context, tx *sql.Tx, before time.Time, cursor string, limit int) ([]lifecycle.Candidate, string, error) {
		key := int64(0)
		if cursor != "" {
			var err error
			if key, err = strconv.ParseInt(cursor, 10, 64); err != nil {
				return nil, "", cupid.Invalid("after", "not a cursor of this store: %q", cursor)
			}
		}
		var cs []lifecycle.Candidate
		young := false
		err := scanEach(tx.QueryContext(ctx, q, key, limit))(func(r rowScanner) error {
			var at int64
			var id string
			if err := r.Scan(&key, &at, &id); err != nil {
				return err
			}
			if at >= before.UnixNano() {
				young = true
			}
			if !young {
				cs = append(cs, lifecycle.Candidate{ID: id, At: time.Unix(0, at).UTC()})
			}
			return nil
		})
		if err != nil || young || len(cs) < limit {
			return cs, "", err
		}
		return cs, strconv.FormatInt(key, 10), nil
	}
}

// removeByKey deletes rows by key with a statement whose %s is the list
// of keys.
func removeByKey(q, _ string) func(ctx context.Context, tx *sql.Tx, ids []string) (int, int, error) {
	return func(ctx context.Context, tx *sql.Tx, ids []string) (int, int, error) {
		removed := 0
		for lo := 0; lo < len(ids); lo += maxRows {
			part := anys(ids[lo:min(lo+maxRows, len(ids))])
			n, err := execCount(ctx, tx, fmt.Sprintf(q, marks(len(part))), part...)
			if err != nil {
				return 0, 0, err
			}
			removed += n
		}
		return removed, 0, nil
	}
}

func execCount(ctx context.Context, tx *sql.Tx, q string, args ...any) (int, error) {
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// MatchLogHorizon returns the highest match log sequence number retention
// removed from queue's log.
func (s *Store) MatchLogHorizon(ctx context.Context, queue string) (int64, error) {
	var seq int64
	err := s.r.QueryRowContext(ctx, `SELECT seq FROM retention_horizons WHERE queue = ?`, queue).Scan(&seq)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: read the match log horizon of %s: %w", queue, err)
	}
	return seq, nil
}

// Retained counts each kind's rows and reads its oldest. Bytes are the
// pages of the kind's tables and their indexes (SQLite's dbstat table),
// which walks them: call it as often as a retention pass, not per request.
func (s *Store) Retained(ctx context.Context) ([]cupid.Retained, error) {
	var out []cupid.Retained
	for _, p := range pruneKinds {
		r := cupid.Retained{Kind: p.kind}
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM `+p.table).Scan(&r.Rows); err != nil {
			return nil, fmt.Errorf("sqlite: count %s: %w", p.table, err)
		}
		var oldest sql.NullInt64
		if err := s.r.QueryRowContext(ctx, p.oldest).Scan(&oldest); err != nil && err != sql.ErrNoRows {
			return nil, fmt.Errorf("sqlite: oldest of %s: %w", p.table, err)
		}
		if oldest.Valid {
			r.Oldest = time.Unix(0, oldest.Int64).UTC()
		}
		tables := append([]string{p.table}, p.others...)
		var bytes sql.NullInt64
		err := s.r.QueryRowContext(ctx, `SELECT sum(d.pgsize) FROM dbstat d JOIN sqlite_schema m ON m.name = d.name
			WHERE m.tbl_name IN (`+marks(len(tables))+`)`, anys(tables)...).Scan(&bytes)
		if err != nil {
			return nil, fmt.Errorf("sqlite: size of %s: %w", p.table, err)
		}
		r.Bytes = bytes.Int64
		out = append(out, r)
	}
	return out, nil
}

// Space given back. A database file never shrinks by itself: the pages of
// removed rows go to SQLite's free list and are reused by later writes.
// With auto_vacuum=INCREMENTAL the file can give them back to the file
// system a chunk at a time (PRAGMA incremental_vacuum), which Compact does
// after a retention pass, so the file follows what is kept. The WAL is
// checkpointed passively (never waiting for readers, so intake never waits
// for it) and journal_size_limit truncates it when it restarts, so it
// stays bounded too.

// vacuumChunk is the pages one incremental_vacuum statement frees (4 MiB
// of 4 KiB pages): the writer is taken for one chunk at a time, so intake
// and commits slip in between.
const vacuumChunk = 1024

// walLimit is the size the WAL is truncated to when it restarts
// (journal_size_limit).
const walLimit = 64 << 20

// retentionPragmas are added to the writer's connection string: new
// databases are created with incremental auto-vacuum, and the WAL is kept
// to walLimit.
var retentionPragmas = fmt.Sprintf("&_pragma=auto_vacuum(incremental)&_pragma=journal_size_limit(%d)", walLimit)

// useIncrementalVacuum turns incremental auto-vacuum on for a database
// created before it (auto_vacuum=NONE): the mode changes only with a full
// VACUUM, which rewrites the file once (it needs as much free disk as the
// file, and holds the writer while it runs). A database already in the
// mode costs one PRAGMA read.
func useIncrementalVacuum(ctx context.Context, db *sql.DB) error {
	var mode int
	if err := db.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return err
	}
	if mode == 2 {
		return nil
	}
	if _, err := db.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("turn incremental vacuum on (VACUUM): %w", err)
	}
	return nil
}

// Compact gives the free pages back to the file system, a chunk at a
// time, and checkpoints the WAL without waiting for readers.
func (s *Store) Compact(ctx context.Context) error {
	for {
		var free int
		if err := s.w.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
			return fmt.Errorf("sqlite: compact: %w", err)
		}
		if free == 0 {
			break
		}
		// incremental_vacuum returns no rows but must be stepped to the
		// end, which Exec does.
		if _, err := s.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA incremental_vacuum(%d)`, min(free, vacuumChunk))); err != nil {
			return fmt.Errorf("sqlite: compact: %w", err)
		}
		if free <= vacuumChunk {
			break
		}
	}
	if _, err := s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
		return fmt.Errorf("sqlite: checkpoint: %w", err)
	}
	return nil
}
