package canary

import (
	"context"
	"slices"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/rollout"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
)

// A shadow runs a candidate ruleset beside a queue's live one on the same
// arrivals, in pools that commit nothing: each live pool of the queue
// (each queue key, canary side excluded) holds a second engine.Pool under
// the candidate (a ShadowPool), fed the same Add and Remove as the live
// engine and stepped on the same clock, right after it. Its proposals are
// recorded, never committed, and their tickets leave the shadow pool.
//
// A ticket that leaves the live pool (matched by the live ruleset,
// cancelled, expired) leaves the shadow too, so the shadow sees the live
// population as it is. The consequence: where the live ruleset matches a
// ticket first, the shadow never learns how long the candidate would have
// kept it waiting, so the shadow's waits are those of the tickets it
// matched before the live ruleset did (counted as "taken by live" in the
// report). A shadow of a ruleset slower than the live one shows fewer
// matches rather than longer waits.
//
// Only tickets that arrive after the shadow starts enter it: the shadow and
// the live figures beside it (a second pair of statistics, not the
// dashboard's) cover the same arrivals from the same moment.

// maxShadowKeys bounds the queue keys whose skill gaps and pings a shadow
// keeps apart (as the statistics' rows); the rest share one row.
const maxShadowKeys = 64

// Shadow is one queue's shadow.
type Shadow struct {
	queue   string
	source  []byte
	rules   *ruleset.Compiled
	skill   string
	started time.Time
	seed    int64
	// live and shadow are the figures of the two sides since started:
	// the live pools' matches and the shadow pools'.
	live, shadow *queuestats.Recorder

	mu    sync.Mutex
	sides [2]map[cupid.QueueKey]*shadowExtras // live, shadow
}

// shadowExtras are a side's figures the statistics do not keep.
type shadowExtras struct {
	gaps, pings rollout.Series
	// expired counts tickets still waiting (on this side) when their
	// time to live ran out; left those that left the live pool while the
	// shadow held them (shadow side only); refused those the candidate's
	// engine would not take.
	expired, left, refused int
}

const (
	sideLive   = 0
	sideShadow = 1
)

func newShadow(queue string, src []byte, rules *ruleset.Compiled, skill string, started time.Time, seed int64) *Shadow {
	return &Shadow{queue: queue, source: src, rules: rules, skill: skill, started: started, seed: seed,
		live: queuestats.New(), shadow: queuestats.New(),
		sides: [2]map[cupid.QueueKey]*shadowExtras{{}, {}}}
}

// extras returns a side's row for key. Called with mu held.
func (r *Shadow) extras(side int, key cupid.QueueKey) *shadowExtras {
	m := r.sides[side]
	if e := m[key]; e != nil {
		return e
	}
	if len(m) >= maxShadowKeys {
		key = cupid.QueueKey{Queue: r.queue, Custom: "(other keys)"}
		if e := m[key]; e != nil {
			return e
		}
	}
	e := &shadowExtras{}
	m[key] = e
	return e
}

