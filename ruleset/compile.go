package ruleset

import (
	"math"
	"sort"
	"time"
)

// Compiled is a validated ruleset turned into what the engine asks for while
// matching: every flexible number as a Schedule of the ticket's wait,
// defaults filled in, expressions compiled once. It is read-only and safe to
// share between goroutines and pools.
type Compiled struct {
	// Source is the ruleset this was compiled from; it must not be changed.
	Source *Ruleset
	// AutoBackfill is the ruleset's auto_backfill.
	AutoBackfill bool
	// Alliance is the team layout over time; Alliance[0].After is 0.
	Alliance []AllianceStep
	// Matching holds matching_rule with its flexing_rule steps folded in.
	Matching []Matching
	// Balancing lists the indexes into Matching of the attributes team
	// balancing uses: those with is_for_balancing, or else the first rule (the
	// default of AccelByte's match rulesets).
	Balancing []int
	// Options are the match options; OptionsForBackfill is
	// match_options_referred_for_backfill.
	Options            []MatchOption
	OptionsForBackfill bool
	// Latency is the region expansion.
	Latency Latency
	// Comparisons, Collections, Teams and Totals are the extension rules.
	Comparisons []Comparison
	// NamedTeams are the ruleset's teams, when it names them: each with
	// its own size bounds, in the order matches list them.
	NamedTeams []NamedTeam
	// TeamComparisons are the rules aimed at teams (team_comparison).
	TeamComparisons []TeamComparison
	Collections     []Collection
	Teams           []TeamAggregate
	Totals          []Total
	// Roles is nil when the ruleset sets no role quotas.
	Roles *Roles
	// CrossPlay is nil when the ruleset does not restrict platforms.
	CrossPlay *CrossPlayKeys
	// TicketQuery is nil when tickets carry no query; else its syntax and
	// direction with the defaults filled in.
	TicketQuery *TicketQuery
	// Filters and Scores are the compiled expressions. Filters also holds
	// the filters other rules compile to (team_sizes, counting collection
	// rules, compound rules), and leaves out the filters a compound rule
	// consumes.
	Filters []*Expr
	Scores  []*Expr
	// Quality is the match-quality configuration with defaults filled in.
	Quality Quality
	// Defaults are the attribute defaults, applied to a ticket's players
	// before any rule reads them.
	Defaults []AttributeDefault
	// CountLimits are the counting collection rules with a max_count over
	// the whole match ("at most 5 medics"). Their filter judges a finished
	// match; the engine also keeps a running count while it builds a group,
	// so a candidate that would pass the limit is left out and a smaller
	// match can still form, instead of the whole group failing at the end.
	CountLimits []CountLimit
	// Sorts are the sort rules, in the order written (sort.go).
	Sorts []Sort

	// changes holds every wait at which some schedule steps, sorted and
	// unique; latency expansion, being periodic, is computed apart.
	changes []time.Duration
}

// Matching is one compiled matching rule.
type Matching struct {
	Attribute string
	Criteria  string
	// Max normalises the attribute (0: no maximum given).
	Max float64
	// Weight is the attribute's share in balancing and skill scores.
	Weight float64
	// Balancing is true when the attribute is used for team balancing.
	Balancing bool
	// Reference is the allowed difference over time.
	Reference Schedule
	// MinDistance is the smallest allowed difference over time; nil when
	// the rule has none.
	MinDistance Schedule
	// PartyAggregate reduces a party to one value: avg, min or max.
	PartyAggregate string
}

// Comparison is one compiled comparison rule. With a nil Value, tickets are
// compared with each other; otherwise with Threshold (numbers) or
// Value.String (strings).
type Comparison struct {
	Attribute string
	Operator  string
	Value     *Literal
	// Threshold is the numeric value over time; nil for strings and for
	// ticket-to-ticket comparisons.
	Threshold Schedule
	// PartyAggregate, for a numeric gate, reduces a party to one value
	// (avg, min, max) compared in its players' stead; empty: every player.
	PartyAggregate string
}

