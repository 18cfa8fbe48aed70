package lifecycle

import (
	"fmt"

	cupid "github.com/cupid-match/cupid"
)

// MatchNotPending refuses an answer to a match that no longer waits for
// answers.
func MatchNotPending(id string, state cupid.MatchState) error {
	return cupid.Conflict("match_id", "match %s is %s; only a pending match takes answers", id, state)
}

// PlayerNotInMatch refuses an answer for a player the match does not hold.
func PlayerNotInMatch(id, player string) error {
	return cupid.Invalid("player_id", "player %q is not in match %s", player, id)
}

// AnswerChanged refuses a second answer that contradicts the first.
func AnswerChanged(id, player string, accepted bool) error {
	was := "declined"
	if accepted {
		was = "accepted"
	}
	return cupid.Conflict("accept", "player %s already %s match %s; an answer cannot be changed", player, was, id)
}

// AllAccepted reports whether every player of m has accepted.
func AllAccepted(m *cupid.Match, answers []cupid.Answer) bool {
	yes := map[string]bool{}
	for _, a := range answers {
		if a.Accept {
			yes[a.PlayerID] = true
		}
	}
	for _, p := range cupid.MatchPlayerIDs(m) {
		if !yes[p] {
			return false
		}
	}
	return true
}

// CheckAssignment refuses an assignment that a store must not keep: no
// server, or values past the sizes a client should have to read. It runs
// before a store reads anything.
func CheckAssignment(a cupid.Assignment) error {
	switch {
	case a.Server == "":
		return cupid.Invalid("assignment.server", "required: the address players connect to")
	case len(a.Server) > 512:
		return cupid.Invalid("assignment.server", "at most 512 bytes, got %d", len(a.Server))
	case len(a.SessionID) > 512:
		return cupid.Invalid("assignment.session_id", "at most 512 bytes, got %d", len(a.SessionID))
	case len(a.Connection) > 64:
		return cupid.Invalid("assignment.connection", "at most 64 entries, got %d", len(a.Connection))
	case a.At.IsZero():
		return cupid.Invalid("assignment.at", "required")
	}
	size := 0
	for k, v := range a.Connection {
		if k == "" {
			return cupid.Invalid("assignment.connection", "a key must not be empty")
		}
		size += len(k) + len(v)
	}
	if size > 16<<10 {
		return cupid.Invalid("assignment.connection", "at most 16 KiB of keys and values, got %d bytes", size)
	}
	return nil
}

// MatchNotFormed refuses to assign or release a match that is no longer
// formed.
func MatchNotFormed(id string, state cupid.MatchState) error {
	return cupid.Conflict("match_id", "match %s is already %s; only a formed match can be assigned or released", id, state)
}

// RequeueTakenReason is the reason of a ticket cancelled instead of
// requeued, because one of its players took another live ticket in the
// queue while the match waited for a server.
func RequeueTakenReason(player, ticket, queue string) string {
	return fmt.Sprintf("its match was released, but player %s already has live ticket %s in queue %s", player, ticket, queue)
}
