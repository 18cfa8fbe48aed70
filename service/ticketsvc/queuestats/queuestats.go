// Package queuestats keeps the queue statistics people watch (the
// dashboard): arrivals and matches per minute, the waits of matched
// tickets, the quality of matches and its parts, and the most recent
// matches with their teams.
//
// Everything here is bounded whatever clients do: a fixed number of queue
// keys is tracked on their own (more fold into one row per queue), each key
// keeps fixed-size rings, and the recent matches are a ring too. Nothing
// grows with the number of tickets or with time. Time comes in as an
// argument, so a test drives it.
//
// The ticket service records each match as a pool commits it (Matched) and
// hands over its created-tickets counts (Arrivals) when it samples them; the
// arrivals between two samples are spread evenly over the seconds between.
package queuestats

import (
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/waitest"
)

const (
	// keptKeys bounds the queue keys with rows of their own; the matches
	// of further keys are counted in their queue's "(other keys)" row.
	keptKeys = 64
	// keptWaits is how many matched tickets' waits a key keeps for its
	// percentiles.
	keptWaits = 2048
	// keptQualities is how many matches' quality a key keeps for its
	// distribution.
	keptQualities = 512
	// keptParts bounds the quality part names a key keeps apart; the
	// rulesets in use name far fewer.
	keptParts = 16
	// keptRecent is how many recent matches are kept, over all queues.
	keptRecent = 100
	// Window is the time the waits and qualities are reported over.
	Window = time.Hour
	// QualityBins divides the quality range [0,1] for its distribution.
	QualityBins = 10
)

// otherKeys names the row that takes the matches of keys past keptKeys.
const otherKeys = " (other keys)"

// Recorder is one ticket service's statistics. Its methods are safe for
// concurrent use: pools record from their own goroutines.
type Recorder struct {
	mu     sync.Mutex
	keys   map[cupid.QueueKey]*keyStats // at most keptKeys
	others map[string]*keyStats         // each queue's row for the keys past keptKeys
	queues map[string]*queueFlows       // arrivals and matches per configured queue
	recent [keptRecent]recentEntry
	next   int // the recent slot written next
	count  int // recent matches held
	// lastSample is the second arrivals were last sampled (Due).
	lastSample atomic.Int64
}

// recentEntry is a recent match as kept: flat copies, a few allocations a
// match, turned into a RecentMatch when read.
type recentEntry struct {
	id      string
	key     cupid.QueueKey
	at      time.Time
	score   float64
	region  string
	parts   []cupid.QualityPart
	tickets []string        // every team's, in order
	players []string        // every team's, in order
	ends    []int32         // per team: the end of its tickets, then of its players
	waits   []time.Duration // per ticket; negative when unknown
	roles   map[string]string
}

// New returns an empty Recorder.
func New() *Recorder {
	return &Recorder{keys: map[cupid.QueueKey]*keyStats{}, others: map[string]*keyStats{}, queues: map[string]*queueFlows{}}
}

// countRing counts events in 60 units (seconds or minutes) ending now.
type countRing struct {
	slots [60]struct {
		at int64 // the unit the slot counts; a stale one reads as 0
		n  uint32
	}
}

func (r *countRing) add(unit int64, n uint32) {
	s := &r.slots[unit%60]
	if s.at != unit {
		s.at, s.n = unit, 0
	}
	s.n += n
}

