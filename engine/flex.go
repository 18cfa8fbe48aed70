package engine

import (
	"sort"
	"time"

	"github.com/cupid-match/cupid/ruleset"
)

// envelope is everything a ruleset allows at one flex level (Pragma's
// matchmaking design's "envelope": the qualities of an acceptable match at a
// point in a ticket's wait). Levels are numbered by how many relaxation steps
// have passed, so a ticket's level only grows, and each envelope is at least
// as permissive as the one before it: buildLevels enforces that relaxation
// never tightens, even if a ruleset's steps would.
//
// Whose wait picks the level: the anchor's. Every rule of a match is judged at
// the flex level of the ticket the match is built around (the pivot of
// AccelByte's match rulesets), except latency, where bidirectional filtering
// also asks each candidate to have expanded to the region by its own wait.
type envelope struct {
	// Alliance (teams) in force.
	minTeams, maxTeams, minPlayers, maxPlayers int
	// ref is each distance rule's allowed difference.
	ref []float64
	// minRef is each distance rule's smallest allowed difference from the
	// pivot (min_distance; 0: none).
	minRef []float64
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
	// tcompNum is each team comparison's constant (0 with a reference).
	tcompNum []float64
	// namedCap is the seats of the named teams together; 0 without
	// named teams.
	namedCap int
}

// capacity is the number of players in a full match at this level.
func (e *envelope) capacity() int {
	if e.namedCap > 0 {
		return e.namedCap
	}
	return e.maxTeams * e.maxPlayers
}

// maxLevels bounds the level table, so a 1 ms expansion every 1 ms cannot
// make it huge; beyond it the last envelope stays in force.
const maxLevels = 4096

// buildLevels collects every wait at which something relaxes (the ruleset's
// NextChange) and tabulates the envelope after each.
func (r *rules) buildLevels() {
	r.steps = r.steps[:0]
	w := time.Duration(0)
	for len(r.steps) < maxLevels {
		next, ok := r.c.NextChange(w)
		if !ok || next <= w {
			break
		}
		r.steps = append(r.steps, next)
		w = next
	}
	r.envs = make([]envelope, len(r.steps)+1)
	for lv := range r.envs {
		var at time.Duration
		if lv > 0 {
			at = r.steps[lv-1]
		}
		e := r.envelopeAt(at)
		if lv > 0 {
			e.loosen(&r.envs[lv-1])
		}
		r.envs[lv] = e
	}
}

// envelopeAt evaluates every flexible number of the ruleset after waiting w.
func (r *rules) envelopeAt(w time.Duration) envelope {
	c := r.c
	var e envelope
	a := c.AllianceAt(w)
	e.minTeams, e.maxTeams = max(a.MinNumber, 1), max(a.MaxNumber, 1)
	e.minPlayers, e.maxPlayers = max(a.PlayerMinNumber, 1), max(a.PlayerMaxNumber, 1)
	e.minTeams = min(e.minTeams, e.maxTeams)
	e.minPlayers = min(e.minPlayers, e.maxPlayers)

	e.ref = make([]float64, len(r.dist))
	e.minRef = make([]float64, len(r.dist))
	for i := range r.dist {
		e.ref[i] = c.ReferenceAt(i, w)
		e.minRef[i] = c.MinDistanceAt(i, w)
	}
	if r.lat != nil {
		e.latRange = r.latRange(w)
		e.bidir = r.lat.Bidirectional(w)
	}
	e.compNum = make([]float64, len(c.Comparisons))
	for i, cmp := range c.Comparisons {
		if cmp.Threshold != nil {
			e.compNum[i] = cmp.Threshold.At(w)
		}
	}
	e.collMin = make([]int, len(c.Collections))
	for i, col := range c.Collections {
		if col.MinCount != nil {
			e.collMin[i] = int(col.MinCount.At(w))
		}
	}
	e.teamDiff = make([]float64, len(c.Teams))
	for i, t := range c.Teams {
		e.teamDiff[i] = t.MaxDifference.At(w)
	}
	e.totalMin = make([]float64, len(c.Totals))
	e.totalMax = make([]float64, len(c.Totals))
	for i, t := range c.Totals {
		e.totalMin[i], e.totalMax[i] = t.Min.At(w), t.Max.At(w)
	}
	if c.Roles != nil {
		e.roleMin = make([]int, len(c.Roles.Quotas))
		for i, q := range c.Roles.Quotas {
			e.roleMin[i] = max(int(q.Min.At(w)), 0)
		}
	}
	e.namedCap = r.namedCap
	e.tcompNum = make([]float64, len(c.TeamComparisons))
	for i, tc := range c.TeamComparisons {
		if tc.Threshold != nil {
			e.tcompNum[i] = tc.Threshold.At(w)
		}
	}
	e.filterOn = make([]bool, len(c.Filters))
	for i, f := range c.Filters {
		e.filterOn[i] = f.ActiveAt(w)
	}
	return e
}

// loosen makes e at least as permissive as prev: waiting longer never makes
// a match harder to get. Validation already refuses tightening steps; this
// keeps the property even for a ruleset built in Go without validation.
func (e *envelope) loosen(prev *envelope) {
	e.minTeams = min(e.minTeams, prev.minTeams)
	e.minPlayers = min(e.minPlayers, prev.minPlayers)
	e.maxTeams = max(e.maxTeams, prev.maxTeams)
	e.maxPlayers = max(e.maxPlayers, prev.maxPlayers)
	for i := range e.ref {
		e.ref[i] = max(e.ref[i], prev.ref[i])
		e.minRef[i] = min(e.minRef[i], prev.minRef[i])
	}
	e.latRange = max(e.latRange, prev.latRange)
	e.bidir = e.bidir && prev.bidir
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

// loosenGates applies the never-tighten rule to numeric comparison gates,
// whose relaxing direction depends on the operator.
func (r *rules) loosenGates() {
	for lv := 1; lv < len(r.envs); lv++ {
		e, prev := &r.envs[lv], &r.envs[lv-1]
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
		for i, c := range r.tcomps {
			switch c.Operator {
			case ruleset.OpGreater, ruleset.OpGreaterEqual:
				e.tcompNum[i] = min(e.tcompNum[i], prev.tcompNum[i])
			case ruleset.OpLess, ruleset.OpLessEqual:
				e.tcompNum[i] = max(e.tcompNum[i], prev.tcompNum[i])
			}
		}
	}
}

// level is the flex level of a ticket that has waited w: how many
// relaxation steps it has passed.
func (r *rules) level(w time.Duration) int {
	return sort.Search(len(r.steps), func(i int) bool { return r.steps[i] > w })
}

// nextStep is the wait at which a ticket that has waited w next relaxes, if
// it ever does.
func (r *rules) nextStep(w time.Duration) (time.Duration, bool) {
	lv := r.level(w)
	if lv >= len(r.steps) {
		return 0, false
	}
	return r.steps[lv], true
}
