package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// acceptSchema is the migration of the ready check (see the root package's
// accept.go): the players' answers to pending matches, one row each, so an
// answer is a small insert and the primary key refuses a second one.
const acceptSchema = `
CREATE TABLE match_answers (
	match_id  TEXT NOT NULL,
	player_id TEXT NOT NULL,
	accept    INTEGER NOT NULL,
	at        INTEGER NOT NULL,
	PRIMARY KEY (match_id, player_id)
);
`

// readMatch reads a match inside tx.
func readMatch(ctx context.Context, tx *sql.Tx, id string) (*cupid.MatchRecord, error) {
	rec, err := scanRecord(tx.QueryRowContext(ctx, `SELECT `+matchColumns+` FROM matches WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, cupid.MatchNotFound(id)
	}
	return rec, err
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func readAnswers(ctx context.Context, db querier, id string) ([]cupid.Answer, error) {
	var out []cupid.Answer
	err := scanEach(db.QueryContext(ctx, `SELECT player_id, accept, at FROM match_answers WHERE match_id = ? ORDER BY at, player_id`, id))(func(r rowScanner) error {
		var a cupid.Answer
		var at int64
		if err := r.Scan(&a.PlayerID, &a.Accept, &at); err != nil {
			return err
		}
		a.At = time.Unix(0, at).UTC()
		out = append(out, a)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: read answers of match %s: %w", id, err)
	}
	return out, nil
}

// MatchAnswers lists a match's answers by time, then player id.
func (s *Store) MatchAnswers(ctx context.Context, id string) ([]cupid.Answer, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM matches WHERE id = ?`, id).Scan(&n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, cupid.MatchNotFound(id)
	}
	return readAnswers(ctx, s.r, id)
}
