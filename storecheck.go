package cupid

import (
	"fmt"
	"slices"
)

// The pieces of the Store contract that every store needs word for word:
// which calls are caller bugs, how a new ticket is stored, and the errors
// and reasons that storetest checks. They live here once so that the
// stores cannot drift apart.

// CheckNewTickets refuses a CreateTickets batch that is a caller bug, before
// a store reads or writes anything: no ticket, no id, an id given twice.
func CheckNewTickets(ts []NewTicket) error {
	seen := make(map[string]bool, len(ts))
	for i, n := range ts {
		switch {
		case n.Ticket == nil:
			return Invalid(fmt.Sprintf("tickets[%d]", i), "no ticket")
		case n.Ticket.ID == "":
			return Invalid(fmt.Sprintf("tickets[%d].id", i), "a ticket needs an id")
		case seen[n.Ticket.ID]:
			return Invalid(fmt.Sprintf("tickets[%d].id", i), "ticket id %q is given twice", n.Ticket.ID)
		}
		seen[n.Ticket.ID] = true
	}
	return nil
}

// CheckMatches refuses a CommitMatches batch that is a caller bug: no
// match, a match with no tickets or naming one twice. It returns each
// match's ticket ids, team by team.
func CheckMatches(ms []*Match) ([][]string, error) {
	all := make([][]string, len(ms))
	for i, m := range ms {
		if m == nil {
			return nil, Invalid(fmt.Sprintf("matches[%d]", i), "no match")
		}
		ids := m.TicketIDs()
		if len(ids) == 0 {
			return nil, Invalid(fmt.Sprintf("matches[%d]", i), "match %s has no tickets", m.ID)
		}
		for j, id := range ids {
			if slices.Contains(ids[:j], id) {
				return nil, Invalid(fmt.Sprintf("matches[%d]", i), "match %s names ticket %s twice", m.ID, id)
			}
		}
		all[i] = ids
	}
	return all, nil
}

// AsNew is the ticket as a store keeps it when it is created: waiting,
// unmatched, no reason, updated when created. A shallow copy: the caller's
// slices are only read.
func (t *Ticket) AsNew() *Ticket {
	c := *t
	c.State, c.MatchID, c.Reason, c.UpdatedAt = StateWaiting, "", "", t.CreatedAt
	return &c
}

// DuplicatePlayer refuses a ticket naming a player twice, that ticket
// alone: a store's player index holds one entry per player and queue.
func DuplicatePlayer(t *Ticket) error {
	for j, p := range t.Players {
		for k := range j {
			if t.Players[k].ID == p.ID {
				return Invalid(fmt.Sprintf("players[%d].id", j), "player %q is already players[%d]", p.ID, k)
			}
		}
	}
	return nil
}

// LiveTicketExists is the error of a create refused because players[j]
// already has a live ticket in the queue.
func LiveTicketExists(j int, player, ticket, queue string) error {
	return Errorf(CodeAlreadyExists, fmt.Sprintf("players[%d].id", j),
		"player %q already has live ticket %s in queue %q; cancel it or ask to replace it", player, ticket, queue)
}

// ReplacedReason is the reason of a ticket cancelled because a new ticket
// took its place.
func ReplacedReason(newTicket string) string { return "replaced by ticket " + newTicket }

// MatchedElsewhereReason is the reason of a ticket cancelled because one of
// its players was matched in another queue.
func MatchedElsewhereReason(player, queue, match string) string {
	return fmt.Sprintf("player %s was matched in queue %s (match %s)", player, queue, match)
}

// CheckAssignment refuses an assignment that a store must not keep: no
// server, or values past the sizes a client should have to read. It runs
// before a store reads anything.
func CheckAssignment(a Assignment) error {
	switch {
	case a.Server == "":
		return Invalid("assignment.server", "required: the address players connect to")
	case len(a.Server) > 512:
		return Invalid("assignment.server", "at most 512 bytes, got %d", len(a.Server))
	case len(a.SessionID) > 512:
		return Invalid("assignment.session_id", "at most 512 bytes, got %d", len(a.SessionID))
	case len(a.Connection) > 64:
		return Invalid("assignment.connection", "at most 64 entries, got %d", len(a.Connection))
	case a.At.IsZero():
		return Invalid("assignment.at", "required")
	}
	size := 0
	for k, v := range a.Connection {
		if k == "" {
			return Invalid("assignment.connection", "a key must not be empty")
		}
		size += len(k) + len(v)
	}
	if size > 16<<10 {
		return Invalid("assignment.connection", "at most 16 KiB of keys and values, got %d bytes", size)
	}
	return nil
}

// MatchNotFound is the error of a call naming an unknown match.
func MatchNotFound(id string) error { return NotFound("match_id", "no match %q", id) }

// MatchNotFormed refuses to assign or release a match that is no longer
// formed.
func MatchNotFormed(id string, state MatchState) error {
	return Conflict("match_id", "match %s is already %s; only a formed match can be assigned or released", id, state)
}

// RequeueTakenReason is the reason of a ticket cancelled instead of
// requeued, because one of its players took another live ticket in the
// queue while the match waited for a server.
func RequeueTakenReason(player, ticket, queue string) string {
	return fmt.Sprintf("its match was released, but player %s already has live ticket %s in queue %s", player, ticket, queue)
}
