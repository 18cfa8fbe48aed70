package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// TestReportsMoveAPlayerToLowPriority: through the real server, zed plays
// ann and then bob in a rated queue whose matches are recorded; when both
// report him for cheating (the reason's threshold is 2), the ratings mark
// him low priority.
func TestReportsMoveAPlayerToLowPriority(t *testing.T) {
	cfg := ratedConfig + `encounters:
  queues: [{name: ranked}]
  reports:
    reasons: [{name: cheating, threshold: 2}]
    low_priority_games: 3
`
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, serveFlags{config: path, data: t.TempDir()})
	c := client.New(s.url)
	ctx := context.Background()
	var after int64
	errFormed := errors.New("formed")
	play := func(other string) string {
		t.Helper()
		for _, p := range []string{"zed", other} {
			if _, err := c.CreateTicket(ctx, &cupidv1.CreateTicketRequest{Queue: "ranked", Players: []*cupidv1.Player{{Id: p}}}); err != nil {
				t.Fatal(err)
			}
		}
		var id string
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second) // a guard against a hang only
		defer cancel()
		err := c.WatchMatches(wctx, "ranked", after, func(ev *cupidv1.MatchEvent) error {
			after = ev.GetSeq()
			if ev.GetKind() != "formed" {
				return nil
			}
			id = ev.GetMatch().GetId()
			return errFormed
		})
		if !errors.Is(err, errFormed) {
			t.Fatal(err)
		}
		if _, err := c.AssignMatch(ctx, id, &cupidv1.Assignment{Server: "10.0.0.1:7777"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.EndSession(ctx, id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	refs := map[string]string{"ann": play("ann"), "bob": play("bob")}

	// The follower records the matches: wait for them, with a deadline as
	// a guard.
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for _, p := range []string{"ann", "bob"} {
		for {
			hist, err := c.ListEncounters(ctx, p, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) > 0 && hist[0].GetRef() == refs[p] {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s's history: %v", p, hist)
			}
			<-tick.C
		}
	}

	if _, err := c.ReportPlayer(ctx, "ann", "zed", refs["ann"], "cheating", "aimbot"); err != nil {
		t.Fatal(err)
	}
	if r, err := c.GetPlayerRatings(ctx, "zed"); err != nil || r.GetLowPriority() != nil {
		t.Fatalf("zed after one report: %v %v", r, err)
	}
	if _, err := c.ReportPlayer(ctx, "bob", "zed", refs["bob"], "cheating", ""); err != nil {
		t.Fatal(err)
	}
	r, err := c.GetPlayerRatings(ctx, "zed")
	if err != nil {
		t.Fatal(err)
	}
	if lp := r.GetLowPriority(); lp == nil || lp.GetGames() != 3 || lp.GetReason() != "reported for cheating by 2 players" {
		t.Fatalf("zed after two reports: %v", lp)
	}
	if reps, err := c.ListReports(ctx, "zed"); err != nil || len(reps) != 2 {
		t.Fatalf("zed's reports: %v %v", reps, err)
	}
	// A report from a match ann did not play with him is refused.
	if _, err := c.ReportPlayer(ctx, "ann", "zed", refs["bob"], "cheating", ""); err == nil {
		t.Fatal("a report from someone else's match was taken")
	}
}
