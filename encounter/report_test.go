package encounter

import (
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

func TestReports(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	rules := ReportRules{Thresholds: map[string]int{"cheating": 2, "griefing": 3}, Within: time.Hour}
	if err := rules.Check(); err != nil {
		t.Fatal(err)
	}
	es, _ := Meeting{Mode: ModeQueue, Place: "duel", Ref: "m1", At: t0, Teams: [][]string{{"ann"}, {"bob"}}}.Encounters()
	h := es[:1] // ann's
	for _, tc := range []struct {
		name, player, ref, reason string
		at                        time.Duration
		code                      cupid.Code
		field                     string
	}{
		{"unknown reason", "bob", "m1", "rudeness", 0, cupid.CodeInvalid, "reason"},
		{"not met there", "bob", "m2", "cheating", 0, cupid.CodeNotFound, "ref"},
		{"someone else", "cat", "m1", "cheating", 0, cupid.CodeNotFound, "ref"},
		{"himself", "ann", "m1", "cheating", 0, cupid.CodeInvalid, "other_id"},
		{"too late", "bob", "m1", "cheating", 2 * time.Hour, cupid.CodeConflict, "ref"},
	} {
		_, err := NewReport(h, rules, "ann", tc.player, tc.ref, tc.reason, "", t0.Add(tc.at))
		if ce, ok := err.(*cupid.Error); !ok || ce.Code != tc.code || ce.Field != tc.field {
			t.Errorf("%s: %v, want %s on %s", tc.name, err, tc.code, tc.field)
		}
	}
	r, err := NewReport(h, rules, "ann", "bob", "m1", "cheating", "aimbot", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	reports := []Report{r, r, {Reporter: "cat", Reason: "cheating", At: t0.Add(-2 * time.Hour)}, {Reporter: "dan", Reason: "griefing", At: t0}}
	if n := rules.Reporters(reports, "cheating", t0.Add(time.Minute)); n != 1 {
		t.Fatalf("cheating reporters %d, want 1 (one reporter twice, one too old)", n)
	}
	if !rules.Crossed("cheating", 1, 2) || rules.Crossed("cheating", 2, 3) || rules.Crossed("griefing", 1, 2) {
		t.Fatal("Crossed")
	}
	for _, bad := range []ReportRules{
		{Thresholds: map[string]int{"x": 0}, Within: time.Hour},
		{Thresholds: map[string]int{"": 1}, Within: time.Hour},
		{Thresholds: map[string]int{"x": 1}},
	} {
		if bad.Check() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
