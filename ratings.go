package cupid

import (
	"context"
	"time"
)

// RatingRow is one piece of the ratings service's state, kept as an
// opaque body (the service's JSON, or its own binary form for a player's
// state) under a kind and an id: a player's rating under one rating name
// (kind "player", id "ranked-5v5/alice"), a player's low-priority mark
// (kind "low-priority", id "alice"), a league's daily loss counts. A nil
// Body deletes the row.
//
// A guarded row (Guard) is written only if the stored row is still the one
// its writer read: Prev, or no row when Prev is nil. Otherwise another
// writer (another server sharing the database) changed it since, and
// SaveResult refuses the whole call with CodeConflict on the field
// "rating_rows", so the writer reads again and retries: no update is lost.
type RatingRow struct {
	Kind  string
	ID    string
	Body  []byte
	Guard bool
	Prev  []byte
}

// RatingEntry is one line of a player's rating history: what one match
// did to his rating under one rating name. Seq is given by the store and
// increases across it, so a history pages by it.
type RatingEntry struct {
	Seq     int64
	Rating  string
	Player  string
	MatchID string
	At      time.Time
	Body    []byte
}

// ResultRecord is a match's reported result as stored: the report and
// what it did, as one JSON body.
type ResultRecord struct {
	MatchID string
	At      time.Time
	Body    []byte
}

// RatingStore keeps what the ratings service learns from match results.
// The store does not know what a rating is: the service reads rows, works
// out every change a batch of results makes in Go, and hands them back to
// be written in one transaction, so a result, the ratings it moved, their
// history and the flags and league counts it changed are stored together
// or not at all. Several writers (servers sharing the database, or two
// services over one store) may write the same rows: the guards (RatingRow)
// make the one who read a row before another wrote it read it again.
type RatingStore interface {
	// SaveResults stores the results of several matches with the rows
	// they change and the history they add, atomically: one transaction,
	// so one durable write for the batch (the ratings service's group
	// commit). It is all or nothing: a match that has a result already, or
	// is given twice, is a conflict (CodeConflict on match_id), and so is a
	// guarded row changed since it was read (CodeConflict on rating_rows);
	// nothing changes then. Rows name each (kind, id) at most once;
	// history is stored in the order given, so its Seq follows it.
	SaveResults(ctx context.Context, results []ResultRecord, rows []RatingRow, history []RatingEntry) error
	// SaveResult is SaveResults of one result.
	SaveResult(ctx context.Context, r ResultRecord, rows []RatingRow, history []RatingEntry) error
	// Result returns a match's stored result, or not_found.
	Result(ctx context.Context, matchID string) (ResultRecord, error)
	// PutRatingRows writes rows (nil bodies delete) atomically, outside of
	// any result: an operator's low-priority mark.
	PutRatingRows(ctx context.Context, rows []RatingRow) error
	// RatingRows returns the rows of a kind with the given ids that exist,
	// in the order of ids.
	RatingRows(ctx context.Context, kind string, ids []string) ([]RatingRow, error)
	// RatingHistory returns a player's history under a rating name, newest
	// first, with Seq below beforeSeq (all when beforeSeq ≤ 0), at most
	// limit entries (limit > 0).
	RatingHistory(ctx context.Context, rating, player string, beforeSeq int64, limit int) ([]RatingEntry, error)
}

// RowsChanged is the conflict of a guarded row: another writer changed it
// since it was read.
func RowsChanged(kind, id string) *Error {
	return Conflict("rating_rows", "%s %s changed since it was read; read it again", kind, id)
}
