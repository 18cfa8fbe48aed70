package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	cupid "github.com/cupid-match/cupid"
)

// RunRatings runs the cupid.RatingStore contract against stores made by
// open:
//
//   - SaveResult stores the result, its rows and its history together; a
//     second result for the same match is CodeConflict and changes nothing
//     (neither rows nor history).
//   - A row with a nil body is deleted; RatingRows returns the rows that
//     exist, in the order of the ids asked for.
//   - History is newest first, pages by Seq (beforeSeq exclusive) and is
//     kept per rating name and player.
//   - A guarded row is written only over the body it was read with (no
//     row, when Prev is nil); otherwise the whole call is CodeConflict on
//     rating_rows and changes nothing.
//   - SaveResults stores a batch of results all or nothing: one match with
//     a result already, one match given twice or one stale guard among
//     many rows refuses the whole batch; history keeps the order given.
func RunRatings(t *testing.T, open func(t *testing.T) cupid.RatingStore) {
	t.Run("ResultsAreOncePerMatch", func(t *testing.T) { testResultsOnce(t, open(t)) })
	t.Run("Rows", func(t *testing.T) { testRatingRows(t, open(t)) })
	t.Run("History", func(t *testing.T) { testRatingHistory(t, open(t)) })
	t.Run("GuardedRows", func(t *testing.T) { testGuardedRows(t, open(t)) })
	t.Run("Batches", func(t *testing.T) { testResultBatches(t, open(t)) })
}

func testResultBatches(t *testing.T, s cupid.RatingStore) {
	ctx := context.Background()
	res := func(ids ...string) []cupid.ResultRecord {
		var out []cupid.ResultRecord
		for _, id := range ids {
			out = append(out, cupid.ResultRecord{MatchID: id, At: T0, Body: []byte(`{"m":"` + id + `"}`)})
		}
		return out
	}
	line := func(match string, i int) cupid.RatingEntry {
		return cupid.RatingEntry{Rating: "r", Player: "a", MatchID: match, At: T0, Body: []byte(fmt.Sprintf(`{"i":%d}`, i))}
	}
	var rows []cupid.RatingRow
	for i := range 40 {
		rows = append(rows, cupid.RatingRow{Kind: "player", ID: fmt.Sprintf("p%02d", i), Body: []byte(`{"v":1}`), Guard: true})
	}
	if err := s.SaveResults(ctx, res("b1", "b2", "b3"), rows, []cupid.RatingEntry{line("b1", 0), line("b2", 1), line("b3", 2)}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"b1", "b2", "b3"} {
		if r, err := s.Result(ctx, id); err != nil || string(r.Body) != `{"m":"`+id+`"}` {
			t.Fatalf("result of %s: %+v, %v", id, r, err)
		}
	}
	h, err := s.RatingHistory(ctx, "r", "a", 0, 10)
	if err != nil || len(h) != 3 || h[0].MatchID != "b3" || h[2].MatchID != "b1" {
		t.Fatalf("history of the batch %+v, %v; want b3, b2, b1", h, err)
	}
	// Every row moves from v1 to v2 over what was read, but one of them
	// was read stale.
	update := func(stale int) []cupid.RatingRow {
		out := make([]cupid.RatingRow, len(rows))
		for i, r := range rows {
			out[i] = cupid.RatingRow{Kind: r.Kind, ID: r.ID, Body: []byte(`{"v":2}`), Guard: true, Prev: []byte(`{"v":1}`)}
			if i == stale {
				out[i].Prev = []byte(`{"v":0}`)
			}
		}
		return append(out, cupid.RatingRow{Kind: "player", ID: "new", Body: []byte(`{"v":1}`), Guard: true})
	}
	for _, c := range []struct {
		name    string
		results []cupid.ResultRecord
		rows    []cupid.RatingRow
		field   string
	}{
		{"one match rated already", res("c1", "b2", "c2"), update(-1), "match_id"},
		{"one match twice", res("c1", "c2", "c1"), update(-1), "match_id"},
		{"one stale row among many", res("c1", "c2"), update(17), "rating_rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := s.SaveResults(ctx, c.results, c.rows, []cupid.RatingEntry{line("c1", 3), line("c2", 4)})
			var e *cupid.Error
			if !errors.As(err, &e) || e.Code != cupid.CodeConflict || e.Field != c.field {
				t.Fatalf("error %v, want conflict on %s", err, c.field)
			}
			for _, id := range []string{"c1", "c2"} {
				if _, err := s.Result(ctx, id); cupid.ErrorCode(err) != cupid.CodeNotFound {
					t.Fatalf("the refused batch stored %s", id)
				}
			}
			got, err := s.RatingRows(ctx, "player", []string{"p00", "p17", "p39", "new"})
			if err != nil || len(got) != 3 || string(got[0].Body) != `{"v":1}` || string(got[2].Body) != `{"v":1}` {
				t.Fatalf("the refused batch changed rows: %+v, %v", got, err)
			}
			if h, _ := s.RatingHistory(ctx, "r", "a", 0, 10); len(h) != 3 {
				t.Fatalf("the refused batch added history: %d lines", len(h))
			}
		})
	}
	if err := s.SaveResults(ctx, res("c1", "c2"), update(-1), []cupid.RatingEntry{line("c1", 3), line("c2", 4)}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.RatingRows(ctx, "player", []string{"p00", "p39", "new"}); err != nil || len(got) != 3 || string(got[1].Body) != `{"v":2}` {
		t.Fatalf("rows after the batch: %+v, %v", got, err)
	}
	if err := s.SaveResults(ctx, nil, nil, nil); err != nil {
		t.Fatalf("an empty batch: %v", err)
	}
}

