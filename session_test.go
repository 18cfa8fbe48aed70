package cupid

import (
	"testing"
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