// matched records a match of one side: the statistics, then its skill gap
// and ping.
func (r *Shadow) matched(side int, key cupid.QueueKey, m *cupid.Match, pr *engine.Proposal, waits []time.Duration, now time.Time) {
	rec := r.live
	if side == sideShadow {
		rec = r.shadow
	}
	rec.Matched(key, m, waits, now)
	var skills []float64
	ok := pr != nil
	if ok {
		for _, t := range pr.Tickets() {
			for _, p := range t.Players {
				v, has := p.Attributes.Get(r.skill)
				if !has {
					v, has = t.Attributes.Get(r.skill)
				}
				ok = ok && has && v.Kind == cupid.KindNumber
				skills = append(skills, v.Number)
			}
		}
	}
	gap, hasGap := rollout.SkillGap(skills, ok)
	ping, hasPing := 0.0, false
	if pr != nil && m.Region != "" {
		ping, hasPing = meanPing(pr.Tickets(), m.Region)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.extras(side, key)
	if hasGap {
		e.gaps.Add(now, gap)
	}
	if hasPing {
		e.pings.Add(now, ping)
	}
}

// meanPing is the players' mean latency to the match's region, in ms.
func meanPing(ts []*cupid.Ticket, region string) (float64, bool) {
	sum, n := 0.0, 0
	for _, t := range ts {
		ms, ok := t.Latencies[region]
		if !ok {
			return 0, false
		}
		sum += float64(ms) * float64(len(t.Players))
		n += len(t.Players)
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// count adds to one of a side's counters.
func (r *Shadow) count(side int, key cupid.QueueKey, f func(*shadowExtras)) {
	r.mu.Lock()
	f(r.extras(side, key))
	r.mu.Unlock()
}

// ShadowPool is a shadow's engine beside one live pool; it lives on the
// live pool's goroutine, which calls its methods.
type ShadowPool struct {
	run *Shadow
	key cupid.QueueKey
	eng *engine.Pool
}

// Pool is the shadow's pool beside the live pool of key.
func (r *Shadow) Pool(key cupid.QueueKey) *ShadowPool {
	eng, err := engine.New(key, r.rules, engine.Options{Seed: r.seed})
	if err != nil {
		return nil // compiled and checked at start: cannot happen
	}
	return &ShadowPool{run: r, key: key, eng: eng}
}

// Shadow is the shadow the pool is of.
func (sp *ShadowPool) Shadow() *Shadow { return sp.run }

// Add gives the shadow a ticket the live pool took, if it arrived after the
// shadow started.
func (sp *ShadowPool) Add(t *cupid.Ticket) {
	if t.CreatedAt.Before(sp.run.started) {
		return
	}
	if err := sp.eng.Add(t); err != nil {
		sp.run.count(sideShadow, sp.key, func(e *shadowExtras) { e.refused++ })
	}
}

// Leave follows a ticket out of the live pool: the shadow drops it too. A
// ticket past its expiry would have expired under the candidate as well.
func (sp *ShadowPool) Leave(id string, now time.Time) {
	created, expires, ok := sp.eng.Times(id)
	if !ok {
		return
	}
	sp.eng.Remove(id)
	wait := now.Sub(time.Unix(0, created))
	sp.run.shadow.Left(sp.key, wait, now)
	sp.run.count(sideShadow, sp.key, func(e *shadowExtras) {
		if expires <= now.UnixNano() {
			e.expired++
		} else {
			e.left++
		}
	})
}

// LiveExpired counts a live ticket's expiry (created in Unix nanoseconds)
// for the live side, if it arrived after the shadow started.
func (sp *ShadowPool) LiveExpired(created int64) {
	if created >= sp.run.started.UnixNano() {
		sp.run.count(sideLive, sp.key, func(e *shadowExtras) { e.expired++ })
	}
}

// NextWake is when the candidate's engine next wants a step.
func (sp *ShadowPool) NextWake(now time.Time) (time.Time, bool) { return sp.eng.NextWake(now) }

// Step runs the candidate's engine and records its proposals.
func (sp *ShadowPool) Step(now time.Time) {
	props := sp.eng.Step(now)
	for i := range props {
		pr := &props[i]
		if pr.SessionID != "" {
			continue // no session is open in a shadow
		}
		m := pr.Match()
		m.Key, m.CreatedAt = sp.key, now
		waits := make([]time.Duration, pr.Len())
		for j := range waits {
			waits[j] = max(now.Sub(pr.CreatedAt(j)), 0)
		}
		sp.run.matched(sideShadow, sp.key, &m, pr, waits, now)
	}
}

// shadowWaits keeps, for the live side of a shadow, the waits of tickets
// that arrived after it started (the others never entered the shadow).
func shadowWaits(pr *engine.Proposal, waits []time.Duration, started time.Time) []time.Duration {
	if pr == nil || pr.Len() != len(waits) {
		return waits
	}
	out := slices.Clone(waits)
	for i := range out {
		if pr.CreatedAt(i).Before(started) {
			out[i] = -1
		}
	}
	return out
}

func (s *Service) shadow(queue string) *Shadow {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shadows[queue]
}

// addShadow takes a queue's one shadow.
func (s *Service) addShadow(sh *Shadow) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.shadows[sh.queue]; cur != nil {
		return cupid.Errorf(cupid.CodeAlreadyExists, "queue", "queue %q already runs a shadow (started %s); a queue has one at a time: stop it first",
			sh.queue, cur.started.Format(time.RFC3339))
	}
	s.shadows[sh.queue] = sh
	return nil
}

func (s *Service) removeShadow(sh *Shadow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shadows[sh.queue] == sh {
		delete(s.shadows, sh.queue)
	}
}

// detachShadow forgets a shadow and takes its pools off the live ones.
func (s *Service) detachShadow(sh *Shadow) {
	s.removeShadow(sh)
	s.pools.DetachShadow(sh.queue, sh)
}

// ShadowOptions start a shadow.
type ShadowOptions struct {
	Queue   string
	Ruleset []byte
	// SkillAttribute names the skill whose gap the report shows (mmr when
	// empty), as the simulator's.
	SkillAttribute string
	// Reason is noted in the ruleset history.
	Reason string
}

// checkCandidate refuses a shadow or canary for a queue this server does
// not have, or with a candidate ruleset document that is empty or too long.
func (s *Service) checkCandidate(queue string, doc []byte) error {
	if !s.pools.Configured(queue) {
		return cupid.NotFound("queue", "no queue %q", queue)
	}
	if len(doc) == 0 {
		return cupid.Invalid("ruleset", "required: the candidate ruleset document")
	}
	if len(doc) > ruleset.MaxSourceBytes {
		return cupid.Invalid("ruleset", "%d bytes, more than the limit of %d", len(doc), ruleset.MaxSourceBytes)
	}
	return nil
}

// StartShadow starts running a candidate ruleset beside a queue's live one.
// A queue has at most one shadow at a time.
func (s *Service) StartShadow(ctx context.Context, o ShadowOptions) (*ShadowReport, error) {
	if err := s.checkCandidate(o.Queue, o.Ruleset); err != nil {
		return nil, err
	}
	if err := checkReason(o.Reason); err != nil {
		return nil, err
	}
	if o.SkillAttribute == "" {
		o.SkillAttribute = "mmr"
	}
	if len(o.SkillAttribute) > 64 {
		return nil, cupid.Invalid("skill_attribute", "at most 64 bytes")
	}
	rules, _, probs := s.pools.Compile(o.Queue, o.Ruleset)
	if len(probs) > 0 {
		return nil, cupid.Invalid("ruleset", "%s", probs.Error())
	}
	s.change.Lock()
	defer s.change.Unlock()
	now := s.now().UTC()
	sh := newShadow(o.Queue, o.Ruleset, rules, o.SkillAttribute, now, s.seed)
	if err := s.addShadow(sh); err != nil {
		return nil, err
	}
	if err := s.save(ctx, shadowDoc(sh)); err != nil {
		s.removeShadow(sh)
		return nil, storeerr.Domain(s.log, err)
	}
	s.pools.AttachShadow(o.Queue, sh)
	s.rulesets.NoteDecision(ctx, o.Queue, "shadow-start", o.Ruleset, reasonOr(o.Reason, "a candidate ruleset runs in the shadow of the live one"))
	s.log.Info("shadow started", "queue", o.Queue)
	return s.ShadowReport(ctx, o.Queue)
}

// StopShadow ends a queue's shadow; its figures are gone with it.
func (s *Service) StopShadow(ctx context.Context, queue, reason string) error {
	if err := checkReason(reason); err != nil {
		return err
	}
	s.change.Lock()
	defer s.change.Unlock()
	sh := s.shadow(queue)
	if sh == nil {
		return cupid.NotFound("queue", "queue %q has no shadow", queue)
	}
	if err := s.remove(ctx, shadowKind, queue); err != nil {
		return storeerr.Domain(s.log, err)
	}
	s.detachShadow(sh)
	s.rulesets.NoteDecision(ctx, queue, "shadow-stop", sh.source, reasonOr(reason, "stopped by the operator"))
	s.log.Info("shadow stopped", "queue", queue)
	return nil
}

// ShadowReport is a shadow's figures beside the live ones, per queue key.
type ShadowReport struct {
	Queue   string    `json:"queue"`
	Ruleset string    `json:"ruleset"`
	Started time.Time `json:"started"`
	// WindowSeconds is what the figures cover: since the shadow started,
	// at most the last hour (the statistics' window).
	WindowSeconds float64            `json:"window_seconds"`
	Keys          []ShadowKeyFigures `json:"keys"`
}

// ShadowKeyFigures are one queue key's figures on both sides.
type ShadowKeyFigures struct {
	Key    string      `json:"key"`
	Live   SideFigures `json:"live"`
	Shadow SideFigures `json:"shadow"`
}

// SideFigures are one side's figures over the report's window.
type SideFigures struct {
	Matches int                     `json:"matches"`
	Wait    queuestats.WaitStats    `json:"wait"`
	Quality queuestats.QualityStats `json:"quality"`
	// SkillGap is per match, the strongest player's skill minus the
	// weakest's; PingMS the players' mean latency to the match's region.
	SkillGap rollout.Summary `json:"skill_gap"`
	PingMS   rollout.Summary `json:"ping_ms"`
	// Expired are tickets whose time to live ran out while they waited on
	// this side.
	Expired int `json:"expired"`
	// TakenByLive (shadow only) are tickets that left the live pool —
	// matched by the live ruleset, cancelled — while the shadow held them.
	TakenByLive int `json:"taken_by_live,omitempty"`
	// Refused (shadow only) are tickets the candidate's engine would not
	// take.
	Refused int `json:"refused,omitempty"`
}

// ShadowReport returns a queue's shadow's figures beside the live ones.
func (s *Service) ShadowReport(_ context.Context, queue string) (*ShadowReport, error) {
	if !s.pools.Configured(queue) {
		return nil, cupid.NotFound("queue", "no queue %q", queue)
	}
	r := s.shadow(queue)
	if r == nil {
		return nil, cupid.NotFound("queue", "queue %q has no shadow; start one with StartShadow", queue)
	}
	now := s.now().UTC()
	from := now.Add(-queuestats.Window)
	if r.started.After(from) {
		from = r.started.Add(-1) // the series' window start is exclusive
	}
	out := &ShadowReport{Queue: queue, Ruleset: string(r.source), Started: r.started, WindowSeconds: now.Sub(from).Seconds()}
	rows := map[string]*ShadowKeyFigures{}
	row := func(k string) *ShadowKeyFigures {
		if rows[k] == nil {
			rows[k] = &ShadowKeyFigures{Key: k}
		}
		return rows[k]
	}
	for side, rec := range []*queuestats.Recorder{r.live, r.shadow} {
		for _, qs := range rec.Report([]string{queue}, "", nil, now) {
			keys := qs.Keys
			if len(keys) == 0 && qs.Quality.Matches+qs.Wait.Samples > 0 {
				keys = []queuestats.KeyStats{qs.KeyStats} // the queue's one key
			}
			for _, ks := range keys {
				f := SideFigures{Matches: ks.Quality.Matches, Wait: ks.Wait, Quality: ks.Quality}
				if side == sideLive {
					row(ks.Key).Live = f
				} else {
					row(ks.Key).Shadow = f
				}
			}
		}
	}
	r.mu.Lock()
	for side, m := range r.sides {
		for key, e := range m {
			kr := row(key.String())
			f := &kr.Live
			if side == sideShadow {
				f = &kr.Shadow
			}
			f.SkillGap, f.PingMS = e.gaps.Summary(from), e.pings.Summary(from)
			f.Expired, f.TakenByLive, f.Refused = e.expired, e.left, e.refused
		}
	}
	r.mu.Unlock()
	for _, k := range cupid.SortedKeys(rows) {
		out.Keys = append(out.Keys, *rows[k])
	}
	if out.Keys == nil {
		out.Keys = []ShadowKeyFigures{}
	}
	return out, nil
}