// Holds reports whether x Operator threshold is true, for numeric gates.
func (c Comparison) Holds(x float64, wait time.Duration) bool {
	return compareNumbers(x, c.Operator, c.Threshold.At(wait))
}

func compareNumbers(a float64, op string, b float64) bool {
	switch op {
	case OpLess:
		return a < b
	case OpLessEqual:
		return a <= b
	case OpEqual:
		return a == b
	case OpNotEqual:
		return a != b
	case OpGreaterEqual:
		return a >= b
	case OpGreater:
		return a > b
	}
	return false
}

// CountLimit bounds how many players of a match hold Value in Attribute.
type CountLimit struct {
	Attribute string
	Value     string
	Max       int
}

// Collection is one compiled collection rule. The rules that count players
// (contains with a count, player_ids) are not here: they compile to filters.
type Collection struct {
	// Path is where the rule was written ("collection_rule[2]").
	Path      string
	Attribute string
	Operation string
	// Value is what "contains" looks for.
	Value string
	// Scope is ScopeMatch or ScopeTeam.
	Scope string
	// MinCount is the fewest shared values over time ("intersection").
	MinCount Schedule
	// MaxCount is the most shared values, or -1 for no limit.
	MaxCount int
}

// TeamAggregate is one compiled team rule.
type TeamAggregate struct {
	Attribute      string
	Aggregate      string
	PartyAggregate string
	MaxDifference  Schedule
	// Against is AgainstTeams (the gap between teams) or AgainstMatch
	// (each team from the match's aggregate).
	Against string
}

// Total is one compiled match-total rule. A missing bound is -Inf or +Inf,
// so the engine compares without special cases.
type Total struct {
	Attribute string
	Aggregate string
	Min       Schedule
	Max       Schedule
}

// Roles is the compiled role rule.
type Roles struct {
	// Attribute is where a player's roles are read ("role" by default).
	Attribute string
	Quotas    []Quota
}

// Quota is one role's per-team bounds; Max is -1 when unbounded.
type Quota struct {
	Name string
	Min  Schedule
	Max  int
}

// CrossPlayKeys names the attributes cross-play reads, defaults filled in.
type CrossPlayKeys struct {
	Accepted string
	Current  string
}

