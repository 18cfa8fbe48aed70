package engine

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// rules is the engine's own compiled form of a ruleset: names resolved,
// defaults filled in and every flexible number tabulated per flex level
// (flex.go), so that the hot loop reads plain slices instead of walking the
// ruleset's flexing lists for every comparison.
type rules struct {
	src *ruleset.Ruleset

	// steps are the waits at which anything relaxes, sorted and unique;
	// envs[L] is the envelope in force once a ticket has waited past L of
	// them (flex.go).
	steps []time.Duration
	envs  []envelope

	dist    []distRule
	options []optionRule
	lat     *latencyRule
	comps   []compRule
	colls   []collRule
	teams   []teamAggRule
	totals  []totalRule
	roles   *roleRule
	cross   *crossRule
	filters []*exprRule
	scores  []*exprRule
	quality qualityConf

	// balance lists the attributes team balancing evens out, as indexes
	// into dist.
	balance []int
	// skill lists the attributes the quality score treats as skill, as
	// indexes into dist.
	skill []int
	// maxParty is the largest party any flex level lets into a team; a
	// larger party can never match and Check refuses it.
	maxParty int
	// minPlayers is the fewest players any flex level can start a match
	// with; a pool with fewer players has nothing to wake up for.
	minPlayers int
}

// distRule is a seed 003 distance rule (or Cupid's spread variant) on a
// numeric attribute. A party's value is its players' average.
type distRule struct {
	attr   string
	spread bool
	// ref0 is the unflexed reference; the quality score measures skill gaps
	// against it.
	ref0 float64
	// scale normalises the attribute for balancing: the rule's max when
	// given, else ref0 (so that "one reference apart" weighs 1).
	scale  float64
	weight float64
	path   string
}

// Match option kinds.
const (
	optAll uint8 = iota
	optAny
	optUnique
)

type optionRule struct {
	name string
	kind uint8
	path string
}

// latencyRule is seed 003's region expansion: a ticket accepts the regions it
// reaches within initial ms, and step ms more after every rate ms of waiting,
// up to max ms.
type latencyRule struct {
	initial, step, rate, max int
	// disableAfter: an anchor that has waited this long stops requiring its
	// candidates to have expanded to the region themselves. Zero: never.
	disableAfter time.Duration
}

// rangeAt is the latency a ticket that has waited w accepts.
func (l *latencyRule) rangeAt(w time.Duration) int {
	r := l.initial
	if l.step > 0 && l.rate > 0 {
		k := int(w / (time.Duration(l.rate) * time.Millisecond))
		r += k * l.step
	}
	if r > l.max {
		r = l.max
	}
	return r
}

type compRule struct {
	attr string
	op   string
	// gate: the attribute is compared with a constant; otherwise tickets
	// are compared with each other.
	gate   bool
	isStr  bool
	strVal string
	path   string
}

type collRule struct {
	attr     string
	contains bool
	value    string
	maxCount int // -1: no limit
	team     bool
	path     string
}

type teamAggRule struct {
	attr, agg, partyAgg string
	path                string
}

type totalRule struct {
	attr, agg string
	path      string
}

type roleRule struct {
	attr  string
	names []string
	max   []int // -1: the team size
	path  string
}

type crossRule struct {
	accepted, current string
}

// qualityConf is QualityWeights with the defaults filled in (quality.go).
type qualityConf struct {
	skillGap, skillSpread, parties, ping, variety, wait, roles float64
	pingOK, pingBad                                            float64
	waitBad                                                    time.Duration
	sqrt                                                       bool
}

// Default quality weights and curve points. Skill gap between teams matters
// most (seed 004 names it first), ping next; the rest share the remainder.
const (
	defaultSkillGapWeight    = 3
	defaultSkillSpreadWeight = 1
	defaultPartiesWeight     = 1
	defaultPingWeight        = 2
	defaultVarietyWeight     = 1
	defaultWaitWeight        = 1
	defaultRolesWeight       = 1
	defaultPingOKMs          = 50
	defaultPingBadMs         = 200
	defaultWaitBadSeconds    = 120
)

