package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// strictDuel is a duel ruleset without relaxation: what it decides does
// not hang on when a pool steps, only on the order of arrivals and
// departures, so a replay of the same arrivals must form the same matches.
const strictDuel = `{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 120, "max": 3000}],
  "region_latency_max_ms": 150
}`

// TestSimReplayOfAServersWindow has a real server (SQLite, on a clock the
// test moves a second at a time) take five minutes of duel traffic —
// arrivals on even seconds, owners cancelling on odd ones, the tickets
// left cancelled at the end — then replays that window from the store in
// one step (cupid sim replay --data --queue --from --to) under the same
// ruleset and under the demo's relaxing one.
//
// Under the same ruleset the replay is what really happened, match for
// match and wait for wait, and each part of the quality score but one
// (variety, which the simulator does not score) is the same: the engine is deterministic,
// the arrivals and departures are the same, and each moment's events reach
// the pool before it steps (the test creates or cancels, then waits for
// the pool's step, before it moves the clock). With relaxation that last
// part would not hold on a live server, whose pools step when their timers
// fire rather than at the exact moment a rule relaxes, which is why the
// equality is asserted for a ruleset without it. The relaxing ruleset
// pairs otherwise.
func TestSimReplayOfAServersWindow(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "strict.json")
	cfg := filepath.Join(dir, "cupid.yaml")
	if err := os.WriteFile(rules, []byte(strictDuel), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("queues:\n  - name: duel\n    ticket_ttl: 1h\n    ruleset_file: "+rules+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	clock := testclock.At(start)
	started := make(chan *ticketsvc.Service, 1)
	s := startServer(t, serveFlags{config: cfg, data: filepath.Join(dir, "data"), hooks: &serveHooks{
		now: clock.Now, started: func(mm *ticketsvc.Service) { started <- mm },
	}})
	mm := <-started
	c := s.connectClient()
	ctx := context.Background()

	rng := rand.New(rand.NewPCG(26, 2))
	type made struct {
		id     string
		cancel int // the second its owner cancels, if still waiting; 0: never
	}
	var tickets []made
	cancelAt := map[int][]string{}
	const seconds = 300
	for sec := 1; sec <= seconds+1; sec++ {
		clock.Advance(time.Second)
		switch {
		case sec%2 == 0 && sec < seconds && rng.IntN(3) > 0:
			attrs, _ := structpb.NewStruct(map[string]any{"mmr": float64(1000 + rng.IntN(1000))})
			res, err := c.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{
				Queue:     "duel",
				Players:   []*cupidv1.Player{{Id: fmt.Sprintf("p%03d", sec), Attributes: attrs.GetFields()}},
				Latencies: map[string]int32{"eu-west": int32(20 + rng.IntN(100)), "us-east": int32(60 + rng.IntN(100))},
			}))
			if err != nil {
				t.Fatalf("second %d: %v", sec, err)
			}
			m := made{id: res.Msg.GetTicket().GetId()}
			if rng.IntN(6) == 0 {
				m.cancel = sec + 1 + 2*rng.IntN(20) // an odd second
				cancelAt[m.cancel] = append(cancelAt[m.cancel], m.id)
			}
			tickets = append(tickets, m)
		case sec == seconds+1: // the end: whoever still waits gives up
			for _, m := range tickets {
				cancelAt[sec] = append(cancelAt[sec], m.id)
			}
		}
		for _, id := range cancelAt[sec] {
			// A ticket already matched cannot be cancelled, here as in the
			// replay, which lets a departure go only while it waits.
			_, err := c.CancelTicket(ctx, connect.NewRequest(&cupidv1.CancelTicketRequest{Id: id}))
			if err != nil && connect.CodeOf(err) != connect.CodeFailedPrecondition {
				t.Fatalf("cancel %s at second %d: %v", id, sec, err)
			}
		}
		mm.Wake() // the pool has taken this second's events and stepped
	}
	s.stop()

	out := filepath.Join(dir, "replay.json")
	text, err := run("sim", "replay", "--data", filepath.Join(dir, "data"), "--queue", "duel",
		"--from", start.Format(time.RFC3339), "--to", clock.Now().Add(time.Second).Format(time.RFC3339),
		"--ruleset", rules, "--compare", filepath.Join(simExamples, "1v1.json"), "--ttl", "1h", "--json", out)
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, text)
	}
	t.Logf("\n%s", text)
	rep := readReport(t, out)
	var names []string
	for _, r := range rep.Runs {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, ","); got != "actual,strict.json,1v1.json,FIFO,greedy" {
		t.Fatalf("runs %s", got)
	}
	actual, same, other := rep.Runs[0], rep.Runs[1], rep.Runs[2]
	if actual.Arrived != len(tickets) || actual.Matches < 20 || actual.Abandoned == 0 || actual.WaitingAtEnd != 0 {
		t.Fatalf("actual: %d tickets arrived (want %d), %d matches, %d abandoned, %d waiting at the end",
			actual.Arrived, len(tickets), actual.Matches, actual.Abandoned, actual.WaitingAtEnd)
	}
	if same.SameAsActual == nil || *same.SameAsActual != actual.Matches || same.Matches != actual.Matches {
		t.Errorf("the same ruleset formed %d matches, %v as really happened; really: %d", same.Matches, same.SameAsActual, actual.Matches)
	}
	if same.Matched != actual.Matched || same.Abandoned != actual.Abandoned || same.Expired != actual.Expired {
		t.Errorf("the same ruleset: %d matched, %d abandoned, %d expired; really %d, %d, %d",
			same.Matched, same.Abandoned, same.Expired, actual.Matched, actual.Abandoned, actual.Expired)
	}
	if same.Wait != actual.Wait {
		t.Errorf("waits under the same ruleset %+v, really %+v", same.Wait, actual.Wait)
	}
	// The score itself differs by one criterion: the server scores
	// variety (players who met lately) from its match history, which the
	// simulator does not keep; every other part is the same.
	if len(actual.QualityParts) != len(same.QualityParts)+1 {
		t.Errorf("quality parts under the same ruleset %v, really %v", same.QualityParts, actual.QualityParts)
	}
	for name, part := range actual.QualityParts {
		if got, ok := same.QualityParts[name]; name != "variety" && (!ok || got != part) {
			t.Errorf("quality part %s under the same ruleset %+v, really %+v", name, got, part)
		}
	}
	if same.SkillGap == nil || actual.SkillGap == nil || *same.SkillGap != *actual.SkillGap || *same.Ping != *actual.Ping {
		t.Errorf("skill gap and ping under the same ruleset %+v %+v, really %+v %+v", same.SkillGap, same.Ping, actual.SkillGap, actual.Ping)
	}
	if other.SameAsActual == nil || *other.SameAsActual >= other.Matches {
		t.Errorf("the relaxing ruleset formed %d matches, %v as really happened: it should pair otherwise", other.Matches, other.SameAsActual)
	}
	if !strings.Contains(text, fmt.Sprintf("%d of %d", actual.Matches, actual.Matches)) {
		t.Errorf("the summary does not say all %d matches are the same:\n%s", actual.Matches, text)
	}
}
