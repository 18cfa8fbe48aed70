package ratingsvc

import (
	"context"
	"errors"
	"fmt"
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
)

// TestKnownRows: what a batch reads while other batches write, and after.
func TestKnownRows(t *testing.T) {
	ctx := context.Background()
	row := func(kind, id, body string) cupid.RatingRow {
		r := cupid.RatingRow{Kind: kind, ID: id}
		if body != "" {
			r.Body = []byte(body)
		}
		return r
	}
	type step struct {
		begin []cupid.RatingRow // a batch starts writing these
		end   int               // ends the i-th batch begun (1-based) ...
		ok    bool              // ... stored or not
	}
	stored := []cupid.RatingRow{row(kindPlayer, "a", "a0"), row(kindLeagueDay, "d", "d0"), row(kindLowPriority, "x", "x0")}
	for _, tc := range []struct {
		name  string
		steps []step
		want  string // what a read of a, d, x, y gives afterwards
	}{
		{"nothing known: the store", nil, "player a=a0 | league-day d=d0 | low-priority x=x0"},
		{"a write in flight is read", []step{{begin: []cupid.RatingRow{row(kindPlayer, "a", "a1"), row(kindLeagueDay, "d", "d1"), row(kindLowPriority, "x", "")}}},
			"player a=a1 | league-day d=d1 | low-priority "},
		{"a stored player is kept, the rest read again", []step{
			{begin: []cupid.RatingRow{row(kindPlayer, "a", "a1"), row(kindLeagueDay, "d", "d1")}}, {end: 1, ok: true}},
			"player a=a1 | league-day d=d0 | low-priority x=x0"},
		{"a failed write is forgotten", []step{
			{begin: []cupid.RatingRow{row(kindPlayer, "a", "a1"), row(kindPlayer, "y", "y1")}}, {end: 1}},
			"player a=a0 | league-day d=d0 | low-priority x=x0"},
		{"the later batch's row stays when the earlier one ends", []step{
			{begin: []cupid.RatingRow{row(kindPlayer, "a", "a1")}},
			{begin: []cupid.RatingRow{row(kindPlayer, "a", "a2"), row(kindLeagueDay, "d", "d2")}},
			{end: 1}},
			"player a=a2 | league-day d=d2 | low-priority x=x0"},
		{"a new player written", []step{
			{begin: []cupid.RatingRow{row(kindPlayer, "y", "y1")}}, {end: 1, ok: true}},
			"player a=a0 y=y1 | league-day d=d0 | low-priority x=x0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := memstore.New()
			defer st.Close()
			if err := st.PutRatingRows(ctx, stored); err != nil {
				t.Fatal(err)
			}
			k := newKnown()
			var gens []uint64
			var begun [][]cupid.RatingRow
			for _, s := range tc.steps {
				if s.begin != nil {
					gens = append(gens, k.begin(s.begin))
					begun = append(begun, s.begin)
					continue
				}
				k.done(gens[s.end-1], begun[s.end-1], s.ok)
			}
			got := ""
			for _, kind := range []string{kindPlayer, kindLeagueDay, kindLowPriority} {
				rows, err := k.read(ctx, st, kind, []string{"a", "d", "x", "y"})
				if err != nil {
					t.Fatal(err)
				}
				if got != "" {
					got += " | "
				}
				got += kind
				for _, r := range rows {
					got += fmt.Sprintf(" %s=%s", r.ID, r.Body)
				}
				if len(rows) == 0 {
					got += " "
				}
			}
			if got != tc.want {
				t.Fatalf("read %q, want %q", got, tc.want)
			}
		})
	}
}

// TestKnownRowsBounded: committed players beyond maxKnown are forgotten,
// oldest first, and a player written again counts from his last write.
func TestKnownRowsBounded(t *testing.T) {
	k := newKnown()
	write := func(id string) {
		rows := []cupid.RatingRow{{Kind: kindPlayer, ID: id, Body: []byte(id)}}
		k.done(k.begin(rows), rows, true)
	}
	write("first")
	write("again")
	for i := range maxKnown - 1 {
		write(fmt.Sprint(i))
	}
	write("again")
	if len(k.rows) != maxKnown || len(k.fifo) != maxKnown {
		t.Fatalf("%d rows, %d in order; want %d", len(k.rows), len(k.fifo), maxKnown)
	}
	if k.rows[knownKey(kindPlayer, "first")] != nil || k.rows[knownKey(kindPlayer, "again")] == nil {
		t.Fatal("the oldest write was kept, or the rewritten one dropped")
	}
}

// TestFailedWriteReadsAgain: a batch whose write fails forgets the rows it
// was writing, so the next reads what the store holds.
func TestFailedWriteReadsAgain(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	ctx := context.Background()
	f.matches.add("m1", "duel", cupid.MatchAssigned, []string{"a"}, []string{"b"})
	f.matches.add("m2", "duel", cupid.MatchAssigned, []string{"a"}, []string{"c"})
	f.store.FailNext("SaveResults", errors.New("disk gone"))
	if _, _, err := f.svc.ReportResult(ctx, Report{MatchID: "m1", TeamPlaces: []int{1, 2}}); err == nil {
		t.Fatal("m1's write failed, yet it was answered")
	}
	if _, _, err := f.svc.ReportResult(ctx, Report{MatchID: "m2", TeamPlaces: []int{1, 2}}); err != nil {
		t.Fatalf("m2: %v", err)
	}
	if a := f.rating(t, "a"); a.Games != 1 {
		t.Fatalf("a has %d games stored, want 1 (m2 only)", a.Games)
	}
	if _, _, err := f.svc.ReportResult(ctx, Report{MatchID: "m1", TeamPlaces: []int{1, 2}}); err != nil {
		t.Fatalf("m1 again: %v", err)
	}
	h, err := f.svc.History(ctx, "ranked", "a", 0, 0)
	if err != nil || len(h) != 2 || h[0].Change.Before != h[1].Change.After {
		t.Fatalf("history %+v, %v", h, err)
	}
}
