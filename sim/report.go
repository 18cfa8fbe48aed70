package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Ruleset is one ruleset a run plays, with the name the report gives it.
type Ruleset struct {
	Name     string
	Compiled *ruleset.Compiled
}

// LoadRuleset compiles a ruleset document for a run.
func LoadRuleset(name string, data []byte) (Ruleset, error) {
	rs, err := ruleset.Load(data)
	if err != nil {
		return Ruleset{}, err
	}
	return Ruleset{Name: name, Compiled: rs}, nil
}

// Config says what a run plays the players through.
type Config struct {
	// Rulesets are run one after the other on the same players; the first
	// one also sets the baselines' wait.
	Rulesets []Ruleset
	// Baselines adds FIFO and greedy runs.
	Baselines bool
	// Seed drives every random draw; the same seed gives the same report,
	// byte for byte.
	Seed uint64
	// TTL expires tickets, as a queue's ticket_ttl does (DefaultTTL when
	// 0).
	TTL time.Duration
	// Sample is the interval of the queue-size samples (5 minutes when 0).
	Sample time.Duration
	// SkillAttribute names the skill of recorded traffic (mmr when empty);
	// a population names its own.
	SkillAttribute string
	// Actual adds to a replay, first, the run of what really happened
	// (actual.go), when the traffic says it (a file with match lines).
	// cupid sim replay sets it unless --actual=false; callers that read
	// Runs[0] as the first ruleset leave it off.
	Actual bool
	// History, when set, fills the rulesets' tickets from an encounter
	// history and records their matches in it, as the server does for a
	// queue under encounters.queues (history.go); each ruleset's run
	// reports what it saw. Baselines run without it.
	History *History
}

func (c *Config) defaults() error {
	if len(c.Rulesets) == 0 {
		return cupid.Invalid("ruleset", "required: at least one ruleset to run")
	}
	if c.TTL == 0 {
		c.TTL = DefaultTTL
	}
	if c.TTL < time.Second {
		return cupid.Invalid("ttl", "must be at least 1s, not %v", c.TTL)
	}
	if c.Sample == 0 {
		c.Sample = 5 * time.Minute
	}
	if c.Sample < time.Second {
		return cupid.Invalid("sample", "must be at least 1s, not %v", c.Sample)
	}
	if c.SkillAttribute == "" {
		c.SkillAttribute = "mmr"
	}
	return nil
}

// Report is what a run tells: its input, then one entry per ruleset and
// baseline. It is the JSON report, and the HTML report is drawn from it
// alone.
type Report struct {
	Title  string  `json:"title"`
	Source string  `json:"source"`
	Seed   uint64  `json:"seed"`
	Hours  float64 `json:"hours"`
	TTL    float64 `json:"ttl_seconds"`
	// SampleSeconds is the interval between queue samples.
	SampleSeconds float64 `json:"sample_seconds"`
	Runs          []Run   `json:"runs"`
	// Histograms share their bins across runs, so they overlay.
	Histograms map[string]Histogram `json:"histograms"`
}

// Run is one ruleset's or baseline's result. Counts are players (a
// party of five counts five) unless they say tickets or matches.
type Run struct {
	Name string `json:"name"`
	// Kind is ruleset, fifo, greedy, or actual: what really happened to
	// replayed traffic (actual.go).
	Kind string `json:"kind"`
	// SameAsActual counts, in a replay that knows what really happened,
	// the ruleset's matches that put together exactly the tickets of a
	// real match.
	SameAsActual *int `json:"same_matches_as_actual,omitempty"`
	// HoldSeconds is how long a baseline let the oldest ticket wait before
	// matching it, chosen so that its median wait is the first ruleset's.
	HoldSeconds *float64 `json:"hold_seconds,omitempty"`

	Tickets   int `json:"tickets"`
	Arrived   int `json:"arrived"`
	Returned  int `json:"returned"`
	Matches   int `json:"matches"`
	Matched   int `json:"matched"`
	Abandoned int `json:"abandoned"`
	Expired   int `json:"expired"`
	Refused   int `json:"refused"`
	// WaitingAtEnd were still in the queue when the run ended.
	WaitingAtEnd int `json:"waiting_at_end"`
	// AbandonRate is (abandoned + expired) / arrived.
	AbandonRate float64 `json:"abandon_rate"`

	// Wait is per matched player, in seconds.
	Wait Summary `json:"wait_seconds"`
	// SkillGap is per match: its strongest player's skill minus its
	// weakest's.
	SkillGap *Summary `json:"skill_gap,omitempty"`
	// TeamBalance is per match of two or more teams: the strongest team's
	// mean skill minus the weakest's.
	TeamBalance *Summary `json:"team_balance,omitempty"`
	// Ping is per match: its players' mean latency to the hosting region,
	// in ms.
	Ping *Summary `json:"ping_ms,omitempty"`
	// Quality is the engine's score of each match, and QualityParts each
	// of its criteria (rulesets only).
	Quality      *Summary           `json:"quality,omitempty"`
	QualityParts map[string]Summary `json:"quality_parts,omitempty"`

	Hourly []Hour `json:"hourly"`
	// Queue is the number of players waiting at every sample.
	Queue    []int     `json:"queue"`
	Refusals []Refusal `json:"refusals,omitempty"`
	// Estimates is how well the server's wait estimates would have held
	// (estimates.go); absent when no ticket had enough history before it.
	Estimates *Calibration `json:"estimates,omitempty"`
	// History is what the encounter history saw, when the run had one
	// (Config.History).
	History *HistoryReport `json:"history,omitempty"`
}

