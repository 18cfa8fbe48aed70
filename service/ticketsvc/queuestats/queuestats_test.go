package queuestats

import (
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// The recorder's memory is fixed: keys past keptKeys fold into one row per
// queue, and the recent matches and samples are rings.
func TestStatisticsAreBounded(t *testing.T) {
	r := New()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 3 * keptKeys {
		key := cupid.QueueKey{Queue: "q", Version: string(rune('a'+i%26)) + string(rune('a'+i/26))}
		m := &cupid.Match{ID: key.Version, Teams: []cupid.Team{{TicketIDs: []string{"t"}, PlayerIDs: []string{"p"}}}}
		r.Matched(key, m, []time.Duration{time.Second}, now)
	}
	if len(r.keys) != keptKeys || len(r.others) != 1 {
		t.Fatalf("%d rows and %d other rows for %d keys, want %d and 1", len(r.keys), len(r.others), 3*keptKeys, keptKeys)
	}
	other := r.others["q"]
	if other == nil || sum(other.matMin.series(now.Unix()/60)) != 2*keptKeys {
		t.Fatalf("the other-keys row does not count the rest")
	}
	if r.count != keptRecent {
		t.Fatalf("%d recent matches kept", r.count)
	}
	for range 2 * keptWaits {
		r.Matched(cupid.QueueKey{Queue: "q", Version: "aa"}, &cupid.Match{}, []time.Duration{0, -1}, now)
	}
	w, _ := summarize([]*keyStats{r.keys[cupid.QueueKey{Queue: "q", Version: "aa"}]}, 0)
	if w.Samples != keptWaits {
		t.Fatalf("%d waits kept, want %d", w.Samples, keptWaits)
	}
}

func TestArrivalsSpreadOverTheSecondsBetweenSamples(t *testing.T) {
	for _, c := range []struct {
		name     string
		from, to int64
		n        uint64
		want     []int // the last len(want) seconds up to to
	}{
		{"one second", 100, 101, 5, []int{0, 5}},
		{"evenly", 100, 104, 8, []int{0, 2, 2, 2, 2}},
		{"rounded, adding up", 100, 103, 4, []int{0, 1, 1, 2}},
		{"fewer than seconds", 100, 104, 2, []int{0, 0, 1, 0, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f queueFlows
			f.spread(c.from, c.to, c.n)
			got := f.arrSec.series(c.to)
			got = got[len(got)-len(c.want):]
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
	// A gap of days is spread over its last hour only: one a second.
	var f queueFlows
	f.spread(0, 10*86400, 3600)
	if got := f.arrSec.series(10 * 86400); sum(got) != 60 || slices.Max(got) != 1 {
		t.Fatalf("the last minute holds %v", got)
	}
}

func TestPercentiles(t *testing.T) {
	vals := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		p    float64
		want float64
	}{{0.5, 5}, {0.9, 9}, {0.99, 10}, {0.01, 1}} {
		if got := percentile(vals, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p*100, got, c.want)
		}
	}
}
