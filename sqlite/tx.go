package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	cupid "github.com/cupid-match/cupid"
)

// matchPlayersSchema is the index of players in live matches (pending,
// formed, assigned), which lets a step ask inside its transaction whether a
// player is in another live match, without reading every match body. It is
// kept with the matches: CommitMatches adds a new match's players, and a
// step that writes a match sets its rows to the players it holds now (none
// once released or ended). The migration fills it from the live matches.
const matchPlayersSchema = `
CREATE TABLE match_players (
	player_id TEXT NOT NULL,
	match_id  TEXT NOT NULL,
	PRIMARY KEY (player_id, match_id)
) WITHOUT ROWID;
CREATE INDEX match_players_match ON match_players (match_id);
INSERT OR IGNORE INTO match_players (player_id, match_id)
SELECT p.value, m.id FROM matches m, json_each(CAST(m.body AS TEXT), '$.teams') t, json_each(t.value, '$.player_ids') p
WHERE m.state IN ('pending', 'formed', 'assigned');
`

// Update runs a lifecycle step (package lifecycle) in one write
// transaction. SQLite's single writer holds every row the step reads until
// it commits, so reads need no locks of their own. The fence is not
// checked: this store is never shared by several nodes.
func (s *Store) Update(ctx context.Context, op string, _ cupid.Fence, fn func(cupid.Tx) error) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return fn(&sqliteTx{s: s, ctx: ctx, tx: tx})
	})
}

type sqliteTx struct {
	s   *Store
	ctx context.Context
	tx  *sql.Tx
}

