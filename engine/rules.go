package engine

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// rules is the engine's view of a compiled ruleset: names resolved and every
// flexible number tabulated per flex level (flex.go), so that the hot loop
// reads plain slices instead of evaluating schedules for every comparison.
type rules struct {
	c *ruleset.Compiled

	// steps are the waits at which anything relaxes, sorted and unique;
	// envs[L] is the envelope in force once a ticket has waited past L of
	// them (flex.go).
	steps []time.Duration
	envs  []envelope

	dist    []distRule
	options []optionRule
	lat     *ruleset.Latency
	// spread bounds the players' latencies to the hosting region apart
	// (region_latency_spread_ms); 0: no bound.
	spread int32
	comps  []compRule
	colls  []collRule
	teams  []ruleset.TeamAggregate
	// named are the ruleset's named teams (none: the alliance's
	// numbered teams), with their bounds and their seats together
	// (named.go).
	named              []ruleset.NamedTeam
	namedMin, namedMax []int
	namedCap           int
	// tcomps are the rules aimed at teams (team_comparison).
	tcomps []ruleset.TeamComparison
	counts []ruleset.CountLimit
	totals []ruleset.Total
	roles  *roleRule
	cross  *ruleset.CrossPlayKeys
	// query is ticket_query (query.go); nil without one.
	query   *queryRule
	filters []*ruleset.Expr
	// exclAttrs are the attributes of the block-list filters, judged
	// natively (excludes.go); exclOf gives each filter's index there, -1
	// for any other filter.
	exclAttrs []string
	exclOf    []int
	scores    []*ruleset.Expr
	quality   ruleset.Quality
	// partOrder lists every quality criterion and score name, sorted, the
	// order in which combine sums them.
	partOrder  []string
	partWeight []float64
	partIndex  map[string]int
	// critIndex and scoreIndex are partIndex resolved once for the
	// built-in criteria (by crit* constant) and for each of scores, so
	// scoring a match looks no names up.
	critIndex  [numCriteria]int
	scoreIndex []int

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

// anyMinDistance reports whether some distance rule has a min_distance.
func (r *rules) anyMinDistance() bool {
	for _, m := range r.c.Matching {
		if m.MinDistance != nil {
			return true
		}
	}
	return false
}

// distRule is a distance rule of AccelByte's match rulesets (or Cupid's spread
// variant) on a numeric attribute. A party's value is its players' average.
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
	// max is the rule's max, the attribute's largest value (0: none): a
	// ticket beyond it is refused (check.go).
	max float64
	// party reduces a party's players to the ticket's value: avg, min or
	// max.
	party string
}

// Match option kinds, as AccelByte's match rulesets define them. all: the
// same set of values, an unset option matching only unset ones. any: every
// ticket has the option and all share one value; a ticket without it could
// match nobody, so Check refuses it and the pairwise and group checks only
// ever see tickets that have it. unique: every player has a value and no two
// are equal.
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

type compRule struct {
	attr string
	op   string
	// gate: the attribute is compared with a constant; otherwise tickets
	// are compared with each other.
	gate   bool
	isStr  bool
	strVal string
	path   string
	// party, for a numeric gate, compares the party's avg, min or max
	// instead of every player (empty).
	party string
}

type collRule struct {
	attr     string
	contains bool
	value    string
	maxCount int // -1: no limit
	team     bool
	path     string
}

type roleRule struct {
	attr  string
	names []string
	max   []int // -1: the team size
}

