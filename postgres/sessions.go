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

// sessionsSchema is the migration of game sessions. A session is its match
// (cupid/session.go): the body keeps its seats, backfill flag and leavers
// and is rewritten when they change; a generated column reads the backfill
// flag, and a partial index over the live matches open to backfill lets a
// restart find them without reading every match ever formed. A match may
// now end (state ended), the log has the session's kinds, and an event
// keeps the newcomers or leavers it names (detail).
const sessionsSchema = `
ALTER TABLE matches DROP CONSTRAINT matches_state_check;
ALTER TABLE matches ADD CONSTRAINT matches_state_check CHECK (state IN ('pending', 'formed', 'assigned', 'released', 'ended'));
ALTER TABLE matches ADD COLUMN backfill boolean GENERATED ALWAYS AS (COALESCE((body ->> 'backfill')::boolean, false)) STORED;
CREATE INDEX matches_open_sessions ON matches (created_at, id) WHERE backfill AND state IN ('formed', 'assigned');
ALTER TABLE match_events DROP CONSTRAINT match_events_kind_check;
ALTER TABLE match_events ADD CONSTRAINT match_events_kind_check CHECK (kind IN ('pending', 'formed', 'assigned', 'released',
	'backfilled', 'backfill_opened', 'backfill_closed', 'left', 'ended'));
ALTER TABLE match_events ADD COLUMN detail json;
`

// eventDetail is what match_events.detail keeps: the ids an event names.
type eventDetail struct {
	TicketIDs []string `json:"ticket_ids,omitempty"`
	PlayerIDs []string `json:"player_ids,omitempty"`
}

// detailOf encodes an event's ids, or nil when it names none.
func detailOf(e *cupid.MatchEvent) []byte {
	if len(e.TicketIDs) == 0 && len(e.PlayerIDs) == 0 {
		return nil
	}
	b, _ := json.Marshal(eventDetail{e.TicketIDs, e.PlayerIDs}) // []string always encodes
	return b
}

// readDetail fills an event's ids from its stored detail.
func readDetail(e *cupid.MatchEvent, detail []byte) error {
	if detail == nil {
		return nil
	}
	var d eventDetail
	if err := json.Unmarshal(detail, &d); err != nil {
		return fmt.Errorf("decode match event %d: %w", e.Seq, err)
	}
	e.TicketIDs, e.PlayerIDs = d.TicketIDs, d.PlayerIDs
	return nil
}

// session runs f in a READ COMMITTED transaction that has locked the match
// (whatever its state); f queues its writes on b, sent before the COMMIT.
func (s *Store) session(ctx context.Context, id string, f func(tx pgx.Tx, rec *cupid.MatchRecord, b *pgx.Batch) error) error {
	return retry(ctx, func() error {
		tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
		if err != nil {
			return err
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		if err := fenceBegin(ctx, tx); err != nil {
			return err
		}
		var rec *cupid.MatchRecord
		if storable(id) {
			rec, err = scanRecord(tx.QueryRow(ctx, `SELECT `+matchColumns+` FROM matches WHERE id = $1 FOR UPDATE`, id))
		} else {
			err = pgx.ErrNoRows
		}
		if errors.Is(err, pgx.ErrNoRows) {
			rec = nil
		} else if err != nil {
			return err
		}
		b := &pgx.Batch{}
		if err := f(tx, rec, b); err != nil {
			return err
		}
		queueFence(ctx, b)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fenced(err)
		}
		return tx.Commit(ctx)
	})
}

const updateSessionSQL = `UPDATE matches SET body = $2, state = $3, updated_at = $4 WHERE id = $1`

// CommitBackfills adds waiting tickets to live sessions, each backfill in a
// transaction of its own (a backfill is one session's change; they are few
// next to new matches).
func (s *Store) CommitBackfills(ctx context.Context, bs []cupid.Backfill) ([]cupid.Backfilled, []cupid.Event, error) {
	out := make([]cupid.Backfilled, len(bs))
	var events []cupid.Event
	for i, b := range bs {
		var evs []cupid.Event
		err := s.session(ctx, b.MatchID, func(tx pgx.Tx, rec *cupid.MatchRecord, batch *pgx.Batch) error {
			out[i], evs = cupid.Backfilled{}, nil
			var err error
			evs, err = s.backfill(ctx, tx, rec, b, &out[i], batch)
			return err
		})
		if err != nil {
			return nil, nil, wrap("commit backfills", err)
		}
		events = append(events, evs...)
	}
	return out, events, nil
}