// series returns the counts of the 60 units up to and including last,
// oldest first.
func (r *countRing) series(last int64) []int {
	out := make([]int, 60)
	for i := range out {
		u := last - 59 + int64(i)
		if u < 0 {
			continue
		}
		if s := r.slots[u%60]; s.at == u {
			out[i] = int(s.n)
		}
	}
	return out
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// queueFlows are one queue's arrivals and matches.
type queueFlows struct {
	arrSec, arrMin countRing
	matSec, matMin countRing
	// sampledAt and counted are the last arrivals sample: the counter's
	// value at that second.
	sampledAt int64
	counted   float64
	sampled   bool
}

// keyStats are one queue key's waits and qualities.
type keyStats struct {
	queue    string
	matSec   countRing
	matMin   countRing
	waits    [keptWaits]waitSample
	waitNext int
	// left are the waits of tickets that left unmatched (cancelled,
	// expired, matched in another queue): the wait estimates count them
	// as still waiting up to then.
	left       [keptWaits]waitSample
	leftNext   int
	quals      [keptQualities]qualSample
	qualNext   int
	totalMatch int64
	// sorted is the waits and departures of the last Window sorted for
	// the estimates, kept as samples come and go; made at the key's first
	// estimate.
	sorted sortedSamples
}

// sortedSamples is a key's samples since from, sorted by waitest.Compare.
// Every watched ticket gets an estimate as it starts waiting, so a busy
// key is estimated about as often as it gains samples: collecting and
// sorting its 4,096 samples each time cost more than the rest of a watch
// and half the garbage the server made. Kept sorted instead, a new sample
// moves a few kilobytes, and an estimate reads the list in place.
type sortedSamples struct {
	ok   bool
	from int64 // unix second: the samples at or after it are in s
	// oldest is at or before the oldest sample in s: while it is not
	// before from, nothing in s has left the window.
	oldest int64
	s      []waitest.Sample
}

// sample is a kept wait as the estimates read it.
func (w waitSample) sample(matched bool) waitest.Sample {
	return waitest.Sample{Wait: time.Duration(float64(w.wait) * float64(time.Second)), Matched: matched}
}

// put writes a sample into one of the key's rings at next, over the
// oldest, and keeps the sorted samples up to date.
func (k *keyStats) put(ring *[keptWaits]waitSample, next *int, w waitSample, matched bool) {
	if ss := &k.sorted; ss.ok {
		if old := ring[*next]; old.at != 0 && old.at >= ss.from {
			x := old.sample(matched)
			if i, found := slices.BinarySearchFunc(ss.s, x, waitest.Compare); found {
				ss.s = slices.Delete(ss.s, i, i+1)
			}
		}
		if w.at != 0 && w.at >= ss.from {
			x := w.sample(matched)
			i, _ := slices.BinarySearchFunc(ss.s, x, waitest.Compare)
			ss.s = slices.Insert(ss.s, i, x)
			ss.oldest = min(ss.oldest, w.at)
		}
	}
	ring[*next] = w
	*next = (*next + 1) % keptWaits
}

// sortedSince returns the key's samples since from, sorted; the list is
// the key's own, valid while the recorder's mu is held.
func (k *keyStats) sortedSince(from int64) []waitest.Sample {
	ss := &k.sorted
	if ss.ok && from >= ss.from && ss.oldest >= from {
		ss.from = from // nothing left the window
		return ss.s
	}
	ss.s, ss.oldest = ss.s[:0], from
	k.eachSince(from, func(w waitSample, matched bool) {
		ss.s = append(ss.s, w.sample(matched))
		ss.oldest = min(ss.oldest, w.at)
	})
	slices.SortFunc(ss.s, waitest.Compare)
	ss.ok, ss.from = true, from
	return ss.s
}

// eachSince calls f with each of the key's waits since from: the matched
// ones, then those that left unmatched.
func (k *keyStats) eachSince(from int64, f func(w waitSample, matched bool)) {
	for _, list := range []struct {
		ws      []waitSample
		matched bool
	}{{k.waits[:], true}, {k.left[:], false}} {
		for _, w := range list.ws {
			if w.at != 0 && w.at >= from {
				f(w, list.matched)
			}
		}
	}
}

type waitSample struct {
	at   int64 // unix seconds; 0 is an empty slot
	wait float32
}

type qualSample struct {
	at    int64
	score float32
	parts []cupid.QualityPart // a copy, at most keptParts
}

// Left records a ticket that left key's pool unmatched after waiting wait:
// cancelled, expired, replaced or matched in another queue.
func (r *Recorder) Left(key cupid.QueueKey, wait time.Duration, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.keyFor(key)
	k.put(&k.left, &k.leftNext, waitSample{at: now.Unix(), wait: float32(max(wait, 0).Seconds())}, false)
}

// Estimate estimates how much longer a ticket of key that has waited age
// will wait, from the key's tickets of the last Window (package waitest).
// A key past keptKeys shares its queue's other-keys row. It reports false
// when the history is too thin.
func (r *Recorder) Estimate(key cupid.QueueKey, age time.Duration, now time.Time) (waitest.Estimate, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.keys[key]
	if k == nil {
		k = r.others[key.Queue]
	}
	if k == nil {
		return waitest.Remaining(nil, age, EstimateCoverage, waitest.MinSamples)
	}
	return waitest.RemainingSorted(k.sortedSince(now.Add(-Window).Unix()), age, EstimateCoverage, waitest.MinSamples)
}

// EstimateCoverage is the share of waits a wait estimate's interval holds.
const EstimateCoverage = 0.8

// samples are the key's waits since from, matched and not. Called with
// the recorder's mu held.
func (k *keyStats) samples(from int64) []waitest.Sample {
	var out []waitest.Sample
	k.eachSince(from, func(w waitSample, matched bool) { out = append(out, w.sample(matched)) })
	return out
}

// Due says whether arrivals should be sampled at now: at most once a
// second, so a busy pool that records many matches samples them rarely.
func (r *Recorder) Due(now time.Time) bool {
	sec := now.Unix()
	return r.lastSample.Swap(sec) != sec
}

func (r *Recorder) flows(queue string) *queueFlows {
	f := r.queues[queue]
	if f == nil {
		f = &queueFlows{}
		r.queues[queue] = f
	}
	return f
}

// keyFor returns the row of key, or its queue's other-keys row when
// keptKeys rows are taken. Called with mu held.
func (r *Recorder) keyFor(key cupid.QueueKey) *keyStats {
	if k := r.keys[key]; k != nil {
		return k
	}
	if len(r.keys) < keptKeys {
		k := &keyStats{queue: key.Queue}
		r.keys[key] = k
		return k
	}
	k := r.others[key.Queue]
	if k == nil {
		k = &keyStats{queue: key.Queue}
		r.others[key.Queue] = k
	}
	return k
}

// Matched records a committed match: its quality, its tickets' waits (in
// the match's ticket order, team by team; negative where unknown) and a
// copy of its teams. It only copies, so a pool can call it on its own
// goroutine.
func (r *Recorder) Matched(key cupid.QueueKey, m *cupid.Match, waits []time.Duration, now time.Time) {
	sec := now.Unix()
	e := recentEntry{id: m.ID, key: key, at: now, score: m.Quality.Score, region: m.Region, waits: waits, roles: m.Roles}
	e.parts = slices.Clone(m.Quality.Parts)
	var nt, np int
	for _, team := range m.Teams {
		nt += len(team.TicketIDs)
		np += len(team.PlayerIDs)
	}
	e.tickets = make([]string, 0, nt)
	e.players = make([]string, 0, np)
	e.ends = make([]int32, 0, 2*len(m.Teams))
	for _, team := range m.Teams {
		e.tickets = append(e.tickets, team.TicketIDs...)
		e.players = append(e.players, team.PlayerIDs...)
		e.ends = append(e.ends, int32(len(e.tickets)), int32(len(e.players)))
	}
	if len(e.roles) > 0 {
		e.roles = maps.Clone(e.roles)
	}
	parts := e.parts
	if len(parts) > keptParts {
		parts = parts[:keptParts:keptParts]
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.flows(key.Queue)
	f.matSec.add(sec, 1)
	f.matMin.add(sec/60, 1)
	k := r.keyFor(key)
	k.matSec.add(sec, 1)
	k.matMin.add(sec/60, 1)
	for _, w := range waits {
		if w < 0 {
			continue
		}
		k.put(&k.waits, &k.waitNext, waitSample{at: sec, wait: float32(w.Seconds())}, true)
	}
	// The parts are shared with the recent entry: neither changes them.
	k.quals[k.qualNext] = qualSample{at: sec, score: float32(m.Quality.Score), parts: parts}
	k.qualNext = (k.qualNext + 1) % keptQualities
	r.recent[r.next] = e
	r.next = (r.next + 1) % keptRecent
	r.count = min(r.count+1, keptRecent)
}

// Arrivals takes each queue's count of created tickets as it stands now (a
// counter that only grows) and spreads what it grew by since the last call
// over the seconds between. The first count of a queue is its baseline:
// tickets that came before it have no known second.
func (r *Recorder) Arrivals(counts map[string]float64, now time.Time) {
	sec := now.Unix()
	r.mu.Lock()
	defer r.mu.Unlock()
	for q, v := range counts {
		f := r.flows(q)
		switch {
		case !f.sampled:
			f.sampled, f.sampledAt, f.counted = true, sec, v
		case sec > f.sampledAt && v >= f.counted:
			f.spread(f.sampledAt, sec, uint64(v-f.counted))
			f.sampledAt, f.counted = sec, v
		case sec == f.sampledAt && v > f.counted:
			f.arrSec.add(sec, uint32(v-f.counted))
			f.arrMin.add(sec/60, uint32(v-f.counted))
			f.counted = v
		}
	}
}

// spread adds n arrivals evenly over the seconds (from, to].
func (f *queueFlows) spread(from, to int64, n uint64) {
	if to-from > 3600 {
		from = to - 3600 // older seconds are out of every window
	}
	secs := uint64(to - from)
	for i := uint64(1); i <= secs; i++ {
		// The i-th second gets its share of n, rounded so the shares add
		// up to n exactly.
		share := n*i/secs - n*(i-1)/secs
		if share == 0 {
			continue
		}
		u := from + int64(i)
		f.arrSec.add(u, uint32(share))
		f.arrMin.add(u/60, uint32(share))
	}
}

// FlowStats are arrivals or matches: in the last 60 seconds, and per
// minute over the last hour, oldest first (the last minute is the current,
// partial one).
type FlowStats struct {
	LastMinute int   `json:"last_minute"`
	PerMinute  []int `json:"per_minute"`
}

// WaitStats are percentiles of how long matched tickets waited, over the
// last Window (at most keptWaits tickets a key).
type WaitStats struct {
	Samples int     `json:"samples"`
	P50     float64 `json:"p50_seconds"`
	P90     float64 `json:"p90_seconds"`
	P99     float64 `json:"p99_seconds"`
	Max     float64 `json:"max_seconds"`
}

// QualityStats are the distribution of match quality over the last
// Window: Bins[i] counts scores in [i/10, (i+1)/10), 1.0 in the last.
type QualityStats struct {
	Matches int         `json:"matches"`
	Mean    float64     `json:"mean"`
	Bins    []int       `json:"bins"`
	Parts   []PartStats `json:"parts"`
}

// PartStats are one quality criterion's scores.
type PartStats struct {
	Name    string  `json:"name"`
	Matches int     `json:"matches"`
	Mean    float64 `json:"mean"`
	Bins    []int   `json:"bins"`
}

// KeyStats are one queue key's (or a whole queue's) statistics.
type KeyStats struct {
	// Key is the queue key ("duel", "duel/1.2#eu"), or the queue name for
	// the queue's own row.
	Key            string       `json:"key"`
	Waiting        int          `json:"waiting"`
	Players        int          `json:"players"`
	OldestWait     float64      `json:"oldest_wait_seconds"`
	RulesetVersion int          `json:"ruleset_version,omitempty"`
	Matches        FlowStats    `json:"matches"`
	Wait           WaitStats    `json:"wait"`
	Quality        QualityStats `json:"quality"`
	// Estimate is the wait a ticket arriving now may expect; nil while
	// the history is too thin.
	Estimate *EstimateView `json:"estimate,omitempty"`
}

// EstimateView is a wait estimate in seconds, as the dashboard and the API
// show it.
type EstimateView struct {
	Expected float64 `json:"expected_seconds"`
	Low      float64 `json:"low_seconds"`
	// High is absent when too few tickets waited that long to know it.
	High     *float64 `json:"high_seconds,omitempty"`
	Coverage float64  `json:"coverage"`
	Samples  int      `json:"samples"`
}

// View is e in seconds.
func View(e waitest.Estimate) *EstimateView {
	v := &EstimateView{Expected: e.Expected.Seconds(), Low: e.Low.Seconds(), Coverage: e.Coverage, Samples: e.Samples}
	if e.HighKnown {
		h := e.High.Seconds()
		v.High = &h
	}
	return v
}

// QueueStats are one queue's statistics and those of its keys.
type QueueStats struct {
	KeyStats
	Queue    string     `json:"queue"`
	Arrivals FlowStats  `json:"arrivals"`
	Keys     []KeyStats `json:"keys"`
}

// flow is a queue's arrivals or matches: the last minute's total and the
// last hour per minute.
func flow(sec, min *countRing, now int64) FlowStats {
	return FlowStats{LastMinute: sum(sec.series(now)), PerMinute: min.series(now / 60)}
}

// summarize merges keys' waits and qualities since from.
func summarize(ks []*keyStats, from int64) (WaitStats, QualityStats) {
	var waits []float64
	q := QualityStats{Bins: make([]int, QualityBins), Parts: []PartStats{}}
	parts := map[string]*PartStats{}
	var sumScore float64
	for _, k := range ks {
		for _, w := range k.waits {
			if w.at != 0 && w.at >= from {
				waits = append(waits, float64(w.wait))
			}
		}
		for _, s := range k.quals {
			if s.at == 0 || s.at < from {
				continue
			}
			q.Matches++
			sumScore += float64(s.score)
			q.Bins[bin(float64(s.score))]++
			for _, p := range s.parts {
				ps := parts[p.Name]
				if ps == nil {
					ps = &PartStats{Name: p.Name, Bins: make([]int, QualityBins)}
					parts[p.Name] = ps
				}
				ps.Matches++
				ps.Mean += p.Score
				ps.Bins[bin(p.Score)]++
			}
		}
	}
	if q.Matches > 0 {
		q.Mean = sumScore / float64(q.Matches)
	}
	for _, name := range cupid.SortedKeys(parts) {
		ps := parts[name]
		ps.Mean /= float64(ps.Matches)
		q.Parts = append(q.Parts, *ps)
	}
	slices.Sort(waits)
	w := WaitStats{Samples: len(waits)}
	if len(waits) > 0 {
		w.P50, w.P90, w.P99, w.Max = percentile(waits, 0.5), percentile(waits, 0.9), percentile(waits, 0.99), waits[len(waits)-1]
	}
	return w, q
}

// bin is the quality bin of a score; out-of-range scores go to the ends.
func bin(score float64) int {
	if !cupid.Finite(score) || score < 0 {
		return 0
	}
	return min(int(score*QualityBins), QualityBins-1)
}

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

// RecentMatch is a committed match as the dashboard shows it.
type RecentMatch struct {
	ID     string              `json:"id"`
	Key    string              `json:"key"`
	Queue  string              `json:"queue"`
	At     time.Time           `json:"at"`
	Score  float64             `json:"score"`
	Parts  []cupid.QualityPart `json:"parts"`
	Region string              `json:"region,omitempty"`
	Teams  []RecentTeam        `json:"teams"`
	// Waits is how long each ticket waited (a party's players share their
	// ticket's wait); a ticket the server no longer remembered is missing.
	Waits map[string]time.Duration `json:"waits"`
	Roles map[string]string        `json:"roles,omitempty"`
}

// RecentTeam is one team of a recent match: its tickets and its players,
// in the match's order.
type RecentTeam struct {
	Tickets []string `json:"tickets"`
	Players []string `json:"players"`
}

// view turns a kept entry into what callers see.
func (e *recentEntry) view() RecentMatch {
	m := RecentMatch{ID: e.id, Key: e.key.String(), Queue: e.key.Queue, At: e.at, Score: e.score, Region: e.region,
		Parts: slices.Clone(e.parts), Waits: map[string]time.Duration{}, Roles: maps.Clone(e.roles)}
	if m.Parts == nil {
		m.Parts = []cupid.QualityPart{}
	}
	var t0, p0 int32
	for i := 0; i+1 < len(e.ends); i += 2 {
		t1, p1 := e.ends[i], e.ends[i+1]
		m.Teams = append(m.Teams, RecentTeam{Tickets: slices.Clone(e.tickets[t0:t1]), Players: slices.Clone(e.players[p0:p1])})
		t0, p0 = t1, p1
	}
	for i, id := range e.tickets {
		if i < len(e.waits) && e.waits[i] >= 0 {
			m.Waits[id] = e.waits[i]
		}
	}
	return m
}

// Pool is what a queue key's pool holds now, as Report needs it.
type Pool struct {
	Key            cupid.QueueKey
	Waiting        int
	Players        int
	OldestWait     time.Duration
	RulesetVersion int
}

// Report gives the statistics of the named queues (in that order; one of
// them when only is set) at now, each with its arrivals, matches, waits and
// quality and its queue keys', the waiting counts from pools.
func (r *Recorder) Report(queues []string, only string, pools []Pool, now time.Time) []QueueStats {
	sec := now.Unix()
	from := now.Add(-Window).Unix()

	r.mu.Lock()
	defer r.mu.Unlock()
	var out []QueueStats
	for _, name := range queues {
		if only != "" && name != only {
			continue
		}
		out = append(out, r.queueReport(name, pools, sec, from))
	}
	return out
}

// queueReport is one queue's statistics. Called with mu held.
func (r *Recorder) queueReport(name string, pools []Pool, sec, from int64) QueueStats {
	q := QueueStats{Queue: name, KeyStats: KeyStats{Key: name}}
	f := r.queues[name]
	if f == nil {
		f = &queueFlows{}
	}
	q.Arrivals = flow(&f.arrSec, &f.arrMin, sec)
	q.Matches = flow(&f.matSec, &f.matMin, sec)
	rows := map[string]*KeyStats{}
	var all []*keyStats
	add := func(kname string, k *keyStats) {
		all = append(all, k)
		ks := &KeyStats{Key: kname, Matches: flow(&k.matSec, &k.matMin, sec)}
		ks.Wait, ks.Quality = summarize([]*keyStats{k}, from)
		if e, ok := waitest.Remaining(k.samples(from), 0, EstimateCoverage, waitest.MinSamples); ok {
			ks.Estimate = View(e)
		}
		rows[kname] = ks
	}
	for key, k := range r.keys {
		if key.Queue == name {
			add(key.String(), k)
		}
	}
	if k := r.others[name]; k != nil {
		add(name+otherKeys, k)
	}
	q.Wait, q.Quality = summarize(all, from)
	var samples []waitest.Sample
	for _, k := range all {
		samples = append(samples, k.samples(from)...)
	}
	if e, ok := waitest.Remaining(samples, 0, EstimateCoverage, waitest.MinSamples); ok {
		q.Estimate = View(e)
	}
	for _, p := range pools {
		if p.Key.Queue != name {
			continue
		}
		kname := p.Key.String()
		q.Waiting += p.Waiting
		q.Players += p.Players
		q.OldestWait = math.Max(q.OldestWait, p.OldestWait.Seconds())
		q.RulesetVersion = p.RulesetVersion
		// Every key gets its row here, the plain one too: whether it is
		// the queue's only key is known once all pools are read (below).
		ks := rows[kname]
		if ks == nil {
			ks = &KeyStats{Key: kname, Matches: FlowStats{PerMinute: make([]int, 60)}}
			ks.Wait, ks.Quality = summarize(nil, from)
			rows[kname] = ks
		}
		ks.Waiting, ks.Players, ks.OldestWait, ks.RulesetVersion = p.Waiting, p.Players, p.OldestWait.Seconds(), p.RulesetVersion
	}
	if _, only := rows[name]; only && len(rows) == 1 {
		delete(rows, name) // the queue's one plain key: its row is the queue's
	}
	for _, kname := range cupid.SortedKeys(rows) {
		q.Keys = append(q.Keys, *rows[kname])
	}
	if q.Keys == nil {
		q.Keys = []KeyStats{}
	}
	return q
}

// Recent returns the most recent matches, newest first: of one queue when
// queue is set, those with a ticket or player id when who is set, at most
// limit (all kept when limit ≤ 0).
func (r *Recorder) Recent(queue, who string, limit int) []RecentMatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []RecentMatch{}
	for i := 1; i <= r.count; i++ {
		e := &r.recent[(r.next-i+keptRecent)%keptRecent]
		if queue != "" && e.key.Queue != queue {
			continue
		}
		if who != "" && !slices.Contains(e.players, who) && !slices.Contains(e.tickets, who) {
			continue
		}
		out = append(out, e.view())
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}
