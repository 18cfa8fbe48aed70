package queuestats

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/waitest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// reportText writes a report compactly, one line a queue and one a key
// row, the per-minute series as "minutes ago:count" for the minutes that
// count something.
func reportText(qs []QueueStats) string {
	var b strings.Builder
	row := func(indent string, k KeyStats) {
		fmt.Fprintf(&b, "%s%s waiting=%d players=%d oldest=%gs v%d matches=%d%s", indent, k.Key, k.Waiting, k.Players,
			k.OldestWait, k.RulesetVersion, k.Matches.LastMinute, perMinute(k.Matches.PerMinute))
		fmt.Fprintf(&b, " wait{n=%d p50=%g p90=%g p99=%g max=%g}", k.Wait.Samples, k.Wait.P50, k.Wait.P90, k.Wait.P99, k.Wait.Max)
		fmt.Fprintf(&b, " quality{n=%d mean=%.3f bins=%v", k.Quality.Matches, k.Quality.Mean, k.Quality.Bins)
		for _, p := range k.Quality.Parts {
			fmt.Fprintf(&b, " %s:n=%d,mean=%.3f,bins=%v", p.Name, p.Matches, p.Mean, p.Bins)
		}
		b.WriteString("}")
		if e := k.Estimate; e != nil {
			fmt.Fprintf(&b, " estimate{expected=%g low=%g", e.Expected, e.Low)
			if e.High != nil {
				fmt.Fprintf(&b, " high=%g", *e.High)
			}
			fmt.Fprintf(&b, " coverage=%g samples=%d}", e.Coverage, e.Samples)
		}
		b.WriteString("\n")
	}
	for _, q := range qs {
		fmt.Fprintf(&b, "== %s arrivals=%d%s\n", q.Queue, q.Arrivals.LastMinute, perMinute(q.Arrivals.PerMinute))
		row("", q.KeyStats)
		for _, k := range q.Keys {
			row("  ", k)
		}
	}
	return b.String()
}

