package cupid

import (
	"context"
	"time"
)

// Retention: how long each kind of data is kept once it has ended. Ended
// tickets, the match log and ready-check answers are worth keeping for a
// while (watchers that reconnect, a backend that resumes, an operator who
// looks into a complaint) but not for ever: a game with a million players a
// day would otherwise grow its database by gigabytes a day. What is live is
// never removed; what counts as live and as old is decided by
// lifecycle.Aged, the stores only read the candidates and delete what it
// chose.

// RetentionKind names a kind of data retention removes once it is old.
type RetentionKind string

// The kinds of data retention knows. Rating rows (a player's rating, his
// marks) are no kind: they are state, not history, and are never removed.
// Speed-dating rounds are no kind either: they go with their event when it
// is deleted.
const (
	// RetainTickets are tickets that ended (cancelled, expired, or
	// matched into a match that is no longer live), with their events.
	RetainTickets RetentionKind = "tickets"
	// RetainMatches are matches no longer live (released or ended), with
	// their entries in the match log and their ready-check answers.
	RetainMatches RetentionKind = "matches"
	// RetainRatingHistory are the lines of players' rating history.
	RetainRatingHistory RetentionKind = "rating_history"
	// RetainRatingResults are the reported results of matches.
	RetainRatingResults RetentionKind = "rating_results"
	// RetainEncounters are the lines of players' encounter histories
	// (who met whom), old once the meeting is: nothing in them is live.
	// Block and avoid lists are no kind: they are the players' choices.
	RetainEncounters RetentionKind = "encounters"
)

// RetentionKinds lists every kind, in the order a retention pass takes
// them. A store prunes from a table of its own with one entry per kind, so
// a new kind of data is one more entry here and one in each store's table.
var RetentionKinds = []RetentionKind{RetainTickets, RetainMatches, RetainRatingHistory, RetainRatingResults, RetainEncounters}

// ExportKinds are the kinds retention can write out before it deletes
// them (retention.export in the configuration): the outcomes analytics
// reads — ended tickets, ended matches, reported results. Rating history
// and encounters are lines of players' state, not outcomes.
var ExportKinds = []RetentionKind{RetainTickets, RetainMatches, RetainRatingResults}

// PruneRequest asks a store to remove one batch of a kind's old rows.
type PruneRequest struct {
	Kind RetentionKind
	// Before is the horizon: rows that ended before it are old.
	Before time.Time
	// Limit bounds the candidate rows the batch reads (and so the rows it
	// removes), which keeps its transaction short.
	Limit int
	// After is the cursor the previous batch of the same pass returned
	// ("" to start from the oldest row).
	After string
	// Select asks for the batch's choice without removing anything:
	// Pruned.IDs are the rows the batch would remove. Retention that
	// exports before it deletes selects, writes those rows out, then sends
	// the same request again with Only: so the rows are read by the
	// caller, between the choice and the delete, with one seam for every
	// store.
	Select bool
	// Only, when not nil, keeps the batch to these ids: a row Aged
	// chooses that is not among them stays (it was not exported). A batch
	// sent again after a Select reads the same candidates from the same
	// cursor; a row that came between the two calls waits for the next
	// pass.
	Only []string
}

// Pruned is what one batch removed.
type Pruned struct {
	// Removed counts the kind's own rows removed (tickets, matches,
	// history lines, results); Related the rows removed with them
	// (ticket events, match log entries, ready-check answers).
	Removed, Related int
	// Next is the cursor for the next batch; empty when the batch reached
	// rows too young to be old, so the pass is over.
	Next string
	// IDs are, for a Select, the ids of the rows the batch chose, in the
	// order it read them (the store's key of the kind: a ticket's or a
	// match's id, a result's match id, a history line's sequence number,
	// an encounter's key); nothing was removed.
	IDs []string
}

// Retained is how much of a kind a store holds: for metrics and the
// dashboard.
type Retained struct {
	Kind RetentionKind
	// Rows counts the kind's own rows; Bytes is their share of the store
	// (what the database reports for its tables and indexes, or an
	// estimate from the bodies where it reports nothing).
	Rows, Bytes int64
	// Oldest is when the oldest kept row was created (zero when none).
	Oldest time.Time
}

// Pruner is a store's part in retention. Every method is safe for
// concurrent use with the store's other calls.
type Pruner interface {
	// Prune removes, in one short transaction, the rows of req.Kind among
	// the oldest req.Limit candidates after req.After that lifecycle.Aged
	// calls old, with their related rows. fence, when its Lease is set, is
	// checked as the transaction commits: on a store shared by several
	// nodes, one node prunes (ErrFenced when the lease moved).
	Prune(ctx context.Context, fence Fence, req PruneRequest) (Pruned, error)
	// MatchLogHorizon is the highest sequence number retention removed
	// from queue's match log (0 when none): a reader resuming after a
	// lower number would miss events, and is told so (PastHorizon).
	MatchLogHorizon(ctx context.Context, queue string) (int64, error)
	// Retained reports, for every kind in RetentionKinds order, what the
	// store holds.
	Retained(ctx context.Context) ([]Retained, error)
}

// CodeOutOfRange refuses a resume from a sequence number whose events
// retention has removed: the caller resumes from the oldest kept (or
// reads the state again).
const CodeOutOfRange Code = "out_of_range"

// PastHorizon is the error of a resume after afterSeq when events up to
// horizon were removed: it names the sequence number to resume after.
func PastHorizon(field string, afterSeq, horizon int64) *Error {
	e := Errorf(CodeOutOfRange, field,
		"events up to sequence number %d were removed by retention, so resuming after %d would miss some; resume with after_seq=%d (the oldest kept is after it) or read the current state again",
		horizon, afterSeq, horizon)
	e.ResumeAfter = horizon
	return e
}
