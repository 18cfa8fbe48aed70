package postgres

import (
	"context"
	"errors"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/columns"
)

var _ cupid.RatingStore = (*Store)(nil)

// ratingsSchema is the ratings' tables (internal/columns, shared with
// SQLite).
var ratingsSchema = columns.RatingsSchema("bigserial PRIMARY KEY", "bigint", "bytea")

// checkRows refuses what PostgreSQL's text columns cannot hold.
func checkRows(rows []cupid.RatingRow) error {
	for _, r := range rows {
		if !storable(r.Kind) || !storable(r.ID) {
			return cupid.Invalid("id", "must be UTF-8 without NUL bytes: PostgreSQL cannot store it")
		}
	}
	return nil
}

// SaveResult stores a result with its rows and history in one transaction.
func (s *Store) SaveResult(ctx context.Context, r cupid.ResultRecord, rows []cupid.RatingRow, history []cupid.RatingEntry) error {
	return s.SaveResults(ctx, []cupid.ResultRecord{r}, rows, history)
}

// SaveResults stores results with their rows and history in one
// transaction, all or nothing: each kind of write is one statement over
// arrays (unnest), whose count of rows says whether it all held.
func (s *Store) SaveResults(ctx context.Context, results []cupid.ResultRecord, rows []cupid.RatingRow, history []cupid.RatingEntry) error {
	if err := checkRows(rows); err != nil {
		return err
	}
	ids := make([]string, len(results))
	ats := make([]int64, len(results))
	bodies := make([][]byte, len(results))
	for i, r := range results {
		if !storable(r.MatchID) {
			return cupid.Invalid("match_id", "must be UTF-8 without NUL bytes")
		}
		ids[i], ats[i], bodies[i] = r.MatchID, r.At.UnixNano(), nonNil(r.Body)
	}
	var hRating, hPlayer, hMatch []string
	var hAt []int64
	var hBody [][]byte
	for _, h := range history {
		if !storable(h.Rating) || !storable(h.Player) || !storable(h.MatchID) {
			return cupid.Invalid("player", "must be UTF-8 without NUL bytes")
		}
		hRating, hPlayer, hMatch = append(hRating, h.Rating), append(hPlayer, h.Player), append(hMatch, h.MatchID)
		hAt, hBody = append(hAt, h.At.UnixNano()), append(hBody, nonNil(h.Body))
	}
	err := retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if len(results) > 0 {
				tag, err := tx.Exec(ctx, `INSERT INTO rating_results (match_id, at, body)
					SELECT * FROM unnest($1::text[], $2::bigint[], $3::bytea[]) ON CONFLICT (match_id) DO NOTHING`, ids, ats, bodies)
				if err != nil {
					return err
				}
				if tag.RowsAffected() != int64(len(results)) {
					return columns.ResultsConflict(results)
				}
			}
			if err := putRatingRows(ctx, tx, rows); err != nil {
				return err
			}
			if len(history) == 0 {
				return nil
			}
			// WITH ORDINALITY keeps the given order, so Seq follows it.
			_, err := tx.Exec(ctx, `INSERT INTO rating_history (rating, player, match_id, at, body)
				SELECT r, p, m, a, b FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bytea[]) WITH ORDINALITY AS h(r, p, m, a, b, n) ORDER BY n`,
				hRating, hPlayer, hMatch, hAt, hBody)
			return err
		})
	})
	if err != nil {
		return wrap("save the results of matches", err)
	}
	return nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{} // pgx sends nil as NULL
	}
	return b
}