func perMinute(series []int) string {
	var parts []string
	for i, n := range series {
		if n != 0 {
			parts = append(parts, fmt.Sprintf("%d:%d", len(series)-1-i, n))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal([]byte(got), want) {
		t.Errorf("the report differs from %s (run with -update and read the diff):\n%s", path, got)
	}
}

// Report gives each named queue (in the order named) its arrivals,
// matches, waits and quality over the window, its keys' rows sorted by
// name, pool-only keys with a row of their own, and a queue whose only key
// is its plain one without a key row. Matches older than the window count
// in no wait or quality; the figures of one queue never leak into another.
// See testdata/report.golden.
func TestReport(t *testing.T) {
	r := New()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	duel, duelEU, duelNA := cupid.QueueKey{Queue: "duel"}, cupid.QueueKey{Queue: "duel", Custom: "eu"}, cupid.QueueKey{Queue: "duel", Custom: "na"}
	squad := cupid.QueueKey{Queue: "squad"}
	match := func(key cupid.QueueKey, at time.Time, score float64, parts cupid.QualityParts, waits ...time.Duration) {
		r.Matched(key, &cupid.Match{ID: key.String(), Quality: cupid.Quality{Score: score, Parts: parts}}, waits, at)
	}
	// Two hours ago: outside every window.
	match(duel, now.Add(-2*time.Hour), 0.05, nil, time.Hour)
	match(duel, now.Add(-30*time.Minute), 0.75, cupid.QualityParts{{Name: "mmr", Score: 0.5}, {Name: "region", Score: 1}}, 10*time.Second, 20*time.Second)
	match(duel, now.Add(-10*time.Second), 1, cupid.QualityParts{{Name: "mmr", Score: 1}}, 40*time.Second, -1)
	match(duelEU, now.Add(-5*time.Second), 0.31, nil, 5*time.Second)
	// Scores out of range go to the end bins.
	match(squad, now.Add(-2*time.Minute), 0.2, nil, time.Second)
	match(squad, now.Add(-2*time.Minute), -0.5, nil)
	match(squad, now.Add(-time.Minute), 1.5, cupid.QualityParts{{Name: "roles", Score: 2}})
	r.Arrivals(map[string]float64{"duel": 10, "squad": 0}, now.Add(-3*time.Minute))
	r.Arrivals(map[string]float64{"duel": 16, "squad": 2}, now.Add(-2*time.Minute))
	r.Arrivals(map[string]float64{"duel": 19}, now.Add(-2*time.Minute)) // the same second grows
	pools := []Pool{
		{Key: duel, Waiting: 2, Players: 2, OldestWait: 30 * time.Second, RulesetVersion: 4},
		{Key: duelNA, Waiting: 1, Players: 1, OldestWait: 50 * time.Second, RulesetVersion: 4},
		{Key: squad, Waiting: 3, Players: 7, OldestWait: 12 * time.Second, RulesetVersion: 3},
		{Key: cupid.QueueKey{Queue: "brawl"}, Waiting: 4, Players: 4, OldestWait: time.Second, RulesetVersion: 1},
		{Key: cupid.QueueKey{Queue: "unnamed"}, Waiting: 9, Players: 9},
	}
	all := r.Report([]string{"duel", "squad", "brawl", "idle"}, "", pools, now)
	golden(t, "report.golden", reportText(all))

	if got := r.Report([]string{"duel", "squad"}, "squad", pools, now); len(got) != 1 || got[0].Queue != "squad" {
		t.Fatalf("only squad: %s", reportText(got))
	} else if reportText(got) != reportText(all[1:2]) {
		t.Fatalf("only squad differs from its row in the full report:\n%s", reportText(got))
	}
	if got := r.Report([]string{"duel"}, "squad", pools, now); len(got) != 0 {
		t.Fatalf("only a queue not named: %s", reportText(got))
	}
	// A queue's row of its keys past keptKeys is named as such, and its
	// matches count in the queue's.
	r = New()
	for i := range keptKeys + 2 {
		r.Matched(cupid.QueueKey{Queue: "wide", Version: fmt.Sprint(i)}, &cupid.Match{}, nil, now)
	}
	wide := r.Report([]string{"wide"}, "", nil, now)[0]
	i := slices.IndexFunc(wide.Keys, func(k KeyStats) bool { return k.Key == "wide"+otherKeys })
	if len(wide.Keys) != keptKeys+1 || i < 0 || wide.Keys[i].Matches.LastMinute != 2 || wide.Matches.LastMinute != keptKeys+2 {
		t.Fatalf("%d rows, the other keys' at %d; the queue's matches %d", len(wide.Keys), i, wide.Matches.LastMinute)
	}
}

// bin puts scores outside [0, 1], and those that are not numbers, in the
// end bins rather than out of the slice.
func TestBin(t *testing.T) {
	for _, c := range []struct {
		score float64
		want  int
	}{
		{0, 0}, {0.0999, 0}, {0.1, 1}, {0.55, 5}, {0.99, 9}, {1, 9}, {1.5, 9}, {math.Inf(1), 0},
		{-0.1, 0}, {math.Inf(-1), 0}, {math.NaN(), 0},
	} {
		if got := bin(c.score); got != c.want {
			t.Errorf("bin(%v) = %d, want %d", c.score, got, c.want)
		}
	}
}

// Estimate rests on the key's last Window of tickets, matched and left:
// none for a thin history, the one a key past keptKeys shares with its
// queue's other keys, and tickets that left unmatched lengthen it.
func TestEstimate(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	key := cupid.QueueKey{Queue: "duel"}
	matchN := func(r *Recorder, key cupid.QueueKey, n int, wait time.Duration, at time.Time) {
		for range n {
			r.Matched(key, &cupid.Match{}, []time.Duration{wait}, at)
		}
	}
	for _, c := range []struct {
		name    string
		fill    func(r *Recorder)
		key     cupid.QueueKey
		age     time.Duration
		ok      bool
		samples int
		want    time.Duration // the expected wait, when ok
	}{
		{"no history", func(r *Recorder) {}, key, 0, false, 0, 0},
		{"one short", func(r *Recorder) { matchN(r, key, waitest.MinSamples-1, 10*time.Second, now) }, key, 0, false, waitest.MinSamples - 1, 0},
		{"enough", func(r *Recorder) { matchN(r, key, waitest.MinSamples, 10*time.Second, now) }, key, 0, true, waitest.MinSamples, 10 * time.Second},
		{"aged: what is left to wait", func(r *Recorder) { matchN(r, key, waitest.MinSamples, 10*time.Second, now) }, key, 4 * time.Second, true, waitest.MinSamples, 6 * time.Second},
		{"older than the window", func(r *Recorder) {
			matchN(r, key, waitest.MinSamples, 10*time.Second, now.Add(-Window-time.Second))
		}, key, 0, false, 0, 0},
		{"another key's history", func(r *Recorder) {
			matchN(r, cupid.QueueKey{Queue: "duel", Custom: "eu"}, waitest.MinSamples, 10*time.Second, now)
		}, key, 0, false, 0, 0},
		{"left tickets count as still waiting", func(r *Recorder) {
			matchN(r, key, waitest.MinSamples/2, 10*time.Second, now)
			matchN(r, key, waitest.MinSamples/2, 30*time.Second, now)
			for range waitest.MinSamples {
				r.Left(key, 20*time.Second, now)
			}
			r.Left(key, -time.Second, now) // clamped to 0: a departure at once
		}, key, 0, true, waitest.MinSamples*2 + 1, 30 * time.Second},
		{"a key past keptKeys shares its queue's other row", func(r *Recorder) {
			for i := range keptKeys {
				r.Matched(cupid.QueueKey{Queue: "wide", Version: fmt.Sprint(i)}, &cupid.Match{}, nil, now)
			}
			matchN(r, cupid.QueueKey{Queue: "wide", Version: "a"}, waitest.MinSamples/2, 10*time.Second, now)
			matchN(r, cupid.QueueKey{Queue: "wide", Version: "b"}, waitest.MinSamples/2, 10*time.Second, now)
		}, cupid.QueueKey{Queue: "wide", Version: "c"}, 0, true, waitest.MinSamples, 10 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := New()
			c.fill(r)
			e, ok := r.Estimate(c.key, c.age, now)
			if ok != c.ok || e.Samples != c.samples || (ok && e.Expected != c.want) {
				t.Fatalf("got %+v, %v; want ok=%v samples=%d expected=%v", e, ok, c.ok, c.samples, c.want)
			}
		})
	}
}

// View turns an estimate into seconds and leaves out an upper end that is
// not known rather than show a zero.
func TestView(t *testing.T) {
	known := View(waitest.Estimate{Expected: 1500 * time.Millisecond, Low: time.Second, High: 4 * time.Second, HighKnown: true, Coverage: 0.8, Samples: 30})
	if known.Expected != 1.5 || known.Low != 1 || known.High == nil || *known.High != 4 || known.Coverage != 0.8 || known.Samples != 30 {
		t.Fatalf("known: %+v", known)
	}
	if unknown := View(waitest.Estimate{Expected: time.Second, High: 4 * time.Second}); unknown.High != nil {
		t.Fatalf("an unknown high shows as %v", *unknown.High)
	}
}

// Due says yes once a second, whatever the number of callers in it.
func TestDue(t *testing.T) {
	r := New()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, c := range []struct {
		at   time.Time
		want bool
	}{
		{t0, true},
		{t0.Add(300 * time.Millisecond), false},
		{t0.Add(999 * time.Millisecond), false},
		{t0.Add(time.Second), true},
		{t0.Add(time.Second), false},
		{t0, true}, // the clock stepped back: another second
	} {
		if got := r.Due(c.at); got != c.want {
			t.Fatalf("call %d at %v: Due = %v, want %v", i, c.at.Format(time.StampMilli), got, c.want)
		}
	}
}

// Arrivals takes a counter that only grows: the first count is a
// baseline, growth within one second counts in that second, and a count
// that went down or a clock that went back changes nothing.
func TestArrivals(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	type sample struct {
		after time.Duration
		count float64
	}
	for _, c := range []struct {
		name    string
		samples []sample
		want    int // the arrivals of the minute before t0+2m
	}{
		{"the first count is a baseline", []sample{{0, 50}}, 0},
		{"growth", []sample{{0, 50}, {10 * time.Second, 56}}, 6},
		{"growth within the second", []sample{{0, 50}, {10 * time.Second, 56}, {10*time.Second + 500*time.Millisecond, 59}}, 9},
		{"the same count twice in a second", []sample{{0, 50}, {10 * time.Second, 56}, {10 * time.Second, 56}}, 6},
		{"a count that went down", []sample{{0, 50}, {10 * time.Second, 40}, {20 * time.Second, 45}}, 0},
		{"then grows past the old count", []sample{{0, 50}, {10 * time.Second, 40}, {20 * time.Second, 52}}, 2},
		{"a clock that went back", []sample{{0, 50}, {10 * time.Second, 56}, {5 * time.Second, 70}}, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := New()
			for _, s := range c.samples {
				r.Arrivals(map[string]float64{"duel": s.count}, t0.Add(s.after))
			}
			q := r.Report([]string{"duel"}, "", nil, t0.Add(59*time.Second))[0]
			if q.Arrivals.LastMinute != c.want || sum(q.Arrivals.PerMinute) != c.want {
				t.Fatalf("arrivals %d in the last minute, %v per minute; want %d", q.Arrivals.LastMinute, q.Arrivals.PerMinute, c.want)
			}
		})
	}
}

