package postgres

import (
	"context"
	"time"

	"github.com/cupid-match/cupid"
)

// TicketsCreated returns a queue's tickets created in [from, to), in every
// state, oldest first (by creation time, then id), at most limit of them,
// starting after the ticket (afterAt, afterID) — the last one of the
// previous page; a zero afterAt starts at from. The simulator records real
// traffic with it, a page at a time, so a week of tickets never sits in
// memory at once. Each ticket comes with its final state and update time:
// when a ticket that was not matched left the queue.
func (s *Store) TicketsCreated(ctx context.Context, queue string, from, to, afterAt time.Time, afterID string, limit int) ([]*cupid.Ticket, error) {
	if limit <= 0 {
		return nil, cupid.Invalid("limit", "must be positive, not %d", limit)
	}
	if !storable(queue) || !storable(afterID) {
		return nil, nil
	}
	if afterAt.IsZero() {
		return s.queryTickets(ctx, `SELECT `+ticketColumns+` FROM tickets
			WHERE queue = $1 AND created_at >= $2 AND created_at < $3
			ORDER BY created_at, id LIMIT $4`,
			queue, from.UnixNano(), to.UnixNano(), int64(limit))
	}
	return s.queryTickets(ctx, `SELECT `+ticketColumns+` FROM tickets
		WHERE queue = $1 AND created_at < $2 AND (created_at, id) > ($3, $4)
		ORDER BY created_at, id LIMIT $5`,
		queue, to.UnixNano(), afterAt.UnixNano(), afterID, int64(limit))
}