func testResultsOnce(t *testing.T, s cupid.RatingStore) {
	ctx := context.Background()
	if _, err := s.Result(ctx, "m1"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("result of an unreported match: %v, want not_found", err)
	}
	first := cupid.ResultRecord{MatchID: "m1", At: T0, Body: []byte(`{"n":1}`)}
	rows := []cupid.RatingRow{{Kind: "player", ID: "r/a", Body: []byte(`{"mu":27}`)}, {Kind: "player", ID: "r/b", Body: []byte(`{"mu":23}`)}}
	hist := []cupid.RatingEntry{{Rating: "r", Player: "a", MatchID: "m1", At: T0, Body: []byte(`{"d":2}`)}}
	if err := s.SaveResult(ctx, first, rows, hist); err != nil {
		t.Fatal(err)
	}
	got, err := s.Result(ctx, "m1")
	if err != nil || string(got.Body) != `{"n":1}` || !got.At.Equal(T0) || got.MatchID != "m1" {
		t.Fatalf("stored result %+v, %v", got, err)
	}
	again := cupid.ResultRecord{MatchID: "m1", At: T0.Add(1), Body: []byte(`{"n":2}`)}
	err = s.SaveResult(ctx, again, []cupid.RatingRow{{Kind: "player", ID: "r/a", Body: []byte(`{"mu":99}`)}},
		[]cupid.RatingEntry{{Rating: "r", Player: "a", MatchID: "m1", At: T0, Body: []byte(`{}`)}})
	if cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("a second result for m1: %v, want conflict", err)
	}
	if got, _ := s.Result(ctx, "m1"); string(got.Body) != `{"n":1}` {
		t.Fatalf("the refused result replaced the first: %s", got.Body)
	}
	rs, err := s.RatingRows(ctx, "player", []string{"r/a"})
	if err != nil || len(rs) != 1 || string(rs[0].Body) != `{"mu":27}` {
		t.Fatalf("the refused result changed a row: %+v, %v", rs, err)
	}
	if h, err := s.RatingHistory(ctx, "r", "a", 0, 10); err != nil || len(h) != 1 {
		t.Fatalf("the refused result added history: %d entries, %v", len(h), err)
	}
}

