package ruleset

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// The two players of the bidirectional walk-through of AccelByte's match
// rulesets.
var (
	seedPlayer1 = map[string]int32{"us-east-1": 50, "us-east-2": 50, "us-west-2": 80, "eu-west-1": 100, "eu-central-1": 102, "ap-southeast-1": 200}
	seedPlayer2 = map[string]int32{"us-east-1": 150, "us-east-2": 100, "us-west-2": 122, "eu-west-1": 30, "eu-central-1": 55, "ap-southeast-1": 200}
)

// TestSeedRegionExpansion replays the example of AccelByte's match rulesets:
// initial range 30 ms, +50 ms every 10 s, at most 350 ms, matchmaking ticking
// every 10 s. Player 1 reaches eu-west-1 and eu-central-1 at the third
// expansion, at 130 ms.
func TestSeedRegionExpansion(t *testing.T) {
	c := loadFile(t, "testdata/accelbyte/10_bidirectional.json")
	l := c.Latency

	var ranges []int
	for tick := range 4 {
		ranges = append(ranges, c.LatencyRangeAt(time.Duration(tick)*10*time.Second))
	}
	if want := []int{30, 80, 130, 180}; !reflect.DeepEqual(ranges, want) {
		t.Fatalf("ranges at the first four ticks = %v, want %v", ranges, want)
	}

	europe := func(wait time.Duration) bool {
		return l.Accepts(int(seedPlayer1["eu-west-1"]), wait) && l.Accepts(int(seedPlayer1["eu-central-1"]), wait)
	}
	if europe(10 * time.Second) {
		t.Error("player 1 reaches Europe at the second expansion (80 ms)")
	}
	if !europe(20 * time.Second) {
		t.Error("player 1 does not reach Europe at the third expansion (130 ms)")
	}
	if got, want := l.RegionsAt(seedPlayer1, 20*time.Second), []string{"eu-central-1", "eu-west-1", "us-east-1", "us-east-2", "us-west-2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("player 1 regions at 20 s = %v, want %v", got, want)
	}
	// Player 2 starts in eu-west-1 (30 ms is within the initial range).
	if got, want := l.RegionsAt(seedPlayer2, 0), []string{"eu-west-1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("player 2 regions at 0 s = %v, want %v", got, want)
	}
	if !l.Bidirectional(time.Hour) {
		t.Error("bidirectional check is off without disable_bidirectional_latency_after_ms")
	}
}

// TestSeedRegionExpansionFirstExample: "two players each with 90 ms wait 10
// seconds (the first expansion)", and one above 200 ms never matches.
func TestSeedRegionExpansionFirstExample(t *testing.T) {
	c := loadFile(t, "testdata/accelbyte/09_region_expansion.json")
	l := c.Latency
	if l.Accepts(90, 9999*time.Millisecond) || !l.Accepts(90, 10*time.Second) {
		t.Error("90 ms must be accepted from 10 s on, not before")
	}
	if !l.Accepts(49, 0) {
		t.Error("49 ms must be accepted at once")
	}
	if l.Accepts(201, 24*time.Hour) {
		t.Error("201 ms accepted although the maximum is 200")
	}
	if l.CanEverMatch(map[string]int32{"ap": 201, "eu": 250}) {
		t.Error("a player above the maximum everywhere can never match")
	}
	if !l.CanEverMatch(map[string]int32{"ap": 201, "eu": 200}) {
		t.Error("a player at the maximum somewhere can match")
	}
	if l.CanEverMatch(nil) {
		t.Error("a ticket without latencies cannot match when latency rules are on")
	}
}

func TestLatencyRange(t *testing.T) {
	l := Latency{Enabled: true, InitialMs: 30, StepMs: 50, RateMs: 10000, MaxMs: 350, BidirectionalUntil: time.Minute}
	tests := []struct {
		wait time.Duration
		want int
		next time.Duration
		ok   bool
	}{
		{0, 30, 10 * time.Second, true},
		{-time.Second, 30, 10 * time.Second, true},
		{9 * time.Second, 30, 10 * time.Second, true},
		{10 * time.Second, 80, 20 * time.Second, true},
		{50 * time.Second, 280, time.Minute, true},
		{time.Minute, 330, 70 * time.Second, true},
		{70 * time.Second, 350, 0, false},
		{1000 * time.Hour, 350, 0, false},
		{time.Duration(1<<63 - 1), 350, 0, false},
	}
	for _, tt := range tests {
		if got := l.RangeAt(tt.wait); got != tt.want {
			t.Errorf("RangeAt(%v) = %d, want %d", tt.wait, got, tt.want)
		}
		next, ok := l.nextChange(tt.wait)
		if next != tt.next || ok != tt.ok {
			t.Errorf("nextChange(%v) = %v, %v; want %v, %v", tt.wait, next, ok, tt.next, tt.ok)
		}
	}
	if !l.Bidirectional(59*time.Second) || l.Bidirectional(time.Minute) {
		t.Error("bidirectional check must hold before 60 s and stop at 60 s")
	}
}