func (t *sqliteTx) Match(id string) (*cupid.MatchRecord, error) {
	rec, err := scanRecord(t.stmt(t.s.step.readMatch).QueryRowContext(t.ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, cupid.MatchNotFound(id)
	}
	return rec, err
}

// stmt is one of the store's prepared statements, run in this transaction.
func (t *sqliteTx) stmt(st *sql.Stmt) *sql.Stmt { return t.tx.StmtContext(t.ctx, st) }

// each runs a step's read of kind over the distinct keys, in their order,
// and hands each row to scan.
func (t *sqliteTx) each(kind *multiKind, keys []string, scan func(rowScanner) error) error {
	keys = slices.Compact(slices.Sorted(slices.Values(keys)))
	return t.s.multi.chunks(kind, len(keys), func(st *sql.Stmt, lo, hi int) error {
		return scanEach(t.stmt(st).QueryContext(t.ctx, anys(keys[lo:hi])...))(scan)
	})
}

func (t *sqliteTx) Tickets(ids []string) ([]*cupid.Ticket, error) {
	var out []*cupid.Ticket
	err := t.each(stepTickets, ids, func(r rowScanner) error {
		var id string
		tk, err := scanTicket(prefixRow{r, []any{&id}})
		if err != nil {
			return err
		}
		tk.ID = id
		out = append(out, tk)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: read tickets: %w", err)
	}
	return out, nil
}

func (t *sqliteTx) LiveTickets(players []string) ([]cupid.LiveTicket, error) {
	var out []cupid.LiveTicket
	err := t.each(stepLives, players, func(r rowScanner) error {
		var l cupid.LiveTicket
		err := r.Scan(&l.Player, &l.Queue, &l.Ticket)
		out = append(out, l)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: read live players: %w", err)
	}
	return out, nil
}

func (t *sqliteTx) Answers(matchID string) ([]cupid.Answer, error) {
	rows, err := t.stmt(t.s.step.readAnswers).QueryContext(t.ctx, matchID)
	return readAnswers(matchID, rows, err)
}

func (t *sqliteTx) InMatches(players []string) ([]cupid.InMatch, error) {
	var out []cupid.InMatch
	err := t.each(stepInMatches, players, func(r rowScanner) error {
		var m cupid.InMatch
		err := r.Scan(&m.Player, &m.Match)
		out = append(out, m)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: read players in live matches: %w", err)
	}
	return out, nil
}

// indexMatchPlayers adds the players of matches to the index of players in
// live matches, a multi-row statement per 128.
func (s *Store) indexMatchPlayers(ctx context.Context, tx *sql.Tx, ms ...*cupid.Match) error {
	var args []any
	for _, m := range ms {
		for _, p := range cupid.MatchPlayerIDs(m) {
			args = append(args, p, m.ID)
		}
	}
	return s.multi.chunks(insertMatchPlayers, len(args)/2, func(st *sql.Stmt, lo, hi int) error {
		_, err := tx.StmtContext(ctx, st).ExecContext(ctx, args[2*lo:2*hi]...)
		return err
	})
}

// Write stores a step's rows: a statement per changed ticket (steps change
// few), the player index moved with the tickets that left or re-entered
// waiting, the match, the answer and the events, numbered in order.
func (t *sqliteTx) Write(w *cupid.Writes) error {
	ctx, tx := t.ctx, t.tx
	var freed []*cupid.Ticket
	for _, tw := range w.Tickets {
		tk := tw.Ticket
		var matchID any
		if tk.MatchID != "" {
			matchID = tk.MatchID
		}
		if _, err := t.stmt(t.s.step.ticket).ExecContext(ctx,
			string(tk.State), matchID, tk.Reason, tk.UpdatedAt.UnixNano(), tk.ID); err != nil {
			return fmt.Errorf("sqlite: update ticket %s: %w", tk.ID, err)
		}
		if tw.Reborn {
			body, err := json.Marshal(tk)
			if err != nil {
				return fmt.Errorf("sqlite: encode ticket %s: %w", tk.ID, err)
			}
			if _, err := t.stmt(t.s.step.reborn).ExecContext(ctx, tk.CreatedAt.UnixNano(), body, tk.ID); err != nil {
				return fmt.Errorf("sqlite: update ticket %s: %w", tk.ID, err)
			}
		}
		switch {
		case tw.From == cupid.StateWaiting && tk.State != cupid.StateWaiting:
			freed = append(freed, tk)
		case tw.From != cupid.StateWaiting && tk.State == cupid.StateWaiting:
			for _, p := range tk.Players {
				if _, err := t.stmt(t.s.step.live).ExecContext(ctx, tk.Key.Queue, p.ID, tk.ID); err != nil {
					return fmt.Errorf("sqlite: index player %s of ticket %s: %w", p.ID, tk.ID, err)
				}
			}
		}
	}
	if err := t.s.freePlayers(ctx, tx, freed...); err != nil {
		return err
	}
	if r := w.Match; r != nil {
		body, err := json.Marshal(r.Match)
		if err != nil {
			return fmt.Errorf("sqlite: encode match %s: %w", r.Match.ID, err)
		}
		var assignment []byte
		if r.Assignment != nil {
			if assignment, err = json.Marshal(r.Assignment); err != nil {
				return fmt.Errorf("sqlite: encode assignment of match %s: %w", r.Match.ID, err)
			}
		}
		if _, err := t.stmt(t.s.step.match).ExecContext(ctx,
			body, string(r.State), assignment, r.Reason, r.UpdatedAt.UnixNano(), r.Match.ID); err != nil {
			return fmt.Errorf("sqlite: update match %s: %w", r.Match.ID, err)
		}
		if _, err := t.stmt(t.s.step.unindex).ExecContext(ctx, r.Match.ID); err != nil {
			return fmt.Errorf("sqlite: index the players of match %s: %w", r.Match.ID, err)
		}
		if cupid.LiveMatch(r.State) {
			if err := t.s.indexMatchPlayers(ctx, tx, r.Match); err != nil {
				return fmt.Errorf("sqlite: index the players of match %s: %w", r.Match.ID, err)
			}
		}
	}
	if a := w.Answer; a != nil {
		if _, err := t.stmt(t.s.step.answer).ExecContext(ctx,
			a.MatchID, a.PlayerID, a.Accept, a.At.UnixNano()); err != nil {
			return fmt.Errorf("sqlite: store answer of %s to match %s: %w", a.PlayerID, a.MatchID, err)
		}
	}
	if len(w.Events) > 0 {
		stored, err := t.s.insertEvents(ctx, tx, slices.Clone(w.Events))
		if err != nil {
			return err
		}
		// insertEvents returns them by seq, which is the order given.
		for i := range w.Events {
			w.Events[i].Seq = stored[i].Seq
		}
	}
	return t.s.insertMatchEvents(ctx, tx, w.MatchEvents)
}

// marks is n "?" placeholders for an IN list.
func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
