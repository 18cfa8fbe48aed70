package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	cupid "github.com/cupid-match/cupid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// matchPlayersSchema is the index of players in live matches (pending,
// formed, assigned), which lets a step ask inside its transaction whether a
// player is in another live match, without reading every match body. It is
// kept with the matches: CommitMatches adds a new match's players, and a
// step that writes a match sets its rows to the players it holds now (none
// once released or ended). The migration fills it from the live matches.
const matchPlayersSchema = `
CREATE TABLE match_players (
	player_id text COLLATE "C" NOT NULL,
	match_id  text COLLATE "C" NOT NULL,
	PRIMARY KEY (player_id, match_id)
);
CREATE INDEX match_players_match ON match_players (match_id);
INSERT INTO match_players (player_id, match_id)
SELECT DISTINCT p, m.id FROM matches m, json_array_elements(m.body::json->'teams') t, json_array_elements_text(t->'player_ids') p
WHERE m.state IN ('pending', 'formed', 'assigned')
ON CONFLICT DO NOTHING;
`

// insertMatchPlayersSQL adds (player, match) rows to the index.
const insertMatchPlayersSQL = `INSERT INTO match_players (player_id, match_id)
SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`

// queueIndexMatches queues the index rows of matches' players.
func queueIndexMatches(b *pgx.Batch, ms ...*cupid.Match) {
	var ps, ids []string
	for _, m := range ms {
		for _, p := range cupid.MatchPlayerIDs(m) {
			ps, ids = append(ps, p), append(ids, m.ID)
		}
	}
	if len(ps) > 0 {
		b.Queue(insertMatchPlayersSQL, ps, ids)
	}
}

// Update runs a lifecycle step (package lifecycle) in a READ COMMITTED
// transaction: the step's reads lock the rows they return (FOR UPDATE),
// the first of them sent with the BEGIN; its writes are queued and sent in
// one round trip with the fence's check and the COMMIT, so a step that
// reads once costs two round trips. A deadlock, or a player who took a live
// ticket in a queue between the step's read of the player index and its
// write, rolls the attempt back and runs the step again on what is there
// now.
func (s *Store) Update(ctx context.Context, op string, f cupid.Fence, fn func(cupid.Tx) error) error {
	err := retry(ctx, func() error {
		return s.inTx(ctx, func(conn *pgxpool.Conn) error {
			t := &pgTx{ctx: ctx, conn: conn, fence: f, b: &pgx.Batch{}}
			if err := fn(t); err != nil {
				return err
			}
			b := t.b
			if !t.begun {
				t.begin(b)
			}
			queueFence(f, b)
			b.Queue(commitSQL)
			if err := send(ctx, conn, b); err != nil {
				if pgCode(err) == codeUniqueViolation {
					return errTryAgain
				}
				return fenced(err)
			}
			return nil
		})
	})
	if err != nil {
		return wrap(op, err)
	}
	return nil
}

// pgTx is one attempt of a step. b holds the writes queued so far.
type pgTx struct {
	ctx   context.Context
	conn  *pgxpool.Conn
	fence cupid.Fence
	b     *pgx.Batch
	begun bool
}

// begin queues the transaction's start on b.
func (t *pgTx) begin(b *pgx.Batch) {
	queueBegin(b)
	queueFenceBegin(t.fence, b)
	t.begun = true
}

