package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// TestMatchesMigrateWithTheirQueue: a match stored before the hand-off
// existed reads as formed, in the queue its body names, and can be
// assigned like a new one.
func TestMatchesMigrateWithTheirQueue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	db, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	for range schemaVersion - 1 {
		if _, err := migrateOne(ctx, db); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2025, 12, 1, 10, 0, 0, 0, time.UTC)
	body := []byte(`{"id":"m0","key":{"queue":"duel"},"teams":[{"ticket_ids":["t1"],"player_ids":["p1"]}],"quality":{"score":0.5},"created_at":"2025-12-01T10:00:00Z"}`)
	if _, err := db.Exec(`INSERT INTO matches (id, created_at, body) VALUES ('m0', ?, ?)`, at.UnixNano(), body); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.MatchRecord(ctx, "m0")
	if err != nil || r.State != cupid.MatchFormed || r.Match.Key.Queue != "duel" || !r.UpdatedAt.Equal(at) {
		t.Fatalf("migrated match %+v (%v)", r, err)
	}
	list, err := s.Matches(ctx, cupid.MatchFilter{Queue: "duel", State: cupid.MatchFormed})
	if err != nil || len(list) != 1 || list[0].Match.ID != "m0" {
		t.Fatalf("duel's formed matches %v (%v)", list, err)
	}
	if _, mev, _, err := lifecycle.Assign(ctx, s, cupid.Fence{}, "m0", cupid.Assignment{Server: "gs:1", At: at.Add(time.Minute)}); err != nil || mev.Queue != "duel" || mev.Seq != 1 {
		t.Fatalf("assign a migrated match: %+v (%v)", mev, err)
	}
}
