package sim

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// TestHistoryNotTheSameOpponent is the proof: a duel queue whose
// ruleset keeps opponents met within the hour apart for the first 30
// seconds of a wait (collection_rule player_ids over met, disable_after
// 30), its tickets filled from the encounter history the way the server
// fills them, runs 10,000 matches and more; no two players meet again
// within the hour while the rule applies, and the report says how often
// the relaxation let a repeat through. CUPID_SIM_HISTORY_PLAYERS scales
// the crowd (docs/encounters.md gives the full-size run).
func TestHistoryNotTheSameOpponent(t *testing.T) {
	p := loadPopulation(t, "testdata/history.yaml")
	if s := os.Getenv("CUPID_SIM_HISTORY_PLAYERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2 {
			t.Fatalf("CUPID_SIM_HISTORY_PLAYERS=%q: want a number of players", s)
		}
		p.Players = n
	}
	cfg := Config{Rulesets: []Ruleset{loadRuleset(t, "testdata/history.json")}, Seed: 3,
		History: &History{MetWithin: time.Hour}}
	rep, err := RunPopulation(p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	h := run.History
	t.Logf("%d players: %d matches, %d opponent pairs, %d repeats within the hour, %d let through by the relaxation (%.3f of pairs), %d broken; median wait %.1fs",
		p.Players, h.Matches, h.Pairs, h.Repeats, h.Relaxed, h.RelaxedShare, h.Broken, run.Wait.P50)
	switch {
	case !h.Rule || h.DisableAfterSeconds != 30:
		t.Fatalf("the history did not find the met rule: %+v", h)
	case h.Matches < 10_000 && os.Getenv("CUPID_SIM_HISTORY_PLAYERS") == "":
		t.Fatalf("%d matches, want at least 10,000", h.Matches)
	case h.Matches != run.Matches:
		t.Fatalf("the history recorded %d matches of %d", h.Matches, run.Matches)
	case h.Broken != 0:
		t.Fatalf("%d pairs met again within the hour while the rule applied", h.Broken)
	case h.Relaxed == 0:
		// The check must be able to fail: the crowd is small enough that
		// old opponents come back within the hour, and some wait long
		// enough for the rule to relax.
		t.Fatalf("no repeat at all: the population does not exercise the rule")
	}
}

// TestHistoryWithoutTheRuleRepeats: the same crowd without the met rule
// meets again freely, and the history counts those as broken, so the
// check above is not vacuous.
func TestHistoryWithoutTheRuleRepeats(t *testing.T) {
	p := loadPopulation(t, "testdata/history.yaml")
	p.Players, p.Hours = 400, 1
	cfg := Config{Rulesets: []Ruleset{loadRuleset(t, "testdata/history-norule.json")}, Seed: 3,
		History: &History{MetWithin: time.Hour}}
	rep, err := RunPopulation(p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if h := rep.Runs[0].History; h.Rule || h.Broken == 0 || h.Broken != h.Repeats {
		t.Fatalf("without the rule every repeat is broken, and there are some: %+v", h)
	}
}
