package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/storetest"
)

func TestRatingsContract(t *testing.T) {
	storetest.RunRatings(t, func(t *testing.T) cupid.RatingStore {
		s, _ := openTemp(t)
		return s
	})
}

// TestRatingsSurviveReopen: a stored result, its rows and history are
// there after the store is closed and opened again.
func TestRatingsSurviveReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cupid.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveResult(ctx, cupid.ResultRecord{MatchID: "m", At: t0, Body: []byte(`{"r":1}`)},
		[]cupid.RatingRow{{Kind: "player", ID: "r/a", Body: []byte(`{"mu":26}`)}},
		[]cupid.RatingEntry{{Rating: "r", Player: "a", MatchID: "m", At: t0, Body: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if r, err := s2.Result(ctx, "m"); err != nil || string(r.Body) != `{"r":1}` {
		t.Fatalf("result after reopen: %+v, %v", r, err)
	}
	if rows, err := s2.RatingRows(ctx, "player", []string{"r/a"}); err != nil || len(rows) != 1 {
		t.Fatalf("rows after reopen: %+v, %v", rows, err)
	}
	if h, err := s2.RatingHistory(ctx, "r", "a", 0, 5); err != nil || len(h) != 1 {
		t.Fatalf("history after reopen: %+v, %v", h, err)
	}
}
