package sim

import (
	"math"
	"strings"
	"testing"
)

const minimal = `
players: 100
arrivals: {table: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}
skill: {dist: {kind: normal, mean: 1500, sd: 300}}
patience: {kind: const, value: 60}
`

// TestPopulationErrors checks that each mistake is refused with the field
// that holds it.
func TestPopulationErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"empty", "", "the population file is empty"},
		{"unknown field", minimal + "colour: red\n", "field colour not found"},
		{"no players", strings.Replace(minimal, "players: 100", "players: 0", 1), "players: must be between 1"},
		{"no arrivals", strings.Replace(minimal, "arrivals: {table: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}", "", 1), "arrivals: required"},
		{"short table", strings.Replace(minimal, "[1,1,1,", "[", 1), "arrivals.table: must hold 24 weights"},
		{"curve and table", minimal + "hours: 2\n" + "arrivals: {curve: [{hour: 1, weight: 1}], table: [1]}\n", "mapping key \"arrivals\" already defined"},
		{"curve order", strings.Replace(minimal, "{table: [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}", "{curve: [{hour: 5, weight: 1}, {hour: 2, weight: 1}]}", 1), "arrivals.curve[1].hour: hours must increase"},
		{"zero weights", strings.Replace(minimal, "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]", "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]", 1), "nobody would arrive"},
		{"dist kind", strings.Replace(minimal, "kind: normal", "kind: gaussian", 1), "skill.dist.kind: must be one of"},
		{"dist missing", strings.Replace(minimal, ", sd: 300", "", 1), "skill.dist.sd: required for kind normal"},
		{"dist extra", strings.Replace(minimal, "sd: 300", "sd: 300, median: 3", 1), "skill.dist.median: kind normal does not take median"},
		{"dist negative sd", strings.Replace(minimal, "sd: 300", "sd: -1", 1), "skill.dist.sd: must be positive"},
		{"min above max", strings.Replace(minimal, "sd: 300", "sd: 300, min: 10, max: 5", 1), "skill.dist.max: must be ≥ min"},
		{"no patience", strings.Replace(minimal, "patience: {kind: const, value: 60}", "", 1), "patience: required"},
		{"negative patience", strings.Replace(minimal, "value: 60", "value: -5", 1), "patience.value: must be ≥ 0"},
		{"region without latency", minimal + "regions: [{name: eu, share: 1}]\n", "regions[0].latency: required"},
		{"region twice", minimal + "regions: [{name: eu, share: 1, latency: {eu: {kind: const, value: 20}}}, {name: eu, share: 1, latency: {eu: {kind: const, value: 20}}}]\n", `regions[1].name: "eu" is listed twice`},
		{"latency zero", minimal + "regions: [{name: eu, share: 1, latency: {eu: {kind: const, value: 0}}}]\n", "regions[0].latency.eu.value: must be ≥ 1"},
		{"party size", minimal + "parties: [{size: 0, share: 1}]\n", "parties[0].size: must be between 1 and 100"},
		{"party share", minimal + "parties: [{size: 2, share: 0}]\n", "parties[0].share: must be a positive number"},
		{"role twice", minimal + "roles: {choices: [{roles: [tank, tank], share: 1}]}\n", "roles.choices[0].roles[1]: roles must be named and listed once"},
		{"role attribute", minimal + "roles: {attribute: mmr, choices: [{roles: [tank], share: 1}]}\n", `roles.attribute: "mmr" is already the skill attribute`},
		{"return rate", minimal + "return: {rate: 2, after: {kind: const, value: 60}}\n", "return.rate: must be between 0 and 1"},
		{"return after", minimal + "return: {rate: 0.5}\n", "return.after: required"},
		{"hours", minimal + "hours: -1\n", "hours: must be more than 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePopulation([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestArrivalCurve checks the rate between points and around midnight.
func TestArrivalCurve(t *testing.T) {
	a := Arrivals{Curve: []CurvePoint{{Hour: 2, Weight: 1}, {Hour: 6, Weight: 5}, {Hour: 22, Weight: 1}}}
	for _, tc := range []struct{ h, want float64 }{
		{2, 1}, {4, 3}, {6, 5}, {14, 3}, {22, 1}, {0, 1}, {23, 1}, {1, 1},
	} {
		if got := a.weightAt(tc.h); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("weight at %v: %v, want %v", tc.h, got, tc.want)
		}
	}
	table := Arrivals{Table: make([]float64, 24)}
	table.Table[5] = 2
	if table.weightAt(5.5) != 2 || table.weightAt(6) != 0 {
		t.Errorf("table: %v at 5.5, %v at 6", table.weightAt(5.5), table.weightAt(6))
	}
}

// TestScheduleFollowsTheCurve draws a day whose rate is zero but in two
// hours, three times as high in the second: everyone arrives in those
// hours, about three quarters in the second, in time order, and exactly
// the population's players arrive.
func TestScheduleFollowsTheCurve(t *testing.T) {
	p, err := ParsePopulation([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	p.Players = 20000
	p.Arrivals.Table = make([]float64, 24)
	p.Arrivals.Table[3], p.Arrivals.Table[10] = 1, 3
	p.Parties = []PartyShare{{Size: 1, Share: 1}, {Size: 3, Share: 1}}
	arr := p.schedule(9)
	players, in10 := 0, 0
	for i, a := range arr {
		players += int(a.size)
		h := int(a.at / 3600e9)
		if h != 3 && h != 10 {
			t.Fatalf("arrival %d at hour %d", i, h)
		}
		if h == 10 {
			in10++
		}
		if i > 0 && a.at < arr[i-1].at {
			t.Fatalf("arrival %d before arrival %d", i, i-1)
		}
	}
	if players != 20000 {
		t.Errorf("%d players arrived, want 20000", players)
	}
	if share := float64(in10) / float64(len(arr)); share < 0.72 || share > 0.78 {
		t.Errorf("%.3f of the parties arrived in the busy hour, want about 0.75", share)
	}
}
