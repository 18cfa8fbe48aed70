package sim

import "testing"

// The server's wait estimates, made the way GetTicket makes them, hold
// what they say on steady traffic: the 80 % interval holds 80 ± 5 % of the
// waits that followed, for the real engine on a population of parties,
// regions and roles. The players who gave up before the top of their
// interval have no known wait, so the share is known between two bounds
// (all of them outside, none of them): 80 % must be within 5 points of that
// band. (On traffic that grows or falls within the history's hour the
// interval lags it; docs/PERFORMANCE.md has those figures.)
func TestEstimatesHoldOnSteadyTraffic(t *testing.T) {
	p := loadPopulation(t, "testdata/small.yaml")
	p.Arrivals.Curve = nil
	p.Arrivals.Table = []float64{1, 1, 1}
	p.Hours = 3
	p.Players = 4000
	cfg := Config{Rulesets: []Ruleset{loadRuleset(t, "testdata/tight.json"), loadRuleset(t, "testdata/loose.json")}, Seed: 7}
	rep, err := RunPopulation(p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range rep.Runs {
		c := run.Estimates
		if c == nil || c.Checked < 1000 {
			t.Fatalf("%s: too few estimates checked: %+v", run.Name, c)
		}
		t.Logf("%s: %+v", run.Name, *c)
		if c.Coverage < c.WithinAtLeast-0.05 || c.Coverage > c.Within+0.05 {
			t.Errorf("%s: the 80 %% interval held %.3f to %.3f of the waits", run.Name, c.WithinAtLeast, c.Within)
		}
	}
}
