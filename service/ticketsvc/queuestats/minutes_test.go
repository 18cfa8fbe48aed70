package queuestats

import (
	"fmt"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Minutes gives each whole minute's own figures, from every key of the
// queue, leaving out empty minutes and the minute not yet over.
func TestMinutes(t *testing.T) {
	r := New()
	t0 := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	match := func(key cupid.QueueKey, at time.Time, score float64, waits ...time.Duration) {
		r.Matched(key, &cupid.Match{Quality: cupid.Quality{Score: score}}, waits, at)
	}
	duel, duelEU := cupid.QueueKey{Queue: "duel"}, cupid.QueueKey{Queue: "duel", Custom: "eu"}
	r.Arrivals(map[string]float64{"duel": 0}, t0)
	r.Arrivals(map[string]float64{"duel": 4}, t0.Add(time.Second)) // 4 arrivals in minute 0
	match(duel, t0.Add(10*time.Second), 0.8, 10*time.Second, 20*time.Second)
	match(duelEU, t0.Add(50*time.Second), 0.4, 30*time.Second, -1)
	match(duel, t0.Add(2*time.Minute+5*time.Second), 1, time.Second) // minute 2
	match(duel, t0.Add(3*time.Minute), 1, time.Second)               // minute 3, not over
	match(cupid.QueueKey{Queue: "squad"}, t0.Add(5*time.Second), 0.5, time.Second)

	got := r.Minutes("duel", t0, t0.Add(3*time.Minute))
	var lines []string
	for _, m := range got {
		lines = append(lines, fmt.Sprintf("%s a%d m%d w%d p50=%g p90=%g q%d=%.2f", m.At.Format("15:04"), m.Arrivals, m.Matches, m.Waited, m.P50, m.P90, m.Scored, m.Quality))
	}
	want := []string{
		"03:04 a4 m2 w3 p50=20 p90=30 q2=0.60",
		"03:06 a0 m1 w1 p50=1 p90=1 q1=1.00",
	}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Fatalf("minutes\n%v\nwant\n%v", lines, want)
	}
	// A from inside a minute starts with the next whole one.
	if got := r.Minutes("duel", t0.Add(time.Second), t0.Add(3*time.Minute)); len(got) != 1 || !got[0].At.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("from mid-minute: %+v", got)
	}
	if got := r.Minutes("nope", t0, t0.Add(time.Hour)); len(got) != 0 {
		t.Fatalf("an unknown queue: %+v", got)
	}
}
