package postgres

import (
	"context"

	cupid "github.com/cupid-match/cupid"
	"github.com/jackc/pgx/v5"
)

// acceptSchema is the migration of the ready check (see the root package's
// accept.go): ticket events may say "proposed", and the players' answers to
// pending matches are rows whose primary key refuses a second answer. (The
// matches' state "pending" is allowed by the game sessions' migration.)
const acceptSchema = `
ALTER TABLE events DROP CONSTRAINT events_kind_check;
ALTER TABLE events ADD CONSTRAINT events_kind_check
	CHECK (kind IN ('created', 'matched', 'cancelled', 'expired', 'assigned', 'requeued', 'proposed'));
CREATE TABLE match_answers (
	match_id  text COLLATE "C" NOT NULL,
	player_id text COLLATE "C" NOT NULL,
	accept    boolean NOT NULL,
	at        bigint NOT NULL,
	PRIMARY KEY (match_id, player_id)
);
`

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// answersSQL reads a match's answers in the order the contract gives them.
const answersSQL = `SELECT player_id, accept, at FROM match_answers WHERE match_id = $1 ORDER BY at, player_id`

func readAnswers(ctx context.Context, db querier, id string) ([]cupid.Answer, error) {
	rows, err := db.Query(ctx, answersSQL, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (cupid.Answer, error) {
		var a cupid.Answer
		var at int64
		err := r.Scan(&a.PlayerID, &a.Accept, &at)
		a.At = fromNanos(at)
		return a, err
	})
}

// MatchAnswers lists a match's answers by time, then player id.
func (s *Store) MatchAnswers(ctx context.Context, id string) ([]cupid.Answer, error) {
	if !storable(id) {
		return nil, cupid.MatchNotFound(id)
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM matches WHERE id = $1`, id).Scan(&n); err != nil {
		return nil, wrap("read match "+id, err)
	}
	if n == 0 {
		return nil, cupid.MatchNotFound(id)
	}
	out, err := readAnswers(ctx, s.pool, id)
	if err != nil {
		return nil, wrap("read answers of match "+id, err)
	}
	return out, nil
}
