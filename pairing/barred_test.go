package pairing

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

func TestBarredList(t *testing.T) {
	e := newFor(t, Config{Rooms: 2, MinLobby: 4, Trios: true}, []string{"a", "b", "c"}, nil)
	ok := mustOK(t)
	// a may meet neither b nor c: b and c pair, a sits out (no trio
	// either, since a trio would put a with them).
	ok(e.SetBarred(t0, "a", []string{"b", "c", "a", "b"})) // himself and repeats ignored
	if got := e.Barred("a"); !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("barred %v", got)
	}
	if _, err := e.StartRound(t0); err != nil {
		t.Fatal(err)
	}
	st, _ := e.Status("a")
	if st.State != StateLobby {
		t.Fatalf("a was seated (%+v) although barred from both", st)
	}
	if st, _ := e.Status("b"); st.Partner != "c" {
		t.Fatalf("b's status %+v, want a date with c", st)
	}

	// The list survives a snapshot; a bad key or too many change nothing.
	r, err := Restore(e.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Barred("a"); !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("restored barred %v", got)
	}
	_, err = e.SetBarred(t0, "a", []string{"x", ""})
	wantCode(t, err, cupid.CodeInvalid, "barred[1]")
	big := make([]string, MaxBarred+1)
	for i := range big {
		big[i] = fmt.Sprintf("p%d", i)
	}
	_, err = e.SetBarred(t0, "a", big)
	wantCode(t, err, cupid.CodeTooLarge, "barred")
	if got := e.Barred("a"); !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("a refused list changed it: %v", got)
	}
	_, err = e.SetBarred(t0, "nobody", nil)
	wantCode(t, err, cupid.CodeNotFound, "participant")
}

func TestBarredLiftedAllowsAPairAgain(t *testing.T) {
	e := newFor(t, Config{Rooms: 1, MinLobby: 3}, []string{"a", "b"}, nil)
	ok := mustOK(t)
	ok(e.SetBarred(t0, "b", []string{"a"})) // b's list bars a: both ways
	if _, err := e.StartRound(t0); err != nil {
		t.Fatal(err)
	}
	if !e.Stale() {
		t.Fatal("a and b were paired although b's barred list names a")
	}
	ok(e.SetBarred(t0, "b", nil))
	if e.Stale() {
		t.Fatal("lifting the bar did not allow the pair again")
	}
}

func TestSeriesSetting(t *testing.T) {
	base := Config{Rooms: 1, Round: 60e9, MinLobby: 2}
	for _, tc := range []struct {
		series string
		ok     bool
	}{
		{"", true},
		{"friday-nights", true},
		{strings.Repeat("s", MaxSeriesBytes), true},
		{strings.Repeat("s", MaxSeriesBytes+1), false},
		{"bad\nname", false},
	} {
		c := base
		c.Series = tc.series
		err := c.Validate()
		if tc.ok && err != nil {
			t.Errorf("%q: %v", tc.series, err)
		}
		if !tc.ok {
			wantCode(t, err, cupid.CodeInvalid, "series")
		}
	}
}