func testRatingRows(t *testing.T, s cupid.RatingStore) {
	ctx := context.Background()
	if err := s.PutRatingRows(ctx, []cupid.RatingRow{
		{Kind: "low-priority", ID: "a", Body: []byte(`{"games":3}`)},
		{Kind: "low-priority", ID: "b", Body: []byte(`{"games":1}`)},
		{Kind: "player", ID: "a", Body: []byte(`{}`)},
	}); err != nil {
		t.Fatal(err)
	}
	rs, err := s.RatingRows(ctx, "low-priority", []string{"c", "b", "a"})
	if err != nil || len(rs) != 2 || rs[0].ID != "b" || rs[1].ID != "a" || string(rs[1].Body) != `{"games":3}` || rs[0].Kind != "low-priority" {
		t.Fatalf("rows %+v, %v; want b then a", rs, err)
	}
	if err := s.SaveResult(ctx, cupid.ResultRecord{MatchID: "m", At: T0, Body: []byte(`{}`)},
		[]cupid.RatingRow{{Kind: "low-priority", ID: "b"}, {Kind: "low-priority", ID: "a", Body: []byte(`{"games":2}`)}}, nil); err != nil {
		t.Fatal(err)
	}
	rs, err = s.RatingRows(ctx, "low-priority", []string{"a", "b"})
	if err != nil || len(rs) != 1 || rs[0].ID != "a" || string(rs[0].Body) != `{"games":2}` {
		t.Fatalf("after the result: %+v, %v; want a with 2 games and b deleted", rs, err)
	}
	if err := s.PutRatingRows(ctx, []cupid.RatingRow{{Kind: "low-priority", ID: "a"}, {Kind: "low-priority", ID: "never"}}); err != nil {
		t.Fatal(err)
	}
	if rs, err := s.RatingRows(ctx, "low-priority", []string{"a"}); err != nil || len(rs) != 0 {
		t.Fatalf("deleted row still there: %+v, %v", rs, err)
	}
	if rs, err := s.RatingRows(ctx, "player", []string{"a"}); err != nil || len(rs) != 1 {
		t.Fatalf("a row of another kind went with it: %+v, %v", rs, err)
	}
	if rs, err := s.RatingRows(ctx, "player", nil); err != nil || len(rs) != 0 {
		t.Fatalf("no ids: %+v, %v", rs, err)
	}
}

func testRatingHistory(t *testing.T, s cupid.RatingStore) {
	ctx := context.Background()
	for i := range 5 {
		id := fmt.Sprintf("m%d", i)
		hist := []cupid.RatingEntry{
			{Rating: "r", Player: "a", MatchID: id, At: T0.Add(1e9 * 1), Body: []byte(fmt.Sprintf(`{"i":%d}`, i))},
			{Rating: "other", Player: "a", MatchID: id, At: T0, Body: []byte(`{}`)},
			{Rating: "r", Player: "b", MatchID: id, At: T0, Body: []byte(`{}`)},
		}
		if err := s.SaveResult(ctx, cupid.ResultRecord{MatchID: id, At: T0, Body: []byte(`{}`)}, nil, hist); err != nil {
			t.Fatal(err)
		}
	}
	page, err := s.RatingHistory(ctx, "r", "a", 0, 3)
	if err != nil || len(page) != 3 {
		t.Fatalf("first page: %d entries, %v", len(page), err)
	}
	for i, want := range []string{"m4", "m3", "m2"} {
		if page[i].MatchID != want || page[i].Rating != "r" || page[i].Player != "a" || !page[i].At.Equal(T0.Add(1e9)) {
			t.Fatalf("first page[%d] = %+v, want match %s", i, page[i], want)
		}
	}
	if string(page[0].Body) != `{"i":4}` || !(page[0].Seq > page[1].Seq && page[1].Seq > page[2].Seq) {
		t.Fatalf("first page not newest first: %+v", page)
	}
	rest, err := s.RatingHistory(ctx, "r", "a", page[2].Seq, 10)
	if err != nil || len(rest) != 2 || rest[0].MatchID != "m1" || rest[1].MatchID != "m0" {
		t.Fatalf("second page: %+v, %v; want m1, m0", rest, err)
	}
	if none, err := s.RatingHistory(ctx, "r", "nobody", 0, 10); err != nil || len(none) != 0 {
		t.Fatalf("history of an unknown player: %+v, %v", none, err)
	}
}

