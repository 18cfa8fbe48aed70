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
}

// TicketFilter selects tickets for listing.
type TicketFilter struct {
	Queue string
	State TicketState // empty means any
	Limit int
}

// Store keeps tickets, matches and their events durably. Every method is
// safe for concurrent use. Implementations: sqlite (embedded default) and
// postgres.
type Store interface {
	// CreateTickets stores new waiting tickets in one durable step and
	// returns, for each input, the stored ticket: the input itself, or the
	// earlier ticket with the same RequestID (idempotent retry); and the
	// created events of the tickets it stored.
	CreateTickets(ctx context.Context, ts []*Ticket) ([]*Ticket, []Event, error)
	// Ticket returns one ticket or a not_found error.
	Ticket(ctx context.Context, id string) (*Ticket, error)
	// Tickets lists tickets, oldest first.
	Tickets(ctx context.Context, f TicketFilter) ([]*Ticket, error)
	// WaitingTickets returns every waiting ticket, oldest first; a restart
	// reloads pools from it.
	WaitingTickets(ctx context.Context) ([]*Ticket, error)
	// FinishTicket moves a waiting ticket to cancelled or expired and
	// records the event; a conflict error if it was no longer waiting.
	FinishTicket(ctx context.Context, id string, state TicketState, now time.Time) (*Ticket, Event, error)
	// CommitMatches stores matches atomically, each on its own: a match
	// whose tickets are not all still waiting is refused (reported in the
	// returned slice as false) and changes nothing.
	CommitMatches(ctx context.Context, ms []*Match) ([]bool, []Event, error)
	// Match returns a committed match.
	Match(ctx context.Context, id string) (*Match, error)
	// Events returns a ticket's events after seq, in order.
	Events(ctx context.Context, ticketID string, afterSeq int64) ([]Event, error)
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
