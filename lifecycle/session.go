package lifecycle

import (
	"fmt"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// LeftReason is the reason of a leaver's ticket cancelled when its match
// is released.
func LeftReason(player, match string) string {
	return fmt.Sprintf("player %s left match %s before it was released", player, match)
}

// applyTeams makes the game server's view the session's teams (see
// cupid.SessionChange.Teams); cupid.CheckTeams has passed.
func applyTeams(m *cupid.Match, teams [][]cupid.Player, now time.Time) {
	in := map[string]bool{}
	for _, team := range teams {
		for _, p := range team {
			in[p.ID] = true
		}
	}
	out := make([]cupid.Team, len(m.Teams))
	left := slices.Clone(m.Left)
	for i, t := range m.Teams {
		out[i].TicketIDs = slices.Clone(t.TicketIDs)
		for _, p := range t.PlayerIDs {
			if !in[p] {
				left = append(left, cupid.Leaver{PlayerID: p, Team: i, At: now.UTC(), Replaced: true})
			}
		}
		for _, p := range teams[i] {
			out[i].PlayerIDs = append(out[i].PlayerIDs, p.ID)
		}
	}
	// The game server's data of its players replaces what it said before;
	// a player it gives without attributes is compared by his ticket's.
	var given []cupid.Player
	for _, team := range teams {
		for _, p := range team {
			if len(p.Attributes) > 0 {
				given = append(given, cupid.Player{ID: p.ID, Attributes: slices.Clone(p.Attributes)})
			}
		}
	}
	m.Teams, m.Left, m.ServerPlayers = out, left, given
}

// SessionNotLive refuses a change to a session that ended or was released,
// or to a match still waiting for its ready check.
func SessionNotLive(id string, state cupid.MatchState) error {
	if state == cupid.MatchPending {
		return cupid.Conflict("match_id", "match %s waits for its players to accept; it is a session once formed", id)
	}
	return cupid.Conflict("match_id", "match %s is %s: its session is over", id, state)
}

// ApplyBackfill checks a backfill against its session and, when it fits,
// adds the newcomers to the session's teams (closing backfill once every
// seat is taken). Stores call it on the record they read inside their
// transaction; it changes r.Match in place only when it returns nil.
func ApplyBackfill(r *cupid.MatchRecord, b cupid.Backfill) error {
	m := r.Match
	switch {
	case !r.Live():
		return SessionNotLive(m.ID, r.State)
	case !m.Backfill:
		return cupid.Conflict("match_id", "match %s is not open to backfill", m.ID)
	case len(b.Teams) != len(m.Teams):
		return cupid.Invalid("teams", "the backfill has %d teams, the session %d", len(b.Teams), len(m.Teams))
	}
	for i, t := range b.Teams {
		if len(m.Teams[i].PlayerIDs)+len(t.PlayerIDs) > m.Seats[i] {
			return cupid.Conflict("match_id", "team %d of match %s has %d of %d seats taken; %d more do not fit",
				i, m.ID, len(m.Teams[i].PlayerIDs), m.Seats[i], len(t.PlayerIDs))
		}
		for _, p := range t.PlayerIDs {
			for _, team := range m.Teams {
				if slices.Contains(team.PlayerIDs, p) {
					return cupid.Conflict("match_id", "player %s is already in match %s", p, m.ID)
				}
			}
		}
	}
	m.Teams = slices.Clone(m.Teams) // the teams read stay as they were
	for i, t := range b.Teams {
		m.Teams[i].TicketIDs = append(slices.Clone(m.Teams[i].TicketIDs), t.TicketIDs...)
		m.Teams[i].PlayerIDs = append(slices.Clone(m.Teams[i].PlayerIDs), t.PlayerIDs...)
	}
	if m.Full() {
		m.Backfill = false
	}
	return nil
}

// ApplySessionChange checks a change against its session and applies it to
// r in place (the match and, when it ends, the state), or returns the
// contract's error and leaves r as it was.
func ApplySessionChange(r *cupid.MatchRecord, c cupid.SessionChange, now time.Time) error {
	m := r.Match
	if !r.Live() {
		return SessionNotLive(m.ID, r.State)
	}
	switch c.Kind {
	case cupid.MatchEventBackfillOpened:
		if len(m.Seats) != len(m.Teams) {
			return cupid.Conflict("match_id", "match %s has no seats to backfill", m.ID)
		}
		if c.Teams != nil {
			if err := cupid.CheckTeams(m, c.Teams); err != nil {
				return err
			}
			view := &cupid.Match{Teams: make([]cupid.Team, len(c.Teams)), Seats: m.Seats}
			for i, team := range c.Teams {
				view.Teams[i].PlayerIDs = make([]string, len(team))
			}
			if view.Full() {
				return cupid.Conflict("match_id", "match %s has every seat taken by the game server's players", m.ID)
			}
			applyTeams(m, c.Teams, now)
		} else if m.Full() {
			return cupid.Conflict("match_id", "match %s has every seat taken", m.ID)
		}
		m.Backfill = true
		if c.Options != nil {
			m.BackfillOptions = c.Options
		}
	case cupid.MatchEventBackfillClosed:
		if !m.Backfill {
			return cupid.Conflict("match_id", "match %s is not open to backfill", m.ID)
		}
		m.Backfill = false
	case cupid.MatchEventLeft:
		if len(c.Players) == 0 {
			return cupid.Invalid("player_ids", "required: the players who left")
		}
		teams := slices.Clone(m.Teams)
		seats := slices.Clone(m.Seats)
		var left []cupid.Leaver
		for i, p := range c.Players {
			team := -1
			for ti := range teams {
				if k := slices.Index(teams[ti].PlayerIDs, p); k >= 0 {
					team = ti
					teams[ti].PlayerIDs = slices.Delete(slices.Clone(teams[ti].PlayerIDs), k, k+1)
					break
				}
			}
			if team < 0 {
				return cupid.Conflict(fmt.Sprintf("player_ids[%d]", i), "player %s is not in match %s", p, m.ID)
			}
			if !c.Reopen && team < len(seats) {
				seats[team]--
			}
			left = append(left, cupid.Leaver{PlayerID: p, Team: team, At: now.UTC(), Replaced: c.Reopen && len(seats) == len(teams)})
		}
		m.Teams, m.Seats = teams, seats
		m.Left = append(slices.Clone(m.Left), left...)
		if c.Reopen && len(m.Seats) == len(m.Teams) && !m.Full() {
			m.Backfill = true
		}
		if m.Full() {
			m.Backfill = false
		}
	case cupid.MatchEventEnded:
		r.State, m.Backfill = cupid.MatchEnded, false
	default:
		return cupid.Invalid("kind", "not a session change: %q", c.Kind)
	}
	r.UpdatedAt = now.UTC()
	return nil
}
