package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

// markPending sets the committed matches of a CommitMatches batch that
// carry a ready check to pending (they were inserted formed, the column's
// default).
func markPending(ctx context.Context, tx *sql.Tx, ms []*cupid.Match, out []cupid.Committed) error {
	for i, m := range ms {
		if out[i].OK && !m.AcceptBy.IsZero() {
			if _, err := tx.ExecContext(ctx, `UPDATE matches SET state = 'pending' WHERE id = ?`, m.ID); err != nil {
				return fmt.Errorf("sqlite: mark match %s pending: %w", m.ID, err)
			}
		}
	}
	return nil
}

// matchedKind is the event kind of a ticket taken by a committed match:
// proposed while the match waits for its players' answers.
func matchedKind(m *cupid.Match) cupid.EventKind {
	if !m.AcceptBy.IsZero() {
		return cupid.EventProposed
	}
	return cupid.EventMatched
}

// readMatch reads a match inside tx.
func readMatch(ctx context.Context, tx *sql.Tx, id string) (*cupid.MatchRecord, error) {
	rec, err := scanRecord(tx.QueryRowContext(ctx, `SELECT `+matchColumns+` FROM matches WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, cupid.MatchNotFound(id)
	}
	return rec, err
}

// ReleaseMatchWith ends a formed or pending match, each ticket as r says,
// in one transaction. A release is rare (a backend that did not answer, a
// player who declined), so it spends a statement or two per ticket.
func (s *Store) ReleaseMatchWith(ctx context.Context, id string, r cupid.Release, now time.Time) (*cupid.Released, error) {
	var out *cupid.Released
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		rec, err := readMatch(ctx, tx, id)
		if err != nil {
			return err
		}
		if rec.State != cupid.MatchFormed && rec.State != cupid.MatchPending {
			return cupid.MatchNotFormed(id, rec.State)
		}
		out, err = s.release(ctx, tx, rec, r, now.UTC())
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// release ends a match inside tx: it is released (logged unless it was
// pending: backends never heard of it) and each ticket requeued or
// cancelled as r says.
func (s *Store) release(ctx context.Context, tx *sql.Tx, rec *cupid.MatchRecord, r cupid.Release, now time.Time) (*cupid.Released, error) {
	id := rec.Match.ID
	out := &cupid.Released{}
	pending := rec.State == cupid.MatchPending
	if _, err := tx.ExecContext(ctx, `UPDATE matches SET state = 'released', reason = ?, updated_at = ? WHERE id = ?`, r.Reason, now.UnixNano(), id); err != nil {
		return nil, fmt.Errorf("sqlite: release match %s: %w", id, err)
	}
	rec.State, rec.Reason, rec.UpdatedAt = cupid.MatchReleased, r.Reason, now
	out.Match = rec
	if !pending {
		out.Event = cupid.MatchEvent{MatchID: id, Queue: rec.Match.Key.Queue, Kind: cupid.MatchEventReleased, At: now, Match: rec.Match, Reason: r.Reason}
		if err := insertMatchEvents(ctx, tx, []*cupid.MatchEvent{&out.Event}); err != nil {
			return nil, err
		}
	}
	var evs []cupid.Event
	for _, tid := range rec.Match.TicketIDs() {
		t, err := scanTicket(tx.QueryRowContext(ctx, `SELECT `+ticketColumns+` FROM tickets WHERE id = ?`, tid))
		if err != nil {
			return nil, fmt.Errorf("sqlite: release match %s: read ticket %s: %w", id, tid, err)
		}
		if t.State != cupid.StateMatched || t.MatchID != id {
			return nil, fmt.Errorf("sqlite: release match %s: ticket %s is %s in match %q", id, tid, t.State, t.MatchID)
		}
		declined := r.Declined(t.Players)
		requeue, why := r.Requeue, r.Reason
		if declined {
			requeue, why = r.RequeueLast, r.DeclinerReason
		}
		if p := rec.Match.LeaverOf(t.Players); p != "" {
			requeue, why = false, cupid.LeftReason(p, id)
		}
		if requeue {
			for _, p := range t.Players {
				var other string
				err := tx.QueryRowContext(ctx, `SELECT ticket_id FROM live_players WHERE player_id = ? AND queue = ?`, p.ID, t.Key.Queue).Scan(&other)
				if err == nil {
					requeue, why = false, cupid.RequeueTakenReason(p.ID, other, t.Key.Queue)
					break
				}
				if !errors.Is(err, sql.ErrNoRows) {
					return nil, err
				}
			}
		}
		t.UpdatedAt, t.MatchID = now, ""
		if requeue {
			if declined {
				// The penalty: back of the queue, as if created now.
				t.CreatedAt = now
				body, err := json.Marshal(t)
				if err != nil {
					return nil, fmt.Errorf("sqlite: encode ticket %s: %w", tid, err)
				}
				if _, err := tx.ExecContext(ctx, `UPDATE tickets SET created_at = ?, body = ? WHERE id = ?`, now.UnixNano(), body, tid); err != nil {
					return nil, err
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE tickets SET state = 'waiting', match_id = NULL, reason = '', updated_at = ? WHERE id = ?`, now.UnixNano(), tid); err != nil {
				return nil, err
			}
			for _, p := range t.Players {
				if _, err := tx.ExecContext(ctx, `INSERT INTO live_players (queue, player_id, ticket_id) VALUES (?, ?, ?)`, t.Key.Queue, p.ID, tid); err != nil {
					return nil, err
				}
			}
			t.State, t.Reason = cupid.StateWaiting, ""
			out.Requeued = append(out.Requeued, t)
			evs = append(evs, cupid.Event{TicketID: tid, Kind: cupid.EventRequeued, At: now, Reason: why})
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tickets SET state = 'cancelled', match_id = NULL, reason = ?, updated_at = ? WHERE id = ?`, why, now.UnixNano(), tid); err != nil {
			return nil, err
		}
		t.State, t.Reason = cupid.StateCancelled, why
		out.Cancelled = append(out.Cancelled, t)
		evs = append(evs, cupid.Event{TicketID: tid, Kind: cupid.EventCancelled, At: now, Reason: why})
	}
	var err error
	out.Events, err = s.insertEvents(ctx, tx, evs)
	return out, err
}

// AnswerMatch records a player's answer to a pending match with what it
// causes, in one transaction.
func (s *Store) AnswerMatch(ctx context.Context, id, player string, accept bool, decline cupid.Release, now time.Time) (*cupid.Answered, error) {
	now = now.UTC()
	var out *cupid.Answered
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		out = &cupid.Answered{}
		rec, err := readMatch(ctx, tx, id)
		if err != nil {
			return err
		}
		if !slices.Contains(cupid.MatchPlayerIDs(rec.Match), player) {
			return cupid.PlayerNotInMatch(id, player)
		}
		answers, err := readAnswers(ctx, tx, id)
		if err != nil {
			return err
		}
		for _, a := range answers {
			if a.PlayerID == player {
				if a.Accept != accept {
					return cupid.AnswerChanged(id, player, a.Accept)
				}
				rec.Answers, out.Match, out.Repeated = answers, rec, true
				return nil
			}
		}
		if rec.State != cupid.MatchPending {
			return cupid.MatchNotPending(id, rec.State)
		}
		a := cupid.Answer{PlayerID: player, Accept: accept, At: now}
		if _, err := tx.ExecContext(ctx, `INSERT INTO match_answers (match_id, player_id, accept, at) VALUES (?, ?, ?, ?)`, id, player, accept, now.UnixNano()); err != nil {
			return fmt.Errorf("sqlite: store answer of %s to match %s: %w", player, id, err)
		}
		answers = append(answers, a)
		switch {
		case !accept:
			if out.Released, err = s.release(ctx, tx, rec, decline, now); err != nil {
				return err
			}
		case cupid.AllAccepted(rec.Match, answers):
			if _, err := tx.ExecContext(ctx, `UPDATE matches SET state = 'formed', updated_at = ? WHERE id = ?`, now.UnixNano(), id); err != nil {
				return fmt.Errorf("sqlite: form match %s: %w", id, err)
			}
			rec.State, rec.UpdatedAt = cupid.MatchFormed, now
			out.Formed = &cupid.MatchEvent{MatchID: id, Queue: rec.Match.Key.Queue, Kind: cupid.MatchEventFormed, At: now, Match: rec.Match}
			if err := insertMatchEvents(ctx, tx, []*cupid.MatchEvent{out.Formed}); err != nil {
				return err
			}
			var evs []cupid.Event
			for _, tid := range rec.Match.TicketIDs() {
				evs = append(evs, cupid.Event{TicketID: tid, Kind: cupid.EventMatched, At: now, Match: rec.Match})
			}
			if out.Events, err = s.insertEvents(ctx, tx, evs); err != nil {
				return err
			}
		}
		rec.Answers, out.Match = answers, rec
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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
