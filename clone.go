package cupid

import (
	"maps"
	"slices"
)

// Clone is a deep copy of the match: nothing of it shares memory with m.
// A store hands committed matches to watchers in events while the pool that
// proposed them goes on, so the two must not share slices or maps. (A
// round trip through JSON gives the same copy at ten to fifteen times the
// cost: BenchmarkMatchClone.) TestCloneCopiesEveryField fails when a field
// is added to Match and not here.
func (m *Match) Clone() *Match {
	if m == nil {
		return nil
	}
	c := *m
	c.Teams = slices.Clone(m.Teams)
	for i := range c.Teams {
		c.Teams[i].TicketIDs = slices.Clone(c.Teams[i].TicketIDs)
		c.Teams[i].PlayerIDs = slices.Clone(c.Teams[i].PlayerIDs)
	}
	c.Quality.Parts = slices.Clone(m.Quality.Parts)
	c.Roles = maps.Clone(m.Roles)
	c.Seats = slices.Clone(m.Seats)
	c.Left = slices.Clone(m.Left)
	if m.BackfillOptions != nil {
		c.BackfillOptions = make(map[string][]string, len(m.BackfillOptions))
		for k, v := range m.BackfillOptions {
			c.BackfillOptions[k] = slices.Clone(v)
		}
	}
	c.ServerPlayers = slices.Clone(m.ServerPlayers)
	for i := range c.ServerPlayers {
		c.ServerPlayers[i].Attributes = m.ServerPlayers[i].Attributes.Clone()
	}
	return &c
}

// Clone is a deep copy of the attributes.
func (a Attributes) Clone() Attributes {
	c := slices.Clone(a)
	for i := range c {
		c[i].Value.Strings = slices.Clone(c[i].Value.Strings)
		c[i].Value.Map = maps.Clone(c[i].Value.Map)
	}
	return c
}