// Recent lists the kept matches newest first, filtered by queue and by a
// ticket or player id, at most limit; each as a copy with its teams split
// as they were and the waits of the tickets whose wait was known.
func TestRecent(t *testing.T) {
	r := New()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	roles := map[string]string{"ann": "tank", "bob": "healer"}
	parts := cupid.QualityParts{{Name: "mmr", Score: 0.9}}
	m1 := &cupid.Match{ID: "m1", Region: "eu", Quality: cupid.Quality{Score: 0.9, Parts: parts}, Roles: roles, Teams: []cupid.Team{
		{TicketIDs: []string{"t1"}, PlayerIDs: []string{"ann", "amy"}},
		{TicketIDs: []string{"t2", "t3"}, PlayerIDs: []string{"bob", "ben"}},
	}}
	r.Matched(cupid.QueueKey{Queue: "duel", Custom: "eu"}, m1, []time.Duration{time.Second, -1}, t0) // t3's wait is missing
	// What the caller does with its match afterwards changes nothing kept.
	roles["ann"], parts[0].Score, m1.Teams[0].PlayerIDs[0] = "dps", 0, "zed"
	r.Matched(cupid.QueueKey{Queue: "squad"}, &cupid.Match{ID: "m2", Teams: []cupid.Team{{TicketIDs: []string{"t4"}, PlayerIDs: []string{"cat"}}}}, nil, t0.Add(time.Second))
	r.Matched(cupid.QueueKey{Queue: "duel"}, &cupid.Match{ID: "m3", Teams: []cupid.Team{{TicketIDs: []string{"t5"}, PlayerIDs: []string{"ann"}}}}, []time.Duration{2 * time.Second}, t0.Add(2*time.Second))

	ids := func(ms []RecentMatch) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	for _, c := range []struct {
		queue, who string
		limit      int
		want       []string
	}{
		{"", "", 0, []string{"m3", "m2", "m1"}},
		{"", "", -1, []string{"m3", "m2", "m1"}},
		{"", "", 2, []string{"m3", "m2"}},
		{"duel", "", 0, []string{"m3", "m1"}},
		{"", "ann", 0, []string{"m3", "m1"}},
		{"", "t2", 0, []string{"m1"}},
		{"", "zed", 0, nil},
		{"squad", "ann", 0, nil},
		{"duel", "", 1, []string{"m3"}},
	} {
		if got := ids(r.Recent(c.queue, c.who, c.limit)); !slices.Equal(got, c.want) {
			t.Errorf("Recent(%q, %q, %d) = %v, want %v", c.queue, c.who, c.limit, got, c.want)
		}
	}
	got := r.Recent("", "t1", 0)
	if len(got) != 1 {
		t.Fatalf("t1's matches: %v", ids(got))
	}
	m := got[0]
	if m.Key != "duel#eu" || m.Queue != "duel" || !m.At.Equal(t0) || m.Score != 0.9 || m.Region != "eu" {
		t.Fatalf("m1 reads %+v", m)
	}
	if fmt.Sprint(m.Teams) != "[{[t1] [ann amy]} {[t2 t3] [bob ben]}]" {
		t.Fatalf("m1's teams: %v", m.Teams)
	}
	if fmt.Sprint(m.Waits) != "map[t1:1s]" || m.Roles["ann"] != "tank" || len(m.Parts) != 1 || m.Parts[0].Score != 0.9 {
		t.Fatalf("m1's waits %v, roles %v, parts %v", m.Waits, m.Roles, m.Parts)
	}
	// Nor does what a reader does with its copy.
	m.Teams[0].Players[0], m.Roles["ann"], m.Parts[0].Score = "x", "x", 0
	if again := r.Recent("", "t1", 0)[0]; again.Teams[0].Players[0] != "ann" || again.Roles["ann"] != "tank" || again.Parts[0].Score != 0.9 {
		t.Fatalf("a reader changed the kept match: %+v", again)
	}
	// A match without parts shows an empty list, not null.
	if m2 := r.Recent("squad", "", 0)[0]; m2.Parts == nil || len(m2.Waits) != 0 || m2.Roles != nil {
		t.Fatalf("m2 reads %+v", m2)
	}
	if got := New().Recent("", "", 0); got == nil || len(got) != 0 {
		t.Fatalf("an empty recorder's recent matches: %#v", got)
	}
}

