package sqlite

import (
	"context"
	"database/sql"
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

// answersOf reads a match's answers in the order MatchAnswers gives them.
const answersOf = `SELECT player_id, accept, at FROM match_answers WHERE match_id = ? ORDER BY at, player_id`

// readAnswers scans the rows of answersOf for match id.
func readAnswers(id string, rows *sql.Rows, err error) ([]cupid.Answer, error) {
	var out []cupid.Answer
	err = scanEach(rows, err)(func(r rowScanner) error {
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
	rows, err := s.r.QueryContext(ctx, answersOf, id)
	return readAnswers(id, rows, err)
}
