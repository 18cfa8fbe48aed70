package cupid

import "context"

// The seam between the lifecycle and the stores. Every rule about what may
// happen to a ticket, a match or a session is decided once, in package
// lifecycle, from the rows a step reads; a store only runs the step inside
// one of its transactions, reads the rows it asks for and writes the rows it
// decided. Locking, sequence numbers, notifications and the fence stay in
// each store, where only a database can do them.

// Updater runs lifecycle steps. Update runs fn inside one write transaction
// of the store and commits what fn wrote, or nothing when fn or the commit
// fails. op names the step ("ReleaseMatch", "AssignMatch" …) in errors and
// to stores that fail on demand in tests. fence, when its Lease is set, is
// checked as the transaction commits: a store shared by several nodes
// refuses the whole step (an error that is ErrFenced) when the lease has
// passed to another node. A store may run fn again after a conflict it can
// recover from (a deadlock, a row another transaction changed); fn must
// therefore decide only from what it reads through tx.
type Updater interface {
	Update(ctx context.Context, op string, fence Fence, fn func(Tx) error) error
}

// Tx is one write transaction as a lifecycle step sees it. Its reads lock
// the rows they return until the transaction ends, so that what a step
// decided from them still holds when its writes commit.
type Tx interface {
	// Match reads a match with its hand-off state; a not_found error
	// (MatchNotFound) when there is none.
	Match(id string) (*MatchRecord, error)
	// Tickets reads tickets by id, in id order; ids the store does not
	// know are left out.
	Tickets(ids []string) ([]*Ticket, error)
	// LiveTickets lists the live tickets of players, in every queue: the
	// player index that holds "one live ticket per player and queue".
	LiveTickets(players []string) ([]LiveTicket, error)
	// Answers lists a match's ready-check answers by time, then player.
	Answers(matchID string) ([]Answer, error)
	// InMatches lists the live matches (pending, formed or assigned) the
	// players are in, by player then match: the index of players in live
	// matches that a store keeps with every match it writes.
	InMatches(players []string) ([]InMatch, error)
	// Write stores what a step decided. The store fills in the sequence
	// numbers of w's events, in the order given, by the time Update
	// returns (not necessarily when Write returns: a store may send the
	// writes with its commit).
	Write(w *Writes) error
}

// LiveTicket is one entry of the player index: Player's live ticket in
// Queue.
type LiveTicket struct {
	Player, Queue, Ticket string
}

// InMatch is one entry of the index of players in live matches.
type InMatch struct {
	Player, Match string
}

// Writes are the rows one lifecycle step changes.
type Writes struct {
	// Tickets are tickets whose state changed, each as it now is.
	Tickets []TicketWrite
	// Match, when set, is a match as it now is: its body, state,
	// assignment, reason and update time are written, and the index of
	// players in live matches follows it (its players now while it is
	// live, none once it is released or ended).
	Match *MatchRecord
	// Answer, when set, is a new ready-check answer.
	Answer *MatchAnswer
	// Events are the tickets' new events, MatchEvents the match log's.
	Events      []Event
	MatchEvents []*MatchEvent
}

// TicketWrite is one ticket's change.
type TicketWrite struct {
	// Ticket is the ticket as it now is (state, match, reason, times).
	Ticket *Ticket
	// From is the state it had: a store moves the ticket's players out of
	// the player index when it leaves waiting and into it when it comes
	// back.
	From TicketState
	// Reborn is set when the ticket went back to waiting with a new
	// CreatedAt (a penalty), which the store keeps too; its whole body is
	// rewritten, which is also how a waiting ticket that accepted an
	// offer (lifecycle.Amend) keeps its new latencies, CreatedAt unchanged.
	Reborn bool
}

// MatchAnswer is a player's answer to one match.
type MatchAnswer struct {
	MatchID string
	Answer
}
