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
