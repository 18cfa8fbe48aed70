package engine

import (
	"math"
	"sort"
	"time"

	"github.com/cupid-match/cupid/ruleset"
)

// envelope is everything a ruleset allows at one flex level (seed 002's
// "envelope": the qualities of an acceptable match at a point in a ticket's
// wait). Levels are numbered by how many relaxation steps have passed, so a
// ticket's level only grows, and each envelope is at least as permissive as
// the one before it: compile enforces that relaxation never tightens, even
// when a ruleset's steps would.
type envelope struct {
	// Alliance (teams) in force.
	minTeams, maxTeams, minPlayers, maxPlayers int
	// ref is each distance rule's allowed difference.
	ref []float64
	// latRange is the latency, in ms, a ticket at this level accepts.
	latRange int
	// bidir: candidates must have expanded to the region themselves.
	bidir bool
	// compNum is each numeric comparison gate's constant.
	compNum []float64
	// collMin is each intersection rule's fewest shared values.
	collMin []int
	// teamDiff is each team rule's largest allowed gap.
	teamDiff []float64
	// totalMin and totalMax bound each match total.
	totalMin, totalMax []float64
	// roleMin is each role's per-team minimum.
	roleMin []int
	// filterOn says which expression filters still apply.
	filterOn []bool
}

// capacity is the number of players in a full match at this level.
func (e *envelope) capacity() int { return e.maxTeams * e.maxPlayers }

// maxLatencySteps bounds how many expansion steps a ruleset can create, so a
// 1 ms expansion every 1 ms cannot make the level table huge.
const maxLatencySteps = 4096

// buildLevels collects every wait at which something relaxes and tabulates
// the envelope after each.
func (r *rules) buildLevels() {
	rs := r.src
	var pts []time.Duration
	add := func(d time.Duration) {
		if d > 0 {
			pts = append(pts, d)
		}
	}
	for _, f := range rs.AllianceFlexingRule {
		add(secs(f.Duration))
	}
	for _, f := range rs.FlexingRule {
		add(secs(f.Duration))
	}
	if l := r.lat; l != nil {
		if l.step > 0 && l.rate > 0 {
			for k := 1; k <= maxLatencySteps; k++ {
				add(time.Duration(k*l.rate) * time.Millisecond)
				if l.initial+k*l.step >= l.max {
					break
				}
			}
		}
		add(l.disableAfter)
	}
	for _, c := range rs.ComparisonRule {
		for _, f := range c.Flexing {
			add(secs(f.Duration))
		}
	}
	for _, c := range rs.CollectionRule {
		for _, f := range c.Flexing {
			add(secs(f.Duration))
		}
	}
	for _, t := range rs.TeamRule {
		for _, f := range t.Flexing {
			add(secs(f.Duration))
		}
	}
	for _, t := range rs.MatchTotal {
		for _, f := range t.Flexing {
			add(secs(f.Duration))
		}
	}
	if rs.Roles != nil {
		for _, q := range rs.Roles.Quotas {
			for _, f := range q.Flexing {
				add(secs(f.Duration))
			}
		}
	}
	for _, f := range rs.Filter {
		add(secs(f.DisableAfter))
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i] < pts[j] })
	r.steps = r.steps[:0]
	for i, p := range pts {
		if i == 0 || p != pts[i-1] {
			r.steps = append(r.steps, p)
		}
	}
	r.envs = make([]envelope, len(r.steps)+1)
	for lv := range r.envs {
		var w time.Duration
		if lv > 0 {
			w = r.steps[lv-1]
		}
		e := r.envelopeAt(w)
		if lv > 0 {
			e.loosen(&r.envs[lv-1], r)
		}
		r.envs[lv] = e
	}
}

