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

// sessionsSchema is the migration of game sessions. A session is its match
// (cupid/session.go): the body keeps its seats, backfill flag and leavers,
// and is rewritten when they change. A virtual column reads the backfill
// flag from the body, and a partial index over the live matches open to
// backfill lets a restart find them without reading every match ever
// formed. match_events gains the newcomers or leavers an event names.
const sessionsSchema = `
ALTER TABLE matches ADD COLUMN backfill INTEGER GENERATED ALWAYS AS (json_extract(CAST(body AS TEXT), '$.backfill')) VIRTUAL;
CREATE INDEX matches_open_sessions ON matches (created_at, id) WHERE backfill = 1 AND state IN ('formed', 'assigned');
ALTER TABLE match_events ADD COLUMN detail BLOB;
`

// eventDetail is what match_events.detail keeps: the ids an event names.
type eventDetail struct {
	TicketIDs []string `json:"ticket_ids,omitempty"`
	PlayerIDs []string `json:"player_ids,omitempty"`
}

// detailOf encodes an event's ids, or nil when it names none.
func detailOf(e *cupid.MatchEvent) any {
	if len(e.TicketIDs) == 0 && len(e.PlayerIDs) == 0 {
		return nil
	}
	b, err := json.Marshal(eventDetail{e.TicketIDs, e.PlayerIDs})
	if err != nil {
		return nil // []string always encodes
	}
	return b
}

// readDetail fills an event's ids from its stored detail.
func readDetail(e *cupid.MatchEvent, detail []byte) error {
	if detail == nil {
		return nil
	}
	var d eventDetail
	if err := json.Unmarshal(detail, &d); err != nil {
		return fmt.Errorf("sqlite: decode match event %d: %w", e.Seq, err)
	}
	e.TicketIDs, e.PlayerIDs = d.TicketIDs, d.PlayerIDs
	return nil
}

