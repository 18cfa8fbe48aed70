package engine

import (
	"time"

	"github.com/cupid-match/cupid"
)

// Proposal is a match the pool formed. Its tickets have left the pool; the
// server commits the match (Match, then assigning its ID) or, if it cannot,
// hands the tickets back with Return.
//
// A proposal is kept small on purpose: a pass over a million waiting tickets
// forms half a million of them, and writing a whole cupid.Match for each
// (teams, ticket and player ids: over 600 bytes a match) was the largest
// part of the pass. It holds what the engine decided — the tickets team by
// team, the score, the region, the roles — and Match, Tickets and the
// accessors below build the rest on demand, for the matches a caller keeps.
type Proposal struct {
	// AnchorID is the ticket the match was built around; its wait decided
	// the flex level.
	AnchorID string
	// Level is the anchor's flex level: how many relaxation steps had
	// passed.
	Level int
	// SessionID is set for a backfill (backfill.go): the match adds its
	// tickets to this open session. Match().Teams then has one entry per
	// session team, in the session's order, listing only the newcomers
	// (empty teams included); AnchorID and Level are the first newcomer's.
	SessionID string
	// Quality is the match's score and its parts, as Match().Quality.
	Quality cupid.Quality
	// Region is where the match should be hosted, as Match().Region; empty
	// without latency rules.
	Region string
	// Roles maps each player to the role they play, as Match().Roles; nil
	// without role quotas.
	Roles map[string]string

	key     *cupid.QueueKey // the pool's key, shared by its proposals
	created time.Time       // the Step's time: the match's CreatedAt
	teams   int             // teams in the match, empty ones included
	// members are the matched tickets as the pool held them, team by team
	// (member.team ascending).
	members []member
}

// member is a proposed ticket as the pool held it.
type member struct {
	id      string
	created int64
	h       *held
	team    int32
}

// Match builds the proposed match: its teams with their ticket and player
// ids, quality, key, creation time, region and roles; ID is empty. Each call
// builds it anew, so the caller may change what it gets.
func (pr *Proposal) Match() cupid.Match {
	m := cupid.Match{Quality: pr.Quality, CreatedAt: pr.created, Region: pr.Region, Roles: pr.Roles}
	if pr.key != nil {
		m.Key = *pr.key
	}
	players := 0
	for i := range pr.members {
		players += len(pr.members[i].h.players)
	}
	// One array for every ticket id and one for every player id; each
	// team's slices are capped, so appending to one cannot write into the
	// next, and never nil, so an empty team is [] as before.
	tids := make([]string, 0, len(pr.members))
	pids := make([]string, 0, players)
	m.Teams = make([]cupid.Team, pr.teams)
	k := 0
	for t := range m.Teams {
		ti, pi := len(tids), len(pids)
		for ; k < len(pr.members) && int(pr.members[k].team) == t; k++ {
			mb := &pr.members[k]
			tids = append(tids, mb.id)
			for j := range mb.h.players {
				pids = append(pids, mb.h.players[j].ID)
			}
		}
		m.Teams[t] = cupid.Team{TicketIDs: tids[ti:len(tids):len(tids)], PlayerIDs: pids[pi:len(pids):len(pids)]}
	}
	return m
}

// Teams is the number of teams of the match, empty ones included.
func (pr *Proposal) Teams() int { return pr.teams }

// Len is the number of matched tickets.
func (pr *Proposal) Len() int { return len(pr.members) }

// TicketID is the id of the i-th matched ticket, team by team (the order of
// Tickets and of Match().Teams).
func (pr *Proposal) TicketID(i int) string { return pr.members[i].id }

// TeamOf is the team of the i-th matched ticket.
func (pr *Proposal) TeamOf(i int) int { return int(pr.members[i].team) }

// CreatedAt is when the i-th matched ticket was created, without rebuilding
// the tickets.
func (pr *Proposal) CreatedAt(i int) time.Time {
	return time.Unix(0, pr.members[i].created).UTC()
}

// Tickets rebuilds the matched tickets, team by team, as Add describes.
// Each call builds them anew.
func (pr *Proposal) Tickets() []*cupid.Ticket {
	if len(pr.members) == 0 {
		return nil
	}
	var key cupid.QueueKey
	if pr.key != nil {
		key = *pr.key
	}
	out := make([]*cupid.Ticket, len(pr.members))
	all := make([]cupid.Ticket, len(pr.members))
	for i := range pr.members {
		m := &pr.members[i]
		fillTicket(&all[i], key, m.id, m.created, m.h)
		out[i] = &all[i]
	}
	return out
}

// TicketIDs lists the matched tickets' ids, team by team.
func (pr *Proposal) TicketIDs() []string {
	ids := make([]string, len(pr.members))
	for i := range pr.members {
		ids[i] = pr.members[i].id
	}
	return ids
}

// sharedKey is the pool's key as its proposals point to it: one copy of its
// own, so that a proposal kept after the pool does not keep the pool.
func (p *Pool) sharedKey() *cupid.QueueKey {
	if p.keyRef == nil {
		k := p.key
		p.keyRef = &k
	}
	return p.keyRef
}
