package sim

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata")

func loadPopulation(t *testing.T, path string) *Population {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePopulation(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

func loadRuleset(t *testing.T, path string) Ruleset {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := LoadRuleset(filepath.Base(path), data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rs
}

func smallReport(t *testing.T, seed uint64) *Report {
	t.Helper()
	p := loadPopulation(t, "testdata/small.yaml")
	cfg := Config{Rulesets: []Ruleset{loadRuleset(t, "testdata/tight.json"), loadRuleset(t, "testdata/loose.json")},
		Baselines: true, Seed: seed}
	rep, err := RunPopulation(p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestGoldenReport compares the JSON report of a small population, two
// rulesets and both baselines with testdata/small.golden.json (go test
// ./sim -run Golden -update rewrites it after a deliberate change).
func TestGoldenReport(t *testing.T) {
	got, err := smallReport(t, 7).JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden := "testdata/small.golden.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the report differs from %s (run with -update after a deliberate change):\n%s", golden, firstDiff(got, want))
	}
}

// firstDiff shows the first line where two texts differ.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + a + "\n want " + b
		}
	}
	return ""
}

// TestSameSeedSameReport runs the same population twice with one seed and
// once with another: the same seed gives the same JSON and HTML byte for
// byte, another seed other players.
func TestSameSeedSameReport(t *testing.T) {
	a, b, c := smallReport(t, 3), smallReport(t, 3), smallReport(t, 4)
	ja, _ := a.JSON()
	jb, _ := b.JSON()
	jc, _ := c.JSON()
	if !bytes.Equal(ja, jb) {
		t.Errorf("two runs with seed 3 differ:\n%s", firstDiff(ja, jb))
	}
	if !bytes.Equal(a.HTML(), b.HTML()) {
		t.Error("two HTML reports with seed 3 differ")
	}
	if bytes.Equal(ja, jc) {
		t.Error("seeds 3 and 4 gave the same report")
	}
}

// TestEveryPlayerIsAccountedFor checks the books of every run: each
// player who arrived was matched, gave up, expired, was refused or still
// waits, and the hours add up to the totals.
func TestEveryPlayerIsAccountedFor(t *testing.T) {
	rep := smallReport(t, 11)
	for _, run := range rep.Runs {
		if sum := run.Matched + run.Abandoned + run.Expired + run.Refused + run.WaitingAtEnd; sum != run.Arrived {
			t.Errorf("%s: matched %d + abandoned %d + expired %d + refused %d + waiting %d = %d, but %d arrived",
				run.Name, run.Matched, run.Abandoned, run.Expired, run.Refused, run.WaitingAtEnd, sum, run.Arrived)
		}
		if run.Arrived-run.Returned != 3000 {
			t.Errorf("%s: %d new players arrived, the population has 3000", run.Name, run.Arrived-run.Returned)
		}
		var arrived, matched int
		for _, h := range run.Hourly {
			arrived += h.Arrived
			matched += h.Matched
		}
		if arrived != run.Arrived || matched != run.Matched {
			t.Errorf("%s: hours add up to %d arrived, %d matched; totals %d, %d", run.Name, arrived, matched, run.Arrived, run.Matched)
		}
		if run.Wait.Count != run.Matched {
			t.Errorf("%s: %d waits for %d matched players", run.Name, run.Wait.Count, run.Matched)
		}
		if run.Matches == 0 || run.Matched != 4*run.Matches {
			t.Errorf("%s: %d players in %d 2v2 matches", run.Name, run.Matched, run.Matches)
		}
		if len(run.Queue) != int(rep.Hours*3600/rep.SampleSeconds) {
			t.Errorf("%s: %d queue samples over %g hours", run.Name, len(run.Queue), rep.Hours)
		}
	}
}

// TestCompareRunsTheSamePlayers runs one ruleset twice in a comparison:
// the two entries must be equal but for their names, since the players,
// their patience and their returns depend on the seed alone.
func TestCompareRunsTheSamePlayers(t *testing.T) {
	p := loadPopulation(t, "testdata/small.yaml")
	p.Players = 800
	a := loadRuleset(t, "testdata/tight.json")
	b := a
	b.Name = "again"
	rep, err := RunPopulation(p, Config{Rulesets: []Ruleset{a, b}, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	rep.Runs[1].Name = rep.Runs[0].Name
	first, _ := (&Report{Runs: rep.Runs[:1]}).JSON()
	second, _ := (&Report{Runs: rep.Runs[1:]}).JSON()
	if !bytes.Equal(first, second) {
		t.Errorf("one ruleset twice gave two results:\n%s", firstDiff(first, second))
	}
}

// TestRulesetBeatsBaselinesOnSkill is the simulator's reason to exist, on
// the small population: at the same median wait, the ruleset's matches are
// closer in skill than FIFO's.
func TestRulesetBeatsBaselinesOnSkill(t *testing.T) {
	rep := smallReport(t, 7)
	tight, fifo := rep.Runs[0], rep.Runs[2]
	if fifo.Kind != "fifo" {
		t.Fatalf("run 2 is %s, want fifo", fifo.Kind)
	}
	if tight.SkillGap.P50 >= fifo.SkillGap.P50 {
		t.Errorf("median skill gap: ruleset %v, FIFO %v", tight.SkillGap.P50, fifo.SkillGap.P50)
	}
	if tight.Ping.P50 >= fifo.Ping.P50 {
		t.Errorf("median ping: ruleset %v, FIFO %v", tight.Ping.P50, fifo.Ping.P50)
	}
}