func testGuardedRows(t *testing.T, s cupid.RatingStore) {
	ctx := context.Background()
	res := func(id string) cupid.ResultRecord { return cupid.ResultRecord{MatchID: id, At: T0, Body: []byte(`{}`)} }
	body := func(id string) string {
		rs, err := s.RatingRows(ctx, "player", []string{id})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			return "none"
		}
		return string(rs[0].Body)
	}
	// Created where none was read; then updated over what was read.
	if err := s.SaveResult(ctx, res("m1"), []cupid.RatingRow{{Kind: "player", ID: "a", Body: []byte(`{"v":1}`), Guard: true}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveResult(ctx, res("m2"), []cupid.RatingRow{{Kind: "player", ID: "a", Body: []byte(`{"v":2}`), Guard: true, Prev: []byte(`{"v":1}`)}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		row  cupid.RatingRow
	}{
		{"created again where one exists", cupid.RatingRow{Kind: "player", ID: "a", Body: []byte(`{"v":9}`), Guard: true}},
		{"updated over a stale read", cupid.RatingRow{Kind: "player", ID: "a", Body: []byte(`{"v":9}`), Guard: true, Prev: []byte(`{"v":1}`)}},
		{"deleted over a stale read", cupid.RatingRow{Kind: "player", ID: "a", Guard: true, Prev: []byte(`{"v":1}`)}},
		{"updated where none exists", cupid.RatingRow{Kind: "player", ID: "b", Body: []byte(`{"v":9}`), Guard: true, Prev: []byte(`{"v":1}`)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := []cupid.RatingRow{{Kind: "player", ID: "c", Body: []byte(`{"v":5}`)}, c.row}
			err := s.SaveResult(ctx, res("m-"+c.name), rows, []cupid.RatingEntry{{Rating: "r", Player: "a", MatchID: "m-" + c.name, At: T0, Body: []byte(`{}`)}})
			var e *cupid.Error
			if !errors.As(err, &e) || e.Code != cupid.CodeConflict || e.Field != "rating_rows" {
				t.Fatalf("error %v, want conflict on rating_rows", err)
			}
			if _, err := s.Result(ctx, "m-"+c.name); cupid.ErrorCode(err) != cupid.CodeNotFound {
				t.Fatalf("the refused result was stored")
			}
			if body("a") != `{"v":2}` || body("b") != "none" || body("c") != "none" {
				t.Fatalf("the refused call changed rows: a %s, b %s, c %s", body("a"), body("b"), body("c"))
			}
			if h, _ := s.RatingHistory(ctx, "r", "a", 0, 10); len(h) != 0 {
				t.Fatalf("the refused call added history")
			}
		})
	}
	if err := s.PutRatingRows(ctx, []cupid.RatingRow{{Kind: "player", ID: "a", Body: []byte(`{"v":3}`), Guard: true, Prev: []byte(`{"v":1}`)}}); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("PutRatingRows over a stale read: %v, want conflict", err)
	}
	if err := s.PutRatingRows(ctx, []cupid.RatingRow{{Kind: "player", ID: "a", Guard: true, Prev: []byte(`{"v":2}`)}}); err != nil {
		t.Fatal(err)
	}
	if body("a") != "none" {
		t.Fatalf("a guarded delete over the current body left %s", body("a"))
	}
}
