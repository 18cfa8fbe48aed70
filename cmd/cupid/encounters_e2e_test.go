package main

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// encounterConfig is a 1v1 queue that keeps blocked players apart (the
// server fills each player's "blocked" list; the rule looks at every list
// in the match, so a block holds both ways), with its matches recorded.
const encounterConfig = `
encounters:
  queues: [{name: duel, met_within: 1h}]
queues:
  - name: duel
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      collection_rule:
        - {attribute: blocked, operation: player_ids, max_count: 0}
`

// TestBlockedPairsNeverMeet plays rounds of eight players through the
// real server, before and after a restart on the same data: the blocked
// pairs (one each way) never share a match, everyone else does play, and
// the matches reach both players' histories.
func TestBlockedPairsNeverMeet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, []byte(encounterConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	f := serveFlags{config: path, data: t.TempDir()}
	s := startServer(t, f)
	c := client.New(s.url)
	ctx := context.Background()
	players := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	blocks := [][2]string{{"a", "b"}, {"d", "c"}, {"e", "f"}, {"e", "g"}}
	for _, b := range blocks {
		if _, err := c.Block(ctx, b[0], b[1]); err != nil {
			t.Fatal(err)
		}
	}
	blocked := func(x, y string) bool {
		for _, b := range blocks {
			if b == [2]string{x, y} || b == [2]string{y, x} {
				return true
			}
		}
		return false
	}
	met := map[[2]string]int{}
	rng := rand.New(rand.NewPCG(27, 1))
	waiting := map[string]bool{} // players with a live ticket
	var after int64              // the match log read so far
	errSettled := errors.New("settled")
	round := func(c *client.Client, r int) {
		t.Helper()
		// A new order each round, so the engine would pair anyone with
		// anyone (it takes the oldest compatible ticket).
		rng.Shuffle(len(players), func(i, j int) { players[i], players[j] = players[j], players[i] })
		for _, p := range players {
			if waiting[p] {
				continue // still waiting from an earlier round
			}
			if _, err := c.CreateTicket(ctx, &cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{{Id: p}}}); err != nil {
				t.Fatalf("round %d: %v", r, err)
			}
			waiting[p] = true
		}
		// The round is settled when nobody waits, or only a blocked pair
		// (who can never be matched with each other) does: the engine
		// leaves no two compatible tickets waiting.
		settled := func() bool {
			var w []string
			for p := range waiting {
				w = append(w, p)
			}
			return len(w) == 0 || len(w) == 2 && blocked(w[0], w[1])
		}
		if settled() {
			return
		}
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second) // a guard against a hang only
		defer cancel()
		err := c.WatchMatches(wctx, "duel", after, func(ev *cupidv1.MatchEvent) error {
			after = ev.GetSeq()
			if ev.GetKind() != "formed" {
				return nil
			}
			var in []string
			for _, team := range ev.GetMatch().GetTeams() {
				in = append(in, team.GetPlayerIds()...)
			}
			if len(in) != 2 {
				t.Fatalf("round %d: a match of %v", r, in)
			}
			if blocked(in[0], in[1]) {
				t.Fatalf("round %d: blocked players %s and %s were matched", r, in[0], in[1])
			}
			slices.Sort(in)
			met[[2]string{in[0], in[1]}]++
			delete(waiting, in[0])
			delete(waiting, in[1])
			// The game is played and over: its players may queue again.
			id := ev.GetMatch().GetId()
			if _, err := c.AssignMatch(ctx, id, &cupidv1.Assignment{Server: "10.0.0.1:7777"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.EndSession(ctx, id); err != nil {
				t.Fatal(err)
			}
			if settled() {
				return errSettled
			}
			return nil
		})
		if !errors.Is(err, errSettled) {
			t.Fatalf("round %d: %v (still waiting: %v)", r, err, waiting)
		}
	}
	for r := range 12 {
		round(c, r)
	}
	s.stop()
	s = startServer(t, f)
	c = client.New(s.url)
	for r := 12; r < 20; r++ {
		round(c, r)
	}
	if len(met) < 12 {
		t.Errorf("only %d different pairs met in 20 rounds: %v", len(met), met)
	}
	// The follower records every match: a's history names each opponent
	// he met (waiting for the follower, with a deadline as a guard).
	var want []string
	for pair := range met {
		if pair[0] == "a" {
			want = append(want, pair[1])
		}
	}
	slices.Sort(want)
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		hist, err := c.ListEncounters(ctx, "a", 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range hist {
			if !slices.Contains(got, e.GetOtherId()) {
				got = append(got, e.GetOtherId())
			}
		}
		slices.Sort(got)
		if slices.Equal(got, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a's history names %v, want %v", got, want)
		}
		<-tick.C
	}
}
