package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

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

// matchedKind is the event kind of a ticket taken by a committed match:
// proposed while the match waits for its players' answers.
func matchedKind(m *cupid.Match) cupid.EventKind {
	if !m.AcceptBy.IsZero() {
		return cupid.EventProposed
	}
	return cupid.EventMatched
}

// queuePending queues the update that makes the stored matches of a commit
// batch that carry a ready check pending (they are inserted formed).
func queuePending(b *pgx.Batch, ms []*cupid.Match, stored []int) {
	var ids []string
	for _, i := range stored {
		if !ms[i].AcceptBy.IsZero() {
			ids = append(ids, ms[i].ID)
		}
	}
	if len(ids) > 0 {
		b.Queue(`UPDATE matches SET state = 'pending' WHERE id = ANY($1::text[])`, ids)
	}
}

// ReleaseMatchWith ends a formed or pending match, each ticket as r says,
// in one transaction.
func (s *Store) ReleaseMatchWith(ctx context.Context, id string, r cupid.Release, now time.Time) (*cupid.Released, error) {
	if !storable(r.Reason) || !storable(r.DeclinerReason) {
		return nil, cupid.Invalid("reason", "must be UTF-8 without NUL")
	}
	now = now.UTC()
	var out *cupid.Released
	err := s.handOff(ctx, id, func(tx pgx.Tx, rec *cupid.MatchRecord, b *pgx.Batch) error {
		if rec.State != cupid.MatchFormed && rec.State != cupid.MatchPending {
			return cupid.MatchNotFormed(id, rec.State)
		}
		var err error
		out, err = release(ctx, tx, rec, r, now, b)
		return err
	})
	if err != nil {
		return nil, releaseError(id, err)
	}
	return out, nil
}

func releaseError(id string, err error) error {
	if pgCode(err) == codeUniqueViolation {
		return wrap("release match "+id, errors.Join(errors.New("a player took a live ticket in the queue meanwhile; try again"), err))
	}
	return wrap("release match "+id, err)
}

// release queues on b the end of a locked match: it is released (logged
// unless it was pending: backends never heard of it) and each ticket
// requeued or cancelled as r says.
func release(ctx context.Context, tx pgx.Tx, rec *cupid.MatchRecord, r cupid.Release, now time.Time, b *pgx.Batch) (*cupid.Released, error) {
	id := rec.Match.ID
	out := &cupid.Released{}
	pending := rec.State == cupid.MatchPending
	tids := rec.Match.TicketIDs()
	ts, err := lockTickets(ctx, tx, tids)
	if err != nil {
		return nil, err
	}
	byID := map[string]*cupid.Ticket{}
	for _, t := range ts {
		byID[t.ID] = t
	}
	// The players' live tickets in the match's queues, as they are now.
	taken := map[[2]string]string{}
	var qs, ps []string
	for _, t := range ts {
		for _, p := range t.Players {
			qs, ps = append(qs, t.Key.Queue), append(ps, p.ID)
		}
	}
	rows, err := tx.Query(ctx, `SELECT l.queue, l.player_id, l.ticket_id FROM unnest($1::text[], $2::text[]) AS v(queue, player_id)
		JOIN live_players l ON l.queue = v.queue AND l.player_id = v.player_id`, qs, ps)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var q, p, t string
		if err := rows.Scan(&q, &p, &t); err != nil {
			rows.Close()
			return nil, err
		}
		taken[[2]string{q, p}] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rec.State, rec.Reason, rec.UpdatedAt = cupid.MatchReleased, r.Reason, now
	out.Match = rec
	b.Queue(`UPDATE matches SET state = 'released', reason = $2, updated_at = $3 WHERE id = $1`, id, r.Reason, now.UnixNano())
	if !pending {
		out.Event = cupid.MatchEvent{MatchID: id, Queue: rec.Match.Key.Queue, Kind: cupid.MatchEventReleased, At: now, Match: rec.Match, Reason: r.Reason}
		queueMatchEvents(b, []*cupid.MatchEvent{&out.Event})
	}
	var lq, lp, lt []string
	for _, tid := range tids {
		t := byID[tid]
		if t == nil || t.State != cupid.StateMatched || t.MatchID != id {
			return nil, fmt.Errorf("release match %s: ticket %s is not matched in it", id, tid)
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
				if other, ok := taken[[2]string{t.Key.Queue, p.ID}]; ok {
					requeue, why = false, cupid.RequeueTakenReason(p.ID, other, t.Key.Queue)
					break
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
					return nil, fmt.Errorf("encode ticket %s: %w", tid, err)
				}
				b.Queue(`UPDATE tickets SET created_at = $2, body = $3 WHERE id = $1`, tid, now.UnixNano(), body)
			}
			b.Queue(`UPDATE tickets SET state = 'waiting', match_id = NULL, reason = '', updated_at = $2 WHERE id = $1`, tid, now.UnixNano())
			for _, p := range t.Players {
				lq, lp, lt = append(lq, t.Key.Queue), append(lp, p.ID), append(lt, tid)
			}
			t.State, t.Reason = cupid.StateWaiting, ""
			out.Requeued = append(out.Requeued, t)
			out.Events = append(out.Events, cupid.Event{TicketID: tid, Kind: cupid.EventRequeued, At: now, Reason: why})
			continue
		}
		b.Queue(`UPDATE tickets SET state = 'cancelled', match_id = NULL, reason = $2, updated_at = $3 WHERE id = $1`, tid, why, now.UnixNano())
		t.State, t.Reason = cupid.StateCancelled, why
		out.Cancelled = append(out.Cancelled, t)
		out.Events = append(out.Events, cupid.Event{TicketID: tid, Kind: cupid.EventCancelled, At: now, Reason: why})
	}
	if len(lq) > 0 {
		b.Queue(insertLiveSQL, lq, lp, lt)
	}
	queueEvents(b, out.Events)
	return out, nil
}

