package columns

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// TestColumnsWinOverTheBody: the columns that change are the truth; the
// body only gives what does not.
func TestColumnsWinOverTheBody(t *testing.T) {
	body, _ := json.Marshal(cupid.Ticket{ID: "t", State: cupid.StateWaiting, Players: []cupid.Player{{ID: "ann"}}})
	tk, err := Ticket(body, "matched", "m", 5, "why")
	if err != nil || tk.ID != "t" || tk.State != cupid.StateMatched || tk.MatchID != "m" || tk.Reason != "why" || !tk.UpdatedAt.Equal(time.Unix(0, 5)) {
		t.Fatalf("%+v %v", tk, err)
	}
	mb, _ := json.Marshal(cupid.Match{ID: "m"})
	ab, _ := json.Marshal(cupid.Assignment{Server: "gs:1"})
	rec, err := Record(mb, "assigned", ab, 7, "")
	if err != nil || rec.Match.ID != "m" || rec.State != cupid.MatchAssigned || rec.Assignment.Server != "gs:1" {
		t.Fatalf("%+v %v", rec, err)
	}
	if rec, err := Record(mb, "formed", nil, 7, ""); err != nil || rec.Assignment != nil {
		t.Fatalf("no assignment: %+v %v", rec, err)
	}
	if _, err := Ticket([]byte("{"), "waiting", "", 0, ""); err == nil {
		t.Error("a broken body decoded")
	}
}

func TestDetailRoundTrip(t *testing.T) {
	if Detail(&cupid.MatchEvent{}) != nil {
		t.Error("an event naming nobody has a detail")
	}
	e := &cupid.MatchEvent{TicketIDs: []string{"a"}, PlayerIDs: []string{"p", "q"}}
	var back cupid.MatchEvent
	if err := ReadDetail(&back, Detail(e)); err != nil || !slices.Equal(back.TicketIDs, e.TicketIDs) || !slices.Equal(back.PlayerIDs, e.PlayerIDs) {
		t.Fatalf("%+v %v", back, err)
	}
	if err := ReadDetail(&back, []byte("x")); err == nil {
		t.Error("a broken detail read")
	}
}
