package cupid

import (
	"context"
	"time"
)

// EventKind says what happened to a ticket.
type EventKind string

// The kinds of ticket events watchers receive.
const (
	EventCreated   EventKind = "created"
	EventMatched   EventKind = "matched"
	EventCancelled EventKind = "cancelled"
	EventExpired   EventKind = "expired"
)

// Final reports whether the event ends its ticket's life.
func (k EventKind) Final() bool { return k != EventCreated }

// Event is one change to a ticket. Seq increases across the whole store, so
// a watcher that reconnects asks for what came after the last Seq it saw and
// misses nothing.
type Event struct {
	Seq      int64     `json:"seq"`
	TicketID string    `json:"ticket_id"`
	Kind     EventKind `json:"kind"`
	At       time.Time `json:"at"`
	// Match is set on EventMatched.
	Match *Match `json:"match,omitempty"`
	// Reason says why a ticket was cancelled or expired when the server,
	// not its owner, ended it ("replaced by ticket …", "the ruleset
	// changed: …"); empty for a cancel the owner asked for.
	Reason string `json:"reason,omitempty"`
}

// TicketFilter selects tickets for listing.
type TicketFilter struct {
	Queue string
	State TicketState // empty means any
	Limit int
}

// NewTicket is one ticket handed to Store.CreateTickets.
type NewTicket struct {
	Ticket *Ticket
	// Replace lets the ticket take the place of its players' live tickets
	// in the same queue: those are cancelled in the same transaction.
	// Without it a player who already has a live ticket in the queue makes
	// the create fail with CodeAlreadyExists.
	Replace bool
}

// Created is what became of one NewTicket.
type Created struct {
	// Ticket is the stored ticket: the new one, or, when Existed, the
	// earlier ticket with the same RequestID (the caller compares bodies).
	Ticket  *Ticket
	Existed bool
	// Replaced are the live tickets this one replaced, already cancelled
	// (their events are among the call's events).
	Replaced []*Ticket
	// Err refuses this ticket alone (the others of the call still count):
	// CodeAlreadyExists when one of its players has a live ticket in the
	// queue and Replace was not asked, naming the player and that ticket.
	Err error
}

// Committed is what became of one match handed to Store.CommitMatches.
type Committed struct {
	// OK is true when the match was stored with its tickets' new state.
	OK bool
	// NotWaiting lists the match's tickets that were no longer waiting,
	// when the match was refused for that; the others still wait.
	NotWaiting []string
	// Cancelled are the other live tickets (in other queues) of the
	// match's players, cancelled in the same transaction so that no player
	// can be in two matches at once.
	Cancelled []*Ticket
}

// Store keeps tickets, matches and their events durably. Every method is
// safe for concurrent use. Implementations: sqlite (embedded default) and
// memstore (in memory, for tests).
//
// The store owns the rule "a player has at most one live ticket per queue":
// a ticket is live while it waits, and every player of a live ticket is
// recorded against the ticket's queue until it leaves that state.
type Store interface {
	// CreateTickets stores new waiting tickets in one durable step and
	// returns what became of each, in order, with the created events of
	// the tickets it stored and the cancelled events of those replaced.
	// The error is for the call as a whole (the store failed); nothing is
	// stored then.
	CreateTickets(ctx context.Context, ts []NewTicket) ([]Created, []Event, error)
	// Ticket returns one ticket or a not_found error.
	Ticket(ctx context.Context, id string) (*Ticket, error)
	// Tickets lists tickets, oldest first.
	Tickets(ctx context.Context, f TicketFilter) ([]*Ticket, error)
	// WaitingTickets returns every waiting ticket, oldest first; a restart
	// reloads pools from it.
	WaitingTickets(ctx context.Context) ([]*Ticket, error)
	// FinishTicket moves a waiting ticket to cancelled or expired, with a
	// reason (empty when its owner cancelled it), and records the event; a
	// conflict error if it was no longer waiting, not_found if unknown.
	FinishTicket(ctx context.Context, id string, state TicketState, reason string, now time.Time) (*Ticket, Event, error)
	// CommitMatches stores matches atomically, each on its own: a match
	// whose tickets are not all still waiting is refused and changes
	// nothing. A committed match also cancels its players' live tickets
	// in other queues. Events are in sequence order.
	CommitMatches(ctx context.Context, ms []*Match) ([]Committed, []Event, error)
	// Match returns a committed match.
	Match(ctx context.Context, id string) (*Match, error)
	// Events returns a ticket's events after seq, in order.
	Events(ctx context.Context, ticketID string, afterSeq int64) ([]Event, error)
	// Ping makes a small durable write, so that readiness reflects whether
	// writes succeed (a full disk, a read-only file) and not only whether
	// the file opens.
	Ping(ctx context.Context) error
	// Close releases the store.
	Close() error
}

// Document is a JSON document kept by kind and id: a pairing event's
// snapshot, an opponent finder's sizing model or one of its player models.
type Document struct {
	ID   string
	Body []byte
}

// DocumentStore keeps documents for the parts of Cupid whose state is one
// JSON value per thing (pairing events, opponent caches) rather than rows.
type DocumentStore interface {
	PutDocument(ctx context.Context, kind, id string, body []byte, now time.Time) error
	DeleteDocument(ctx context.Context, kind, id string) error
	// Documents lists a kind's documents in id order after the cursor
	// (exclusive), at most limit of them (all when limit ≤ 0).
	Documents(ctx context.Context, kind, after string, limit int) ([]Document, error)
}
