package rollout

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestInCanaryIsStableAndNearTheShare(t *testing.T) {
	for _, share := range []float64{0, 0.05, 0.1, 0.5, 1} {
		in := 0
		const n = 20000
		for i := range n {
			p := fmt.Sprintf("player-%d", i)
			got := InCanary("duel", p, share)
			if got != InCanary("duel", p, share) {
				t.Fatalf("player %s changed sides", p)
			}
			if got {
				in++
			}
		}
		frac := float64(in) / n
		if frac < share-0.01 || frac > share+0.01 {
			t.Errorf("share %v: %.3f of players in the canary", share, frac)
		}
	}
	// A player in a 10 % canary stays in it when the share grows.
	for i := range 1000 {
		p := fmt.Sprintf("p%d", i)
		if InCanary("duel", p, 0.1) && !InCanary("duel", p, 0.2) {
			t.Fatalf("player %s left the canary when its share grew", p)
		}
	}
}

func TestEvaluate(t *testing.T) {
	g := Guard{WaitMargin: 0.25, QualityMargin: 0.05, Window: 10 * time.Minute, MinSamples: 50}
	live := Figures{Samples: 100, Matches: 50, WaitP90: 20, MeanQuality: 0.8}
	tests := []struct {
		name     string
		g        Guard
		live     Figures
		canary   Figures
		rollback bool
		reason   string
	}{
		{"too few canary samples", g, live, Figures{Samples: 49, Matches: 25, WaitP90: 90, MeanQuality: 0.1}, false, "waiting for samples: 100 live and 49 canary"},
		{"too few live samples", g, Figures{Samples: 10, Matches: 5, WaitP90: 1}, Figures{Samples: 100, Matches: 50, WaitP90: 90}, false, "waiting for samples"},
		{"same", g, live, live, false, "within the guards"},
		{"wait at the margin", g, live, Figures{Samples: 60, Matches: 30, WaitP90: 25, MeanQuality: 0.8}, false, "within the guards"},
		{"wait past the margin", g, live, Figures{Samples: 60, Matches: 30, WaitP90: 25.1, MeanQuality: 0.8}, true, "wait p90 25.1s on the canary against 20.0s live: more than 25 % longer"},
		{"quality at the margin", g, live, Figures{Samples: 60, Matches: 30, WaitP90: 10, MeanQuality: 0.75}, false, "within the guards"},
		{"quality past the margin", g, live, Figures{Samples: 60, Matches: 30, WaitP90: 10, MeanQuality: 0.74}, true, "mean quality 0.740 on the canary against 0.800 live"},
		{"wait guard off", Guard{QualityMargin: 0.05, Window: time.Minute, MinSamples: 50}, live, Figures{Samples: 60, Matches: 30, WaitP90: 500, MeanQuality: 0.8}, false, "within the guards"},
		{"quality guard off", Guard{WaitMargin: 0.1, Window: time.Minute, MinSamples: 50}, live, Figures{Samples: 60, Matches: 30, WaitP90: 20, MeanQuality: 0}, false, "within the guards"},
		{"faster and better", g, live, Figures{Samples: 60, Matches: 30, WaitP90: 5, MeanQuality: 0.9}, false, "within the guards"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Evaluate(tt.g, tt.live, tt.canary)
			if v.Rollback != tt.rollback || !strings.Contains(v.Reason, tt.reason) {
				t.Errorf("got %v %q, want %v with %q", v.Rollback, v.Reason, tt.rollback, tt.reason)
			}
		})
	}
}

func TestGuardCheck(t *testing.T) {
	tests := []struct {
		g     Guard
		field string
	}{
		{DefaultGuard, ""},
		{Guard{WaitMargin: -1, Window: time.Minute, MinSamples: 1}, "wait_margin"},
		{Guard{QualityMargin: 2, Window: time.Minute, MinSamples: 1}, "quality_margin"},
		{Guard{WaitMargin: 1, Window: 0, MinSamples: 1}, "window"},
		{Guard{WaitMargin: 1, Window: 2 * time.Hour, MinSamples: 1}, "window"},
		{Guard{WaitMargin: 1, Window: time.Minute, MinSamples: 0}, "min_samples"},
		{Guard{WaitMargin: 1, Window: time.Minute, MinSamples: Kept + 1}, "min_samples"},
		{Guard{Window: time.Minute, MinSamples: 1}, "wait_margin"},
	}
	for _, tt := range tests {
		if f, _ := tt.g.Check(); f != tt.field {
			t.Errorf("%+v: field %q, want %q", tt.g, f, tt.field)
		}
	}
}

func TestRingFiguresOverAWindow(t *testing.T) {
	t0 := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	var r Ring
	r.Match(t0, 0.2, []time.Duration{100 * time.Second, 100 * time.Second}) // out of the window below
	for i := 1; i <= 10; i++ {
		r.Match(t0.Add(time.Duration(i)*time.Minute), 0.5+float64(i)/100, []time.Duration{time.Duration(i) * time.Second, -1})
	}
	f := r.Figures(t0)
	want := Figures{Samples: 10, Matches: 10, WaitP50: 5, WaitP90: 9, WaitP99: 10, MeanQuality: 0.555}
	if f.Samples != want.Samples || f.Matches != want.Matches || f.WaitP50 != want.WaitP50 || f.WaitP90 != want.WaitP90 ||
		f.WaitP99 != want.WaitP99 || f.MeanQuality < 0.5549 || f.MeanQuality > 0.5551 {
		t.Fatalf("got %+v, want %+v", f, want)
	}
	// The ring stays bounded: Kept more matches push the old ones out.
	for range Kept {
		r.Match(t0.Add(time.Hour), 1, []time.Duration{time.Second})
	}
	if f := r.Figures(t0); f.Samples != Kept || f.Matches != Kept || f.MeanQuality != 1 {
		t.Fatalf("after %d more: %+v", Kept, f)
	}
}

func TestSeriesAndSkillGap(t *testing.T) {
	t0 := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	var s Series
	for i := 1; i <= 4; i++ {
		s.Add(t0.Add(time.Duration(i)*time.Second), float64(i))
	}
	if got := s.Summary(t0.Add(time.Second)); got.Count != 3 || got.Mean != 3 || got.P50 != 3 || got.P99 != 4 {
		t.Fatalf("summary %+v", got)
	}
	if g, ok := SkillGap([]float64{1500, 1400, 1620}, true); !ok || g != 220 {
		t.Fatalf("gap %v %v", g, ok)
	}
	if _, ok := SkillGap([]float64{1}, false); ok {
		t.Fatal("a gap without every skill")
	}
}
