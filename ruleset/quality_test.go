package ruleset

import (
	"math"
	"testing"
	"time"
)

func TestQualityDefaults(t *testing.T) {
	c := loadFile(t, "testdata/accelbyte/01_team.json")
	q := c.Quality
	if q.SkillGap != DefaultSkillGapWeight || q.Ping != DefaultPingWeight || q.PingOkMs != DefaultPingOkMs ||
		q.WaitBad != DefaultWaitBadSeconds*time.Second || !q.Sqrt {
		t.Errorf("defaults = %+v", q)
	}
	full := loadFile(t, "testdata/cupid/full.json").Quality
	if full.PingBadMs != 180 || full.WaitBad != 90*time.Second || full.SkillAttribute != "mmr" || full.Weight("voice") != 0.5 {
		t.Errorf("full = %+v", full)
	}
}

// TestPingScoreIsNonLinear: the War Robots article on match quality asks
// whether 210→200 ms is worth as much as 110→100 ms; it is not.
func TestPingScoreIsNonLinear(t *testing.T) {
	q := Quality{PingOkMs: 50, PingBadMs: 300}
	tests := []struct {
		ms, want float64
	}{
		{0, 1}, {50, 1}, {300, 0}, {1000, 0}, {175, 0.25}, {math.NaN(), 0},
	}
	for _, tt := range tests {
		if got := q.PingScore(tt.ms); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("PingScore(%v) = %v, want %v", tt.ms, got, tt.want)
		}
	}
	low := q.PingScore(100) - q.PingScore(110)
	high := q.PingScore(200) - q.PingScore(210)
	if !(low > high && high > 0) {
		t.Errorf("110→100 gains %v, 210→200 gains %v: the first must gain more", low, high)
	}
	prev := 2.0
	for ms := 0.0; ms <= 320; ms += 5 {
		s := q.PingScore(ms)
		if s > prev {
			t.Fatalf("PingScore rises at %v ms", ms)
		}
		prev = s
	}
}

func TestWaitScore(t *testing.T) {
	q := Quality{WaitBad: 100 * time.Second}
	for _, tt := range []struct {
		wait time.Duration
		want float64
	}{{0, 1}, {-time.Second, 1}, {25 * time.Second, 0.75}, {100 * time.Second, 0}, {time.Hour, 0}} {
		if got := q.WaitScore(tt.wait); got != tt.want {
			t.Errorf("WaitScore(%v) = %v, want %v", tt.wait, got, tt.want)
		}
	}
}

// TestCombineFavoursFixingBadMatches: moving one criterion from 0.5 to 0.6
// while another falls from 0.9 to 0.8 is a tie for a plain average; with the
// War Robots article's square roots it is an improvement.
func TestCombineFavoursFixingBadMatches(t *testing.T) {
	q := Quality{SkillGap: 1, Ping: 1, Sqrt: true}
	before := map[string]float64{CriterionSkillGap: 0.5, CriterionPing: 0.9}
	after := map[string]float64{CriterionSkillGap: 0.6, CriterionPing: 0.8}
	if !(q.Combine(after) > q.Combine(before)) {
		t.Errorf("sqrt: %v after vs %v before", q.Combine(after), q.Combine(before))
	}
	q.Sqrt = false
	if math.Abs(q.Combine(after)-q.Combine(before)) > 1e-12 {
		t.Errorf("linear: %v after vs %v before, want a tie", q.Combine(after), q.Combine(before))
	}
}

func TestCombine(t *testing.T) {
	q := Quality{SkillGap: 3, Ping: 1, Wait: 0, scores: map[string]float64{"voice": 1}}
	tests := []struct {
		parts map[string]float64
		want  float64
	}{
		{nil, 1},
		{map[string]float64{CriterionSkillGap: 1, CriterionPing: 0}, 0.75},
		{map[string]float64{CriterionSkillGap: 1, CriterionWait: 0}, 1}, // zero weight ignored
		{map[string]float64{CriterionSkillGap: 2, "unknown": 0}, 1},     // clamped, unknown ignored
		{map[string]float64{"voice": 0, CriterionPing: math.NaN()}, 0},  // NaN scores 0
		{map[string]float64{"voice": 1, CriterionSkillGap: 0}, 0.25},
	}
	for _, tt := range tests {
		if got := q.Combine(tt.parts); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Combine(%v) = %v, want %v", tt.parts, got, tt.want)
		}
	}
}
