package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// ratedConfig is a 1v1 queue whose skill comes from an OpenSkill rating
// on a 1500 scale; the rule lets anyone meet anyone, so every round forms
// at once. The fair-play checks keep their defaults: a player who loses
// more than three times the day's average losses, from ten, is flagged.
const ratedConfig = `
ratings:
  - name: ranked-1v1
    model: openskill-pl
    mu: 1500
    sigma: 500
queues:
  - name: ranked
    rating: {name: ranked-1v1, attribute: mmr}
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 1000000}
`

// TestRatingsSeparateStrongFromWeak plays 240 matches through the real
// server — CreateTickets, the match log, AssignMatch, ReportResult —
// between eleven players of known hidden strength, three of them drawn at
// random each round, and one strong player who plays every round and
// loses on purpose (the War Robots article's tanker, who loses many more
// games a day than anyone). The ratings must order the honest players as their
// strength does (Spearman ρ ≥ 0.8), the tanker must be flagged and no
// honest player, and the ratings must survive a restart.
func TestRatingsSeparateStrongFromWeak(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, []byte(ratedConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	// One day, whatever the hour the test runs at: the tanking check
	// counts a UTC day's losses.
	start := time.Now()
	noon := time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return noon.Add(time.Since(start)) }
	f := serveFlags{config: path, hooks: &serveHooks{now: clock}}
	s := startServer(t, f)
	c := client.New(s.url)
	ctx := context.Background()

	// A client may not send the skill of a rating-backed queue.
	_, err := c.CreateTicket(ctx, &cupidv1.CreateTicketRequest{Queue: "ranked", Players: []*cupidv1.Player{
		{Id: "cheat", Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(3000)}}}})
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !containsAll(err.Error(), "players[0].attributes.mmr", "ranked-1v1") {
		t.Fatalf("a client-sent mmr: %v, want invalid_argument naming players[0].attributes.mmr", err)
	}

	const honest, rounds, perRound = 11, 120, 3
	strength := map[string]float64{}
	var ids []string
	for i := range honest {
		id := fmt.Sprintf("p%02d", i)
		strength[id] = float64(i)
		ids = append(ids, id)
	}
	ids = append(ids, "tank")
	strength["tank"] = honest // the strongest, but he throws every game
	rng := rand.New(rand.NewPCG(42, 7))
	var afterSeq int64
	matches := 0
	games := map[string]int32{}
	for round := range rounds {
		var reqs []*cupidv1.CreateTicketRequest
		players := append(slices.Clone(ids[:honest]), "tank")
		rng.Shuffle(honest, func(i, j int) { players[i], players[j] = players[j], players[i] })
		players = append(players[:perRound], "tank")
		for _, id := range players {
			games[id]++
			reqs = append(reqs, &cupidv1.CreateTicketRequest{Queue: "ranked", Players: []*cupidv1.Player{{Id: id}}})
		}
		res, err := c.CreateTickets(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if r.Err != nil {
				t.Fatalf("round %d: ticket of %s: %v", round, players[i], r.Err)
			}
		}
		formed := formedMatches(t, c, &afterSeq, len(players)/2)
		for _, m := range formed {
			if _, err := c.AssignMatch(ctx, m.GetId(), &cupidv1.Assignment{Server: "game-1:7777"}); err != nil {
				t.Fatal(err)
			}
			a, b := m.GetTeams()[0].GetPlayerIds()[0], m.GetTeams()[1].GetPlayerIds()[0]
			places := []int32{1, 2}
			pA := 1 / (1 + math.Exp(-0.6*(strength[a]-strength[b])))
			if rng.Float64() >= pA {
				places = []int32{2, 1}
			}
			switch {
			case a == "tank":
				places = []int32{2, 1}
			case b == "tank":
				places = []int32{1, 2}
			}
			if _, err := c.ReportResult(ctx, &cupidv1.ReportResultRequest{MatchId: m.GetId(), TeamPlaces: places}); err != nil {
				t.Fatal(err)
			}
			// The game is over: its session ends, which frees its players
			// for the next round (a player is in one live match at most).
			if _, err := c.EndSession(ctx, m.GetId()); err != nil {
				t.Fatal(err)
			}
			matches++
		}
	}
	if matches != rounds*(perRound+1)/2 {
		t.Fatalf("%d matches rated, want %d", matches, rounds*(perRound+1)/2)
	}

	value := map[string]float64{}
	flagged := map[string]bool{}
	for _, id := range ids {
		r, err := c.GetPlayerRatings(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		pr := r.GetRatings()[0]
		if pr.GetGames() != games[id] {
			t.Fatalf("%s played %d rated games, want %d", id, pr.GetGames(), games[id])
		}
		value[id] = pr.GetValue()
		flagged[id] = pr.GetFlags().GetTanking()
	}
	rho := spearman(ids[:honest], func(id string) float64 { return strength[id] }, func(id string) float64 { return value[id] })
	t.Logf("Spearman ρ(hidden strength, rating) = %.3f over %d matches; ratings %v", rho, matches, value)
	if rho < 0.8 {
		t.Fatalf("ratings do not follow strength: ρ = %.3f", rho)
	}
	if !flagged["tank"] {
		t.Fatalf("the player who lost every game on purpose is not flagged")
	}
	for _, id := range ids[:honest] {
		if flagged[id] {
			t.Fatalf("honest player %s flagged as tanking", id)
		}
	}

	// A played match is rated once; the same report again is answered
	// with the first outcome.
	m := lastAssigned(t, c, afterSeq)
	_, err = c.ReportResult(ctx, &cupidv1.ReportResultRequest{MatchId: m, TeamPlaces: []int32{1, 1}})
	if connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("a second, different result: %v", err)
	}
	if _, err := c.ReportResult(ctx, &cupidv1.ReportResultRequest{MatchId: "no-such-match", TeamPlaces: []int32{1, 2}}); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("an unknown match: %v", err)
	}

	// A restart keeps every rating.
	s.stop()
	f.data = s.data
	s = startServer(t, f)
	c = client.New(s.url)
	for _, id := range ids {
		r, err := c.GetPlayerRatings(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.GetRatings()[0].GetValue(); got != value[id] {
			t.Fatalf("%s after restart: %v, before %v", id, got, value[id])
		}
	}
}

