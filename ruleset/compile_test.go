package ruleset

import (
	"math"
	"slices"
	"testing"
	"time"
)

// TestCompileFull checks the defaults and schedules of a ruleset using
// every extension.
func TestCompileFull(t *testing.T) {
	c := loadFile(t, "testdata/cupid/full.json")
	if !slices.Equal(c.Balancing, []int{0, 1}) || c.Matching[0].Weight != 2 || c.Matching[1].Weight != 1 {
		t.Errorf("matching = %+v, balancing %v", c.Matching, c.Balancing)
	}
	if len(c.Options) != 2 || !c.OptionsForBackfill || !c.AutoBackfill {
		t.Errorf("options = %+v", c.Options)
	}

	level := c.Comparisons[0]
	if !level.Holds(10, 0) || level.Holds(7, 59*time.Second) || !level.Holds(7, time.Minute) {
		t.Error("level >= 10, relaxed to 5 at 60 s")
	}
	if c.Comparisons[1].Value != nil || c.Comparisons[1].Threshold != nil {
		t.Error("a comparison without a value compares tickets with each other")
	}

	langs, dlc := c.Collections[0], c.Collections[1]
	if langs.Scope != ScopeTeam || langs.MinCount.At(0) != 1 || langs.MaxCount != -1 {
		t.Errorf("languages = %+v", langs)
	}
	if dlc.Scope != ScopeMatch || dlc.Value != "season_pass" || dlc.MinCount != nil {
		t.Errorf("dlcs = %+v", dlc)
	}

	team := c.Teams[0]
	if team.PartyAggregate != AggregateMax || team.MaxDifference.At(0) != 50 || team.MaxDifference.At(45*time.Second) != 100 || team.MaxDifference.Final() != 200 {
		t.Errorf("team rule = %+v", team)
	}

	total := c.Totals[0]
	if total.Min.At(0) != 1000 || total.Min.At(40*time.Second) != 500 || total.Max.At(time.Hour) != 5000 {
		t.Errorf("match total = %+v", total)
	}

	if c.Roles.Attribute != KeyRole || c.Roles.Quotas[2].Max != 3 || c.Roles.Quotas[2].Min.At(0) != 0 ||
		c.Roles.Quotas[1].Min.At(119*time.Second) != 1 || c.Roles.Quotas[1].Min.At(120*time.Second) != 0 {
		t.Errorf("roles = %+v", c.Roles)
	}
	if *c.CrossPlay != (CrossPlayKeys{Accepted: KeyCrossPlatform, Current: KeyCurrentPlatform}) {
		t.Errorf("cross-play = %+v", c.CrossPlay)
	}
	if len(c.Filters) != 2 || c.Filters[0].DisableAfter != 45*time.Second || c.Filters[1].DisableAfter != 0 {
		t.Errorf("filters = %+v", c.Filters)
	}
	if len(c.Scores) != 1 || c.Scores[0].Scope != ExprMatch || c.Scores[0].Weight != 0.5 {
		t.Errorf("scores = %+v", c.Scores)
	}
}

func TestCompileTotalsUnbounded(t *testing.T) {
	lo := 3.0
	c, err := Compile(&Ruleset{
		Alliance:   Alliance{MinNumber: 1, MaxNumber: 1, PlayerMinNumber: 2, PlayerMaxNumber: 4},
		MatchTotal: []MatchTotalRule{{Attribute: "power", Aggregate: AggregateAvg, Min: &lo}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Totals[0].Max.At(0); !math.IsInf(got, 1) {
		t.Errorf("missing max = %v, want +Inf", got)
	}
}

func TestCompileRefusesInvalid(t *testing.T) {
	_, err := Compile(&Ruleset{})
	if err == nil {
		t.Fatal("an empty ruleset compiled")
	}
	if _, ok := err.(Problems); !ok {
		t.Fatalf("error is %T", err)
	}
}

func TestCheckText(t *testing.T) {
	if got := CheckText("ok.json", []byte(with(""))); got != "" {
		t.Errorf("valid ruleset: %q", got)
	}
	got := FormatProblems("x.json", Problems{{Path: "a.b", Line: 3, Column: 4, Message: "m"}, {Message: "no place"}, {Path: "c", Message: "d"}})
	want := "x.json:3:4: a.b: m\nx.json: no place\nx.json: c: d\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
