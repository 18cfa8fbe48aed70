package postgres

import (
	"context"

	cupid "github.com/cupid-match/cupid"
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

// OpenSessions lists the live sessions open to backfill, oldest first.
func (s *Store) OpenSessions(ctx context.Context) ([]*cupid.MatchRecord, error) {
	return s.queryRecords(ctx, "list open sessions",
		`SELECT `+matchColumns+` FROM matches WHERE backfill AND state IN ('formed', 'assigned') ORDER BY created_at, id`)
}
