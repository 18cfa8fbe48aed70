package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
)

var _ cupid.RatingStore = (*Store)(nil)

// ratingsSchema holds the ratings service's state: one result per match,
// rows of JSON by kind and id, and an append-only history with its own
// sequence.
const ratingsSchema = `
CREATE TABLE rating_results (
	match_id TEXT PRIMARY KEY,
	at       INTEGER NOT NULL,
	body     BLOB NOT NULL
);
CREATE TABLE rating_rows (
	kind TEXT NOT NULL,
	id   TEXT NOT NULL,
	body BLOB NOT NULL,
	PRIMARY KEY (kind, id)
);
CREATE TABLE rating_history (
	seq      INTEGER PRIMARY KEY AUTOINCREMENT,
	rating   TEXT NOT NULL,
	player   TEXT NOT NULL,
	match_id TEXT NOT NULL,
	at       INTEGER NOT NULL,
	body     BLOB NOT NULL
);
CREATE INDEX rating_history_player ON rating_history (rating, player, seq);`

// SaveResult stores a result with its rows and history in one transaction.
func (s *Store) SaveResult(ctx context.Context, r cupid.ResultRecord, rows []cupid.RatingRow, history []cupid.RatingEntry) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO rating_results (match_id, at, body) VALUES (?, ?, ?) ON CONFLICT (match_id) DO NOTHING`,
			r.MatchID, r.At.UnixNano(), r.Body)
		if err != nil {
			return fmt.Errorf("sqlite: store the result of match %s: %w", r.MatchID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return cupid.Conflict("match_id", "match %s has a result already", r.MatchID)
		}
		if err := putRatingRows(ctx, tx, rows); err != nil {
			return err
		}
		for _, h := range history {
			if _, err := tx.ExecContext(ctx, `INSERT INTO rating_history (rating, player, match_id, at, body) VALUES (?, ?, ?, ?, ?)`,
				h.Rating, h.Player, h.MatchID, h.At.UnixNano(), h.Body); err != nil {
				return fmt.Errorf("sqlite: store rating history: %w", err)
			}
		}
		return nil
	})
}

// putRatingRows writes rows; a guarded row only over the body it was read
// with (see cupid.RatingRow), or the call is a conflict.
func putRatingRows(ctx context.Context, tx *sql.Tx, rows []cupid.RatingRow) error {
	for _, row := range rows {
		var res sql.Result
		var err error
		switch {
		case row.Guard && row.Prev == nil && row.Body == nil:
			continue
		case row.Guard && row.Prev == nil:
			res, err = tx.ExecContext(ctx, `INSERT INTO rating_rows (kind, id, body) VALUES (?, ?, ?) ON CONFLICT (kind, id) DO NOTHING`, row.Kind, row.ID, row.Body)
		case row.Guard && row.Body == nil:
			res, err = tx.ExecContext(ctx, `DELETE FROM rating_rows WHERE kind = ? AND id = ? AND body = ?`, row.Kind, row.ID, row.Prev)
		case row.Guard:
			res, err = tx.ExecContext(ctx, `UPDATE rating_rows SET body = ? WHERE kind = ? AND id = ? AND body = ?`, row.Body, row.Kind, row.ID, row.Prev)
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
	return nil
}

// Result returns a match's stored result, or not_found.
func (s *Store) Result(ctx context.Context, matchID string) (cupid.ResultRecord, error) {
	r := cupid.ResultRecord{MatchID: matchID}
	var at int64
	err := s.r.QueryRowContext(ctx, `SELECT at, body FROM rating_results WHERE match_id = ?`, matchID).Scan(&at, &r.Body)
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
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error { return putRatingRows(ctx, tx, rows) })
}

// RatingRows returns the rows of a kind among ids that exist, in the
// order of ids. A result touches a handful of players, so one query with
// their ids is enough.
func (s *Store) RatingRows(ctx context.Context, kind string, ids []string) ([]cupid.RatingRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(ids)+1)
	args = append(args, kind)
	for _, id := range ids {
		args = append(args, id)
	}
	q := `SELECT id, body FROM rating_rows WHERE kind = ? AND id IN (?` + strings.Repeat(", ?", len(ids)-1) + `)`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := map[string][]byte{}
	for rows.Next() {
		var id string
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			return nil, err
		}
		found[id] = body
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []cupid.RatingRow
	for _, id := range ids {
		if b, ok := found[id]; ok {
			out = append(out, cupid.RatingRow{Kind: kind, ID: id, Body: b})
		}
	}
	return out, nil
}

// RatingHistory returns a player's history under a rating, newest first.
func (s *Store) RatingHistory(ctx context.Context, rating, player string, beforeSeq int64, limit int) ([]cupid.RatingEntry, error) {
	if beforeSeq <= 0 {
		beforeSeq = 1<<63 - 1
	}
	rows, err := s.r.QueryContext(ctx, `SELECT seq, match_id, at, body FROM rating_history
		WHERE rating = ? AND player = ? AND seq < ? ORDER BY seq DESC LIMIT ?`, rating, player, beforeSeq, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cupid.RatingEntry
	for rows.Next() {
		e := cupid.RatingEntry{Rating: rating, Player: player}
		var at int64
		if err := rows.Scan(&e.Seq, &e.MatchID, &at, &e.Body); err != nil {
			return nil, err
		}
		e.At = time.Unix(0, at).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}
