package cupid

import (
	"fmt"
	"slices"
	"time"
)

// A game session is the match itself, once formed: the same record, whose
// teams change as players join by backfill and leave, with the seats each
// team has, whether it is open to backfill and who left. It is live while
// its match is formed or assigned; it ends when the backend ends it
// (MatchEnded) or when the match is released. Keeping it in the match
// means every reader of a match (ticket watchers, the match stream,
// GetMatch) sees the session as it is now, and every change to it is one
// write of the match with its tickets, in one transaction.

// MatchEnded is the state of a session its backend has ended: its players
// are done. Final, like released.
const MatchEnded MatchState = "ended"

// The match events of sessions.
const (
	// MatchEventBackfilled: waiting tickets joined the session (the
	// event's TicketIDs and PlayerIDs name the newcomers).
	MatchEventBackfilled MatchEventKind = "backfilled"
	// MatchEventBackfillOpened and MatchEventBackfillClosed: the backend
	// (or a leaver within the queue's leaver window) opened backfill, or
	// the backend closed it.
	MatchEventBackfillOpened MatchEventKind = "backfill_opened"
	MatchEventBackfillClosed MatchEventKind = "backfill_closed"
	// MatchEventLeft: players left the session (PlayerIDs names them).
	MatchEventLeft MatchEventKind = "left"
	// MatchEventEnded: the backend ended the session.
	MatchEventEnded MatchEventKind = "ended"
)

// Leaver is a player who left a session.
type Leaver struct {
	PlayerID string    `json:"player_id"`
	Team     int       `json:"team"`
	At       time.Time `json:"at"`
	// Replaced is true when the seat stayed open for someone else (the
	// player left within the queue's leaver window); otherwise the seat
	// closed with the player's leaving.
	Replaced bool `json:"replaced,omitempty"`
}

// Backfill adds waiting tickets to a live session: Teams has one entry per
// team of the session, in order, listing only the new tickets and their
// players (a team may be empty).
type Backfill struct {
	MatchID string
	Teams   []Team
	At      time.Time
}

// TicketIDs lists the backfill's tickets, team by team.
func (b *Backfill) TicketIDs() []string {
	var ids []string
	for _, t := range b.Teams {
		ids = append(ids, t.TicketIDs...)
	}
	return ids
}

// Backfilled is what became of one Backfill handed to
// Store.CommitBackfills.
type Backfilled struct {
	// OK is true when the tickets joined the session.
	OK bool
	// NotWaiting lists the tickets that were no longer waiting, when the
	// backfill was refused for that; the others still wait.
	NotWaiting []string
	// Busy lists the newcomers whose players are in another live match,
	// when the backfill was refused for that (a player is in one live
	// match at most); the tickets still wait.
	Busy []Busy
	// Err is set when the session refused the backfill (not live, closed
	// to backfill, no seat, a player already in it): a conflict error.
	Err error
	// Cancelled are the newcomers' live tickets in other queues, cancelled
	// in the same transaction (as CommitMatches does).
	Cancelled []*Ticket
	// Event is the session's "backfilled" match event, with the match as
	// it is after the backfill.
	Event MatchEvent
	// Match is the session after the backfill, with its state and
	// assignment.
	Match *MatchRecord
}

// SessionChange is a backend's change to a live session, for
// Store.ChangeSession. Kind is one of MatchEventBackfillOpened,
// MatchEventBackfillClosed, MatchEventLeft, MatchEventEnded.
type SessionChange struct {
	Kind MatchEventKind
	// Players leave the session (MatchEventLeft).
	Players []string
	// Reopen keeps the leavers' seats open and opens backfill (a leave
	// within the queue's leaver window); without it their seats close.
	Reopen bool
	// Options, on MatchEventBackfillOpened, replace the session's
	// BackfillOptions when set.
	Options map[string][]string
	// Teams, on MatchEventBackfillOpened, is the game server's view of the
	// session when set (AccelByte's backfill ticket carries the same): one
	// entry per team, in the match's order, with the players in it now.
	// They become the session's teams: players Cupid had who are absent
	// have left (their seats stay, for backfill to fill; the seats count
	// never grows), players the game server added take seats. A player
	// given with attributes is compared with newcomers by these
	// (Match.ServerPlayers); without, by his ticket's, if he has one.
	Teams [][]Player
}

// CheckTeams checks a game server's view of a session's teams against the
// match it would replace the teams of: the match's team count, at most
// each team's seats, no player twice, valid ids and attributes. The fields
// named are those of the request (teams[i].players[j]).
func CheckTeams(m *Match, teams [][]Player) error {
	if len(teams) != len(m.Teams) {
		return Invalid("teams", "the session has %d teams, the game server gave %d", len(m.Teams), len(teams))
	}
	seen := map[string]string{}
	for i, team := range teams {
		if i < len(m.Seats) && len(team) > m.Seats[i] {
			return Invalid(fmt.Sprintf("teams[%d].players", i), "team %d has %d seats, the game server gave %d players", i, m.Seats[i], len(team))
		}
		for j, p := range team {
			f := fmt.Sprintf("teams[%d].players[%d]", i, j)
			if err := checkString(f+".id", p.ID, MaxIDLength, true); err != nil {
				return err
			}
			if at, dup := seen[p.ID]; dup {
				return Invalid(f+".id", "player %s is given twice (also %s)", p.ID, at)
			}
			seen[p.ID] = f
			if err := checkAttributes(f+".attributes", p.Attributes); err != nil {
				return err
			}
		}
	}
	return nil
}

// InTeams reports whether a player is in the session now.
func (m *Match) InTeams(player string) bool {
	for _, t := range m.Teams {
		if slices.Contains(t.PlayerIDs, player) {
			return true
		}
	}
	return false
}

// LeaverOf returns the first of a ticket's players who left the session
// and is not back in it, or "" when none did. Releasing a match cancels
// such a ticket rather than requeueing it: its player walked away from
// the game.
func (m *Match) LeaverOf(players []Player) string {
	for _, p := range players {
		if !m.InTeams(p.ID) && slices.ContainsFunc(m.Left, func(l Leaver) bool { return l.PlayerID == p.ID }) {
			return p.ID
		}
	}
	return ""
}

// Gone reports whether none of a ticket's players is in the session any
// more (they all left): such a ticket is not told of the assignment.
func (m *Match) Gone(players []Player) bool {
	return len(m.Left) > 0 && !slices.ContainsFunc(players, func(p Player) bool { return m.InTeams(p.ID) })
}

// Live reports whether a match is a live session: formed or assigned.
func (r *MatchRecord) Live() bool { return r.State == MatchFormed || r.State == MatchAssigned }

// Full reports whether every team of a session has all its seats taken.
// A match without seats is never open to backfill.
func (m *Match) Full() bool {
	if len(m.Seats) != len(m.Teams) {
		return true
	}
	for i, t := range m.Teams {
		if len(t.PlayerIDs) < m.Seats[i] {
			return false
		}
	}
	return true
}
