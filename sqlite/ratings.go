package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/columns"
)

var _ cupid.RatingStore = (*Store)(nil)

// ratingsSchema is the ratings' tables (internal/columns, shared with
// PostgreSQL).
var ratingsSchema = columns.RatingsSchema("INTEGER PRIMARY KEY AUTOINCREMENT", "INTEGER", "BLOB")

// SaveResult stores a result with its rows and history in one transaction.
func (s *Store) SaveResult(ctx context.Context, r cupid.ResultRecord, rows []cupid.RatingRow, history []cupid.RatingEntry) error {
	return s.SaveResults(ctx, []cupid.ResultRecord{r}, rows, history)
}

// The multi-row statements of the ratings, prepared at Open for every
// power-of-two row count (multi.go) like the tickets' own: a batch of 256
// five-against-five results writes about 5,000 rows, and parsing statements
// of thousands of rows per batch was a tenth of the store's time. The
// history and the guarded update say OR FAIL: a statement that may stop
// half-way with ABORT makes SQLite copy every page it touches into a
// statement journal first, so that it can undo only itself; here any
// failure ends the whole transaction anyway (tx rolls it back), so that
// copy bought nothing.
var (
	insertResults = &multiKind{name: "insert results",
		head: `INSERT INTO rating_results (match_id, at, body) VALUES `,
		row:  `(?, ?, ?)`, sep: `, `, tail: ` ON CONFLICT (match_id) DO NOTHING`}
	insertRatingRows = &multiKind{name: "insert rating rows",
		head: `INSERT INTO rating_rows (kind, id, body) VALUES `,
		row:  `(?, ?, ?)`, sep: `, `, tail: ` ON CONFLICT (kind, id) DO NOTHING`}
	// updateRatingRows writes (kind, id, prev, body) rows over the bodies
	// they were read with; a row whose body changed is not counted.
	updateRatingRows = &multiKind{name: "update rating rows",
		head: `UPDATE OR FAIL rating_rows SET body = v.column4 FROM (VALUES `,
		row:  `(?, ?, ?, ?)`, sep: `, `,
		tail: `) AS v WHERE rating_rows.kind = v.column1 AND rating_rows.id = v.column2 AND rating_rows.body = v.column3`}
	insertHistory = &multiKind{name: "insert rating history",
		head: `INSERT OR FAIL INTO rating_history (rating, player, match_id, at, body) VALUES `,
		row:  `(?, ?, ?, ?, ?)`, sep: `, `}
)

// ratingRowsOf reads rows of a kind by id, on the readers: a batch of
// results reads the marks of all its players, thousands of ids, and
// parsing a statement of that many values each time was a twentieth of a
// result's CPU.
var ratingRowsOf = &multiKind{name: "rating rows by id",
	head: `SELECT id, body FROM rating_rows WHERE kind = ? AND id IN (`,
	row:  `?`, sep: `, `, tail: `)`}

// The ratings' statements are prepared with the tickets' (multi.go).
func init() {
	multiKinds = append(multiKinds, insertResults, insertRatingRows, updateRatingRows, insertHistory)
	readMultiKinds = append(readMultiKinds, ratingRowsOf)
}

// execRows runs kind over n rows in prepared chunks, args(i) giving row
// i's values, and returns how many rows the statements changed.
func (s *Store) execRows(ctx context.Context, tx *sql.Tx, kind *multiKind, n int, args func(i int) []any) (int64, error) {
	var changed int64
	var vals []any
	err := s.multi.chunks(kind, n, func(st *sql.Stmt, lo, hi int) error {
		vals = vals[:0]
		for i := lo; i < hi; i++ {
			vals = append(vals, args(i)...)
		}
		res, err := tx.StmtContext(ctx, st).ExecContext(ctx, vals...)
		if err != nil {
			return fmt.Errorf("sqlite: %s: %w", kind.name, err)
		}
		c, err := res.RowsAffected()
		if err != nil {
			return err
		}
		changed += c
		return nil
	})
	return changed, err
}

// SaveResults stores results with their rows and history in one
// transaction, all or nothing, in a few multi-row statements.
func (s *Store) SaveResults(ctx context.Context, results []cupid.ResultRecord, rows []cupid.RatingRow, history []cupid.RatingEntry) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		n, err := s.execRows(ctx, tx, insertResults, len(results), func(i int) []any {
			r := results[i]
			return []any{r.MatchID, r.At.UnixNano(), r.Body}
		})
		if err != nil {
			return err
		}
		if n != int64(len(results)) {
			return columns.ResultsConflict(results)
		}
		if err := s.putRatingRows(ctx, tx, rows); err != nil {
			return err
		}
		_, err = s.execRows(ctx, tx, insertHistory, len(history), func(i int) []any {
			h := history[i]
			return []any{h.Rating, h.Player, h.MatchID, h.At.UnixNano(), h.Body}
		})
		return err
	})
}

