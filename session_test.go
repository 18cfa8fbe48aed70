package cupid

import (
	"testing"
	"time"
)

// TestLeaversOfATicket: a ticket is a leaver's when one of its players
// left and is not back (release cancels it); it is gone when none of its
// players is in the session any more (assignment skips it). A party with
// one leaver is a leaver's ticket but not gone.
func TestLeaversOfATicket(t *testing.T) {
	m := &Match{
		Teams: []Team{{PlayerIDs: []string{"ann", "pat"}}, {PlayerIDs: []string{"ben"}}},
		Left:  []Leaver{{PlayerID: "cat"}, {PlayerID: "dan"}, {PlayerID: "ben"}},
	}
	ps := func(ids ...string) []Player {
		out := make([]Player, len(ids))
		for i, id := range ids {
			out[i] = Player{ID: id}
		}
		return out
	}
	for _, c := range []struct {
		name    string
		players []Player
		leaver  string
		gone    bool
	}{
		{"in the session", ps("ann"), "", false},
		{"left", ps("cat"), "cat", true},
		{"a party, one left", ps("pat", "dan"), "dan", false},
		{"a party, both left", ps("cat", "dan"), "cat", true},
		{"left and came back", ps("ben"), "", false},
	} {
		if got := m.LeaverOf(c.players); got != c.leaver {
			t.Errorf("%s: LeaverOf = %q, want %q", c.name, got, c.leaver)
		}
		if got := m.Gone(c.players); got != c.gone {
			t.Errorf("%s: Gone = %v, want %v", c.name, got, c.gone)
		}
	}
	if (&Match{Teams: []Team{{}}}).Gone(ps("zed")) {
		t.Error("a session nobody left has no gone ticket")
	}
}

// TestRefusedTeamsChangeNothing: a game server's view that ApplySessionChange
// refuses leaves the record as it was.
func TestRefusedTeamsChangeNothing(t *testing.T) {
	for _, teams := range [][][]Player{
		{{{ID: "ann"}}}, // one team of two
		{{{ID: "ann"}, {ID: "x"}, {ID: "y"}}, {}},            // over the seats
		{{{ID: "ann"}}, {{ID: "ann"}}},                       // twice
		{{{ID: "g1"}, {ID: "g2"}}, {{ID: "g3"}, {}}},         // an empty id
		{{{ID: "g1"}, {ID: "g2"}}, {{ID: "g3"}, {ID: "g4"}}}, // every seat taken
	} {
		r := &MatchRecord{State: MatchFormed, Match: &Match{ID: "m", Seats: []int{2, 2},
			Teams: []Team{{TicketIDs: []string{"a"}, PlayerIDs: []string{"ann"}}, {TicketIDs: []string{"b"}, PlayerIDs: []string{"ben"}}}}}
		if err := ApplySessionChange(r, SessionChange{Kind: MatchEventBackfillOpened, Teams: teams}, time.Unix(0, 0)); err == nil {
			t.Errorf("%v: accepted", teams)
			continue
		}
		if m := r.Match; m.Backfill || len(m.Left) > 0 || m.ServerPlayers != nil || len(m.Teams[0].PlayerIDs) != 1 || m.Teams[1].PlayerIDs[0] != "ben" || !r.UpdatedAt.IsZero() {
			t.Errorf("%v: refused, but the record changed: %+v", teams, m)
		}
	}
}
