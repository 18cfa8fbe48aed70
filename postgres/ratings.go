package postgres

import (
	"context"
	"errors"
	"math"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	cupid "github.com/cupid-match/cupid"
)

var _ cupid.RatingStore = (*Store)(nil)

// ratingsSchema holds the ratings service's state: one result per match,
// rows of JSON by kind and id, and an append-only history with its own
// sequence.
const ratingsSchema = `
CREATE TABLE rating_results (
	match_id text PRIMARY KEY,
	at       bigint NOT NULL,
	body     bytea NOT NULL
);
CREATE TABLE rating_rows (
	kind text NOT NULL,
	id   text NOT NULL,
	body bytea NOT NULL,
	PRIMARY KEY (kind, id)
);
CREATE TABLE rating_history (
	seq      bigserial PRIMARY KEY,
	rating   text NOT NULL,
	player   text NOT NULL,
	match_id text NOT NULL,
	at       bigint NOT NULL,
	body     bytea NOT NULL
);
CREATE INDEX rating_history_player ON rating_history (rating, player, seq);
`

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
	if err := checkRows(rows); err != nil {
		return err
	}
	if !storable(r.MatchID) {
		return cupid.Invalid("match_id", "must be UTF-8 without NUL bytes")
	}
	for _, h := range history {
		if !storable(h.Rating) || !storable(h.Player) {
			return cupid.Invalid("player", "must be UTF-8 without NUL bytes")
		}
	}
	err := retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, `INSERT INTO rating_results (match_id, at, body) VALUES ($1, $2, $3) ON CONFLICT (match_id) DO NOTHING`,
				r.MatchID, r.At.UnixNano(), nonNil(r.Body))
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return cupid.Conflict("match_id", "match %s has a result already", r.MatchID)
			}
			if err := putRatingRows(ctx, tx, rows); err != nil {
				return err
			}
			b := &pgx.Batch{}
			for _, h := range history {
				b.Queue(`INSERT INTO rating_history (rating, player, match_id, at, body) VALUES ($1, $2, $3, $4, $5)`,
					h.Rating, h.Player, h.MatchID, h.At.UnixNano(), nonNil(h.Body))
			}
			if b.Len() == 0 {
				return nil
			}
			return tx.SendBatch(ctx, b).Close()
		})
	})
	if err != nil {
		return wrap("save the result of match "+r.MatchID, err)
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
// with (see cupid.RatingRow), or the call is a conflict. Each guarded row
// is its own statement, whose count of rows says whether the guard held;
// under READ COMMITTED an UPDATE or DELETE ... WHERE body = prev waits for
// a concurrent writer of the row and then finds its body changed, and an
// INSERT ... DO NOTHING finds the row a concurrent writer inserted.
func putRatingRows(ctx context.Context, tx pgx.Tx, rows []cupid.RatingRow) error {
	for _, row := range rows {
		var tag pgconn.CommandTag
		var err error
		guarded := true
		switch {
		case row.Guard && row.Prev == nil && row.Body == nil:
			continue
		case row.Guard && row.Prev == nil:
			tag, err = tx.Exec(ctx, `INSERT INTO rating_rows (kind, id, body) VALUES ($1, $2, $3) ON CONFLICT (kind, id) DO NOTHING`, row.Kind, row.ID, row.Body)
		case row.Guard && row.Body == nil:
			tag, err = tx.Exec(ctx, `DELETE FROM rating_rows WHERE kind = $1 AND id = $2 AND body = $3`, row.Kind, row.ID, row.Prev)
		case row.Guard:
			tag, err = tx.Exec(ctx, `UPDATE rating_rows SET body = $4 WHERE kind = $1 AND id = $2 AND body = $3`, row.Kind, row.ID, row.Prev, row.Body)
		case row.Body == nil:
			guarded = false
			_, err = tx.Exec(ctx, `DELETE FROM rating_rows WHERE kind = $1 AND id = $2`, row.Kind, row.ID)
		default:
			guarded = false
			_, err = tx.Exec(ctx, `INSERT INTO rating_rows (kind, id, body) VALUES ($1, $2, $3)
				ON CONFLICT (kind, id) DO UPDATE SET body = EXCLUDED.body`, row.Kind, row.ID, row.Body)
		}
		if err != nil {
			return err
		}
		if guarded && tag.RowsAffected() != 1 {
			return cupid.RowsChanged(row.Kind, row.ID)
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
	if !storable(rating) || !storable(player) {
		return nil, nil
	}
	if beforeSeq <= 0 {
		beforeSeq = math.MaxInt64
	}
	rows, err := s.pool.Query(ctx, `SELECT seq, match_id, at, body FROM rating_history
		WHERE rating = $1 AND player = $2 AND seq < $3 ORDER BY seq DESC LIMIT $4`, rating, player, beforeSeq, limit)
	if err != nil {
		return nil, wrap("read rating history", err)
	}
	defer rows.Close()
	var out []cupid.RatingEntry
	for rows.Next() {
		e := cupid.RatingEntry{Rating: rating, Player: player}
		var at int64
		if err := rows.Scan(&e.Seq, &e.MatchID, &at, &e.Body); err != nil {
			return nil, wrap("read rating history", err)
		}
		e.At = fromNanos(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("read rating history", err)
	}
	return out, nil
}