// putRatingRows writes rows; a guarded row only over the body it was read
// with (see cupid.RatingRow), or the call is a conflict. Guarded rows, the
// whole of a batch of results, go in two multi-row statements whose counts
// say whether every guard held: an insert of rows none was read for, and
// an update of rows over their bodies. The rest, an operator's writes and
// guarded deletes, are one statement each.
func (s *Store) putRatingRows(ctx context.Context, tx *sql.Tx, rows []cupid.RatingRow) error {
	inserts, updates, single := columns.RatingWrites(rows)
	for _, row := range single {
		var res sql.Result
		var err error
		switch {
		case row.Guard:
			res, err = tx.ExecContext(ctx, `DELETE FROM rating_rows WHERE kind = ? AND id = ? AND body = ?`, row.Kind, row.ID, row.Prev)
		case row.Body == nil:
			_, err = tx.ExecContext(ctx, `DELETE FROM rating_rows WHERE kind = ? AND id = ?`, row.Kind, row.ID)
		default:
			_, err = tx.ExecContext(ctx, `INSERT INTO rating_rows (kind, id, body) VALUES (?, ?, ?)
				ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body`, row.Kind, row.ID, row.Body)
		}
		if err != nil {
			return fmt.Errorf("sqlite: store rating row %s/%s: %w", row.Kind, row.ID, err)
		}
		if res != nil {
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n != 1 {
				return cupid.RowsChanged(row.Kind, row.ID)
			}
		}
	}
	n, err := s.execRows(ctx, tx, insertRatingRows, len(inserts), func(i int) []any {
		return []any{inserts[i].Kind, inserts[i].ID, inserts[i].Body}
	})
	if err != nil {
		return err
	}
	if n != int64(len(inserts)) {
		return columns.RowsConflict(inserts)
	}
	n, err = s.execRows(ctx, tx, updateRatingRows, len(updates), func(i int) []any {
		u := updates[i]
		return []any{u.Kind, u.ID, u.Prev, u.Body}
	})
	if err != nil {
		return err
	}
	if n != int64(len(updates)) {
		return columns.RowsConflict(updates)
	}
	return nil
}

// Result returns a match's stored result, or not_found.
func (s *Store) Result(ctx context.Context, matchID string) (cupid.ResultRecord, error) {
	r := cupid.ResultRecord{MatchID: matchID}
	var at int64
	err := s.getResult.QueryRowContext(ctx, matchID).Scan(&at, &r.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return cupid.ResultRecord{}, cupid.NotFound("match_id", "match %s has no result", matchID)
	}
	if err != nil {
		return cupid.ResultRecord{}, err
	}
	r.At = time.Unix(0, at).UTC()
	return r, nil
}

// PutRatingRows writes rows in one transaction; nil bodies delete.
func (s *Store) PutRatingRows(ctx context.Context, rows []cupid.RatingRow) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error { return s.putRatingRows(ctx, tx, rows) })
}

// RatingRows returns the rows of a kind among ids that exist, in the
// order of ids, in prepared chunks of ids.
func (s *Store) RatingRows(ctx context.Context, kind string, ids []string) ([]cupid.RatingRow, error) {
	found := make(map[string][]byte, len(ids))
	args := make([]any, 0, min(len(ids), maxRows)+1)
	err := s.readMulti.chunks(ratingRowsOf, len(ids), func(st *sql.Stmt, lo, hi int) error {
		args = append(args[:0], kind)
		for _, id := range ids[lo:hi] {
			args = append(args, id)
		}
		rows, err := st.QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var body []byte
			if err := rows.Scan(&id, &body); err != nil {
				return err
			}
			found[id] = body
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return columns.RatingRowsInOrder(kind, ids, found), nil
}

// RatingHistory returns a player's history under a rating, newest first.
func (s *Store) RatingHistory(ctx context.Context, rating, player string, beforeSeq int64, limit int) ([]cupid.RatingEntry, error) {
	if beforeSeq <= 0 {
		beforeSeq = 1<<63 - 1
	}
	rows, err := s.r.QueryContext(ctx, columns.SelectRatingHistory, rating, player, beforeSeq, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cupid.RatingEntry
	for rows.Next() {
		e, err := columns.ScanRatingEntry(rating, player, rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
