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
	// EventAssigned follows EventMatched when a backend assigns the match
	// a server; the ticket stays matched. It carries the Assignment.
	EventAssigned EventKind = "assigned"
	// EventRequeued puts a matched ticket back to waiting, with its
	// original age, because its match was released unassigned.
	EventRequeued EventKind = "requeued"
)

// Final reports whether the event ends its ticket's wait: matched (and
// assigned after it), cancelled, expired. Created and requeued leave it
// waiting. A matched ticket may still hear "assigned", or "requeued" when
// its match is released; watchers that want those ask to wait for them.
func (k EventKind) Final() bool {
	return k != EventCreated && k != EventRequeued && k != EventProposed
}

// Event is one change to a ticket. Seq increases across the whole store, so
// a watcher that reconnects asks for what came after the last Seq it saw and
// misses nothing.
type Event struct {
	Seq      int64     `json:"seq"`
	TicketID string    `json:"ticket_id"`
	Kind     EventKind `json:"kind"`
	At       time.Time `json:"at"`
	// Match is set on EventMatched (and on EventAssigned and
	// EventProposed).
	Match *Match `json:"match,omitempty"`
	// Assignment is set on EventAssigned.
	Assignment *Assignment `json:"assignment,omitempty"`
	// Reason says why a ticket was cancelled or expired when the server,
	// not its owner, ended it ("replaced by ticket …", "the ruleset
	// changed: …"); empty for a cancel the owner asked for.
	Reason string `json:"reason,omitempty"`
	// Estimate is set by the ticket service on a created or requeued
	// event it sends a watcher while that is the ticket's last event: the
	// wait still to come, made as it is sent. It is never stored.
	Estimate *WaitEstimate `json:"-"`
}

// TicketFilter selects tickets for listing.
type TicketFilter struct {
	Queue string
	State TicketState // empty means any
	// IDs keeps only these tickets (those that exist); any when empty.
	// At most MaxPlayersPerTicket × 64 ids: a match's or a session's
	// tickets, not a listing.
	IDs   []string
	Limit int
}

// MaxFilterIDs bounds TicketFilter.IDs.
const MaxFilterIDs = MaxPlayersPerTicket * 64

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
	// Busy lists the match's tickets whose players are in another live
	// match, when the match was refused for that (a player is in one live
	// match at most); its tickets still wait.
	Busy []Busy
	// Cancelled are the other live tickets (in other queues) of the
	// match's players, cancelled in the same transaction so that no player
	// can be in two matches at once.
	Cancelled []*Ticket
	// Formed is the match's "formed" event in the queue's match log, when
	// OK.
	Formed MatchEvent
}

// Busy is a waiting ticket one of whose players is in a live match.
type Busy struct {
	Ticket, Player, Match string
}

// Store keeps tickets, matches and their events durably. Every method is
// safe for concurrent use. Implementations: sqlite (embedded default) and
// memstore (in memory, for tests).
//
// The store keeps the indexes the lifecycle's rules read, in the same
// transactions as the rows they index: every player of a live (waiting)
// ticket against the ticket's queue ("one live ticket per player and
// queue"), and every player of a live match ("one live match per player").
type Store interface {
	// Updater runs the lifecycle's steps (package lifecycle): finishing
	// a ticket, assigning, releasing and answering for a match, changing
	// and backfilling a session.
	Updater
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
	// CommitMatches stores matches atomically, each on its own, as
	// lifecycle.PlanCommit decides: a match whose tickets are not all
	// still waiting, or one of whose players is in another live match, is
	// refused and changes nothing. A committed match also cancels its
	// players' live tickets in other queues. Events are in sequence order.
	// fence, when its Lease is set, is checked as the batch commits.
	CommitMatches(ctx context.Context, fence Fence, ms []*Match) ([]Committed, []Event, error)
	// Match returns a committed match.
	Match(ctx context.Context, id string) (*Match, error)
	// Events returns a ticket's events after seq, in order.
	Events(ctx context.Context, ticketID string, afterSeq int64) ([]Event, error)
	// MatchRecord returns a committed match with its state and
	// assignment, or a not_found error.
	MatchRecord(ctx context.Context, id string) (*MatchRecord, error)
	// Matches lists a queue's matches (those in a state, when State is
	// set), oldest first, at most Limit of them.
	Matches(ctx context.Context, f MatchFilter) ([]*MatchRecord, error)
	// MatchEvents returns a queue's match events after seq, in sequence
	// order, at most limit of them (limit > 0). An event is visible only
	// once every event with a lower sequence number is: a reader that
	// resumes after the last seq it saw misses nothing.
	MatchEvents(ctx context.Context, queue string, afterSeq int64, limit int) ([]MatchEvent, error)
	// OpenSessions lists the live sessions open to backfill, oldest
	// first; a restart gives them back to their pools.
	OpenSessions(ctx context.Context) ([]*MatchRecord, error)
	// MatchAnswers lists a match's answers by time, then player id.
	MatchAnswers(ctx context.Context, id string) ([]Answer, error)
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
	// PutDocument and DeleteDocument write under fence when its Lease is
	// set: a store shared by several nodes refuses the write (ErrFenced)
	// once the lease has passed to another node.
	PutDocument(ctx context.Context, fence Fence, kind, id string, body []byte, now time.Time) error
	DeleteDocument(ctx context.Context, fence Fence, kind, id string) error
	// Documents lists a kind's documents in id order after the cursor
	// (exclusive), at most limit of them (all when limit ≤ 0).
	Documents(ctx context.Context, kind, after string, limit int) ([]Document, error)
}

