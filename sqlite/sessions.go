package sqlite

import (
	"context"

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

// OpenSessions lists the live sessions open to backfill, oldest first.
func (s *Store) OpenSessions(ctx context.Context) ([]*cupid.MatchRecord, error) {
	return s.queryRecords(ctx, `SELECT `+matchColumns+` FROM matches WHERE backfill = 1 AND state IN ('formed', 'assigned') ORDER BY created_at, id`)
}