// formedMatches follows the queue's match log until n matches formed.
func formedMatches(t *testing.T, c *client.Client, afterSeq *int64, n int) []*cupidv1.Match {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []*cupidv1.Match
	errEnough := errors.New("enough")
	err := c.WatchMatches(ctx, "ranked", *afterSeq, func(ev *cupidv1.MatchEvent) error {
		*afterSeq = ev.GetSeq()
		if ev.GetKind() == "formed" {
			out = append(out, ev.GetMatch())
		}
		if len(out) == n {
			return errEnough
		}
		return nil
	})
	if !errors.Is(err, errEnough) && len(out) != n {
		t.Fatalf("%d of %d matches formed: %v", len(out), n, err)
	}
	return out
}

// lastAssigned is the id of the last match of the log up to seq.
func lastAssigned(t *testing.T, c *client.Client, seq int64) string {
	t.Helper()
	var id atomic.Value
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errDone := errors.New("done")
	c.WatchMatches(ctx, "ranked", seq-1, func(ev *cupidv1.MatchEvent) error {
		id.Store(ev.GetMatch().GetId())
		return errDone
	})
	got, _ := id.Load().(string)
	if got == "" {
		t.Fatal("no match in the log")
	}
	return got
}

// spearman is the rank correlation of two scores over the same ids.
func spearman(ids []string, x, y func(string) float64) float64 {
	rank := func(score func(string) float64) map[string]float64 {
		s := slices.Clone(ids)
		sort.Slice(s, func(i, j int) bool { return score(s[i]) < score(s[j]) })
		r := map[string]float64{}
		for i, id := range s {
			r[id] = float64(i)
		}
		return r
	}
	rx, ry := rank(x), rank(y)
	var d2 float64
	for _, id := range ids {
		d := rx[id] - ry[id]
		d2 += d * d
	}
	n := float64(len(ids))
	return 1 - 6*d2/(n*(n*n-1))
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !contains(s, p) {
			return false
		}
	}
	return true
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestLowPriorityWaitThroughTheServer: in a queue with low_priority: wait,
// a player an operator marked is held back: his ticket waits beside a
// partner it would match, says why, and keeps its creation time.
func TestLowPriorityWaitThroughTheServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	cfg := strings.Replace(ratedConfig, "rating: {name: ranked-1v1, attribute: mmr}",
		"rating: {name: ranked-1v1, attribute: mmr, low_priority: wait, low_priority_wait: 1h}", 1)
	if cfg == ratedConfig {
		t.Fatal("the test's replacement did not apply")
	}
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var mm *ticketsvc.Service
	s := startServer(t, serveFlags{config: path, hooks: &serveHooks{started: func(m *ticketsvc.Service) { mm = m }}})
	postOK(t, s.url, "/cupid.v1.RatingService/SetLowPriority", `{"player_id":"rude","duration":"3600s","reason":"reported"}`)
	c := s.connectClient()
	rude := create(t, c, "ranked", &cupidv1.Player{Id: "rude"})
	create(t, c, "ranked", &cupidv1.Player{Id: "kind"})
	// The two would match at once (anyone meets anyone): once the pool has
	// stepped, the marked one still waits.
	mm.Wake()
	got := getTicket(t, c, rude.GetId())
	if got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING || !got.GetCreatedAt().AsTime().Equal(rude.GetCreatedAt().AsTime()) {
		t.Fatalf("the marked player's ticket: %v", got)
	}
	res, err := c.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: rude.GetId()}))
	if err != nil || !strings.Contains(res.Msg.GetTicket().GetWhy().GetSummary(), "Held back until") {
		t.Fatalf("why: %v %v", res.Msg.GetTicket().GetWhy(), err)
	}
}
