package lifecycle

import (
	"fmt"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Aged is retention's one rule, for every store: whether a row a store
// read as a candidate may be removed. Nothing live goes, whatever its age:
// a waiting ticket, a ticket in a live match (pending, formed or assigned:
// an open session, a pending ready check), a live match. What ended goes
// once it ended before the horizon. Rating history and results have no
// state: their time alone decides.
func Aged(kind cupid.RetentionKind, c Candidate, before time.Time) bool {
	switch kind {
	case cupid.RetainTickets:
		switch cupid.TicketState(c.State) {
		case cupid.StateCancelled, cupid.StateExpired:
		case cupid.StateMatched:
			// A matched ticket lives as long as its match; its end is
			// the later of its own and its match's last change. A
			// match already removed no longer holds it.
			if c.MatchState != "" && cupid.LiveMatch(c.MatchState) {
				return false
			}
			if c.MatchAt.After(c.At) {
				return c.MatchAt.Before(before)
			}
		default:
			return false
		}
		return c.At.Before(before)
	case cupid.RetainMatches:
		s := cupid.MatchState(c.State)
		if cupid.LiveMatch(s) || (s != cupid.MatchReleased && s != cupid.MatchEnded) {
			return false
		}
		return c.At.Before(before)
	case cupid.RetainRatingHistory, cupid.RetainRatingResults, cupid.RetainEncounters:
		return c.At.Before(before)
	}
	return false
}

// CheckPrune refuses a prune request no store can run: an unknown kind, a
// batch of no rows.
func CheckPrune(req cupid.PruneRequest) error {
	if !slices.Contains(cupid.RetentionKinds, req.Kind) {
		return cupid.Invalid("kind", "no retention kind %q", req.Kind)
	}
	if req.Limit <= 0 {
		return cupid.Invalid("limit", "must be positive")
	}
	if req.Select && req.Only != nil {
		return cupid.Invalid("only", "a Select chooses the batch's rows, it takes no Only: send Only with the request that removes them")
	}
	return nil
}

// PruneKind checks a prune request (CheckPrune) and finds its kind among
// a store's kinds, whose own kind kindOf tells: a kind the store keeps no
// table for is refused the same way by every store.
func PruneKind[K any](req cupid.PruneRequest, kinds []K, kindOf func(K) cupid.RetentionKind) (K, error) {
	var none K
	if err := CheckPrune(req); err != nil {
		return none, err
	}
	for _, k := range kinds {
		if kindOf(k) == req.Kind {
			return k, nil
		}
	}
	return none, fmt.Errorf("retention kind %q has no table here", req.Kind)
}

// PruneIDs are the rows a batch removes (or, for a Select, would
// remove): those of its candidates Aged lets go, kept to req.Only when it
// is set. So a batch that follows an export removes only rows that were
// exported: a row that became old between the two calls waits for the
// next pass, and one that is no longer there is not asked for.
func PruneIDs(req cupid.PruneRequest, cs []Candidate) []string {
	ids := AgedIDs(req.Kind, cs, req.Before)
	if req.Only == nil {
		return ids
	}
	only := make(map[string]bool, len(req.Only))
	for _, id := range req.Only {
		only[id] = true
	}
	return slices.DeleteFunc(ids, func(id string) bool { return !only[id] })
}

// AgedIDs are the ids of the candidates Aged lets go, in their order.
func AgedIDs(kind cupid.RetentionKind, cs []Candidate, before time.Time) []string {
	var ids []string
	for _, c := range cs {
		if Aged(kind, c, before) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// Candidate is a row as retention reads it.
type Candidate struct {
	// ID is the row's key in its store (a ticket's or match's id, a
	// history line's sequence number …): what AgedIDs returns.
	ID string
	// State is a ticket's or a match's state; empty for kinds without.
	State string
	// At is when the row last changed (a ticket's or match's update
	// time, a history line's or result's time).
	At time.Time
	// MatchState and MatchAt are a matched ticket's match's state and
	// last change; MatchState is empty when the match is not stored.
	MatchState cupid.MatchState
	MatchAt    time.Time
}
