package main

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

const blockedModesConfig = `
encounters:
  opponents: [{name: raid}]
opponents:
  - name: raid
    player_cache_size: 1000
    min_mmr: 0
    max_mmr: 3000
    mmr_bucket_count: 1
    max_candidates: 100
    reservations: {enabled: true, hold: 30m}
`

// TestBlockedPairsNeverMeetInAttacksOrRounds: through the real server, a
// block kept by either player holds in the two other modes — an attacker
// is never offered a defender of a blocked pair, with four attackers
// racing, and a speed-dating event never seats the pair, round after
// round — before and after a restart on the same data.
func TestBlockedPairsNeverMeetInAttacksOrRounds(t *testing.T) {
	f := serveFlags{config: writeConfig(t, blockedModesConfig), data: t.TempDir()}
	s := startServer(t, f)
	c := client.New(s.url)
	ctx := context.Background()
	raid := c.Finder("raid")
	for i := range 8 {
		if _, err := raid.UpdatePlayer(ctx, client.Model{ID: fmt.Sprintf("d%d", i), MMR: float64(1500 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	// Each attacker has blocked one defender and is blocked by another.
	blocks := [][2]string{{"a0", "d0"}, {"d1", "a0"}, {"a1", "d2"}, {"d3", "a1"}, {"a2", "d4"}, {"d5", "a2"}, {"a3", "d6"}, {"d7", "a3"}, {"jo", "hal"}}
	for _, b := range blocks {
		if _, err := c.Block(ctx, b[0], b[1]); err != nil {
			t.Fatal(err)
		}
	}
	blocked := map[[2]string]bool{}
	for _, b := range blocks {
		blocked[b], blocked[[2]string{b[1], b[0]}] = true, true
	}

	attacks := func(c *client.Client) {
		t.Helper()
		raid := c.Finder("raid")
		var wg sync.WaitGroup
		var mu sync.Mutex
		var problems []string
		found := map[string]map[string]bool{}
		for a := range 4 {
			attacker := fmt.Sprintf("a%d", a)
			found[attacker] = map[string]bool{}
			wg.Go(func() {
				for range 25 {
					res, err := raid.FindOpponent(ctx, client.Model{ID: attacker, MMR: 1500}, client.FindOptions{Reserve: true})
					mu.Lock()
					switch {
					case err != nil:
						problems = append(problems, err.Error())
					case res.GetResult() == cupidv1.OpponentResult_OPPONENT_RESULT_SUCCESS:
						d := res.GetPlayerId()
						found[attacker][d] = true
						if blocked[[2]string{attacker, d}] {
							problems = append(problems, fmt.Sprintf("%s was offered %s, a blocked pair", attacker, d))
						}
					}
					mu.Unlock()
					if res.GetResult() == cupidv1.OpponentResult_OPPONENT_RESULT_SUCCESS {
						if _, err := raid.ReleaseReservation(ctx, res.GetReservation().GetId(), attacker); err != nil {
							mu.Lock()
							problems = append(problems, err.Error())
							mu.Unlock()
						}
					}
				}
			})
		}
		wg.Wait()
		if len(problems) > 0 {
			t.Fatalf("%d problems, the first: %s", len(problems), problems[0])
		}
		for attacker, ds := range found {
			if len(ds) == 0 {
				t.Fatalf("%s was never offered anyone: the check proves nothing", attacker)
			}
		}
	}

	people := []string{"gus", "hal", "ivy", "jo", "kim", "lea"}
	met := map[[2]string]bool{}
	rounds := func(c *client.Client, ev *client.Event, n int) {
		t.Helper()
		for r := range n {
			got, err := ev.StartRound(ctx)
			if connect.CodeOf(err) == connect.CodeFailedPrecondition {
				return // everyone who may meet has met
			}
			if err != nil {
				t.Fatalf("round %d: %v", r, err)
			}
			if got, err = ev.Get(ctx); err != nil {
				t.Fatal(err)
			}
			for _, p := range got.GetPairs() {
				pair := [2]string{p.GetA(), p.GetB()}
				if blocked[pair] {
					t.Fatalf("round %d seated the blocked pair %v", r, pair)
				}
				met[pair], met[[2]string{pair[1], pair[0]}] = true, true
			}
			if got.GetNobodyCanPair() {
				return
			}
			if _, err := ev.EndRound(ctx); err != nil {
				t.Fatalf("end of round %d: %v", r, err)
			}
		}
	}
	if _, err := c.CreateEvent(ctx, &cupidv1.CreateEventRequest{Id: "ball", Settings: &cupidv1.EventSettings{Rooms: 3, MinLobby: 7}, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	ev := c.Event("ball")
	for _, p := range people {
		if _, err := ev.Join(ctx, p, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := ev.EnterLobby(ctx, p); err != nil {
			t.Fatal(err)
		}
	}

	attacks(c)
	rounds(c, ev, 2)
	s.stop()
	s = startServer(t, f)
	c = client.New(s.url)
	attacks(c)
	rounds(c, c.Event("ball"), 6)
	// Everyone met everyone but the blocked pair: the rule held and cost
	// nobody else a date.
	for i, a := range people {
		for _, b := range people[i+1:] {
			if !met[[2]string{a, b}] && !blocked[[2]string{a, b}] {
				t.Errorf("%s and %s never met", a, b)
			}
		}
	}
}