func TestLatencyOff(t *testing.T) {
	c := loadFile(t, "testdata/accelbyte/01_team.json")
	if c.Latency.Enabled {
		t.Fatal("latency enabled without region_latency_max_ms")
	}
	if !c.Latency.Accepts(5000, 0) || !c.Latency.CanEverMatch(nil) {
		t.Error("with latency rules off, every region is accepted")
	}
	if _, ok := c.NextChange(0); ok {
		t.Error("a ruleset without flexing reports a change")
	}
}

// TestLatencyMaxOnly: a ruleset with only region_latency_max_ms accepts
// every region up to the maximum from the start.
func TestLatencyMaxOnly(t *testing.T) {
	l := Latency{Enabled: true, MaxMs: 120}
	if l.RangeAt(0) != 120 || !l.Accepts(120, 0) || l.Accepts(121, time.Hour) {
		t.Errorf("range %d", l.RangeAt(0))
	}
	if _, ok := l.nextChange(0); ok {
		t.Error("a fixed range reports a change")
	}
}

func TestLatencyFlexing(t *testing.T) {
	// FlexMatch's uneven expansions: 50 ms, 100 ms after 10 s, 300 ms after
	// 15 s, capped by the maximum.
	c, err := Load([]byte(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"region_latency_initial_range_ms": 50, "region_latency_max_ms": 250,
		"region_latency_flexing": [{"duration": 10, "value": 100}, {"duration": 15, "value": 300}]}`))
	if err == nil {
		t.Fatal("a step above region_latency_max_ms loaded")
	}
	c, err = Load([]byte(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"region_latency_initial_range_ms": 50, "region_latency_max_ms": 300,
		"region_latency_flexing": [{"duration": 10, "value": 100}, {"duration": 15, "value": 300}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		wait time.Duration
		want int
	}{{0, 50}, {9999 * time.Millisecond, 50}, {10 * time.Second, 100}, {14 * time.Second, 100}, {15 * time.Second, 300}, {time.Hour, 300}} {
		if got := c.LatencyRangeAt(tc.wait); got != tc.want {
			t.Errorf("range at %v = %d, want %d", tc.wait, got, tc.want)
		}
	}
	for _, tc := range []struct {
		wait, next time.Duration
		ok         bool
	}{{0, 10 * time.Second, true}, {10 * time.Second, 15 * time.Second, true}, {15 * time.Second, 0, false}} {
		if next, ok := c.NextChange(tc.wait); next != tc.next || ok != tc.ok {
			t.Errorf("NextChange(%v) = %v, %v; want %v, %v", tc.wait, next, ok, tc.next, tc.ok)
		}
	}
	if got := problemsOf(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}, "region_latency_spread_ms": 30}`); len(got) != 1 ||
		!strings.HasPrefix(got[0], "region_latency_max_ms: required") {
		t.Errorf("a spread without a maximum: %q", got)
	}
	for _, tc := range []struct{ extra, want string }{
		{`"region_expansion_range_ms": 10, "region_expansion_rate_ms": 1000,`, "region_latency_flexing: replaces region_expansion_range_ms and region_expansion_rate_ms: give one or the other"},
		{`"region_latency_initial_range_ms": 0,`, "region_latency_initial_range_ms: required by region_latency_flexing: the range before the first step"},
	} {
		src := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}, ` + tc.extra +
			` "region_latency_max_ms": 300, "region_latency_flexing": [{"duration": 10, "value": 100}]}`
		if !strings.Contains(strings.Join(problemsOf(t, src), "\n"), tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.extra, problemsOf(t, src), tc.want)
		}
	}
}