// Compile validates a ruleset and compiles it. On failure the error is
// Problems listing everything wrong.
func Compile(rs *Ruleset) (*Compiled, error) {
	if err := Validate(rs); err != nil {
		return nil, err
	}
	c := &Compiled{
		Source:             rs,
		AutoBackfill:       rs.AutoBackfill,
		Alliance:           allianceSchedule(rs),
		OptionsForBackfill: rs.MatchOptionsReferredForBackfill,
		Latency:            compileLatency(rs),
		Roles:              compileRoles(rs.Roles),
		Quality:            compileQuality(rs),
		Defaults:           rs.AttributeDefaults,
	}
	for _, m := range rs.MatchingRule {
		w := 1.0
		if m.Weight != nil {
			w = *m.Weight
		}
		c.Matching = append(c.Matching, Matching{
			Attribute:      m.Attribute,
			Criteria:       m.Criteria,
			Max:            m.Max,
			Weight:         w,
			Balancing:      m.IsForBalancing,
			Reference:      referenceSchedule(m, rs.FlexingRule),
			MinDistance:    minDistanceSchedule(m, rs.FlexingRule),
			PartyAggregate: cmpOr(m.PartyAggregate, AggregateAvg),
		})
	}
	for i, m := range c.Matching {
		if m.Balancing {
			c.Balancing = append(c.Balancing, i)
		}
	}
	if len(c.Balancing) == 0 && len(c.Matching) > 0 {
		c.Balancing = []int{0}
		c.Matching[0].Balancing = true
	}
	if rs.MatchOptions != nil {
		c.Options = append(c.Options, rs.MatchOptions.Options...)
	}
	for _, r := range rs.ComparisonRule {
		cmp := Comparison{Attribute: r.Attribute, Operator: r.Operator, Value: r.Value, PartyAggregate: r.PartyAggregate}
		if r.Value != nil && !r.Value.IsString {
			cmp.Threshold = flexSchedule(r.Value.Number, r.Flexing)
		}
		c.Comparisons = append(c.Comparisons, cmp)
	}
	for i, r := range rs.CollectionRule {
		if countsPlayers(r) {
			// Judged by a generated filter (derived.go).
			if r.Operation == CollectionContains && r.MaxCount != nil && r.Scope != ScopeTeam {
				c.CountLimits = append(c.CountLimits, CountLimit{Attribute: r.Attribute, Value: r.Value, Max: *r.MaxCount})
			}
			continue
		}
		col := Collection{Attribute: r.Attribute, Operation: r.Operation, Value: r.Value, Scope: r.Scope, MaxCount: -1,
			Path: index("collection_rule", i)}
		if col.Scope == "" {
			col.Scope = ScopeMatch
		}
		lo := 1
		if r.MinCount != nil {
			lo = *r.MinCount
		}
		if r.Operation == CollectionIntersection {
			col.MinCount = flexSchedule(float64(lo), r.Flexing)
		}
		if r.MaxCount != nil {
			col.MaxCount = *r.MaxCount
		}
		c.Collections = append(c.Collections, col)
	}
	for _, r := range rs.TeamRule {
		c.Teams = append(c.Teams, TeamAggregate{
			Attribute:      r.Attribute,
			Aggregate:      r.Aggregate,
			PartyAggregate: r.PartyAggregate,
			MaxDifference:  flexSchedule(r.MaxDifference, r.Flexing),
			Against:        cmpOr(r.Against, AgainstTeams),
		})
	}
	for _, r := range rs.MatchTotal {
		c.Totals = append(c.Totals, compileTotal(r))
	}
	c.NamedTeams = append(c.NamedTeams, rs.Teams...)
	c.TeamComparisons = compileTeamComparisons(rs)
	c.Sorts = compileSorts(rs)
	if rs.CrossPlay != nil {
		k := CrossPlayKeys{Accepted: rs.CrossPlay.AcceptedAttribute, Current: rs.CrossPlay.CurrentAttribute}
		if k.Accepted == "" {
			k.Accepted = KeyCrossPlatform
		}
		if k.Current == "" {
			k.Current = KeyCurrentPlatform
		}
		c.CrossPlay = &k
	}
	if rs.TicketQuery != nil {
		tq := *rs.TicketQuery
		tq.Syntax = cmpOr(tq.Syntax, QuerySyntaxNakama)
		tq.Direction = cmpOr(tq.Direction, QueryOneWay)
		c.TicketQuery = &tq
	}
	var err error
	if c.Filters, err = compileExprs(effectiveFilters(rs), false); err != nil {
		return nil, err
	}
	if c.Scores, err = compileExprs(rs.Score, true); err != nil {
		return nil, err
	}
	c.changes = c.collectChanges()
	return c, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func compileTotal(r MatchTotalRule) Total {
	lo, hi := math.Inf(-1), math.Inf(1)
	if r.Min != nil {
		lo = *r.Min
	}
	if r.Max != nil {
		hi = *r.Max
	}
	t := Total{Attribute: r.Attribute, Aggregate: r.Aggregate, Min: Schedule{{Value: lo}}, Max: Schedule{{Value: hi}}}
	for _, f := range r.Flexing {
		at := seconds(f.Duration)
		if f.Min != nil {
			t.Min = append(t.Min, Step{After: at, Value: *f.Min})
		}
		if f.Max != nil {
			t.Max = append(t.Max, Step{After: at, Value: *f.Max})
		}
	}
	t.Min, t.Max = normalise(t.Min), normalise(t.Max)
	return t
}

func compileRoles(rr *RoleRule) *Roles {
	if rr == nil {
		return nil
	}
	r := &Roles{Attribute: rr.Attribute}
	if r.Attribute == "" {
		r.Attribute = KeyRole
	}
	for _, q := range rr.Quotas {
		cq := Quota{Name: q.Name, Min: flexSchedule(float64(q.Min), q.Flexing), Max: -1}
		if q.Max != nil {
			cq.Max = *q.Max
		}
		r.Quotas = append(r.Quotas, cq)
	}
	return r
}

func compileExprs(rules []ExprRule, score bool) ([]*Expr, error) {
	var out []*Expr
	for _, r := range rules {
		scope := exprScope(r, score)
		program, err := compileExpr(r.Expr, scope, score)
		if err != nil {
			// Validate compiled the same source; reaching this means
			// the ruleset changed in between.
			return nil, Problems{{Path: "expr", Message: err.Error()}}
		}
		w := 1.0
		if r.Weight != nil {
			w = *r.Weight
		}
		if !score {
			w = 0
		}
		out = append(out, &Expr{
			Name:         r.Name,
			Scope:        scope,
			Source:       r.Expr,
			Weight:       w,
			DisableAfter: seconds(r.DisableAfter),
			Excludes:     r.excludes,
			score:        score,
			program:      program,
		})
	}
	return out, nil
}

// allianceAt picks the layout in force at wait.
func allianceAt(steps []AllianceStep, wait time.Duration) Alliance {
	a := steps[0].Alliance
	for _, s := range steps[1:] {
		if s.After > wait {
			break
		}
		a = s.Alliance
	}
	return a
}

// AllianceAt returns the team layout in force for a ticket that has waited
// wait.
func (c *Compiled) AllianceAt(wait time.Duration) Alliance { return allianceAt(c.Alliance, wait) }

// ReferenceAt returns the allowed difference of matching rule i (an index
// into Matching, in the order of matching_rule) after waiting wait.
func (c *Compiled) ReferenceAt(rule int, wait time.Duration) float64 {
	return c.Matching[rule].Reference.At(wait)
}

// MinDistanceAt returns the smallest allowed difference of matching rule i
// after waiting wait: 0 for a rule without min_distance.
func (c *Compiled) MinDistanceAt(rule int, wait time.Duration) float64 {
	return c.Matching[rule].MinDistance.At(wait)
}

// LatencyRangeAt returns the highest latency, in ms, a ticket accepts after
// waiting wait (see Latency.RangeAt).
func (c *Compiled) LatencyRangeAt(wait time.Duration) int { return c.Latency.RangeAt(wait) }

// NextChange returns the first wait strictly after wait at which any rule
// relaxes — a flexing step, a latency expansion, a filter switching off —
// and false when nothing will ever change again. The engine sleeps until a
// waiting ticket reaches it instead of polling.
func (c *Compiled) NextChange(wait time.Duration) (time.Duration, bool) {
	i := sort.Search(len(c.changes), func(i int) bool { return c.changes[i] > wait })
	next, found := time.Duration(0), false
	if i < len(c.changes) {
		next, found = c.changes[i], true
	}
	if l, ok := c.Latency.nextChange(wait); ok && (!found || l < next) {
		next, found = l, true
	}
	return next, found
}

// collectChanges gathers the step times of every schedule.
func (c *Compiled) collectChanges() []time.Duration {
	var ts []time.Duration
	add := func(s Schedule) {
		if len(s) == 0 {
			return
		}
		for _, st := range s[1:] {
			ts = append(ts, st.After)
		}
	}
	for _, a := range c.Alliance[1:] {
		ts = append(ts, a.After)
	}
	for _, m := range c.Matching {
		add(m.Reference)
		add(m.MinDistance)
	}
	for _, cmp := range c.Comparisons {
		if cmp.Threshold != nil {
			add(cmp.Threshold)
		}
	}
	for _, col := range c.Collections {
		if col.MinCount != nil {
			add(col.MinCount)
		}
	}
	for _, t := range c.Teams {
		add(t.MaxDifference)
	}
	for _, t := range c.TeamComparisons {
		add(t.Threshold)
	}
	for _, t := range c.Totals {
		add(t.Min)
		add(t.Max)
	}
	if c.Roles != nil {
		for _, q := range c.Roles.Quotas {
			add(q.Min)
		}
	}
	for _, f := range c.Filters {
		if f.DisableAfter > 0 {
			ts = append(ts, f.DisableAfter)
		}
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	out := ts[:0]
	for _, t := range ts {
		if len(out) == 0 || out[len(out)-1] != t {
			out = append(out, t)
		}
	}
	return out
}