func (s *Store) backfill(ctx context.Context, tx pgx.Tx, rec *cupid.MatchRecord, b cupid.Backfill, out *cupid.Backfilled, batch *pgx.Batch) ([]cupid.Event, error) {
	ids := b.TicketIDs()
	at := b.At.UTC()
	ts, err := lockTickets(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	byID := map[string]*cupid.Ticket{}
	for _, t := range ts {
		if t.State == cupid.StateWaiting {
			byID[t.ID] = t
		}
	}
	for _, id := range ids {
		if byID[id] == nil {
			out.NotWaiting = append(out.NotWaiting, id)
		}
	}
	if len(out.NotWaiting) > 0 {
		return nil, nil
	}
	if rec == nil {
		out.Err = cupid.MatchNotFound(b.MatchID)
		return nil, nil
	}
	if err := cupid.ApplyBackfill(rec, b); err != nil {
		out.Err = err
		return nil, nil
	}
	body, err := json.Marshal(rec.Match)
	if err != nil {
		return nil, err
	}
	// The newcomers' live tickets in other queues, read before their own
	// rows leave the index.
	var players []string
	for _, id := range ids {
		for _, p := range byID[id].Players {
			players = append(players, p.ID)
		}
	}
	lrows, err := tx.Query(ctx, `SELECT player_id, queue, ticket_id FROM live_players WHERE player_id = ANY($1::text[]) ORDER BY ticket_id, player_id`, players)
	if err != nil {
		return nil, err
	}
	cancel := map[string]string{}
	var others []string
	for lrows.Next() {
		var p, q, t string
		if err := lrows.Scan(&p, &q, &t); err != nil {
			lrows.Close()
			return nil, err
		}
		if _, seen := cancel[t]; seen || slices.Contains(ids, t) {
			continue
		}
		queue := ""
		for _, id := range ids {
			for _, pl := range byID[id].Players {
				if pl.ID == p && (queue == "" || byID[id].Key.Queue < queue) {
					queue = byID[id].Key.Queue
				}
			}
		}
		cancel[t] = cupid.MatchedElsewhereReason(p, queue, b.MatchID)
		others = append(others, t)
	}
	if err := lrows.Err(); err != nil {
		return nil, err
	}
	batch.Queue(updateSessionSQL, b.MatchID, body, string(rec.State), rec.UpdatedAt.UnixNano())
	batch.Queue(`UPDATE tickets SET state = 'matched', match_id = $2, updated_at = $3 WHERE id = ANY($1::text[])`, ids, b.MatchID, at.UnixNano())
	var evs []cupid.Event
	for _, id := range ids {
		evs = append(evs, cupid.Event{TicketID: id, Kind: cupid.EventMatched, At: at, Match: rec.Match})
		if rec.State == cupid.MatchAssigned {
			evs = append(evs, cupid.Event{TicketID: id, Kind: cupid.EventAssigned, At: at, Match: rec.Match, Assignment: rec.Assignment})
		}
	}
	for _, id := range others {
		t, err := scanTicket(tx.QueryRow(ctx, `UPDATE tickets SET state = 'cancelled', reason = $2, updated_at = $3 WHERE id = $1 AND state = 'waiting' RETURNING `+ticketColumns, id, cancel[id], at.UnixNano()))
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out.Cancelled = append(out.Cancelled, t)
		evs = append(evs, cupid.Event{TicketID: id, Kind: cupid.EventCancelled, At: at, Reason: cancel[id]})
	}
	out.Event = cupid.MatchEvent{MatchID: b.MatchID, Queue: rec.Match.Key.Queue, Kind: cupid.MatchEventBackfilled, At: at, Match: rec.Match,
		TicketIDs: ids, PlayerIDs: players}
	queueMatchEvents(batch, []*cupid.MatchEvent{&out.Event})
	queueEvents(batch, evs)
	out.OK, out.Match = true, rec
	return evs, nil
}

// ChangeSession applies a backend's change to a live session with its match
// event, in one transaction.
func (s *Store) ChangeSession(ctx context.Context, id string, c cupid.SessionChange, now time.Time) (*cupid.MatchRecord, cupid.MatchEvent, error) {
	var out *cupid.MatchRecord
	var mev cupid.MatchEvent
	err := s.session(ctx, id, func(tx pgx.Tx, rec *cupid.MatchRecord, b *pgx.Batch) error {
		if rec == nil {
			return cupid.MatchNotFound(id)
		}
		if err := cupid.ApplySessionChange(rec, c, now); err != nil {
			return err
		}
		body, err := json.Marshal(rec.Match)
		if err != nil {
			return err
		}
		b.Queue(updateSessionSQL, id, body, string(rec.State), rec.UpdatedAt.UnixNano())
		mev = cupid.MatchEvent{MatchID: id, Queue: rec.Match.Key.Queue, Kind: c.Kind, At: now.UTC(), Match: rec.Match, Assignment: rec.Assignment}
		if c.Kind == cupid.MatchEventLeft {
			mev.PlayerIDs = slices.Clone(c.Players)
		}
		queueMatchEvents(b, []*cupid.MatchEvent{&mev})
		out = rec
		return nil
	})
	if err != nil {
		return nil, cupid.MatchEvent{}, wrap("change session "+id, err)
	}
	return out, mev, nil
}

// OpenSessions lists the live sessions open to backfill, oldest first.
func (s *Store) OpenSessions(ctx context.Context) ([]*cupid.MatchRecord, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+matchColumns+` FROM matches WHERE backfill AND state IN ('formed', 'assigned') ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list open sessions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*cupid.MatchRecord, error) { return scanRecord(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list open sessions: %w", err)
	}
	return out, nil
}

// lockTickets reads tickets and locks them, in id order (the order every
// transaction that locks several tickets takes them in, so two cannot
// deadlock), as the lock holder sees them.
func lockTickets(ctx context.Context, tx pgx.Tx, ids []string) ([]*cupid.Ticket, error) {
	rows, err := tx.Query(ctx, `SELECT `+ticketColumns+` FROM tickets WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, ids)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (*cupid.Ticket, error) { return scanTicket(r) })
}