// putRatingRows writes rows; a guarded row only over the body it was read
// with (see cupid.RatingRow), or the call is a conflict. The guarded rows,
// the whole of a batch of results, are first locked in (kind, id) order, so
// two servers writing overlapping batches wait for each other instead of
// deadlocking; then one insert of the rows none was read for and one
// update of the rows over their bodies, whose counts say whether every
// guard held. Under READ COMMITTED the update, having waited for a
// concurrent writer, finds its body changed, and the insert finds the row
// a concurrent writer inserted. Guarded deletes and an operator's
// unguarded writes are one statement each.
func putRatingRows(ctx context.Context, tx pgx.Tx, rows []cupid.RatingRow) error {
	inserts, updates, single := columns.RatingWrites(rows)
	for _, row := range single {
		var err error
		switch {
		case row.Guard:
			var tag pgconn.CommandTag
			tag, err = tx.Exec(ctx, `DELETE FROM rating_rows WHERE kind = $1 AND id = $2 AND body = $3`, row.Kind, row.ID, row.Prev)
			if err == nil && tag.RowsAffected() != 1 {
				return cupid.RowsChanged(row.Kind, row.ID)
			}
		case row.Body == nil:
			_, err = tx.Exec(ctx, `DELETE FROM rating_rows WHERE kind = $1 AND id = $2`, row.Kind, row.ID)
		default:
			_, err = tx.Exec(ctx, `INSERT INTO rating_rows (kind, id, body) VALUES ($1, $2, $3)
				ON CONFLICT (kind, id) DO UPDATE SET body = EXCLUDED.body`, row.Kind, row.ID, row.Body)
		}
		if err != nil {
			return err
		}
	}
	var insKind, insID, updKind, updID []string
	var insBody, updPrev, updBody [][]byte
	for _, row := range inserts {
		insKind, insID, insBody = append(insKind, row.Kind), append(insID, row.ID), append(insBody, row.Body)
	}
	for _, row := range updates {
		updKind, updID = append(updKind, row.Kind), append(updID, row.ID)
		updPrev, updBody = append(updPrev, row.Prev), append(updBody, row.Body)
	}
	if len(updKind) > 1 {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM rating_rows r JOIN unnest($1::text[], $2::text[]) AS v(kind, id)
			ON r.kind = v.kind AND r.id = v.id ORDER BY r.kind, r.id FOR UPDATE OF r`, updKind, updID); err != nil {
			return err
		}
	}
	if len(insKind) > 0 {
		tag, err := tx.Exec(ctx, `INSERT INTO rating_rows (kind, id, body)
			SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[]) ORDER BY 1, 2 ON CONFLICT (kind, id) DO NOTHING`, insKind, insID, insBody)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != int64(len(insKind)) {
			return columns.RowsConflict(inserts)
		}
	}
	if len(updKind) > 0 {
		tag, err := tx.Exec(ctx, `UPDATE rating_rows r SET body = v.body
			FROM unnest($1::text[], $2::text[], $3::bytea[], $4::bytea[]) AS v(kind, id, prev, body)
			WHERE r.kind = v.kind AND r.id = v.id AND r.body = v.prev`, updKind, updID, updPrev, updBody)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != int64(len(updKind)) {
			return columns.RowsConflict(updates)
		}
	}
	return nil
}

// Result returns a match's stored result, or not_found.
func (s *Store) Result(ctx context.Context, matchID string) (cupid.ResultRecord, error) {
	if !storable(matchID) {
		return cupid.ResultRecord{}, cupid.NotFound("match_id", "match %s has no result", matchID)
	}
	r := cupid.ResultRecord{MatchID: matchID}
	var at int64
	err := s.pool.QueryRow(ctx, `SELECT at, body FROM rating_results WHERE match_id = $1`, matchID).Scan(&at, &r.Body)
	if errors.Is(err, pgx.ErrNoRows) {
		return cupid.ResultRecord{}, cupid.NotFound("match_id", "match %s has no result", matchID)
	}
	if err != nil {
		return cupid.ResultRecord{}, wrap("read the result of match "+matchID, err)
	}
	r.At = fromNanos(at)
	return r, nil
}

// PutRatingRows writes rows in one transaction; nil bodies delete.
func (s *Store) PutRatingRows(ctx context.Context, rows []cupid.RatingRow) error {
	if err := checkRows(rows); err != nil {
		return err
	}
	err := retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return putRatingRows(ctx, tx, rows) })
	})
	if err != nil {
		return wrap("store rating rows", err)
	}
	return nil
}

// RatingRows returns the rows of a kind among ids that exist, in the
// order of ids.
func (s *Store) RatingRows(ctx context.Context, kind string, ids []string) ([]cupid.RatingRow, error) {
	var ok []string
	for _, id := range ids {
		if storable(id) {
			ok = append(ok, id)
		}
	}
	if len(ok) == 0 || !storable(kind) {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id, body FROM rating_rows WHERE kind = $1 AND id = ANY($2)`, kind, ok)
	if err != nil {
		return nil, wrap("read rating rows", err)
	}
	found := map[string][]byte{}
	for rows.Next() {
		var id string
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			rows.Close()
			return nil, wrap("read rating rows", err)
		}
		found[id] = body
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("read rating rows", err)
	}
	return columns.RatingRowsInOrder(kind, ids, found), nil
}

// RatingHistory returns a player's history under a rating, newest first.
func (s *Store) RatingHistory(ctx context.Context, rating, player string, beforeSeq int64, limit int) ([]cupid.RatingEntry, error) {
	if !storable(rating) || !storable(player) {
		return nil, nil
	}
	if beforeSeq <= 0 {
		beforeSeq = math.MaxInt64
	}
	rows, err := s.pool.Query(ctx, columns.SelectRatingHistory, rating, player, beforeSeq, limit)
	if err != nil {
		return nil, wrap("read rating history", err)
	}
	defer rows.Close()
	var out []cupid.RatingEntry
	for rows.Next() {
		e, err := columns.ScanRatingEntry(rating, player, rows.Scan)
		if err != nil {
			return nil, wrap("read rating history", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("read rating history", err)
	}
	return out, nil
}