// AnswerMatch records a player's answer to a pending match with what it
// causes, in one transaction that holds the match's row lock.
func (s *Store) AnswerMatch(ctx context.Context, id, player string, accept bool, decline cupid.Release, now time.Time) (*cupid.Answered, error) {
	if !storable(player) {
		return nil, cupid.Invalid("player_id", "must be UTF-8 without NUL")
	}
	if !storable(decline.Reason) || !storable(decline.DeclinerReason) {
		return nil, cupid.Invalid("reason", "must be UTF-8 without NUL")
	}
	now = now.UTC()
	var out *cupid.Answered
	err := s.handOff(ctx, id, func(tx pgx.Tx, rec *cupid.MatchRecord, b *pgx.Batch) error {
		out = &cupid.Answered{}
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
		b.Queue(`INSERT INTO match_answers (match_id, player_id, accept, at) VALUES ($1, $2, $3, $4)`, id, player, accept, now.UnixNano())
		answers = append(answers, cupid.Answer{PlayerID: player, Accept: accept, At: now})
		switch {
		case !accept:
			if out.Released, err = release(ctx, tx, rec, decline, now, b); err != nil {
				return err
			}
		case cupid.AllAccepted(rec.Match, answers):
			b.Queue(`UPDATE matches SET state = 'formed', updated_at = $2 WHERE id = $1`, id, now.UnixNano())
			rec.State, rec.UpdatedAt = cupid.MatchFormed, now
			out.Formed = &cupid.MatchEvent{MatchID: id, Queue: rec.Match.Key.Queue, Kind: cupid.MatchEventFormed, At: now, Match: rec.Match}
			queueMatchEvents(b, []*cupid.MatchEvent{out.Formed})
			for _, tid := range rec.Match.TicketIDs() {
				out.Events = append(out.Events, cupid.Event{TicketID: tid, Kind: cupid.EventMatched, At: now, Match: rec.Match})
			}
			queueEvents(b, out.Events)
		}
		rec.Answers, out.Match = answers, rec
		return nil
	})
	if err != nil {
		return nil, releaseError(id, err)
	}
	return out, nil
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func readAnswers(ctx context.Context, db querier, id string) ([]cupid.Answer, error) {
	rows, err := db.Query(ctx, `SELECT player_id, accept, at FROM match_answers WHERE match_id = $1 ORDER BY at, player_id`, id)
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