// compile turns a ruleset into rules. It checks only what the engine cannot
// work without (the ruleset package validates the rest); errors name the
// ruleset field.
func compile(rs *ruleset.Ruleset) (*rules, error) {
	if rs == nil {
		return nil, invalidRuleset("", "no ruleset")
	}
	r := &rules{src: rs}
	a := rs.Alliance
	if a.MaxNumber < 1 {
		return nil, invalidRuleset("alliance.max_number", "must be at least 1")
	}
	if a.PlayerMaxNumber < 1 {
		return nil, invalidRuleset("alliance.player_max_number", "must be at least 1")
	}
	for i, f := range rs.AllianceFlexingRule {
		if f.Duration < 0 {
			return nil, invalidRuleset(fmt.Sprintf("alliance_flexing_rule[%d].duration", i), "must not be negative")
		}
	}

	for i, m := range rs.MatchingRule {
		path := fmt.Sprintf("matching_rule[%d]", i)
		if m.Attribute == "" {
			return nil, invalidRuleset(path+".attribute", "is required")
		}
		d := distRule{attr: m.Attribute, spread: m.Criteria == ruleset.CriteriaSpread, ref0: m.Reference, weight: 1, path: path}
		if m.Criteria != "" && m.Criteria != ruleset.CriteriaDistance && m.Criteria != ruleset.CriteriaSpread {
			return nil, invalidRuleset(path+".criteria", "unknown criteria %q", m.Criteria)
		}
		if m.Reference < 0 || !finite(m.Reference) {
			return nil, invalidRuleset(path+".reference", "must be a number >= 0")
		}
		if m.Weight != nil {
			d.weight = *m.Weight
		}
		d.scale = m.Max
		if d.scale <= 0 {
			d.scale = m.Reference
		}
		if d.scale <= 0 {
			d.scale = 1
		}
		r.dist = append(r.dist, d)
		if m.IsForBalancing {
			r.balance = append(r.balance, i)
		}
	}
	if len(r.balance) == 0 && len(r.dist) > 0 {
		r.balance = []int{0}
	}

	if rs.MatchOptions != nil {
		for i, o := range rs.MatchOptions.Options {
			path := fmt.Sprintf("match_options.options[%d]", i)
			or := optionRule{name: o.Name, path: path}
			switch o.Type {
			case ruleset.OptionAll, "":
				or.kind = optAll
			case ruleset.OptionAny:
				or.kind = optAny
			case ruleset.OptionUnique:
				or.kind = optUnique
			default:
				return nil, invalidRuleset(path+".type", "unknown option type %q", o.Type)
			}
			if o.Name == "" {
				return nil, invalidRuleset(path+".name", "is required")
			}
			r.options = append(r.options, or)
		}
	}

	if rs.RegionLatencyMaxMs > 0 {
		l := &latencyRule{
			initial: rs.RegionLatencyInitialRangeMs,
			step:    rs.RegionExpansionRangeMs,
			rate:    rs.RegionExpansionRateMs,
			max:     rs.RegionLatencyMaxMs,
		}
		if l.initial <= 0 || l.initial > l.max {
			// No initial range: the whole allowance applies at once.
			l.initial = l.max
		}
		if rs.DisableBidirectionalLatencyAfterMs > 0 {
			l.disableAfter = time.Duration(rs.DisableBidirectionalLatencyAfterMs) * time.Millisecond
		}
		r.lat = l
	}

	for i, c := range rs.ComparisonRule {
		path := fmt.Sprintf("comparison_rule[%d]", i)
		cr := compRule{attr: c.Attribute, op: c.Operator, path: path}
		switch c.Operator {
		case ruleset.OpLess, ruleset.OpLessEqual, ruleset.OpEqual, ruleset.OpNotEqual, ruleset.OpGreaterEqual, ruleset.OpGreater:
		default:
			return nil, invalidRuleset(path+".operator", "unknown operator %q", c.Operator)
		}
		if c.Value != nil {
			cr.gate = true
			cr.isStr = c.Value.IsString
			cr.strVal = c.Value.String
			if cr.isStr && c.Operator != ruleset.OpEqual && c.Operator != ruleset.OpNotEqual {
				return nil, invalidRuleset(path+".operator", "a string can only be compared with = or !=")
			}
		} else if c.Operator != ruleset.OpEqual && c.Operator != ruleset.OpNotEqual {
			return nil, invalidRuleset(path+".operator", "tickets are compared with each other only with = or !=")
		}
		r.comps = append(r.comps, cr)
	}

	for i, c := range rs.CollectionRule {
		path := fmt.Sprintf("collection_rule[%d]", i)
		cr := collRule{attr: c.Attribute, contains: c.Operation == ruleset.CollectionContains, value: c.Value, maxCount: -1, team: c.Scope == ruleset.ScopeTeam, path: path}
		if c.Operation != ruleset.CollectionContains && c.Operation != ruleset.CollectionIntersection {
			return nil, invalidRuleset(path+".operation", "unknown operation %q", c.Operation)
		}
		if c.MaxCount != nil {
			cr.maxCount = *c.MaxCount
		}
		r.colls = append(r.colls, cr)
	}

	for i, t := range rs.TeamRule {
		path := fmt.Sprintf("team_rule[%d]", i)
		if !knownAggregate(t.Aggregate) {
			return nil, invalidRuleset(path+".aggregate", "unknown aggregate %q", t.Aggregate)
		}
		r.teams = append(r.teams, teamAggRule{attr: t.Attribute, agg: t.Aggregate, partyAgg: t.PartyAggregate, path: path})
	}
	for i, t := range rs.MatchTotal {
		path := fmt.Sprintf("match_total[%d]", i)
		if !knownAggregate(t.Aggregate) {
			return nil, invalidRuleset(path+".aggregate", "unknown aggregate %q", t.Aggregate)
		}
		r.totals = append(r.totals, totalRule{attr: t.Attribute, agg: t.Aggregate, path: path})
	}

	if rs.Roles != nil && len(rs.Roles.Quotas) > 0 {
		rr := &roleRule{attr: rs.Roles.Attribute, path: "roles"}
		if rr.attr == "" {
			rr.attr = ruleset.KeyRole
		}
		if len(rs.Roles.Quotas) > 64 {
			return nil, invalidRuleset("roles.quotas", "at most 64 roles")
		}
		for _, q := range rs.Roles.Quotas {
			rr.names = append(rr.names, q.Name)
			m := -1
			if q.Max != nil {
				m = *q.Max
			}
			rr.max = append(rr.max, m)
		}
		r.roles = rr
	}

	if rs.CrossPlay != nil {
		c := &crossRule{accepted: rs.CrossPlay.AcceptedAttribute, current: rs.CrossPlay.CurrentAttribute}
		if c.accepted == "" {
			c.accepted = ruleset.KeyCrossPlatform
		}
		if c.current == "" {
			c.current = ruleset.KeyCurrentPlatform
		}
		r.cross = c
	}

	for i, f := range rs.Filter {
		e, err := compileExpr(f, fmt.Sprintf("filter[%d]", i), true)
		if err != nil {
			return nil, err
		}
		r.filters = append(r.filters, e)
	}
	for i, s := range rs.Score {
		e, err := compileExpr(s, fmt.Sprintf("score[%d]", i), false)
		if err != nil {
			return nil, err
		}
		r.scores = append(r.scores, e)
	}

	r.quality = qualityDefaults(rs)
	r.skill = r.balance
	if q := rs.Quality; q != nil && q.SkillAttribute != "" {
		r.skill = nil
		for i, d := range r.dist {
			if d.attr == q.SkillAttribute {
				r.skill = []int{i}
				break
			}
		}
		if r.skill == nil {
			return nil, invalidRuleset("quality.skill_attribute", "%q is not the attribute of any matching_rule", q.SkillAttribute)
		}
	}
	if r.lat != nil && (rs.Quality == nil || rs.Quality.PingBadMs == nil) {
		r.quality.pingBad = float64(r.lat.max)
	}

	r.buildLevels()
	r.maxParty, r.minPlayers = 0, math.MaxInt
	for _, e := range r.envs {
		r.maxParty = max(r.maxParty, e.maxPlayers)
		r.minPlayers = min(r.minPlayers, e.minTeams*e.minPlayers)
	}
	r.minPlayers = max(r.minPlayers, 1)
	return r, nil
}

