package engine

import (
	"slices"

	"github.com/cupid-match/cupid"
)

// withDefaults returns the ticket with the ruleset's attribute defaults
// given to every player that lacks them (neither the player nor the ticket
// sets the attribute). The caller's ticket is never modified: when anything
// is filled in, the result is a copy whose players and their attributes are
// new slices. Every way into the pool goes through it, so no rule ever sees
// a ticket without its defaults.
func (p *Pool) withDefaults(t *cupid.Ticket) *cupid.Ticket {
	if t == nil || len(p.r.c.Defaults) == 0 {
		return t
	}
	out := t
	for i := range t.Players {
		cloned := false
		for _, d := range p.r.c.Defaults {
			if _, ok := lookup(t.Attributes, &t.Players[i], d.Name); ok {
				continue
			}
			if out == t {
				c := *t
				c.Players = slices.Clone(t.Players)
				out = &c
			}
			if !cloned {
				out.Players[i].Attributes = slices.Clone(out.Players[i].Attributes)
				cloned = true
			}
			out.Players[i].Attributes.Set(d.Name, d.Value)
		}
	}
	return out
}

// sessionDefaults gives a backfill session's players the ruleset's defaults,
// as withDefaults does for tickets; the caller's session is not modified.
func (p *Pool) sessionDefaults(s Session) Session {
	if len(p.r.c.Defaults) == 0 {
		return s
	}
	teams := make([]SessionTeam, len(s.Teams))
	for k, team := range s.Teams {
		t := p.withDefaults(&cupid.Ticket{Players: team.Players})
		teams[k] = SessionTeam{Players: t.Players, Free: team.Free}
	}
	s.Teams = teams
	return s
}
