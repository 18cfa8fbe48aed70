package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/storetest"
)

func TestRetentionContract(t *testing.T) {
	storetest.RunRetention(t, func(t *testing.T) cupid.Store {
		s, _ := openTemp(t)
		return s
	})
}

// TestOldFilesTurnIncrementalVacuumOn: a database from before retention
// (auto_vacuum NONE) is rewritten once at Open into incremental mode.
func TestOldFilesTurnIncrementalVacuumOn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	writeOldDatabase(t, path)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mode int
	if err := s.w.QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != 2 {
		t.Fatalf("auto_vacuum %d (%v), want 2 (incremental)", mode, err)
	}
	if got := ids(mustWaiting(t, s)); len(got) != 3 {
		t.Fatalf("waiting after the rewrite: %v", got)
	}
}

// TestCompactGivesSpaceBack: after retention removed most rows, Compact
// shrinks the file and the WAL.
func TestCompactGivesSpaceBack(t *testing.T) {
	s, path := openTemp(t)
	ctx := context.Background()
	var all []string
	for b := range 8 {
		var batch []*cupid.Ticket
		for i := range 250 {
			tk := ticket(fmt.Sprintf("t%02d-%03d", b, i), "", 0)
			tk.Players[0].ID = "p" + tk.ID
			batch = append(batch, tk)
			all = append(all, tk.ID)
		}
		if _, _, err := s.CreateTickets(ctx, nts(batch...)); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range all {
		if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, id, cupid.StateCancelled, "", t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Compact(ctx); err != nil { // checkpoint what intake wrote
		t.Fatal(err)
	}
	before := fileSize(t, path)
	cursor := ""
	for {
		r, err := s.Prune(ctx, cupid.Fence{}, cupid.PruneRequest{Kind: cupid.RetainTickets, Before: t0.Add(time.Hour), Limit: 500, After: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if r.Next == "" {
			break
		}
		cursor = r.Next
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	after := fileSize(t, path)
	t.Logf("database file %d bytes before retention, %d after", before, after)
	if after > before/3 {
		t.Fatalf("the file went from %d to %d bytes: the space was not given back", before, after)
	}
	if wal := fileSize(t, path+"-wal"); wal > walLimit {
		t.Fatalf("WAL of %d bytes", wal)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