// sessionOf reads a match inside tx, whatever its state.
func sessionOf(ctx context.Context, tx *sql.Tx, id string) (*cupid.MatchRecord, error) {
	rec, err := scanRecord(tx.QueryRowContext(ctx, `SELECT `+matchColumns+` FROM matches WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, cupid.MatchNotFound(id)
	}
	return rec, err
}

func putMatchBody(ctx context.Context, tx *sql.Tx, m *cupid.Match, state cupid.MatchState, at time.Time) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("sqlite: encode match %s: %w", m.ID, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE matches SET body = ?, state = ?, updated_at = ? WHERE id = ?`, body, string(state), at.UnixNano(), m.ID); err != nil {
		return fmt.Errorf("sqlite: update match %s: %w", m.ID, err)
	}
	return nil
}

// CommitBackfills adds waiting tickets to live sessions, each backfill on
// its own, in one transaction. Backfills are few next to new matches, so
// this spends a statement or a few per ticket.
func (s *Store) CommitBackfills(ctx context.Context, bs []cupid.Backfill) ([]cupid.Backfilled, []cupid.Event, error) {
	var out []cupid.Backfilled
	var events []cupid.Event
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		out, events = make([]cupid.Backfilled, len(bs)), nil
		for i, b := range bs {
			evs, err := s.backfill(ctx, tx, b, &out[i])
			if err != nil {
				return err
			}
			events = append(events, evs...)
		}
		var err error
		events, err = s.insertEvents(ctx, tx, events)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return out, events, nil
}

// backfill commits one backfill inside tx and returns its ticket events,
// not yet stored.
func (s *Store) backfill(ctx context.Context, tx *sql.Tx, b cupid.Backfill, out *cupid.Backfilled) ([]cupid.Event, error) {
	ids := b.TicketIDs()
	at := b.At.UTC()
	ts := make([]*cupid.Ticket, 0, len(ids))
	for _, id := range ids {
		t, err := scanTicket(tx.QueryRowContext(ctx, `SELECT `+ticketColumns+` FROM tickets WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) || (err == nil && t.State != cupid.StateWaiting) {
			out.NotWaiting = append(out.NotWaiting, id)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sqlite: backfill: read ticket %s: %w", id, err)
		}
		t.ID = id
		ts = append(ts, t)
	}
	if len(out.NotWaiting) > 0 {
		return nil, nil
	}
	rec, err := sessionOf(ctx, tx, b.MatchID)
	if err != nil {
		if cupid.ErrorCode(err) == cupid.CodeNotFound {
			out.Err = err
			return nil, nil
		}
		return nil, err
	}
	if err := cupid.ApplyBackfill(rec, b); err != nil {
		out.Err = err
		return nil, nil
	}
	if err := putMatchBody(ctx, tx, rec.Match, rec.State, rec.UpdatedAt); err != nil {
		return nil, err
	}
	var evs []cupid.Event
	var players []string
	cancel := map[string]string{} // other live ticket → reason
	for _, t := range ts {
		r, err := tx.ExecContext(ctx, `UPDATE tickets SET state = 'matched', match_id = ?, updated_at = ? WHERE id = ? AND state = 'waiting'`, b.MatchID, at.UnixNano(), t.ID)
		if err != nil {
			return nil, fmt.Errorf("sqlite: backfill ticket %s: %w", t.ID, err)
		}
		if n, _ := r.RowsAffected(); n != 1 {
			return nil, fmt.Errorf("sqlite: backfill ticket %s changed state under the write lock", t.ID)
		}
		for _, p := range t.Players {
			players = append(players, p.ID)
			if _, err := tx.ExecContext(ctx, `DELETE FROM live_players WHERE player_id = ? AND queue = ? AND ticket_id = ?`, p.ID, t.Key.Queue, t.ID); err != nil {
				return nil, err
			}
			err := scanEach(tx.QueryContext(ctx, `SELECT ticket_id FROM live_players WHERE player_id = ? ORDER BY queue`, p.ID))(func(r rowScanner) error {
				var other string
				if err := r.Scan(&other); err != nil {
					return err
				}
				if _, seen := cancel[other]; !seen && !slices.Contains(ids, other) {
					cancel[other] = cupid.MatchedElsewhereReason(p.ID, t.Key.Queue, b.MatchID)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		evs = append(evs, cupid.Event{TicketID: t.ID, Kind: cupid.EventMatched, At: at, Match: rec.Match})
		if rec.State == cupid.MatchAssigned {
			evs = append(evs, cupid.Event{TicketID: t.ID, Kind: cupid.EventAssigned, At: at, Match: rec.Match, Assignment: rec.Assignment})
		}
	}
	others := make([]string, 0, len(cancel))
	for id := range cancel {
		others = append(others, id)
	}
	slices.Sort(others)
	for _, id := range others {
		t, err := scanTicket(tx.StmtContext(ctx, s.finish).QueryRowContext(ctx, string(cupid.StateCancelled), cancel[id], at.UnixNano(), id))
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sqlite: backfill: cancel ticket %s: %w", id, err)
		}
		for _, p := range t.Players {
			if _, err := tx.ExecContext(ctx, `DELETE FROM live_players WHERE player_id = ? AND queue = ? AND ticket_id = ?`, p.ID, t.Key.Queue, t.ID); err != nil {
				return nil, err
			}
		}
		out.Cancelled = append(out.Cancelled, t)
		evs = append(evs, cupid.Event{TicketID: t.ID, Kind: cupid.EventCancelled, At: at, Reason: cancel[id]})
	}
	out.Event = cupid.MatchEvent{MatchID: b.MatchID, Queue: rec.Match.Key.Queue, Kind: cupid.MatchEventBackfilled, At: at, Match: rec.Match,
		TicketIDs: ids, PlayerIDs: players}
	if err := insertMatchEvents(ctx, tx, []*cupid.MatchEvent{&out.Event}); err != nil {
		return nil, err
	}
	out.OK, out.Match = true, rec
	return evs, nil
}

// ChangeSession applies a backend's change to a live session with its match
// event, in one transaction.
func (s *Store) ChangeSession(ctx context.Context, id string, c cupid.SessionChange, now time.Time) (*cupid.MatchRecord, cupid.MatchEvent, error) {
	var rec *cupid.MatchRecord
	var mev cupid.MatchEvent
	err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		if rec, err = sessionOf(ctx, tx, id); err != nil {
			return err
		}
		if err := cupid.ApplySessionChange(rec, c, now); err != nil {
			return err
		}
		if err := putMatchBody(ctx, tx, rec.Match, rec.State, rec.UpdatedAt); err != nil {
			return err
		}
		mev = cupid.MatchEvent{MatchID: id, Queue: rec.Match.Key.Queue, Kind: c.Kind, At: now.UTC(), Match: rec.Match, Assignment: rec.Assignment}
		if c.Kind == cupid.MatchEventLeft {
			mev.PlayerIDs = slices.Clone(c.Players)
		}
		return insertMatchEvents(ctx, tx, []*cupid.MatchEvent{&mev})
	})
	if err != nil {
		return nil, cupid.MatchEvent{}, err
	}
	return rec, mev, nil
}

// OpenSessions lists the live sessions open to backfill, oldest first.
func (s *Store) OpenSessions(ctx context.Context) ([]*cupid.MatchRecord, error) {
	var out []*cupid.MatchRecord
	err := scanEach(s.r.QueryContext(ctx, `SELECT `+matchColumns+` FROM matches WHERE backfill = 1 AND state IN ('formed', 'assigned') ORDER BY created_at, id`))(func(r rowScanner) error {
		rec, err := scanRecord(r)
		out = append(out, rec)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
