package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/columns"
)

// matchesSchema is migration 5: the hand-off of matches to game servers.
//
// A match's queue is a virtual column read from its body, so CommitMatches
// keeps writing the three columns it always wrote and a database migrated
// from before knows the queue of its old matches too. Those old matches
// start formed: they were never assigned, which is what formed means. The
// match log (match_events) has its own sequence, written in the same
// transaction as the change it records; SQLite's single writer makes
// commit order the order of seq, so a reader never sees a later event
// before an earlier one.
const matchesSchema = `
ALTER TABLE matches ADD COLUMN queue TEXT GENERATED ALWAYS AS (json_extract(CAST(body AS TEXT), '$.key.queue')) VIRTUAL;
ALTER TABLE matches ADD COLUMN state TEXT NOT NULL DEFAULT 'formed';
ALTER TABLE matches ADD COLUMN assignment BLOB;
ALTER TABLE matches ADD COLUMN updated_at INTEGER;
ALTER TABLE matches ADD COLUMN reason TEXT NOT NULL DEFAULT '';
CREATE INDEX matches_queue ON matches (queue, state, created_at, id);
CREATE TABLE match_events (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT,
	match_id TEXT NOT NULL,
	queue    TEXT NOT NULL,
	kind     TEXT NOT NULL,
	at       INTEGER NOT NULL
);
CREATE INDEX match_events_queue ON match_events (queue, seq);
`

// matchColumns are what scanRecord reads.
const matchColumns = `body, state, assignment, COALESCE(updated_at, created_at), reason`

// insertMatchEvents stores match events, up to 128 to a statement, and
// fills in their sequence numbers (in the order given, as AUTOINCREMENT
// assigns them within a statement).
func (s *Store) insertMatchEvents(ctx context.Context, tx *sql.Tx, evs []*cupid.MatchEvent) error {
	return s.multi.chunks(insertMatchEventRows, len(evs), func(st *sql.Stmt, lo, hi int) error {
		part := evs[lo:hi]
		args := make([]any, 0, 5*len(part))
		byID := make(map[string]*cupid.MatchEvent, len(part))
		for _, e := range part {
			args = append(args, e.MatchID, e.Queue, string(e.Kind), e.At.UnixNano(), columns.Detail(e))
			byID[e.MatchID] = e
		}
		err := scanEach(tx.StmtContext(ctx, st).QueryContext(ctx, args...))(func(r rowScanner) error {
			var seq int64
			var id string
			if err := r.Scan(&seq, &id); err != nil {
				return err
			}
			e, ok := byID[id]
			if !ok || e.Seq != 0 {
				return fmt.Errorf("sqlite: stored a match event for match %s that was not asked for", id)
			}
			e.Seq = seq
			return nil
		})
		if err != nil {
			return fmt.Errorf("sqlite: store match events: %w", err)
		}
		for _, e := range part {
			if e.Seq == 0 {
				return fmt.Errorf("sqlite: match event of %s was not stored", e.MatchID)
			}
		}
		return nil
	})
}

func scanRecord(r rowScanner) (*cupid.MatchRecord, error) {
	var body, assignment []byte
	var state, reason string
	var updated int64
	if err := r.Scan(&body, &state, &assignment, &updated, &reason); err != nil {
		return nil, err
	}
	return columns.Record(body, state, assignment, updated, reason)
}

// MatchRecord returns a match with its hand-off state.
func (s *Store) MatchRecord(ctx context.Context, id string) (*cupid.MatchRecord, error) {
	rec, err := scanRecord(s.r.QueryRowContext(ctx, `SELECT `+matchColumns+` FROM matches WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, cupid.MatchNotFound(id)
	}
	return rec, err
}

// Matches lists a queue's matches oldest first.
func (s *Store) Matches(ctx context.Context, f cupid.MatchFilter) ([]*cupid.MatchRecord, error) {
	var where []string
	var args []any
	if f.Queue != "" {
		where, args = append(where, "queue = ?"), append(args, f.Queue)
	}
	if f.State != "" {
		where, args = append(where, "state = ?"), append(args, string(f.State))
	}
	return s.queryRecords(ctx, listing(`SELECT `+matchColumns+` FROM matches`, where, f.Limit), args...)
}

// listing is a listing query: sel, the conditions, oldest first, at most
// limit rows (0: all).
func listing(sel string, where []string, limit int) string {
	q := sel
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY created_at, id"
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	return q
}

// queryRecords runs a query of matchColumns on a reader and scans every row.
func (s *Store) queryRecords(ctx context.Context, q string, args ...any) ([]*cupid.MatchRecord, error) {
	var out []*cupid.MatchRecord
	err := scanEach(s.r.QueryContext(ctx, q, args...))(func(r rowScanner) error {
		rec, err := scanRecord(r)
		out = append(out, rec)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MatchEvents returns a queue's match events after seq, each with its match
// (and the assignment or the release reason), in one query.
func (s *Store) MatchEvents(ctx context.Context, queue string, afterSeq int64, limit int) ([]cupid.MatchEvent, error) {
	if limit <= 0 {
		return nil, cupid.Invalid("limit", "must be positive")
	}
	var out []cupid.MatchEvent
	err := scanEach(s.r.QueryContext(ctx, `SELECT e.seq, e.kind, e.at, e.detail, `+matchColumnsOf("m")+`
		FROM match_events e JOIN matches m ON m.id = e.match_id
		WHERE e.queue = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`, queue, afterSeq, limit))(func(r rowScanner) error {
		var ev cupid.MatchEvent
		var kind string
		var at int64
		var detail []byte
		rec, err := scanRecord(prefixRow{r, []any{&ev.Seq, &kind, &at, &detail}})
		if err != nil {
			return err
		}
		if err := columns.MatchEvent(&ev, queue, kind, at, detail, rec); err != nil {
			return err
		}
		out = append(out, ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// prefixRow scans some leading columns into pre, the rest as asked.
type prefixRow struct {
	r   rowScanner
	pre []any
}

func (p prefixRow) Scan(dest ...any) error { return p.r.Scan(append(p.pre, dest...)...) }

func matchColumnsOf(alias string) string {
	return alias + ".body, " + alias + ".state, " + alias + ".assignment, COALESCE(" + alias + ".updated_at, " + alias + ".created_at), " + alias + ".reason"
}