func knownAggregate(a string) bool {
	switch a {
	case ruleset.AggregateAvg, ruleset.AggregateMin, ruleset.AggregateMax, ruleset.AggregateSum, ruleset.AggregateStddev:
		return true
	}
	return false
}

func qualityDefaults(rs *ruleset.Ruleset) qualityConf {
	q := qualityConf{
		skillGap: defaultSkillGapWeight, skillSpread: defaultSkillSpreadWeight,
		parties: defaultPartiesWeight, ping: defaultPingWeight, variety: defaultVarietyWeight,
		wait: defaultWaitWeight, roles: defaultRolesWeight,
		pingOK: defaultPingOKMs, pingBad: defaultPingBadMs,
		waitBad: defaultWaitBadSeconds * time.Second, sqrt: true,
	}
	w := rs.Quality
	if w == nil {
		return q
	}
	set := func(dst *float64, v *float64) {
		if v != nil && *v >= 0 && finite(*v) {
			*dst = *v
		}
	}
	set(&q.skillGap, w.SkillGap)
	set(&q.skillSpread, w.SkillSpread)
	set(&q.parties, w.Parties)
	set(&q.ping, w.Ping)
	set(&q.variety, w.Variety)
	set(&q.wait, w.Wait)
	set(&q.roles, w.Roles)
	if w.PingOkMs != nil {
		q.pingOK = float64(*w.PingOkMs)
	}
	if w.PingBadMs != nil {
		q.pingBad = float64(*w.PingBadMs)
	}
	if w.WaitBadSeconds != nil && *w.WaitBadSeconds > 0 {
		q.waitBad = time.Duration(*w.WaitBadSeconds) * time.Second
	}
	if w.Sqrt != nil {
		q.sqrt = *w.Sqrt
	}
	return q
}

// sortedFlex returns the flex steps ordered by duration (stable, so that of
// two steps with the same duration the later one written wins).
func sortedFlex(fs []ruleset.Flex) []ruleset.Flex {
	out := append([]ruleset.Flex(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Duration < out[j].Duration })
	return out
}

// flexAt is the value of a flexible number after waiting w: the last step
// whose duration has passed, else the base value.
func flexAt(base float64, steps []ruleset.Flex, w time.Duration) float64 {
	v := base
	for _, s := range steps {
		if secs(s.Duration) <= w {
			v = s.Value
		}
	}
	return v
}

func secs(n int) time.Duration { return time.Duration(n) * time.Second }

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// invalidRuleset reports a ruleset the engine cannot run, naming the field
// at fault (prefixed "ruleset.") so that a bad upload is refused with a
// reason instead of producing a pool that never matches.
func invalidRuleset(field, format string, args ...any) error {
	if field == "" {
		return cupid.Invalid("ruleset", format, args...)
	}
	return cupid.Invalid("ruleset."+field, format, args...)
}