// Summary describes a distribution.
type Summary struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P10   float64 `json:"p10"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// Hour is one hour of a run: players who arrived, were matched, gave up
// or expired in it, and the waits of those matched in it.
type Hour struct {
	Hour      int     `json:"hour"`
	Arrived   int     `json:"arrived"`
	Matched   int     `json:"matched"`
	Abandoned int     `json:"abandoned"`
	Expired   int     `json:"expired"`
	WaitP50   float64 `json:"wait_p50"`
	WaitP90   float64 `json:"wait_p90"`
}

// Refusal is a reason the matcher refused tickets and the players it
// refused for it.
type Refusal struct {
	Reason  string `json:"reason"`
	Players int    `json:"players"`
}

// Histogram counts values into bins [Edges[i], Edges[i+1]); the last bin
// also takes everything above. Counts has one row per run.
type Histogram struct {
	Edges  []float64 `json:"edges"`
	Counts [][]int   `json:"counts"`
}

// RunPopulation plays a population through every ruleset of cfg (and the
// baselines).
func RunPopulation(p *Population, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	mk := func() source { return newPopSource(p, cfg.Seed, cfg.TTL) }
	title := p.Name
	if title == "" {
		title = "population"
	}
	return play(title, fmt.Sprintf("population %q, %d players", title, p.Players), p.Hours, mk, cfg, nil)
}

// play runs the rulesets, then the baselines at the first ruleset's median
// wait, and builds the report. actual, when not nil, is what really
// happened to replayed traffic: it comes first, and each ruleset's run
// counts the matches it shares with it.
func play(title, what string, hours float64, mk func() source, cfg Config, actual *actualRun) (*Report, error) {
	var recs []*recorder
	var runs []Run
	for _, rs := range cfg.Rulesets {
		var hist *history
		if cfg.History != nil {
			hist = newHistory(*cfg.History, rs.Compiled)
		}
		rec, err := playOne(mk(), cfg, func(key cupid.QueueKey) (pool, error) {
			p, err := newEnginePool(key, rs.Compiled, cfg.Seed)
			if err != nil || hist == nil {
				return p, err
			}
			return historyPool{pool: p, h: hist}, nil
		}, actual != nil)
		if err != nil {
			return nil, fmt.Errorf("ruleset %s: %w", rs.Name, err)
		}
		recs = append(recs, rec)
		run := Run{Name: rs.Name, Kind: "ruleset"}
		if hist != nil {
			run.History = hist.report()
		}
		if actual != nil {
			same := sameAs(rec.sets, actual.sets)
			run.SameAsActual = &same
		}
		runs = append(runs, run)
	}
	if cfg.Baselines {
		target := quantile(sorted(recs[0].waits), 0.5)
		a := cfg.Rulesets[0].Compiled.Alliance[0]
		l := layout{teams: a.MaxNumber, size: a.PlayerMaxNumber}
		for _, kind := range []string{"fifo", "greedy"} {
			rec, hold, err := calibrate(mk, cfg, kind, l, target)
			if err != nil {
				return nil, fmt.Errorf("%s baseline: %w", kind, err)
			}
			h := round3(float64(hold) / 1e9)
			name := map[string]string{"fifo": "FIFO", "greedy": "greedy"}[kind]
			recs = append(recs, rec)
			runs = append(runs, Run{Name: name, Kind: kind, HoldSeconds: &h})
		}
	}
	if actual != nil {
		recs = append([]*recorder{actual.rec}, recs...)
		runs = append([]Run{{Name: "actual", Kind: "actual"}}, runs...)
	}
	rep := &Report{Title: title, Source: what, Seed: cfg.Seed, Hours: hours, TTL: cfg.TTL.Seconds(),
		SampleSeconds: cfg.Sample.Seconds()}
	for i, rec := range recs {
		runs[i].fill(rec)
	}
	rep.Runs = runs
	rep.Histograms = histograms(recs)
	return rep, nil
}

func playOne(src source, cfg Config, mk func(cupid.QueueKey) (pool, error), sets bool) (*recorder, error) {
	rec := newRecorder(src.end(), int64(cfg.Sample))
	if sets {
		rec.sets = map[string]bool{}
	}
	if err := simulate(src, newKeyed(mk), rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// calibrate finds the hold that gives a baseline the target median wait:
// a baseline's median wait grows with its hold almost one for one, so a
// few corrections get close; the closest run is kept.
func calibrate(mk func() source, cfg Config, kind string, l layout, target float64) (*recorder, int64, error) {
	var best *recorder
	var bestHold int64
	bestErr := math.Inf(1)
	hold := int64(0)
	// Close enough: a twentieth of a second, or 2% of the target.
	tolerance := max(0.05, 0.02*target)
	for range 6 {
		h := hold
		rec, err := playOne(mk(), cfg, func(cupid.QueueKey) (pool, error) {
			if kind == "fifo" {
				return &fifoPool{l: l, hold: h}, nil
			}
			return &greedyPool{l: l, hold: h}, nil
		}, false)
		if err != nil {
			return nil, 0, err
		}
		med := quantile(sorted(rec.waits), 0.5)
		if e := math.Abs(med - target); e < bestErr {
			best, bestHold, bestErr = rec, hold, e
		}
		if bestErr <= tolerance || math.IsNaN(med) {
			break
		}
		next := max(0, hold+int64((target-med)*1e9))
		if next == hold {
			break
		}
		hold = next
	}
	return best, bestHold, nil
}

func (run *Run) fill(rec *recorder) {
	run.Tickets, run.Arrived, run.Returned = rec.tickets, rec.arrived, rec.returned
	run.Matches, run.Matched = rec.matches, rec.matchedP
	run.Abandoned, run.Expired, run.Refused, run.WaitingAtEnd = rec.abandoned, rec.expired, rec.refusedP, rec.leftEnd
	if rec.arrived > 0 {
		run.AbandonRate = round3(float64(rec.abandoned+rec.expired) / float64(rec.arrived))
	}
	run.Wait = summarize(rec.waits)
	opt := func(v []float32) *Summary {
		if len(v) == 0 {
			return nil
		}
		s := summarize(v)
		return &s
	}
	run.SkillGap, run.TeamBalance, run.Ping, run.Quality = opt(rec.gaps), opt(rec.balances), opt(rec.pings), opt(rec.qualities)
	if len(rec.parts) > 0 {
		run.QualityParts = map[string]Summary{}
		for name, v := range rec.parts {
			run.QualityParts[name] = summarize(v)
		}
	}
	for h := range rec.hours {
		run.Hourly = append(run.Hourly, Hour{Hour: h, Arrived: rec.hourArrived[h], Matched: rec.hourMatched[h],
			Abandoned: rec.hourAbandoned[h], Expired: rec.hourExpired[h],
			WaitP50: round3(rec.hourP50[h]), WaitP90: round3(rec.hourP90[h])})
	}
	run.Queue = rec.queue
	run.Estimates = rec.est.result()
	for _, reason := range cupid.SortedKeys(rec.refusals) {
		run.Refusals = append(run.Refusals, Refusal{Reason: reason, Players: rec.refusals[reason]})
	}
	sort.SliceStable(run.Refusals, func(i, j int) bool { return run.Refusals[i].Players > run.Refusals[j].Players })
}

// sorted returns the values in order: the recorder's own, sorted by
// finish, as they are; a copy otherwise.
func sorted(v []float32) []float32 {
	if slices.IsSorted(v) {
		return v
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s
}

// quantile is the nearest-rank quantile of sorted values (0 when empty).
func quantile(s []float32, q float64) float64 {
	if len(s) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return float64(s[min(max(i, 0), len(s)-1)])
}

func summarize(v []float32) Summary {
	s := sorted(v)
	sum := 0.0
	for _, x := range s {
		sum += float64(x)
	}
	out := Summary{Count: len(s)}
	if len(s) == 0 {
		return out
	}
	out.Mean = round3(sum / float64(len(s)))
	out.P10, out.P50, out.P90, out.P99 = round3(quantile(s, 0.1)), round3(quantile(s, 0.5)), round3(quantile(s, 0.9)), round3(quantile(s, 0.99))
	out.Max = round3(float64(s[len(s)-1]))
	return out
}

// round3 keeps three decimals: reports stay readable and their bytes do not
// hang on the last bits of a float.
func round3(f float64) float64 {
	if !cupid.Finite(f) {
		return 0
	}
	return math.Round(f*1000) / 1000
}

// histogramBins is how many bins a histogram has.
const histogramBins = 40

// histograms bins every metric over all runs with shared edges, from 0 to
// a round number above the largest 99th percentile (quality: 0 to 1).
func histograms(recs []*recorder) map[string]Histogram {
	metrics := map[string]func(*recorder) []float32{
		"wait_seconds": func(r *recorder) []float32 { return r.waits },
		"skill_gap":    func(r *recorder) []float32 { return r.gaps },
		"team_balance": func(r *recorder) []float32 { return r.balances },
		"ping_ms":      func(r *recorder) []float32 { return r.pings },
		"quality":      func(r *recorder) []float32 { return r.qualities },
	}
	out := map[string]Histogram{}
	for name, get := range metrics {
		top, seen := 0.0, false
		for _, r := range recs {
			if v := get(r); len(v) > 0 {
				seen = true
				top = max(top, quantile(sorted(v), 0.99))
			}
		}
		if !seen {
			continue
		}
		width := niceStep(top / histogramBins)
		if name == "quality" {
			width = 1.0 / histogramBins
		}
		h := Histogram{}
		for i := range histogramBins + 1 {
			h.Edges = append(h.Edges, round3(float64(i)*width))
		}
		for _, r := range recs {
			counts := make([]int, histogramBins)
			for _, x := range get(r) {
				b := int(float64(x) / width)
				counts[min(max(b, 0), histogramBins-1)]++
			}
			h.Counts = append(h.Counts, counts)
		}
		out[name] = h
	}
	return out
}

// niceStep rounds a step up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if !(x > 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// JSON renders the report, indented, ending in a newline.
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Text is a short summary for a terminal: one column per run.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, %g hours, seed %d\n\n", r.Title, r.Source, r.Hours, r.Seed)
	rows := []struct {
		label string
		get   func(*Run) string
	}{
		{"players arrived", func(x *Run) string { return fmt.Sprint(x.Arrived) }},
		{"matched", func(x *Run) string { return fmt.Sprint(x.Matched) }},
		{"abandoned + expired", func(x *Run) string { return fmt.Sprintf("%.1f%%", 100*x.AbandonRate) }},
		{"refused", func(x *Run) string { return fmt.Sprint(x.Refused) }},
		{"wait p50 / p90 (s)", func(x *Run) string { return fmt.Sprintf("%.1f / %.1f", x.Wait.P50, x.Wait.P90) }},
		{"skill gap p50 / p90", func(x *Run) string { return pair(x.SkillGap) }},
		{"team balance p50 / p90", func(x *Run) string { return pair(x.TeamBalance) }},
		{"ping p50 / p90 (ms)", func(x *Run) string { return pair(x.Ping) }},
		{"same matches as actual", func(x *Run) string {
			if x.SameAsActual == nil {
				return "-"
			}
			return fmt.Sprintf("%d of %d", *x.SameAsActual, x.Matches)
		}},
		{"quality p50 / p10", func(x *Run) string {
			if x.Quality == nil {
				return "-"
			}
			return fmt.Sprintf("%.3f / %.3f", x.Quality.P50, x.Quality.P10)
		}},
		{"baseline hold (s)", func(x *Run) string {
			if x.HoldSeconds == nil {
				return "-"
			}
			return fmt.Sprintf("%.1f", *x.HoldSeconds)
		}},
	}
	widths := []int{len("team balance p50 / p90")}
	for _, run := range r.Runs {
		w := len(run.Name)
		for _, row := range rows {
			w = max(w, len(row.get(&run)))
		}
		widths = append(widths, w)
	}
	fmt.Fprintf(&b, "%-*s", widths[0], "")
	for i, run := range r.Runs {
		fmt.Fprintf(&b, "  %*s", widths[i+1], run.Name)
	}
	b.WriteString("\n")
	for _, row := range rows {
		fmt.Fprintf(&b, "%-*s", widths[0], row.label)
		for i := range r.Runs {
			fmt.Fprintf(&b, "  %*s", widths[i+1], row.get(&r.Runs[i]))
		}
		b.WriteString("\n")
	}
	for _, run := range r.Runs {
		for _, rf := range run.Refusals {
			fmt.Fprintf(&b, "%s refused %d players: %s\n", run.Name, rf.Players, rf.Reason)
		}
	}
	return b.String()
}

func pair(s *Summary) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f / %.1f", s.P50, s.P90)
}