// query runs one read, with the BEGIN before it if it is the first, and
// hands its rows to scan.
func (t *pgTx) query(scan func(pgx.Rows) error, sql string, args ...any) error {
	b := &pgx.Batch{}
	if !t.begun {
		t.begin(b)
	}
	b.Queue(sql, args...).Query(func(rows pgx.Rows) error {
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	return send(t.ctx, t.conn, b)
}

func (t *pgTx) Match(id string) (*cupid.MatchRecord, error) {
	if !storable(id) {
		return nil, cupid.MatchNotFound(id)
	}
	var rec *cupid.MatchRecord
	err := t.query(func(r pgx.Rows) error {
		var err error
		rec, err = scanRecord(r)
		return err
	}, `SELECT `+matchColumns+` FROM matches WHERE id = $1 FOR UPDATE`, id)
	if err == nil && rec == nil {
		return nil, cupid.MatchNotFound(id)
	}
	return rec, err
}

// Tickets locks the tickets in id order, the order every transaction that
// locks several takes them in, so two cannot deadlock over them.
func (t *pgTx) Tickets(ids []string) ([]*cupid.Ticket, error) {
	var ok []string
	for _, id := range ids {
		if storable(id) {
			ok = append(ok, id)
		}
	}
	var out []*cupid.Ticket
	err := t.query(func(r pgx.Rows) error {
		tk, err := scanTicket(r)
		out = append(out, tk)
		return err
	}, `SELECT `+ticketColumns+` FROM tickets WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, ok)
	return out, err
}

func (t *pgTx) LiveTickets(players []string) ([]cupid.LiveTicket, error) {
	var out []cupid.LiveTicket
	err := t.query(func(r pgx.Rows) error {
		var l cupid.LiveTicket
		err := r.Scan(&l.Player, &l.Queue, &l.Ticket)
		out = append(out, l)
		return err
	}, `SELECT player_id, queue, ticket_id FROM live_players WHERE player_id = ANY($1::text[]) ORDER BY player_id, queue`, players)
	return out, err
}

func (t *pgTx) Answers(matchID string) ([]cupid.Answer, error) {
	var out []cupid.Answer
	err := t.query(func(r pgx.Rows) error {
		var a cupid.Answer
		var at int64
		err := r.Scan(&a.PlayerID, &a.Accept, &at)
		a.At = fromNanos(at)
		out = append(out, a)
		return err
	}, answersSQL, matchID)
	return out, err
}

func (t *pgTx) InMatches(players []string) ([]cupid.InMatch, error) {
	var out []cupid.InMatch
	err := t.query(func(r pgx.Rows) error {
		var m cupid.InMatch
		err := r.Scan(&m.Player, &m.Match)
		out = append(out, m)
		return err
	}, `SELECT player_id, match_id FROM match_players WHERE player_id = ANY($1::text[]) ORDER BY player_id, match_id`, players)
	return out, err
}

// Write queues a step's rows on the batch Update sends with the COMMIT.
// A ticket that leaves waiting leaves the player index through the
// tickets' trigger; one that comes back is indexed here.
func (t *pgTx) Write(w *cupid.Writes) error {
	b := t.b
	var lq, lp, lt []string
	for _, tw := range w.Tickets {
		tk := tw.Ticket
		if !storable(tk.Reason) {
			return cupid.Invalid("reason", "must be UTF-8 without NUL")
		}
		b.Queue(`UPDATE tickets SET state = $2, match_id = NULLIF($3, ''), reason = $4, updated_at = $5 WHERE id = $1`,
			tk.ID, string(tk.State), tk.MatchID, tk.Reason, tk.UpdatedAt.UnixNano())
		if tw.Reborn {
			body, err := json.Marshal(tk)
			if err != nil {
				return fmt.Errorf("encode ticket %s: %w", tk.ID, err)
			}
			b.Queue(`UPDATE tickets SET created_at = $2, body = $3 WHERE id = $1`, tk.ID, tk.CreatedAt.UnixNano(), body)
		}
		if tw.From != cupid.StateWaiting && tk.State == cupid.StateWaiting {
			for _, p := range tk.Players {
				lq, lp, lt = append(lq, tk.Key.Queue), append(lp, p.ID), append(lt, tk.ID)
			}
		}
	}
	if len(lq) > 0 {
		b.Queue(insertLiveSQL, lq, lp, lt)
	}
	if r := w.Match; r != nil {
		if !storable(r.Reason) {
			return cupid.Invalid("reason", "must be UTF-8 without NUL")
		}
		body, err := json.Marshal(r.Match)
		if err != nil {
			return fmt.Errorf("encode match %s: %w", r.Match.ID, err)
		}
		var assignment []byte
		if r.Assignment != nil {
			if !storable(r.Assignment.Server) || !storable(r.Assignment.SessionID) {
				return cupid.Invalid("assignment", "must be UTF-8 without NUL bytes: PostgreSQL cannot store it")
			}
			if assignment, err = json.Marshal(r.Assignment); err != nil {
				return fmt.Errorf("encode assignment of match %s: %w", r.Match.ID, err)
			}
		}
		b.Queue(`UPDATE matches SET body = $2, state = $3, assignment = $4, reason = $5, updated_at = $6 WHERE id = $1`,
			r.Match.ID, body, string(r.State), assignment, r.Reason, r.UpdatedAt.UnixNano())
		b.Queue(`DELETE FROM match_players WHERE match_id = $1`, r.Match.ID)
		if cupid.LiveMatch(r.State) {
			queueIndexMatches(b, r.Match)
		}
	}
	if a := w.Answer; a != nil {
		if !storable(a.PlayerID) {
			return cupid.Invalid("player_id", "must be UTF-8 without NUL")
		}
		b.Queue(`INSERT INTO match_answers (match_id, player_id, accept, at) VALUES ($1, $2, $3, $4)`, a.MatchID, a.PlayerID, a.Accept, a.At.UnixNano())
	}
	for _, e := range w.Events {
		if !storable(e.Reason) {
			return cupid.Invalid("reason", "must be UTF-8 without NUL")
		}
	}
	queueMatchEvents(b, w.MatchEvents)
	queueEvents(b, w.Events)
	return nil
}