// compile builds the engine's rules from a compiled ruleset.
func compile(c *ruleset.Compiled) (*rules, error) {
	if c == nil || c.Source == nil || len(c.Alliance) == 0 {
		return nil, cupid.Invalid("ruleset", "no compiled ruleset")
	}
	r := &rules{c: c, quality: c.Quality}
	for i, m := range c.Matching {
		d := distRule{
			attr: m.Attribute, spread: m.Criteria == ruleset.CriteriaSpread,
			ref0: m.Reference.At(0), weight: m.Weight, path: ruleIndex("matching_rule", i),
			party: m.PartyAggregate,
		}
		d.scale = m.Max
		d.max = m.Max
		if d.scale <= 0 {
			d.scale = d.ref0
		}
		if d.scale <= 0 {
			d.scale = 1
		}
		r.dist = append(r.dist, d)
	}
	r.balance = append([]int(nil), c.Balancing...)
	r.skill = r.balance
	if a := c.Quality.SkillAttribute; a != "" {
		r.skill = nil
		for i, d := range r.dist {
			if d.attr == a {
				r.skill = []int{i}
				break
			}
		}
	}
	for i, o := range c.Options {
		or := optionRule{name: o.Name, path: ruleIndex("match_options.options", i)}
		switch o.Type {
		case ruleset.OptionAny:
			or.kind = optAny
		case ruleset.OptionUnique:
			or.kind = optUnique
		default:
			or.kind = optAll
		}
		r.options = append(r.options, or)
	}
	if c.Latency.Enabled {
		l := c.Latency
		r.lat = &l
		r.spread = int32(l.SpreadMs)
	}
	for i, cmp := range c.Comparisons {
		cr := compRule{attr: cmp.Attribute, op: cmp.Operator, path: ruleIndex("comparison_rule", i), party: cmp.PartyAggregate}
		if cmp.Value != nil {
			cr.gate, cr.isStr, cr.strVal = true, cmp.Value.IsString, cmp.Value.String
		}
		r.comps = append(r.comps, cr)
	}
	for _, col := range c.Collections {
		r.colls = append(r.colls, collRule{
			attr: col.Attribute, contains: col.Operation == ruleset.CollectionContains, value: col.Value,
			maxCount: col.MaxCount, team: col.Scope == ruleset.ScopeTeam, path: col.Path,
		})
	}
	r.teams = c.Teams
	r.named = c.NamedTeams
	for _, t := range c.NamedTeams {
		r.namedMin = append(r.namedMin, t.PlayerMinNumber)
		r.namedMax = append(r.namedMax, t.PlayerMaxNumber)
		r.namedCap += t.PlayerMaxNumber
	}
	r.tcomps = c.TeamComparisons
	r.counts = c.CountLimits
	r.totals = c.Totals
	if c.Roles != nil && len(c.Roles.Quotas) > 0 {
		if len(c.Roles.Quotas) > 64 {
			return nil, cupid.Invalid("ruleset.roles.quotas", "the engine supports at most 64 roles")
		}
		rr := &roleRule{attr: c.Roles.Attribute}
		for _, q := range c.Roles.Quotas {
			rr.names = append(rr.names, q.Name)
			rr.max = append(rr.max, q.Max)
		}
		r.roles = rr
	}
	r.cross = c.CrossPlay
	if tq := c.TicketQuery; tq != nil {
		r.query = &queryRule{attr: tq.Attribute, syntax: tq.Syntax, mutual: tq.Direction == ruleset.QueryMutual}
	}
	r.filters = c.Filters
	r.exclAttrs, r.exclOf = exclAttrs(r)
	r.scores = c.Scores
	r.partOrder = []string{
		ruleset.CriterionSkillGap, ruleset.CriterionSkillSpread, ruleset.CriterionParties,
		ruleset.CriterionPing, ruleset.CriterionVariety, ruleset.CriterionWait, ruleset.CriterionRoles,
	}
	for _, sc := range c.Scores {
		if !slices.Contains(r.partOrder, sc.Name) {
			r.partOrder = append(r.partOrder, sc.Name)
		}
	}
	sort.Strings(r.partOrder)
	r.partIndex = make(map[string]int, len(r.partOrder))
	for k, name := range r.partOrder {
		r.partWeight = append(r.partWeight, c.Quality.Weight(name))
		r.partIndex[name] = k
	}
	for c, name := range criterionNames {
		r.critIndex[c] = r.partIndex[name]
	}
	r.scoreIndex = r.scoreIndex[:0]
	for _, sc := range c.Scores {
		r.scoreIndex = append(r.scoreIndex, r.partIndex[sc.Name])
	}

	r.buildLevels()
	r.loosenGates()
	r.maxParty, r.minPlayers = 0, math.MaxInt
	for _, e := range r.envs {
		r.maxParty = max(r.maxParty, e.maxPlayers)
		r.minPlayers = min(r.minPlayers, e.minTeams*e.minPlayers)
	}
	r.minPlayers = max(r.minPlayers, 1)
	return r, nil
}

// latRange is the latency a ticket that has waited w accepts. A ruleset that
// sets only region_latency_max_ms (no initial range, no expansion) would
// accept nothing under the plain formula; the engine reads it as "the maximum
// applies from the start".
func (r *rules) latRange(w time.Duration) int {
	l := r.lat
	if l.InitialMs <= 0 && (l.StepMs <= 0 || l.RateMs <= 0) {
		return l.MaxMs
	}
	return l.RangeAt(w)
}

func ruleIndex(name string, i int) string {
	return name + "[" + strconv.Itoa(i) + "]"
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
