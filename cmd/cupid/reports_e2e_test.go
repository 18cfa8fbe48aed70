package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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
	cfg := reportsConfig
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, serveFlags{config: path, data: t.TempDir()})
	c := client.New(s.url)
	ctx := context.Background()
	refs := playZed(t, c, "ann", "bob")

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
	// The dashboard's data for the reports page: both reports, two for
	// cheating, zed over its threshold.
	resp, err := http.Get(s.url + "/dashboard/api/reports")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Reports []struct{ Reporter, Player, Reason string }
		Summary struct {
			ByReason map[string]int `json:"by_reason"`
			Over     []struct{ Player, Reason string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != 200 {
		t.Fatalf("dashboard reports: %d %v", resp.StatusCode, err)
	}
	if len(page.Reports) != 2 || page.Summary.ByReason["cheating"] != 2 || len(page.Summary.Over) != 1 || page.Summary.Over[0].Player != "zed" {
		t.Fatalf("dashboard reports: %+v", page)
	}
	// A report from a match ann did not play with him is refused.
	if _, err := c.ReportPlayer(ctx, "ann", "zed", refs["bob"], "cheating", ""); err == nil {
		t.Fatal("a report from someone else's match was taken")
	}
}

// reportsConfig is a rated queue whose matches are recorded, with
// reports for cheating (threshold 2).
const reportsConfig = ratedConfig + `encounters:
  queues: [{name: ranked}]
  reports:
    reasons: [{name: cheating, threshold: 2}, {name: griefing, threshold: 5}]
    low_priority_games: 3
`

// playZed has zed play each of others in turn in the ranked queue (each
// match assigned and ended) and waits until the matches are in the
// others' histories; it returns each one's match id.
func playZed(t *testing.T, c *client.Client, others ...string) map[string]string {
	t.Helper()
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
	refs := map[string]string{}
	for _, o := range others {
		refs[o] = play(o)
	}
	// The follower records the matches: wait for them, with a deadline as
	// a guard.
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for _, p := range others {
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
	return refs
}

// TestReportsPageInTheBrowser: an operator sees on the dashboard who
// reported whom, for what, the counts per reason and the player over the
// threshold.
func TestReportsPageInTheBrowser(t *testing.T) {
	bctx := newDashboardBrowser(t)
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, []byte(reportsConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, serveFlags{config: path, data: t.TempDir()})
	c := client.New(s.url)
	ctx := context.Background()
	refs := playZed(t, c, "ann", "bob", "cat")
	for _, r := range []struct{ who, reason, note string }{{"ann", "cheating", "aimbot"}, {"bob", "cheating", ""}, {"cat", "griefing", "blocks the door"}} {
		if _, err := c.ReportPlayer(ctx, r.who, "zed", refs[r.who], r.reason, r.note); err != nil {
			t.Fatal(err)
		}
	}
	b := openTab(t, bctx, s.url+"/dashboard/#/reports")
	b.until(t, "three reports listed", `document.querySelectorAll('tr.report').length === 3`)
	b.until(t, "zed over the cheating threshold", `document.querySelectorAll('tr.over-row').length === 1 && document.querySelector('tr.over-row[data-player="zed"][data-reason="cheating"]')`)
	rows := eval[[]string](t, b, `[...document.querySelectorAll('tr.report')].map(r => r.textContent)`)
	joined := strings.Join(rows, "\n")
	for _, want := range []string{"aimbot", "blocks the door", "ann", "bob", "cat"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("the reports shown lack %q:\n%s", want, joined)
		}
	}
	stats := eval[string](t, b, `document.querySelector('#reports .stats').textContent`)
	if !strings.Contains(stats, "cheating") || !strings.Contains(stats, "griefing") {
		t.Fatalf("counts per reason: %q", stats)
	}
	b.shot(t, "reports")
	b.log.mu.Lock()
	thrown := append([]string(nil), b.thrown...)
	b.log.mu.Unlock()
	if len(thrown) > 0 {
		t.Fatalf("the page threw: %v", thrown)
	}
}
