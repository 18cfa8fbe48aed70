package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// TestRatingResultsThroughTheServer plays docs/ratings.md's worked example
// through the Go client on the page's configuration (TestDocs runs the
// page's own commands) and checks what the page says the calls did, the
// refusals it quotes and the metrics it lists.
func TestRatingResultsThroughTheServer(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ratings.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := yamlBlock.FindAllSubmatch(doc, -1)
	if len(blocks) != 1 {
		t.Fatalf("docs/ratings.md has %d yaml blocks, want 1", len(blocks))
	}
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, blocks[0][1], 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, serveFlags{config: path})
	c := client.New(s.url)
	ctx := context.Background()
	for _, p := range []string{"alice", "bob"} {
		if _, err := c.CreateTicket(ctx, &cupidv1.CreateTicketRequest{Queue: "ranked", Players: []*cupidv1.Player{{Id: p}}}); err != nil {
			t.Fatal(err)
		}
	}
	matchID := formedMatches(t, c, new(int64), 1)[0].GetId()
	if _, err := c.AssignMatch(ctx, matchID, &cupidv1.Assignment{Server: "10.0.0.7:7777"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReportResult(ctx, &cupidv1.ReportResultRequest{MatchId: matchID, TeamPlaces: []int32{1, 2}, TeamScores: []float64{13, 7}}); err != nil {
		t.Fatal(err)
	}
	// A mark is at most a year long: ten thousand years is refused, naming
	// the field, and marks nobody.
	for _, d := range []string{"315360000000s", "31622401s", "-1s"} {
		status, out, h := postService(t, s.url, "RatingService", "SetLowPriority", `{"player_id":"carol","duration":"`+d+`"}`)
		if status != http.StatusBadRequest || h.Get("Cupid-Field") != "duration" {
			t.Errorf("a low-priority mark of %s: %d %v, want invalid_argument on duration", d, status, out)
		}
	}
	if carol, err := c.GetPlayerRatings(ctx, "carol"); err != nil || carol.GetLowPriority() != nil {
		t.Fatalf("carol after refused marks: %v, %v", carol, err)
	}
	if _, err := c.Ratings.SetLowPriority(ctx, connect.NewRequest(&cupidv1.SetLowPriorityRequest{PlayerId: "bob", Games: 5})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Ratings.ClearLowPriority(ctx, connect.NewRequest(&cupidv1.ClearLowPriorityRequest{PlayerId: "bob"})); err != nil {
		t.Fatal(err)
	}
	alice, err := c.GetPlayerRatings(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := c.GetPlayerRatings(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	a, b := alice.GetRatings()[0], bob.GetRatings()[0]
	if a.GetWins() != 1 || b.GetLosses() != 1 || a.GetValue() <= 0 || b.GetValue() >= 0 || a.GetLeague() != "bronze" {
		t.Fatalf("after the example: alice %v, bob %v", a, b)
	}
	if bob.GetLowPriority() != nil {
		t.Fatalf("bob's mark was cleared, yet: %v", bob.GetLowPriority())
	}
	// The refusal the text quotes.
	status, out, _ := postService(t, s.url, "TicketService", "CreateTicket", `{"queue":"ranked","players":[{"id":"carol","attributes":{"mmr":2500}}]}`)
	if status != http.StatusBadRequest || !strings.Contains(out["message"].(string), `players[0].attributes.mmr: queue "ranked" takes the skill from the server's rating "ranked-1v1"; do not send mmr`) {
		t.Fatalf("a client-sent mmr: %d %v", status, out)
	}
	// The same report again is answered with the first outcome.
	rep, err := c.ReportResult(ctx, &cupidv1.ReportResultRequest{MatchId: matchID, TeamPlaces: []int32{1, 2}, TeamScores: []float64{13, 7}})
	if err != nil || !rep.GetRepeated() {
		t.Fatalf("the same report again: %v, %v", rep, err)
	}
	// The same report in another form: places follow from the scores.
	rep, err = c.ReportResult(ctx, &cupidv1.ReportResultRequest{MatchId: matchID, TeamScores: []float64{13, 7}})
	if err != nil || !rep.GetRepeated() {
		t.Fatalf("the same report as scores alone: %v, %v", rep, err)
	}
	// A different one is refused naming the field and both values.
	_, err = c.ReportResult(ctx, &cupidv1.ReportResultRequest{MatchId: matchID, TeamPlaces: []int32{2, 1}, TeamScores: []float64{13, 7}})
	if connect.CodeOf(err) != connect.CodeFailedPrecondition || !strings.Contains(err.Error(), "team_places: match "+matchID+" has a different result already") ||
		!strings.Contains(err.Error(), "team_places was [1,2], this report says [2,1]") {
		t.Fatalf("a different report: %v", err)
	}
	if _, err := c.ReportResult(ctx, &cupidv1.ReportResultRequest{MatchId: matchID, TeamPlaces: []int32{1, 2}, Leavers: []string{"zed"}}); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("a leaver not in the match: %v", err)
	}
	// The metrics the document lists count what happened.
	res, err := http.Get(s.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{
		`cupid_rating_results_total{outcome="rated",rating="ranked-1v1"} 1`,
		`cupid_rating_results_total{outcome="repeated",rating="ranked-1v1"} 2`,
		`cupid_rating_updates_total{rating="ranked-1v1"} 2`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