// MatchState is where a committed match is in its hand-off to a game
// server: formed (waiting for a backend), assigned (players may connect)
// or released (never assigned in time; its tickets were requeued or
// cancelled). Assigned and released are final.
type MatchState string

// The states of a match.
const (
	MatchFormed   MatchState = "formed"
	MatchAssigned MatchState = "assigned"
	MatchReleased MatchState = "released"
)

// Assignment is where a match is played, as the backend that placed it
// says: the server's address, a session id and free-form connection data
// (a join token, a port …) that players' clients read.
type Assignment struct {
	Server     string            `json:"server"`
	SessionID  string            `json:"session_id,omitempty"`
	Connection map[string]string `json:"connection,omitempty"`
	At         time.Time         `json:"at"`
}

// MatchRecord is a committed match with its hand-off state.
type MatchRecord struct {
	Match *Match     `json:"match"`
	State MatchState `json:"state"`
	// Assignment is set when State is assigned.
	Assignment *Assignment `json:"assignment,omitempty"`
	// UpdatedAt is when the state last changed (CreatedAt of the match
	// while formed).
	UpdatedAt time.Time `json:"updated_at"`
	// Reason says why a released match was released.
	Reason string `json:"reason,omitempty"`
	// Answers are the players' answers to a ready check, when the
	// service read them (GetMatch, AcceptMatch); the store's
	// MatchRecord leaves them out.
	Answers []Answer `json:"answers,omitempty"`
}

// MatchFilter selects matches for listing.
type MatchFilter struct {
	Queue string
	State MatchState // empty means any
	Limit int
}

// MatchEventKind says what happened to a match.
type MatchEventKind string

// The kinds of match events a backend's stream carries.
const (
	MatchEventFormed   MatchEventKind = "formed"
	MatchEventAssigned MatchEventKind = "assigned"
	MatchEventReleased MatchEventKind = "released"
)

// MatchEvent is one entry of a queue's match log. Seq increases across the
// whole store (it is not the ticket events' sequence), so a backend that
// resumes after the last Seq it saw misses nothing and sees nothing twice.
type MatchEvent struct {
	Seq     int64          `json:"seq"`
	MatchID string         `json:"match_id"`
	Queue   string         `json:"queue"`
	Kind    MatchEventKind `json:"kind"`
	At      time.Time      `json:"at"`
	// Match is the whole match on every kind (a backend that starts late
	// reads what it needs from the event alone).
	Match *Match `json:"match,omitempty"`
	// Assignment is set on assigned.
	Assignment *Assignment `json:"assignment,omitempty"`
	// Reason is set on released.
	Reason string `json:"reason,omitempty"`
	// TicketIDs and PlayerIDs name the newcomers on backfilled; PlayerIDs
	// the leavers on left.
	TicketIDs []string `json:"ticket_ids,omitempty"`
	PlayerIDs []string `json:"player_ids,omitempty"`
}

// Released is what ReleaseMatch did.
type Released struct {
	Match *MatchRecord
	Event MatchEvent
	// Requeued are the tickets back to waiting; Cancelled those cancelled
	// (all of them when not requeueing).
	Requeued  []*Ticket
	Cancelled []*Ticket
	// Events are the tickets' requeued and cancelled events.
	Events []Event
}

// LiveMatch reports whether a match holds its players: pending, formed or
// assigned (released and ended matches do not).
func LiveMatch(s MatchState) bool {
	return s == MatchPending || s == MatchFormed || s == MatchAssigned
}

// MatchNotFound is the error of a call naming an unknown match.
func MatchNotFound(id string) error { return NotFound("match_id", "no match %q", id) }