// envelopeAt evaluates every flexible number of the ruleset after waiting w,
// as the ruleset writes it.
func (r *rules) envelopeAt(w time.Duration) envelope {
	rs := r.src
	var e envelope

	a := rs.Alliance
	flexes := append([]ruleset.AllianceFlex(nil), rs.AllianceFlexingRule...)
	sort.SliceStable(flexes, func(i, j int) bool { return flexes[i].Duration < flexes[j].Duration })
	for _, f := range flexes {
		if secs(f.Duration) > w {
			break
		}
		if f.MinNumber > 0 {
			a.MinNumber = f.MinNumber
		}
		if f.MaxNumber > 0 {
			a.MaxNumber = f.MaxNumber
		}
		if f.PlayerMinNumber > 0 {
			a.PlayerMinNumber = f.PlayerMinNumber
		}
		if f.PlayerMaxNumber > 0 {
			a.PlayerMaxNumber = f.PlayerMaxNumber
		}
	}
	e.maxTeams, e.maxPlayers = max(a.MaxNumber, 1), max(a.PlayerMaxNumber, 1)
	// An unset minimum means "full": the strict reading, so that a ruleset
	// that forgot a minimum never starts half-empty matches.
	e.minTeams, e.minPlayers = a.MinNumber, a.PlayerMinNumber
	if e.minTeams <= 0 || e.minTeams > e.maxTeams {
		e.minTeams = min(max(e.minTeams, 0), e.maxTeams)
		if e.minTeams == 0 {
			e.minTeams = e.maxTeams
		}
	}
	if e.minPlayers <= 0 || e.minPlayers > e.maxPlayers {
		e.minPlayers = min(max(e.minPlayers, 0), e.maxPlayers)
		if e.minPlayers == 0 {
			e.minPlayers = e.maxPlayers
		}
	}

	e.ref = make([]float64, len(r.dist))
	for i, d := range r.dist {
		ref := d.ref0
		best := time.Duration(-1)
		for _, f := range rs.FlexingRule {
			crit := f.Criteria
			if crit == "" {
				crit = ruleset.CriteriaDistance
			}
			want := ruleset.CriteriaDistance
			if d.spread {
				want = ruleset.CriteriaSpread
			}
			if f.Attribute != d.attr || crit != want || secs(f.Duration) > w {
				continue
			}
			if secs(f.Duration) >= best {
				best, ref = secs(f.Duration), f.Reference
			}
		}
		e.ref[i] = ref
	}

	if r.lat != nil {
		e.latRange = r.lat.rangeAt(w)
		e.bidir = r.lat.disableAfter == 0 || w < r.lat.disableAfter
	}

	e.compNum = make([]float64, len(rs.ComparisonRule))
	for i, c := range rs.ComparisonRule {
		if c.Value != nil && !c.Value.IsString {
			e.compNum[i] = flexAt(c.Value.Number, sortedFlex(c.Flexing), w)
		}
	}
	e.collMin = make([]int, len(rs.CollectionRule))
	for i, c := range rs.CollectionRule {
		base := 1
		if c.MinCount != nil {
			base = *c.MinCount
		}
		e.collMin[i] = int(flexAt(float64(base), sortedFlex(c.Flexing), w))
	}
	e.teamDiff = make([]float64, len(rs.TeamRule))
	for i, t := range rs.TeamRule {
		e.teamDiff[i] = flexAt(t.MaxDifference, sortedFlex(t.Flexing), w)
	}
	e.totalMin = make([]float64, len(rs.MatchTotal))
	e.totalMax = make([]float64, len(rs.MatchTotal))
	for i, t := range rs.MatchTotal {
		lo, hi := math.Inf(-1), math.Inf(1)
		if t.Min != nil {
			lo = *t.Min
		}
		if t.Max != nil {
			hi = *t.Max
		}
		fl := append([]ruleset.RangeFlex(nil), t.Flexing...)
		sort.SliceStable(fl, func(i, j int) bool { return fl[i].Duration < fl[j].Duration })
		for _, f := range fl {
			if secs(f.Duration) > w {
				break
			}
			if f.Min != nil {
				lo = *f.Min
			}
			if f.Max != nil {
				hi = *f.Max
			}
		}
		e.totalMin[i], e.totalMax[i] = lo, hi
	}
	if r.roles != nil {
		e.roleMin = make([]int, len(rs.Roles.Quotas))
		for i, q := range rs.Roles.Quotas {
			e.roleMin[i] = max(int(flexAt(float64(q.Min), sortedFlex(q.Flexing), w)), 0)
		}
	}
	e.filterOn = make([]bool, len(r.filters))
	for i, f := range r.filters {
		e.filterOn[i] = f.disableAfter == 0 || w < f.disableAfter
	}
	return e
}

// loosen makes e at least as permissive as prev: the rule of the house is
// that waiting longer never makes a match harder to get.
func (e *envelope) loosen(prev *envelope, r *rules) {
	e.minTeams = min(e.minTeams, prev.minTeams)
	e.minPlayers = min(e.minPlayers, prev.minPlayers)
	e.maxTeams = max(e.maxTeams, prev.maxTeams)
	e.maxPlayers = max(e.maxPlayers, prev.maxPlayers)
	for i := range e.ref {
		e.ref[i] = max(e.ref[i], prev.ref[i])
	}
	e.latRange = max(e.latRange, prev.latRange)
	e.bidir = e.bidir && prev.bidir
	for i, c := range r.comps {
		if !c.gate || c.isStr {
			continue
		}
		switch c.op {
		case ruleset.OpGreater, ruleset.OpGreaterEqual:
			e.compNum[i] = min(e.compNum[i], prev.compNum[i])
		case ruleset.OpLess, ruleset.OpLessEqual:
			e.compNum[i] = max(e.compNum[i], prev.compNum[i])
		}
	}
	for i := range e.collMin {
		e.collMin[i] = min(e.collMin[i], prev.collMin[i])
	}
	for i := range e.teamDiff {
		e.teamDiff[i] = max(e.teamDiff[i], prev.teamDiff[i])
	}
	for i := range e.totalMin {
		e.totalMin[i] = min(e.totalMin[i], prev.totalMin[i])
		e.totalMax[i] = max(e.totalMax[i], prev.totalMax[i])
	}
	for i := range e.roleMin {
		e.roleMin[i] = min(e.roleMin[i], prev.roleMin[i])
	}
	for i := range e.filterOn {
		e.filterOn[i] = e.filterOn[i] && prev.filterOn[i]
	}
}

// level is the flex level of a ticket that has waited w: how many
// relaxation steps it has passed.
func (r *rules) level(w time.Duration) int {
	return sort.Search(len(r.steps), func(i int) bool { return r.steps[i] > w })
}

// envAt is the envelope in force after waiting w.
func (r *rules) envAt(w time.Duration) *envelope { return &r.envs[r.level(w)] }

// nextStep is the wait at which a ticket that has waited w next relaxes, if
// it ever does.
func (r *rules) nextStep(w time.Duration) (time.Duration, bool) {
	lv := r.level(w)
	if lv >= len(r.steps) {
		return 0, false
	}
	return r.steps[lv], true
}
