package postgres

import (
	"context"
	"encoding/json"
	"fmt"

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

const updateSessionSQL = `UPDATE matches SET body = $2, state = $3, updated_at = $4 WHERE id = $1`

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
