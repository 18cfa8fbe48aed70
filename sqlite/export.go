package sqlite

import (
	"context"
	"time"

	cupid "github.com/cupid-match/cupid"
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
	if afterAt.IsZero() {
		return s.queryTickets(ctx, s.r, `SELECT `+ticketColumns+` FROM tickets
			WHERE queue = ? AND created_at >= ? AND created_at < ?
			ORDER BY created_at, id LIMIT ?`,
			queue, from.UnixNano(), to.UnixNano(), limit)
	}
	return s.queryTickets(ctx, s.r, `SELECT `+ticketColumns+` FROM tickets
		WHERE queue = ? AND created_at < ? AND (created_at, id) > (?, ?)
		ORDER BY created_at, id LIMIT ?`,
		queue, to.UnixNano(), afterAt.UnixNano(), afterID, limit)
}