// A queue's plain key has a row of its own as soon as the queue has
// another key, whether or not either matched yet and whatever the order
// the pools come in (the ticket service sorts them by key, the plain one
// first); alone, its row is the queue's.
func TestReportKeyRows(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	plain, eu := cupid.QueueKey{Queue: "duel"}, cupid.QueueKey{Queue: "duel", Custom: "eu"}
	for _, c := range []struct {
		name    string
		matched []cupid.QueueKey
		pools   []cupid.QueueKey
		want    string // the key rows with their waiting counts
	}{
		{"plain alone", nil, []cupid.QueueKey{plain}, "[]"},
		{"plain alone, matched", []cupid.QueueKey{plain}, []cupid.QueueKey{plain}, "[]"},
		{"plain first", nil, []cupid.QueueKey{plain, eu}, "[duel:1 duel#eu:2]"},
		{"plain last", nil, []cupid.QueueKey{eu, plain}, "[duel:1 duel#eu:2]"},
		{"plain first, matched", []cupid.QueueKey{plain}, []cupid.QueueKey{plain, eu}, "[duel:1 duel#eu:2]"},
		{"plain first, the other matched", []cupid.QueueKey{eu}, []cupid.QueueKey{plain, eu}, "[duel:1 duel#eu:2]"},
		{"plain matched, the other waiting", []cupid.QueueKey{plain}, []cupid.QueueKey{eu}, "[duel:0 duel#eu:2]"},
		{"the other alone", nil, []cupid.QueueKey{eu}, "[duel#eu:2]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := New()
			for _, k := range c.matched {
				r.Matched(k, &cupid.Match{}, nil, now)
			}
			var pools []Pool
			for _, k := range c.pools {
				n := 1
				if k.Custom != "" {
					n = 2
				}
				pools = append(pools, Pool{Key: k, Waiting: n, Players: n})
			}
			q := r.Report([]string{"duel"}, "", pools, now)[0]
			var rows []string
			for _, k := range q.Keys {
				rows = append(rows, fmt.Sprintf("%s:%d", k.Key, k.Waiting))
			}
			if got := "[" + strings.Join(rows, " ") + "]"; got != c.want {
				t.Fatalf("rows %s, want %s", got, c.want)
			}
		})
	}
}
