package ruleset

import (
	"math"
	"sort"
	"time"
)

// Defaults of the quality configuration, chosen after the War Robots article
// on match quality: skill first (the gap between teams counts more than the
// spread inside them), then ping, then the rest.
const (
	DefaultSkillGapWeight    = 3.0
	DefaultSkillSpreadWeight = 2.0
	DefaultPartiesWeight     = 1.0
	DefaultPingWeight        = 2.0
	DefaultVarietyWeight     = 1.0
	DefaultWaitWeight        = 1.0
	DefaultRolesWeight       = 1.0
	// DefaultPingOkMs is the latency that still scores a perfect 1.
	DefaultPingOkMs = 40
	// DefaultPingBadMs is the latency that scores 0.
	DefaultPingBadMs = 200
	// DefaultWaitBadSeconds is the wait that scores 0.
	DefaultWaitBadSeconds = 120
)

// The names of the built-in quality criteria, as they appear in
// cupid.Quality.Parts and in the quality object of a ruleset.
const (
	CriterionSkillGap    = "skill_gap"
	CriterionSkillSpread = "skill_spread"
	CriterionParties     = "parties"
	CriterionPing        = "ping"
	CriterionVariety     = "variety"
	CriterionWait        = "wait"
	CriterionRoles       = "roles"
)

// Quality is the compiled quality configuration: one weight per criterion
// (zero switches it off) and the curves that turn raw measures into scores.
type Quality struct {
	SkillGap, SkillSpread, Parties, Ping, Variety, Wait, Roles float64
	// SkillAttribute is the matching rule attribute that is "skill"; empty
	// means the balancing attributes.
	SkillAttribute string
	PingOkMs       int
	PingBadMs      int
	WaitBad        time.Duration
	// Sqrt takes the square root of each criterion before averaging.
	Sqrt bool
	// scores holds the weights of the score expressions by name.
	scores map[string]float64
}

func compileQuality(rs *Ruleset) Quality {
	q := Quality{
		SkillGap: DefaultSkillGapWeight, SkillSpread: DefaultSkillSpreadWeight, Parties: DefaultPartiesWeight,
		Ping: DefaultPingWeight, Variety: DefaultVarietyWeight, Wait: DefaultWaitWeight, Roles: DefaultRolesWeight,
		PingOkMs: DefaultPingOkMs, PingBadMs: DefaultPingBadMs, WaitBad: DefaultWaitBadSeconds * time.Second,
		Sqrt: true, scores: map[string]float64{},
	}
	for _, s := range rs.Score {
		w := 1.0
		if s.Weight != nil {
			w = *s.Weight
		}
		q.scores[s.Name] = w
	}
	w := rs.Quality
	if w == nil {
		return q
	}
	set := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
		}
	}
	set(&q.SkillGap, w.SkillGap)
	set(&q.SkillSpread, w.SkillSpread)
	set(&q.Parties, w.Parties)
	set(&q.Ping, w.Ping)
	set(&q.Variety, w.Variety)
	set(&q.Wait, w.Wait)
	set(&q.Roles, w.Roles)
	q.SkillAttribute = w.SkillAttribute
	if w.PingOkMs != nil {
		q.PingOkMs = *w.PingOkMs
	}
	if w.PingBadMs != nil {
		q.PingBadMs = *w.PingBadMs
	}
	if w.WaitBadSeconds != nil {
		q.WaitBad = seconds(*w.WaitBadSeconds)
	}
	if w.Sqrt != nil {
		q.Sqrt = *w.Sqrt
	}
	return q
}

// Weight returns the weight of a criterion: a built-in name or the name of a
// score expression. Unknown names weigh 0.
func (q Quality) Weight(name string) float64 {
	switch name {
	case CriterionSkillGap:
		return q.SkillGap
	case CriterionSkillSpread:
		return q.SkillSpread
	case CriterionParties:
		return q.Parties
	case CriterionPing:
		return q.Ping
	case CriterionVariety:
		return q.Variety
	case CriterionWait:
		return q.Wait
	case CriterionRoles:
		return q.Roles
	}
	return q.scores[name]
}

// PingScore scores a latency in ms. It is 1 up to PingOkMs and 0 from
// PingBadMs, and in between falls along a parabola that is steep near the good
// end and flat near the bad end: going from 110 to 100 ms is worth more than
// going from 210 to 200 ms (the War Robots article on match quality).
func (q Quality) PingScore(ms float64) float64 {
	ok, bad := float64(q.PingOkMs), float64(q.PingBadMs)
	switch {
	case math.IsNaN(ms) || ms >= bad:
		return 0
	case ms <= ok:
		return 1
	}
	x := (bad - ms) / (bad - ok)
	return x * x
}

// WaitScore scores a wait: 1 at zero, falling linearly to 0 at WaitBad.
func (q Quality) WaitScore(wait time.Duration) float64 {
	if wait <= 0 {
		return 1
	}
	if wait >= q.WaitBad {
		return 0
	}
	return 1 - float64(wait)/float64(q.WaitBad)
}

// Combine averages criterion scores (each in [0,1], keyed by criterion or
// score-expression name) with their weights, after taking square roots when
// Sqrt is on so that lifting a bad criterion counts for more than polishing
// a good one. Criteria absent from parts do not apply to the match and are
// left out of the average; the result is 1 when nothing applies.
func (q Quality) Combine(parts map[string]float64) float64 {
	// Sum in a fixed order: floating-point addition is not associative,
	// and the same match must always get the same score.
	names := make([]string, 0, len(parts))
	for name := range parts {
		names = append(names, name)
	}
	sort.Strings(names)
	var sum, total float64
	for _, name := range names {
		w := q.Weight(name)
		if w <= 0 {
			continue
		}
		s := min(max(parts[name], 0), 1)
		if math.IsNaN(parts[name]) {
			s = 0
		}
		if q.Sqrt {
			s = math.Sqrt(s)
		}
		sum += w * s
		total += w
	}
	if total == 0 {
		return 1
	}
	return sum / total
}
