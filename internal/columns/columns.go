// Package columns is how the SQL stores (sqlite, postgres) lay Cupid's values
// out in columns: a ticket or a match is a JSON body as created, with the
// parts that change (state, match, reason, update time, assignment) in
// columns of their own, so a state change rewrites a few values instead of
// the whole body. Both stores keep the same layout; this package decodes
// it once.
package columns

import (
	"encoding/json"
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Ticket builds a ticket from its body and columns.
func Ticket(body []byte, state, matchID string, updated int64, reason string) (*cupid.Ticket, error) {
	var t cupid.Ticket
	if err := json.Unmarshal(body, &t); err != nil {
		return nil, fmt.Errorf("decode ticket: %w", err)
	}
	t.State, t.MatchID, t.Reason = cupid.TicketState(state), matchID, reason
	t.UpdatedAt = time.Unix(0, updated).UTC()
	return &t, nil
}

// Record builds a match with its hand-off state from its body and columns;
// assignment is nil when the match has none.
func Record(body []byte, state string, assignment []byte, updated int64, reason string) (*cupid.MatchRecord, error) {
	rec := &cupid.MatchRecord{Match: new(cupid.Match), State: cupid.MatchState(state), UpdatedAt: time.Unix(0, updated).UTC(), Reason: reason}
	if err := json.Unmarshal(body, rec.Match); err != nil {
		return nil, fmt.Errorf("decode match: %w", err)
	}
	if assignment != nil {
		rec.Assignment = new(cupid.Assignment)
		if err := json.Unmarshal(assignment, rec.Assignment); err != nil {
			return nil, fmt.Errorf("decode assignment of match %s: %w", rec.Match.ID, err)
		}
	}
	return rec, nil
}

// detail is what a match event's detail column keeps: the ids it names.
type detail struct {
	TicketIDs []string `json:"ticket_ids,omitempty"`
	PlayerIDs []string `json:"player_ids,omitempty"`
}

// Detail encodes the ids a match event names (the newcomers of a
// backfill, the leavers), or nil when it names none.
func Detail(e *cupid.MatchEvent) []byte {
	if len(e.TicketIDs) == 0 && len(e.PlayerIDs) == 0 {
		return nil
	}
	b, _ := json.Marshal(detail{e.TicketIDs, e.PlayerIDs}) // []string always encodes
	return b
}

// MatchEvent completes a match event read with its match: the columns of
// match_events (kind, at in Unix nanoseconds, detail) and the match's
// record, whose assignment or release reason the event carries.
func MatchEvent(ev *cupid.MatchEvent, queue, kind string, at int64, detail []byte, rec *cupid.MatchRecord) error {
	if err := ReadDetail(ev, detail); err != nil {
		return err
	}
	ev.Kind, ev.At, ev.Queue = cupid.MatchEventKind(kind), time.Unix(0, at).UTC(), queue
	ev.MatchID, ev.Match = rec.Match.ID, rec.Match
	switch ev.Kind {
	case cupid.MatchEventAssigned:
		ev.Assignment = rec.Assignment
	case cupid.MatchEventReleased:
		ev.Reason = rec.Reason
	}
	return nil
}

// ReadDetail fills a match event's ids from its stored detail.
func ReadDetail(e *cupid.MatchEvent, b []byte) error {
	if b == nil {
		return nil
	}
	var d detail
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("decode match event %d: %w", e.Seq, err)
	}
	e.TicketIDs, e.PlayerIDs = d.TicketIDs, d.PlayerIDs
	return nil
}

// TicketBodies encodes the body column of new tickets: each ticket as it
// is created.
func TicketBodies(ts []*cupid.Ticket) ([][]byte, error) {
	bodies := make([][]byte, len(ts))
	for i, t := range ts {
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("encode ticket %s: %w", t.ID, err)
		}
		bodies[i] = b
	}
	return bodies, nil
}

// Rows is what the result sets of both SQL stores' drivers offer
// (database/sql's and pgx's); each store closes its own.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// Collect scans every row with scan, as the stores' shared scanners
// (ScanEncounter, ScanListEntry …) read one.
func Collect[T any](rows Rows, scan func(func(...any) error) (T, error)) ([]T, error) {
	var out []T
	for rows.Next() {
		v, err := scan(rows.Scan)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// InChunks calls f with xs in runs of at most size, in order, and stops at
// f's first error: the multi-row statements a store sends have a bound on
// their rows.
func InChunks[T any](xs []T, size int, f func(part []T) error) error {
	for lo := 0; lo < len(xs); lo += size {
		if err := f(xs[lo:min(lo+size, len(xs))]); err != nil {
			return err
		}
	}
	return nil
}
