package cupid

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The ready check (FlexMatch's acceptance): a queue may ask every player of
// a match to accept it before it is formed. Such a match is committed
// pending, with a deadline (Match.AcceptBy); its tickets are matched to it,
// so the pool does not use them and no player is in two live matches, but
// their watchers hear "proposed", not "matched". When every player has
// accepted the match becomes formed: the queue's match log gets its
// "formed" event and the tickets their "matched" events, in the same
// transaction, so a backend or a client that knows nothing of acceptance
// sees what it always saw. A decline, or the deadline, releases it.

// MatchPending is the state of a match waiting for its players to accept
// it. A pending match is never in the match log: backends hear of it when
// it is formed.
const MatchPending MatchState = "pending"

// EventProposed tells a ticket's watchers that its ticket is in a match
// that waits for its players to accept it (the event carries the match,
// whose AcceptBy is the deadline). It is not final: "matched" follows when
// everyone accepted, "requeued" or "cancelled" when someone did not.
const EventProposed EventKind = "proposed"

// Answer is one player's answer to a pending match.
type Answer struct {
	PlayerID string    `json:"player_id"`
	Accept   bool      `json:"accept"`
	At       time.Time `json:"at"`
}

// Release says how a release ends each ticket of a match. The tickets of
// Decliners (players who declined the match or did not accept it in time)
// are cancelled with DeclinerReason, or, with RequeueLast, put back to
// waiting as if created now (their age reset: a penalty) with that reason.
// The others are requeued with their original age when Requeue is set and
// cancelled with Reason otherwise (ReleaseMatch's choice).
type Release struct {
	// Reason is the match's release reason, and the reason of the events
	// of the tickets of players who did not decline.
	Reason  string
	Requeue bool

	Decliners      []string
	DeclinerReason string
	RequeueLast    bool
}

// Declined reports whether a ticket with these players is a decliner's.
func (r Release) Declined(players []Player) bool {
	for _, p := range players {
		if slices.Contains(r.Decliners, p.ID) {
			return true
		}
	}
	return false
}

// Answered is what Store.AnswerMatch did.
type Answered struct {
	// Match is the match after the answer, with every answer so far.
	Match *MatchRecord
	// Repeated is set when the player had given this answer already:
	// nothing changed.
	Repeated bool
	// Formed is the match's "formed" event when this answer was the last
	// acceptance; Events are then the tickets' "matched" events.
	Formed *MatchEvent
	Events []Event
	// Released is set when this answer declined the match.
	Released *Released
}

// MatchPlayerIDs lists every player of a match, team by team.
func MatchPlayerIDs(m *Match) []string {
	var out []string
	for _, t := range m.Teams {
		out = append(out, t.PlayerIDs...)
	}
	return out
}

// DeclinedReason is the release reason of a match a player declined.
func DeclinedReason(player string) string { return "declined by " + player }

// NotAcceptedReason is the release reason of a match whose deadline passed.
func NotAcceptedReason(players []string) string {
	return "not accepted in time by " + strings.Join(players, ", ")
}

// DeclinerReason is the reason on the ticket of a player who declined (or
// did not answer) a match.
func DeclinerReason(matchID string, timedOut bool) string {
	if timedOut {
		return fmt.Sprintf("did not accept match %s in time", matchID)
	}
	return fmt.Sprintf("declined match %s", matchID)
}
