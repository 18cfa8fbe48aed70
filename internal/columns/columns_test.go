package columns

import (
	"encoding/json"
	"errors"
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

func TestInChunks(t *testing.T) {
	for _, c := range []struct {
		n, size int
		want    []int
	}{{0, 3, nil}, {3, 3, []int{3}}, {7, 3, []int{3, 3, 1}}, {2, 5, []int{2}}} {
		var got []int
		xs := make([]int, c.n)
		if err := InChunks(xs, c.size, func(part []int) error { got = append(got, len(part)); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%d in runs of %d: %v, want %v", c.n, c.size, got, c.want)
		}
	}
	stop := errors.New("stop")
	calls := 0
	if err := InChunks(make([]int, 9), 3, func([]int) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("after an error: %v and %d calls, want stop and 1", err, calls)
	}
}

// fakeRows are rows of one int each.
type fakeRows struct {
	vals []int
	i    int
	err  error
}

func (r *fakeRows) Next() bool { r.i++; return r.i <= len(r.vals) }
func (r *fakeRows) Scan(dest ...any) error {
	*dest[0].(*int) = r.vals[r.i-1]
	return nil
}
func (r *fakeRows) Err() error { return r.err }

func TestCollect(t *testing.T) {
	scan := func(s func(...any) error) (int, error) {
		var v int
		err := s(&v)
		return v, err
	}
	got, err := Collect(&fakeRows{vals: []int{3, 1, 2}}, scan)
	if err != nil || !slices.Equal(got, []int{3, 1, 2}) {
		t.Errorf("got %v, %v", got, err)
	}
	bad := errors.New("lost the connection")
	if _, err := Collect(&fakeRows{vals: []int{1}, err: bad}, scan); err != bad {
		t.Errorf("the rows' error %v, want %v", err, bad)
	}
}
