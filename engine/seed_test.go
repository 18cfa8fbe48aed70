package engine_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cupid-match/cupid/sim"
)

// The examples of AccelByte's match rulesets, run through the engine with
// the scenario kit, in virtual time.

func run(t *testing.T, rules string, tickets []sim.ScenarioTicket, until float64) sim.ScenarioReport {
	t.Helper()
	rep, err := sim.RunScenario(sim.Scenario{Ruleset: json.RawMessage(rules), Tickets: tickets, Until: until})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// timeline renders matches as "t: team | team".
func timeline(rep sim.ScenarioReport) []string {
	var out []string
	for _, m := range rep.Matches {
		var teams []string
		for _, tm := range m.Teams {
			teams = append(teams, strings.Join(tm, "+"))
		}
		out = append(out, fmt.Sprintf("%gs: %s", m.At, strings.Join(teams, " | ")))
	}
	return out
}

func solo(id string, at float64, attrs map[string]any) sim.ScenarioTicket {
	return sim.ScenarioTicket{ID: id, At: at, Attributes: attrs}
}

func TestSeedTeam8v8(t *testing.T) {
	rules := `{"auto_backfill": false, "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 4, "player_max_number": 8}}`
	// Sixteen players arriving together make one full 8 against 8.
	var full []sim.ScenarioTicket
	for i := 0; i < 16; i++ {
		full = append(full, solo(fmt.Sprintf("p%02d", i), 0, nil))
	}
	rep := run(t, rules, full, 10)
	if len(rep.Matches) != 1 || len(rep.Matches[0].Teams[0]) != 8 || len(rep.Matches[0].Teams[1]) != 8 {
		t.Fatalf("full: %v", timeline(rep))
	}
	// Arriving one a second, the match starts as soon as each side can
	// have four: at the eighth arrival, 4 against 4.
	var trickle []sim.ScenarioTicket
	for i := 0; i < 8; i++ {
		trickle = append(trickle, solo(fmt.Sprintf("p%d", i), float64(i), nil))
	}
	rep = run(t, rules, trickle, 10)
	if got := timeline(rep); len(got) != 1 || !strings.HasPrefix(got[0], "7s:") || len(rep.Matches[0].Teams[0]) != 4 {
		t.Fatalf("trickle: %v", got)
	}
	// Parties of 5 and 4 cannot make two teams of at least 4 with 9
	// players split 5/4 … they can: 5 | 4.
	rep = run(t, rules, []sim.ScenarioTicket{{ID: "five", Party: 5}, {ID: "four", At: 1, Party: 4}}, 10)
	if got := timeline(rep); !reflect.DeepEqual(got, []string{"1s: five | four"}) {
		t.Fatalf("parties: %v", got)
	}
}

func TestSeedCoopLevelAndRating(t *testing.T) {
	rules := `{"auto_backfill": true,
		"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 4, "player_max_number": 4},
		"matching_rule": [
			{"attribute": "level", "criteria": "distance", "reference": 2},
			{"attribute": "rating", "criteria": "distance", "reference": 20}]}`
	tickets := []sim.ScenarioTicket{
		solo("pivot", 0, map[string]any{"level": 10, "rating": 100}),
		// Outliers: too far in level, or in rating, from anyone.
		solo("lvl16", 1, map[string]any{"level": 16, "rating": 100}),
		solo("rate160", 2, map[string]any{"level": 10, "rating": 160}),
		solo("ok1", 3, map[string]any{"level": 8, "rating": 80}),
		solo("ok2", 4, map[string]any{"level": 12, "rating": 120}),
		solo("ok3", 5, map[string]any{"level": 11, "rating": 95}),
	}
	rep := run(t, rules, tickets, 30)
	if got := timeline(rep); !reflect.DeepEqual(got, []string{"5s: pivot+ok1+ok2+ok3"}) {
		t.Fatalf("matches %v", got)
	}
	for _, w := range rep.Waiting {
		if !strings.Contains(w.Summary, "only 1 of 4 players available") || len(w.Blocks) == 0 {
			t.Errorf("%s: %q %+v", w.ID, w.Summary, w.Blocks)
		}
		if w.ID == "lvl16" && w.Blocks[0].Nearest != "level distance 6 > 2 allowed" {
			t.Errorf("lvl16 nearest: %+v", w.Blocks)
		}
	}
}

func TestSeedFFAWithMMRFlexing(t *testing.T) {
	rules := `{"auto_backfill": true,
		"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 25, "player_max_number": 25},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 200}],
		"flexing_rule": [
			{"duration": 15, "attribute": "mmr", "criteria": "distance", "reference": 300},
			{"duration": 30, "attribute": "mmr", "criteria": "distance", "reference": 400},
			{"duration": 45, "attribute": "mmr", "criteria": "distance", "reference": 500}]}`
	// The oldest player sits at 1000. Twenty others are within 200, two
	// more at 290, one at 390 and one at 480: the 25 are all in only
	// once the pivot allows 500, at 45 s.
	tickets := []sim.ScenarioTicket{solo("pivot", 0, map[string]any{"mmr": 1000})}
	for i := 0; i < 20; i++ {
		tickets = append(tickets, solo(fmt.Sprintf("near%02d", i), 1, map[string]any{"mmr": 1000 + float64(i*10-100)}))
	}
	tickets = append(tickets,
		solo("at290a", 2, map[string]any{"mmr": 1290}), solo("at290b", 2, map[string]any{"mmr": 710}),
		solo("at390", 3, map[string]any{"mmr": 1390}), solo("at480", 4, map[string]any{"mmr": 520}))
	rep := run(t, rules, tickets, 120)
	if len(rep.Matches) != 1 {
		t.Fatalf("matches %v; waiting %+v", timeline(rep), rep.Waiting)
	}
	m := rep.Matches[0]
	if m.At != 45 || m.Anchor != "pivot" || m.Level != 3 || len(m.Teams[0]) != 25 {
		t.Fatalf("match at %vs, anchor %s, level %d, %d players", m.At, m.Anchor, m.Level, len(m.Teams[0]))
	}
	// Before: at 15 s and 30 s the engine woke (NextWake) and explained
	// the wait in numbers.
	rep = run(t, rules, tickets, 44)
	var pivot sim.ScenarioWait
	for _, w := range rep.Waiting {
		if w.ID == "pivot" {
			pivot = w
		}
	}
	if pivot.PlayersAvailable != 24 || pivot.NextRelaxation != 45 || pivot.NextAdds != 1 {
		t.Fatalf("pivot at 44 s: %+v", pivot)
	}
	if len(pivot.Blocks) != 1 || pivot.Blocks[0].Nearest != "mmr distance 480 > 400 allowed" {
		t.Fatalf("blocks %+v", pivot.Blocks)
	}
}

func TestSeedCrossplay4v4(t *testing.T) {
	rules := `{"auto_backfill": false,
		"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 4, "player_max_number": 4},
		"match_options": {"options": [{"name": "cross_platform", "type": "all"}]}}`
	var tickets []sim.ScenarioTicket
	for i := 0; i < 8; i++ {
		tickets = append(tickets, sim.ScenarioTicket{ID: fmt.Sprintf("x%d", i), At: float64(i), Options: map[string]any{"cross_platform": []any{"xbox", "pc"}}})
		tickets = append(tickets, sim.ScenarioTicket{ID: fmt.Sprintf("p%d", i), At: float64(i), Options: map[string]any{"cross_platform": []any{"playstation"}}})
	}
	// Same set in another order still counts as the same preference.
	tickets[14].Options = map[string]any{"cross_platform": []any{"pc", "xbox"}}
	rep := run(t, rules, tickets, 30)
	if len(rep.Matches) != 2 {
		t.Fatalf("%v", timeline(rep))
	}
	for _, m := range rep.Matches {
		prefix := m.Teams[0][0][:1]
		for _, tm := range m.Teams {
			for _, id := range tm {
				if id[:1] != prefix {
					t.Fatalf("mixed platforms: %v", m.Teams)
				}
			}
		}
	}
}

// The region expansion of AccelByte's match rulesets: initial 50 ms, +50 ms
// every 10 s, max 200.
func TestSeedRegionExpansion(t *testing.T) {
	rules := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"auto_backfill": false, "region_latency_initial_range_ms": 50, "region_expansion_range_ms": 50,
		"region_expansion_rate_ms": 10000, "region_latency_max_ms": 200}`
	lat := func(ms int32) map[string]int32 { return map[string]int32{"eu": ms} }
	for _, tc := range []struct {
		name string
		a, b int32
		want []string
	}{
		{"both under 50 ms: at once", 40, 45, []string{"0s: a | b"}},
		{"both at 90 ms: after the first expansion", 90, 90, []string{"10s: a | b"}},
		{"190 ms: after three expansions", 40, 190, []string{"30s: a | b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := run(t, rules, []sim.ScenarioTicket{{ID: "a", Latencies: lat(tc.a)}, {ID: "b", Latencies: lat(tc.b)}}, 100)
			if got := timeline(rep); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	// Above the maximum, the ticket is refused up front instead of
	// waiting forever.
	rep := run(t, rules, []sim.ScenarioTicket{{ID: "a", Latencies: lat(40)}, {ID: "b", Latencies: lat(250)}}, 100)
	if len(rep.Refused) != 1 || rep.Refused[0].ID != "b" {
		t.Fatalf("refused %+v", rep.Refused)
	}
}

// The bidirectional walk-through of AccelByte's match rulesets: player 1
// reaches eu-west-1 and eu-central-1 only on the third range (30, 80, then 130
// ms at 20 s); player 2 sits in eu-west-1 at 30 ms. They match at 20 s, in
// eu-west-1.
func TestSeedBidirectionalWalkthrough(t *testing.T) {
	rules := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"auto_backfill": false, "region_latency_initial_range_ms": 30, "region_expansion_range_ms": 50,
		"region_expansion_rate_ms": 10000, "region_latency_max_ms": 350%s}`
	p1 := map[string]int32{"us-east-1": 50, "us-east-2": 50, "us-west-2": 80, "eu-west-1": 100, "eu-central-1": 102, "ap-southeast-1": 200}
	p2 := map[string]int32{"us-east-1": 150, "us-east-2": 100, "us-west-2": 122, "eu-west-1": 30, "eu-central-1": 55, "ap-southeast-1": 200}

	rep := run(t, fmt.Sprintf(rules, ""), []sim.ScenarioTicket{{ID: "p1", Latencies: p1}, {ID: "p2", Latencies: p2}}, 60)
	if got := timeline(rep); !reflect.DeepEqual(got, []string{"20s: p1 | p2"}) || rep.Matches[0].Region != "eu-west-1" {
		t.Fatalf("together: %v in %q", got, rep.Matches[0].Region)
	}
	// The engine woke at 10 s (first expansion) and at 20 s, nothing in
	// between: two anchor passes after the arrivals.
	if rep.Stats.Steps != 3 {
		t.Errorf("steps = %d, want 3 (arrival, 10 s, 20 s)", rep.Stats.Steps)
	}

	// Player 2 arrives later, when player 1 has expanded past 80 ms but
	// not yet to 130 ms. Player 2 searches only eu-west-1 (30 ms) and
	// player 1 has not expanded there: no match until player 1's 20 s
	// step.
	late := []sim.ScenarioTicket{{ID: "p1", Latencies: p1}, {ID: "p2", At: 12, Latencies: p2}}
	rep = run(t, fmt.Sprintf(rules, ""), late, 60)
	if got := timeline(rep); !reflect.DeepEqual(got, []string{"20s: p1 | p2"}) {
		t.Fatalf("late: %v", got)
	}
	rep = run(t, fmt.Sprintf(rules, ""), late, 15)
	if len(rep.Waiting) != 2 {
		t.Fatalf("late at 15 s: %+v", rep)
	}
	for _, w := range rep.Waiting {
		if w.ID == "p2" && (len(w.Blocks) == 0 || w.Blocks[0].Nearest != "latency 100 ms > 80 ms range in eu-west-1") {
			t.Errorf("p2 at 15 s: %+v", w)
		}
	}

	// Bidirectional filtering in action: p3 reaches only us-east-2, at
	// 100 ms. At 20 s p1 (130 ms range) offers us-east-2, but p3, new,
	// has not expanded to 100 ms: no match. With
	// disable_bidirectional_latency_after_ms 15000, p1 (older than 15 s)
	// takes p3 at once, within p1's own range.
	p3 := map[string]int32{"us-east-2": 100}
	three := []sim.ScenarioTicket{{ID: "p1", Latencies: p1}, {ID: "p3", At: 20, Latencies: p3}}
	rep = run(t, fmt.Sprintf(rules, ""), three, 60)
	if got := timeline(rep); !reflect.DeepEqual(got, []string{"40s: p1 | p3"}) {
		t.Fatalf("bidirectional: %v", got)
	}
	rep = run(t, fmt.Sprintf(rules, `, "disable_bidirectional_latency_after_ms": 15000`), three, 60)
	if got := timeline(rep); !reflect.DeepEqual(got, []string{"20s: p1 | p3"}) || rep.Matches[0].Region != "us-east-2" {
		t.Fatalf("bidirectional off: %v", got)
	}
}
