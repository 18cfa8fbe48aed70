package ruleset

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cupid-match/cupid"
)

// Limits on the shape of a match. They are far above any real game and keep
// the engine's work per match bounded.
const (
	// maxTeams is the most teams a match may have.
	maxTeams = 100
	// maxTeamPlayers is the most players a team may hold.
	maxTeamPlayers = 1000
	// maxMatchPlayers is the most players a whole match may hold.
	maxMatchPlayers = 1000
	// maxNameLen bounds attribute, option, role and rule names.
	maxNameLen = 128
)

// Validate checks that a ruleset makes sense as a whole and returns every
// problem found, as Problems, or nil. For a ruleset that came from Parse the
// problems carry the line and column of the value at fault; for one built
// in Go they carry only the path.
func Validate(rs *Ruleset) error {
	v := &validator{rs: rs, src: rs.src}
	v.run()
	v.probs.sortByPosition()
	return v.probs.capped().errorOrNil()
}

type validator struct {
	rs    *Ruleset
	src   *source
	probs Problems
	// allianceOK is set once the alliance and its flexing steps are sound,
	// so checks that depend on team sizes can run.
	allianceOK bool
}

// at finds the source position of a path, or of its nearest written
// ancestor, so a problem with a missing field points at the object that
// lacks it.
func (v *validator) at(path string) Pos {
	if v.src == nil {
		return Pos{}
	}
	for {
		if p, ok := v.src.pos[path]; ok {
			return p
		}
		if path == "" {
			return v.src.root
		}
		path = parent(path)
	}
}

// parent strips the last element of a JSON path.
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// given reports whether a path was written in the source. Without a source
// (a Ruleset built in Go) everything counts as given.
func (v *validator) given(path string) bool {
	if v.src == nil {
		return true
	}
	_, ok := v.src.pos[path]
	return ok
}

// written reports whether a path was explicitly written in the source.
// Without a source nothing counts as written, so an optional field left at
// its zero value reads as "not set".
func (v *validator) written(path string) bool {
	if v.src == nil {
		return false
	}
	_, ok := v.src.pos[path]
	return ok
}

func (v *validator) add(path, format string, args ...any) {
	p := v.at(path)
	v.probs = append(v.probs, Problem{Path: path, Line: p.Line, Column: p.Column, Message: fmt.Sprintf(format, args...)})
}

// num formats a number the way it would be written in JSON.
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// quoteList renders allowed values for "must be one of" messages.
func quoteList(values ...string) string {
	q := make([]string, len(values))
	for i, s := range values {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// oneOf checks an enumerated string field.
func (v *validator) oneOf(path, got string, allowed ...string) bool {
	if contains(allowed, got) {
		return true
	}
	if got == "" && !v.given(path) {
		v.add(path, "required: one of %s", quoteList(allowed...))
		return false
	}
	msg := fmt.Sprintf("must be one of %s, not %q", quoteList(allowed...), got)
	if s := suggest(got, allowed); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	v.add(path, "%s", msg)
	return false
}

// name checks an attribute or other name: required, short, printable.
func (v *validator) name(path, s string) bool {
	switch {
	case s == "":
		if v.given(path) {
			v.add(path, "must not be empty")
		} else {
			v.add(path, "required")
		}
		return false
	case len(s) > maxNameLen:
		v.add(path, "is %d bytes long, more than the limit of %d", len(s), maxNameLen)
		return false
	case strings.TrimSpace(s) != s:
		v.add(path, "%q has leading or trailing spaces", s)
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			v.add(path, "%q contains a control character", s)
			return false
		}
	}
	return true
}

// nonNegative checks a number that may be zero but not negative.
func (v *validator) nonNegative(path string, f float64) bool {
	if !finite(f) {
		v.add(path, "must be a finite number")
		return false
	}
	if f < 0 {
		v.add(path, "must be ≥ 0 (got %s)", num(f))
		return false
	}
	return true
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// requiredNumber reports a number field missing from the source text.
func (v *validator) requiredNumber(path string) bool {
	if !v.given(path) {
		v.add(path, "required")
		return false
	}
	return true
}

func (v *validator) run() {
	rs := v.rs
	v.alliance()
	v.namedTeams()
	v.matchingRules()
	v.matchOptions()
	v.latency()
	for i, c := range rs.ComparisonRule {
		v.comparison(index("comparison_rule", i), c)
	}
	for i, c := range rs.CollectionRule {
		v.collection(index("collection_rule", i), c)
	}
	for i, t := range rs.TeamRule {
		v.teamRule(index("team_rule", i), t)
	}
	for i, t := range rs.TeamComparison {
		v.teamComparison(index("team_comparison", i), t)
	}
	for i, m := range rs.MatchTotal {
		v.matchTotal(index("match_total", i), m)
	}
	v.roles()
	v.crossPlay()
	v.ticketQuery()
	v.exprRules("filter", rs.Filter, false)
	v.teamSizes()
	v.attributeDefaults()
	v.compoundRules()
	v.sortRules()
	v.exprRules("score", rs.Score, true)
	v.quality()
}

// --- alliance -------------------------------------------------------------

func (v *validator) alliance() {
	rs := v.rs
	if rs.Alliance == (Alliance{}) && !v.given("alliance") {
		v.add("alliance", "required: the number of teams and of players per team")
		return
	}
	missing := false
	for _, k := range allianceKeys {
		if !v.requiredNumber("alliance." + k) {
			missing = true
		}
	}
	if missing {
		return
	}
	v.allianceOK = v.allianceNumbers("alliance", rs.Alliance, "")

	prev, prevDur := rs.Alliance, 0
	for i, f := range rs.AllianceFlexingRule {
		p := index("alliance_flexing_rule", i)
		prevPath := "alliance"
		if i > 0 {
			prevPath = index("alliance_flexing_rule", i-1)
		}
		if !v.duration(p+".duration", f.Duration, prevDur, prevPath) {
			v.allianceOK = false
			continue
		}
		prevDur = f.Duration
		eff := prev
		if f.MinNumber != 0 {
			eff.MinNumber = f.MinNumber
		}
		if f.MaxNumber != 0 {
			eff.MaxNumber = f.MaxNumber
		}
		if f.PlayerMinNumber != 0 {
			eff.PlayerMinNumber = f.PlayerMinNumber
		}
		if f.PlayerMaxNumber != 0 {
			eff.PlayerMaxNumber = f.PlayerMaxNumber
		}
		if v.allianceNumbers(p, eff, " (after "+strconv.Itoa(f.Duration)+" s)") {
			if eff.MinNumber > prev.MinNumber {
				v.add(p+".min_number", "must not rise over time (%d > %d before): flexing only relaxes", eff.MinNumber, prev.MinNumber)
				v.allianceOK = false
			}
			if eff.PlayerMinNumber > prev.PlayerMinNumber {
				v.add(p+".player_min_number", "must not rise over time (%d > %d before): flexing only relaxes", eff.PlayerMinNumber, prev.PlayerMinNumber)
				v.allianceOK = false
			}
		} else {
			v.allianceOK = false
		}
		prev = eff
	}
}

// allianceNumbers checks one team layout; when says at which wait it is in
// force, for layouts built from flexing steps.
func (v *validator) allianceNumbers(path string, a Alliance, when string) bool {
	ok := true
	check := func(field string, n, lo, hi int) {
		if n < lo || n > hi {
			v.add(path+"."+field, "must be between %d and %d (got %d)%s", lo, hi, n, when)
			ok = false
		}
	}
	check("min_number", a.MinNumber, 1, maxTeams)
	check("max_number", a.MaxNumber, 1, maxTeams)
	check("player_min_number", a.PlayerMinNumber, 1, maxTeamPlayers)
	check("player_max_number", a.PlayerMaxNumber, 1, maxTeamPlayers)
	if !ok {
		return false
	}
	if a.MinNumber > a.MaxNumber {
		v.add(path+".min_number", "must be ≤ max_number (%d > %d)%s", a.MinNumber, a.MaxNumber, when)
		ok = false
	}
	if a.PlayerMinNumber > a.PlayerMaxNumber {
		v.add(path+".player_min_number", "must be ≤ player_max_number (%d > %d)%s", a.PlayerMinNumber, a.PlayerMaxNumber, when)
		ok = false
	}
	if a.MaxNumber*a.PlayerMaxNumber > maxMatchPlayers {
		v.add(path, "a match of %d teams of %d players holds %d players, more than the limit of %d%s",
			a.MaxNumber, a.PlayerMaxNumber, a.MaxNumber*a.PlayerMaxNumber, maxMatchPlayers, when)
		ok = false
	}
	return ok
}

// duration checks a flexing step's duration: positive, at most a day, and
// after the previous step's (prevPath names that step for the message).
func (v *validator) duration(path string, d, prev int, prevPath string) bool {
	switch {
	case !v.given(path):
		v.add(path, "required: the wait in seconds after which this step applies")
		return false
	case d <= 0:
		v.add(path, "must be > 0 seconds (got %d)", d)
		return false
	case d > maxFlexSeconds:
		v.add(path, "must be at most %d seconds (a day), got %d", maxFlexSeconds, d)
		return false
	case d <= prev:
		v.add(path, "must be greater than the previous step's duration (%s.duration is %d): durations must increase", prevPath, prev)
		return false
	}
	return true
}

// --- matching and flexing rules ---------------------------------------------

var criteriaNames = []string{CriteriaDistance, CriteriaSpread}

func (v *validator) matchingRules() {
	rs := v.rs
	seen := map[string]int{}
	for i, m := range rs.MatchingRule {
		p := index("matching_rule", i)
		if v.name(p+".attribute", m.Attribute) {
			v.reservedFits(p+".attribute", m.Attribute, needNumber)
		}
		v.oneOf(p+".criteria", m.Criteria, criteriaNames...)
		if v.requiredNumber(p + ".reference") {
			v.nonNegative(p+".reference", m.Reference)
		}
		if v.written(p+".max") && finite(m.Max) && m.Max <= 0 {
			v.add(p+".max", "must be > 0 when given (got %s)", num(m.Max))
		} else if !finite(m.Max) {
			v.add(p+".max", "must be a finite number")
		}
		if m.Weight != nil {
			v.nonNegative(p+".weight", *m.Weight)
		}
		if m.PartyAggregate != "" || v.written(p+".party_aggregate") {
			v.oneOf(p+".party_aggregate", m.PartyAggregate, partyAggregates...)
		}
		if m.MinDistance != nil {
			switch {
			case m.Criteria != CriteriaDistance:
				v.add(p+".min_distance", "applies to criteria %q only (got %q): a spread has no pivot to be far from", CriteriaDistance, m.Criteria)
			case !v.nonNegative(p+".min_distance", *m.MinDistance):
			case *m.MinDistance > m.Reference:
				v.add(p+".min_distance", "must be ≤ reference (%s > %s): no value could be both", num(*m.MinDistance), num(m.Reference))
			}
		}
		key := m.Attribute + "\x00" + m.Criteria
		if j, dup := seen[key]; dup && m.Attribute != "" {
			v.add(p, "repeats matching_rule[%d] (attribute %q, criteria %q): flexing_rule could not tell them apart", j, m.Attribute, m.Criteria)
		} else {
			seen[key] = i
		}
	}

	// Each flexing step must name a matching rule and come after, and relax
	// further than, the previous step for the same rule.
	type last struct {
		duration  int
		reference float64
		// minDistance is the rule's smallest difference in force (nil:
		// the rule has none); minPath is where it was set.
		minDistance *float64
		path        string
		minPath     string
	}
	lasts := map[int]last{}
	for i, f := range rs.FlexingRule {
		p := index("flexing_rule", i)
		rule := -1
		for j, m := range rs.MatchingRule {
			if m.Attribute == f.Attribute && m.Criteria == f.Criteria {
				rule = j
				break
			}
		}
		if rule < 0 {
			v.flexTarget(p, f)
			continue
		}
		m := rs.MatchingRule[rule]
		prev, ok := lasts[rule]
		if !ok {
			prev = last{reference: m.Reference, minDistance: m.MinDistance, path: index("matching_rule", rule), minPath: index("matching_rule", rule)}
		}
		if !v.duration(p+".duration", f.Duration, prev.duration, prev.path) {
			continue
		}
		if !v.requiredNumber(p+".reference") || !v.nonNegative(p+".reference", f.Reference) {
			continue
		}
		if f.Reference < prev.reference {
			v.add(p+".reference", "must not be below the previous reference (%s < %s in %s): flexing only relaxes", num(f.Reference), num(prev.reference), prev.path)
			continue
		}
		next := last{duration: f.Duration, reference: f.Reference, minDistance: prev.minDistance, path: p, minPath: prev.minPath}
		if f.MinDistance != nil {
			switch {
			case prev.minDistance == nil:
				v.add(p+".min_distance", "matching_rule[%d] has no min_distance to relax", rule)
				continue
			case !v.nonNegative(p+".min_distance", *f.MinDistance):
				continue
			case *f.MinDistance > *prev.minDistance:
				v.add(p+".min_distance", "must not be above the previous min_distance (%s > %s in %s): flexing only relaxes", num(*f.MinDistance), num(*prev.minDistance), prev.minPath)
				continue
			}
			next.minDistance, next.minPath = f.MinDistance, p
		}
		lasts[rule] = next
	}
}

// flexTarget explains why a flexing step matches no matching rule.
func (v *validator) flexTarget(p string, f FlexingRule) {
	if !v.name(p+".attribute", f.Attribute) {
		return
	}
	for j, m := range v.rs.MatchingRule {
		if m.Attribute == f.Attribute {
			v.add(p+".criteria", "must be %q, the criteria of matching_rule[%d] for %q (got %q)", m.Criteria, j, f.Attribute, f.Criteria)
			return
		}
	}
	var attrs []string
	for _, m := range v.rs.MatchingRule {
		attrs = append(attrs, m.Attribute)
	}
	msg := fmt.Sprintf("no matching_rule has attribute %q", f.Attribute)
	if len(attrs) == 0 {
		msg += ": flexing_rule relaxes matching rules, and there are none"
	} else if s := suggest(f.Attribute, attrs); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	} else {
		msg += fmt.Sprintf(" (they are %s)", quoteList(attrs...))
	}
	v.add(p+".attribute", "%s", msg)
}

// --- match options --------------------------------------------------------

var optionTypes = []string{OptionAll, OptionAny, OptionUnique}

func (v *validator) matchOptions() {
	mo := v.rs.MatchOptions
	if mo == nil {
		return
	}
	if mo.Options == nil && !v.given("match_options.options") {
		v.add("match_options.options", "required: the list of options")
	}
	seen := map[string]int{}
	for i, o := range mo.Options {
		p := index("match_options.options", i)
		if v.name(p+".name", o.Name) {
			v.reservedFits(p+".name", o.Name, needStringOrList)
			if j, dup := seen[o.Name]; dup {
				v.add(p+".name", "%q is already an option (match_options.options[%d])", o.Name, j)
			}
			seen[o.Name] = i
		}
		v.oneOf(p+".type", o.Type, optionTypes...)
	}
}

// --- latency ----------------------------------------------------------------

func (v *validator) latency() {
	rs := v.rs
	fields := []struct {
		name string
		val  int
	}{
		{"region_latency_initial_range_ms", rs.RegionLatencyInitialRangeMs},
		{"region_expansion_range_ms", rs.RegionExpansionRangeMs},
		{"region_expansion_rate_ms", rs.RegionExpansionRateMs},
		{"region_latency_max_ms", rs.RegionLatencyMaxMs},
		{"region_latency_spread_ms", rs.RegionLatencySpreadMs},
	}
	ok := true
	for _, f := range fields {
		if f.val < 0 {
			v.add(f.name, "must be ≥ 0 (got %d)", f.val)
			ok = false
		} else if f.val > MaxLatencyMs && f.name != "region_expansion_rate_ms" {
			v.add(f.name, "must be at most %d ms (got %d)", MaxLatencyMs, f.val)
			ok = false
		}
	}
	if !ok {
		return
	}
	switch rs.RegionChoice {
	case "", RegionAcceptable, RegionFastest:
	default:
		v.add("region_choice", "must be %q or %q, got %q", RegionAcceptable, RegionFastest, rs.RegionChoice)
	}
	set := rs.RegionLatencyInitialRangeMs > 0 || rs.RegionExpansionRangeMs > 0 || rs.RegionExpansionRateMs > 0 || len(rs.RegionLatencyFlexing) > 0 ||
		rs.RegionLatencySpreadMs > 0
	if rs.RegionLatencyMaxMs == 0 {
		if set {
			v.add("region_latency_max_ms", "required when region latency rules are set: without a maximum, latency does not restrict matching")
		}
		if rs.DisableBidirectionalLatencyAfterMs > 0 {
			v.add("disable_bidirectional_latency_after_ms", "has no effect without region_latency_max_ms")
		}
		if rs.RegionChoice == RegionFastest {
			v.add("region_choice", "fastest needs region_latency_max_ms: without latency rules the tickets' latencies are not read")
		}
		return
	}
	if rs.RegionLatencyInitialRangeMs > rs.RegionLatencyMaxMs {
		v.add("region_latency_initial_range_ms", "must be ≤ region_latency_max_ms (%d > %d)", rs.RegionLatencyInitialRangeMs, rs.RegionLatencyMaxMs)
	}
	switch {
	case rs.RegionExpansionRangeMs > 0 && rs.RegionExpansionRateMs == 0:
		v.add("region_expansion_rate_ms", "must be > 0 when region_expansion_range_ms is set: it is the wait between expansions")
	case rs.RegionExpansionRateMs > 0 && rs.RegionExpansionRangeMs == 0:
		v.add("region_expansion_range_ms", "must be > 0 when region_expansion_rate_ms is set: it is what each expansion adds")
	case rs.RegionExpansionRateMs > maxFlexSeconds*1000:
		v.add("region_expansion_rate_ms", "must be at most %d ms (a day), got %d", maxFlexSeconds*1000, rs.RegionExpansionRateMs)
	}
	if len(rs.RegionLatencyFlexing) > 0 {
		switch {
		case rs.RegionExpansionRangeMs > 0 || rs.RegionExpansionRateMs > 0:
			v.add("region_latency_flexing", "replaces region_expansion_range_ms and region_expansion_rate_ms: give one or the other")
		case rs.RegionLatencyInitialRangeMs == 0:
			v.add("region_latency_initial_range_ms", "required by region_latency_flexing: the range before the first step")
		default:
			v.flexSteps("region_latency_flexing", rs.RegionLatencyFlexing, float64(rs.RegionLatencyInitialRangeMs), up, true)
			for i, f := range rs.RegionLatencyFlexing {
				if f.Value > float64(rs.RegionLatencyMaxMs) {
					v.add(index("region_latency_flexing", i)+".value", "must be ≤ region_latency_max_ms (%s > %d)", num(f.Value), rs.RegionLatencyMaxMs)
				}
			}
		}
	}
	if rs.DisableBidirectionalLatencyAfterMs > maxFlexSeconds*1000 {
		v.add("disable_bidirectional_latency_after_ms", "must be at most %d ms (a day), got %d", maxFlexSeconds*1000, rs.DisableBidirectionalLatencyAfterMs)
	}
}

// --- extension rules --------------------------------------------------------

// direction says which way a flexible number must move to relax a rule.
type direction int

const (
	up   direction = 1  // larger is looser (a maximum, a tolerance)
	down direction = -1 // smaller is looser (a minimum)
)

// flexSteps checks a {duration, value} list: increasing durations, values
// moving only in the relaxing direction, whole numbers when counts.
func (v *validator) flexSteps(path string, steps []Flex, base float64, dir direction, counts bool) {
	prevDur, prevVal, prevPath := 0, base, parent(path)
	for i, f := range steps {
		p := index(path, i)
		if !v.duration(p+".duration", f.Duration, prevDur, prevPath) {
			continue
		}
		if !v.requiredNumber(p+".value") || !v.nonNegativeIf(counts, p+".value", f.Value) {
			continue
		}
		if !finite(f.Value) {
			v.add(p+".value", "must be a finite number")
			continue
		}
		if counts && f.Value != math.Trunc(f.Value) {
			v.add(p+".value", "must be a whole number (got %s)", num(f.Value))
			continue
		}
		if dir == up && f.Value < prevVal {
			v.add(p+".value", "must not be below the previous value (%s < %s): flexing only relaxes", num(f.Value), num(prevVal))
			continue
		}
		if dir == down && f.Value > prevVal {
			v.add(p+".value", "must not be above the previous value (%s > %s): flexing only relaxes", num(f.Value), num(prevVal))
			continue
		}
		prevDur, prevVal, prevPath = f.Duration, f.Value, p
	}
}

func (v *validator) nonNegativeIf(cond bool, path string, f float64) bool {
	if !cond {
		return true
	}
	return v.nonNegative(path, f)
}

var operators = []string{OpLess, OpLessEqual, OpEqual, OpNotEqual, OpGreaterEqual, OpGreater}

func (v *validator) comparison(p string, c ComparisonRule) {
	if v.name(p+".attribute", c.Attribute) {
		switch {
		case c.Value == nil:
			v.reservedFits(p+".attribute", c.Attribute, needNumberOrString)
		case c.Value.IsString:
			v.reservedFits(p+".attribute", c.Attribute, needString)
		default:
			v.reservedFits(p+".attribute", c.Attribute, needNumber)
		}
	}
	if !v.oneOf(p+".operator", c.Operator, operators...) {
		return
	}
	equality := c.Operator == OpEqual || c.Operator == OpNotEqual
	switch {
	case c.Value == nil && !equality:
		v.add(p+".operator", "%q needs a value: without one, tickets are compared with each other, which only \"=\" and \"!=\" can do", c.Operator)
	case c.Value != nil && c.Value.IsString && !equality:
		v.add(p+".operator", "%q cannot compare strings: use \"=\" or \"!=\"", c.Operator)
	case c.Value != nil && !c.Value.IsString && !finite(c.Value.Number):
		v.add(p+".value", "must be a finite number")
	}
	if c.PartyAggregate != "" || v.written(p+".party_aggregate") {
		if c.Value == nil || c.Value.IsString {
			v.add(p+".party_aggregate", "applies only to a numeric value (a gate each party passes as one)")
		} else {
			v.oneOf(p+".party_aggregate", c.PartyAggregate, partyAggregates...)
		}
	}
	if len(c.Flexing) == 0 {
		return
	}
	if c.Value == nil || c.Value.IsString || equality {
		v.add(p+".flexing", "only a numeric value compared with <, <=, >= or > can flex")
		return
	}
	dir := up // attribute < value: a larger value admits more
	if c.Operator == OpGreater || c.Operator == OpGreaterEqual {
		dir = down
	}
	v.flexSteps(p+".flexing", c.Flexing, c.Value.Number, dir, false)
}

var collectionOps = []string{CollectionIntersection, CollectionContains, CollectionPlayerIDs}

// countingCollection checks a collection rule that counts players: contains
// with a count, or player_ids. Its counts are bounds on a number of players,
// and it does not flex (FlexMatch's avoid lists flex by replacing the rule,
// which a second rule with disable_after… is not; keep it simple and say so).
func (v *validator) countingCollection(p string, c CollectionRule) {
	if c.Operation == CollectionContains && c.Value == "" {
		v.add(p+".value", "required by \"contains\": the string counted")
	}
	if c.Operation == CollectionPlayerIDs {
		if c.Value != "" {
			v.add(p+".value", "applies only to \"contains\"")
		}
		if c.MinCount == nil && c.MaxCount == nil {
			v.add(p+".max_count", "required by \"player_ids\" unless min_count is given (0 for a block list)")
		}
	}
	if c.MinCount != nil && *c.MinCount < 0 {
		v.add(p+".min_count", "must be ≥ 0 (got %d)", *c.MinCount)
	}
	if c.MaxCount != nil {
		switch {
		case *c.MaxCount < 0:
			v.add(p+".max_count", "must be ≥ 0 (got %d)", *c.MaxCount)
		case c.MinCount != nil && *c.MaxCount < *c.MinCount:
			v.add(p+".max_count", "must be ≥ min_count (%d < %d)", *c.MaxCount, *c.MinCount)
		}
	}
	if len(c.Flexing) > 0 {
		v.add(p+".flexing", "applies only to \"intersection\" (a rule that counts players does not flex)")
	}
	switch {
	case c.DisableAfter != 0 && c.Operation != CollectionPlayerIDs:
		v.add(p+".disable_after", "applies only to \"player_ids\"")
	case c.DisableAfter < 0 || c.DisableAfter > maxFlexSeconds:
		v.add(p+".disable_after", "must be between 0 and %d seconds (got %d)", maxFlexSeconds, c.DisableAfter)
	}
	if v.hasProblemUnder(p) {
		return
	}
	f := collectionFilter(p, c)
	if _, err := compileExpr(f.src, f.scope, false); err != nil {
		v.add(p, "%v", err)
	}
}

var scopes = []string{ScopeMatch, ScopeTeam}

func (v *validator) collection(p string, c CollectionRule) {
	if v.name(p+".attribute", c.Attribute) {
		v.reservedFits(p+".attribute", c.Attribute, needStringOrList)
	}
	if c.Scope != "" || v.written(p+".scope") {
		v.oneOf(p+".scope", c.Scope, scopes...)
	}
	if !v.oneOf(p+".operation", c.Operation, collectionOps...) {
		return
	}
	if countsPlayers(c) {
		v.countingCollection(p, c)
		return
	}
	if c.DisableAfter != 0 {
		v.add(p+".disable_after", "applies only to \"player_ids\"")
	}
	if c.Operation == CollectionContains {
		if c.Value == "" {
			v.add(p+".value", "required by \"contains\": the string every list must hold")
		}
		if len(c.Flexing) > 0 {
			v.add(p+".flexing", "applies only to \"intersection\"")
		}
		return
	}
	if c.Value != "" {
		v.add(p+".value", "applies only to \"contains\"")
	}
	lo := 1
	if c.MinCount != nil {
		lo = *c.MinCount
		if lo < 0 {
			v.add(p+".min_count", "must be ≥ 0 (got %d)", lo)
			return
		}
	}
	if c.MaxCount != nil {
		switch {
		case *c.MaxCount < 0:
			v.add(p+".max_count", "must be ≥ 0 (got %d)", *c.MaxCount)
		case *c.MaxCount < lo:
			v.add(p+".max_count", "must be ≥ min_count (%d < %d)", *c.MaxCount, lo)
		}
	}
	v.flexSteps(p+".flexing", c.Flexing, float64(lo), down, true)
}

var aggregates = []string{AggregateAvg, AggregateMin, AggregateMax, AggregateSum, AggregateStddev}

var partyAggregates = []string{AggregateAvg, AggregateMin, AggregateMax}

func (v *validator) teamRule(p string, t TeamRule) {
	if v.name(p+".attribute", t.Attribute) {
		v.reservedFits(p+".attribute", t.Attribute, needNumber)
	}
	v.oneOf(p+".aggregate", t.Aggregate, aggregates...)
	if t.PartyAggregate != "" || v.written(p+".party_aggregate") {
		v.oneOf(p+".party_aggregate", t.PartyAggregate, partyAggregates...)
	}
	if t.Against != "" || v.written(p+".against") {
		v.oneOf(p+".against", t.Against, AgainstTeams, AgainstMatch)
	}
	if v.requiredNumber(p+".max_difference") && v.nonNegative(p+".max_difference", t.MaxDifference) {
		v.flexSteps(p+".flexing", t.Flexing, t.MaxDifference, up, false)
	}
	if a := v.rs.Alliance; a.MaxNumber == 1 {
		v.add(p, "compares teams, but alliance.max_number is 1: a match has a single team")
	}
}

func (v *validator) matchTotal(p string, m MatchTotalRule) {
	if v.name(p+".attribute", m.Attribute) {
		v.reservedFits(p+".attribute", m.Attribute, needNumber)
	}
	v.oneOf(p+".aggregate", m.Aggregate, aggregates...)
	if m.Min == nil && m.Max == nil {
		v.add(p, "needs min, max or both")
		return
	}
	okMin := m.Min == nil || v.finiteAt(p+".min", *m.Min)
	okMax := m.Max == nil || v.finiteAt(p+".max", *m.Max)
	if !okMin || !okMax {
		return
	}
	if m.Min != nil && m.Max != nil && *m.Min > *m.Max {
		v.add(p+".min", "must be ≤ max (%s > %s)", num(*m.Min), num(*m.Max))
		return
	}
	lo, hi := m.Min, m.Max
	prevDur, prevPath := 0, p
	for i, f := range m.Flexing {
		fp := index(p+".flexing", i)
		if !v.duration(fp+".duration", f.Duration, prevDur, prevPath) {
			continue
		}
		prevDur, prevPath = f.Duration, fp
		if f.Min == nil && f.Max == nil {
			v.add(fp, "sets neither min nor max: a step must change a bound")
			continue
		}
		if f.Min != nil && v.finiteAt(fp+".min", *f.Min) {
			switch {
			case lo == nil:
				v.add(fp+".min", "the rule has no min to relax")
			case *f.Min > *lo:
				v.add(fp+".min", "must not be above the previous min (%s > %s): flexing only relaxes", num(*f.Min), num(*lo))
			default:
				lo = f.Min
			}
		}
		if f.Max != nil && v.finiteAt(fp+".max", *f.Max) {
			switch {
			case hi == nil:
				v.add(fp+".max", "the rule has no max to relax")
			case *f.Max < *hi:
				v.add(fp+".max", "must not be below the previous max (%s < %s): flexing only relaxes", num(*f.Max), num(*hi))
			default:
				hi = f.Max
			}
		}
	}
}

// hasProblemUnder reports whether a problem was already found at or under
// a path.
func (v *validator) hasProblemUnder(path string) bool {
	for _, p := range v.probs {
		if p.Path == path || strings.HasPrefix(p.Path, path+".") || strings.HasPrefix(p.Path, path+"[") {
			return true
		}
	}
	return false
}

func (v *validator) finiteAt(path string, f float64) bool {
	if !finite(f) {
		v.add(path, "must be a finite number")
		return false
	}
	return true
}

// --- roles and cross-play -------------------------------------------------

func (v *validator) roles() {
	rr := v.rs.Roles
	if rr == nil {
		return
	}
	if rr.Attribute != "" || v.written("roles.attribute") {
		if v.name("roles.attribute", rr.Attribute) {
			v.reservedFits("roles.attribute", rr.Attribute, needStringOrList)
		}
	}
	if len(rr.Quotas) == 0 {
		v.add("roles.quotas", "must list at least one role")
		return
	}
	seen := map[string]int{}
	ok := true
	for i, q := range rr.Quotas {
		p := index("roles.quotas", i)
		if v.name(p+".name", q.Name) {
			if j, dup := seen[q.Name]; dup {
				v.add(p+".name", "%q already has a quota (roles.quotas[%d])", q.Name, j)
				ok = false
			}
			seen[q.Name] = i
		} else {
			ok = false
		}
		if q.Min < 0 {
			v.add(p+".min", "must be ≥ 0 (got %d)", q.Min)
			ok = false
			continue
		}
		if q.Max != nil {
			switch {
			case *q.Max < 0:
				v.add(p+".max", "must be ≥ 0 (got %d)", *q.Max)
				ok = false
			case *q.Max < q.Min:
				v.add(p+".max", "must be ≥ min (%d < %d)", *q.Max, q.Min)
				ok = false
			}
		}
		v.flexSteps(p+".flexing", q.Flexing, float64(q.Min), down, true)
	}
	if !ok || !v.allianceOK || v.hasProblemUnder("roles") {
		// The quota sums below are only meaningful once each quota and
		// the alliance are sound.
		return
	}
	v.quotasFit()
}

// quotasFit checks, at every wait where the team size or a role minimum
// changes, that the minimums fit in a full team and that the maximums can
// fill a team to its minimum size.
func (v *validator) quotasFit() {
	rs := v.rs
	alliance := allianceSchedule(rs)
	roles := compileRoles(rs.Roles)
	times := []time.Duration{0}
	for _, a := range alliance {
		times = append(times, a.After)
	}
	for _, q := range roles.Quotas {
		for _, st := range q.Min {
			times = append(times, st.After)
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	for _, t := range times {
		a := allianceAt(alliance, t)
		sumMin, sumMax, bounded := 0, 0, true
		for _, q := range roles.Quotas {
			sumMin += int(q.Min.At(t))
			if q.Max < 0 {
				bounded = false
			} else {
				sumMax += q.Max
			}
		}
		when := ""
		if t > 0 {
			when = fmt.Sprintf(" after %d s", int(t/time.Second))
		}
		if sumMin > a.PlayerMaxNumber {
			v.add("roles.quotas", "the role minimums add up to %d, more than a team holds (player_max_number %d%s)", sumMin, a.PlayerMaxNumber, when)
			return
		}
		if bounded && sumMax < a.PlayerMinNumber {
			v.add("roles.quotas", "the role maximums add up to %d, too few to fill a team (player_min_number %d%s)", sumMax, a.PlayerMinNumber, when)
			return
		}
	}
}

func (v *validator) crossPlay() {
	cp := v.rs.CrossPlay
	if cp == nil {
		return
	}
	if cp.AcceptedAttribute != "" || v.written("cross_play.accepted_attribute") {
		if v.name("cross_play.accepted_attribute", cp.AcceptedAttribute) {
			v.reservedFits("cross_play.accepted_attribute", cp.AcceptedAttribute, needStringOrList)
		}
	}
	if cp.CurrentAttribute != "" || v.written("cross_play.current_attribute") {
		if v.name("cross_play.current_attribute", cp.CurrentAttribute) {
			v.reservedFits("cross_play.current_attribute", cp.CurrentAttribute, needString)
		}
	}
	acc, cur := cp.AcceptedAttribute, cp.CurrentAttribute
	if acc == "" {
		acc = KeyCrossPlatform
	}
	if cur == "" {
		cur = KeyCurrentPlatform
	}
	if acc == cur {
		v.add("cross_play", "accepted_attribute and current_attribute are both %q: they must be two keys", acc)
	}
}

// ticketQuery checks the ticket_query rule: the attribute holds a string (a
// reserved key never does, so none may carry the query), the syntax and the
// direction are known ones.
func (v *validator) ticketQuery() {
	tq := v.rs.TicketQuery
	if tq == nil {
		return
	}
	if v.name("ticket_query.attribute", tq.Attribute) {
		if _, reserved := Reserved(tq.Attribute); reserved {
			v.add("ticket_query.attribute", "%q is a reserved ticket key; name an attribute of your own", tq.Attribute)
		}
	}
	if tq.Syntax != "" || v.written("ticket_query.syntax") {
		v.oneOf("ticket_query.syntax", tq.Syntax, QuerySyntaxNakama)
	}
	if tq.Direction != "" || v.written("ticket_query.direction") {
		v.oneOf("ticket_query.direction", tq.Direction, QueryOneWay, QueryMutual)
	}
}

// --- expressions and quality ------------------------------------------------

var exprScopes = []string{ExprPair, ExprMatch}

func (v *validator) exprRules(list string, rules []ExprRule, score bool) {
	seen := map[string]int{}
	for i, e := range rules {
		p := index(list, i)
		if v.name(p+".name", e.Name) {
			if j, dup := seen[e.Name]; dup {
				v.add(p+".name", "%q is already the name of %s[%d]", e.Name, list, j)
			}
			seen[e.Name] = i
		}
		scope := exprScope(e, score)
		if e.Scope != "" || v.written(p+".scope") {
			if !v.oneOf(p+".scope", e.Scope, exprScopes...) {
				continue
			}
		}
		if e.Expr == "" {
			if v.given(p + ".expr") {
				v.add(p+".expr", "must not be empty")
			} else {
				v.add(p+".expr", "required: the expression's source")
			}
		} else if _, err := compileExpr(e.Expr, scope, score); err != nil {
			v.add(p+".expr", "%v", err)
		}
		if score {
			switch e.Name {
			case CriterionSkillGap, CriterionSkillSpread, CriterionParties, CriterionPing, CriterionVariety, CriterionWait, CriterionRoles:
				v.add(p+".name", "%q is the name of a built-in quality criterion; choose another", e.Name)
			}
			if e.Weight != nil {
				v.nonNegative(p+".weight", *e.Weight)
			}
			if e.DisableAfter != 0 {
				v.add(p+".disable_after", "applies only to filters")
			}
		} else {
			if e.Weight != nil {
				v.add(p+".weight", "applies only to scores: a filter passes or fails")
			}
			if e.DisableAfter < 0 || e.DisableAfter > maxFlexSeconds {
				v.add(p+".disable_after", "must be between 0 and %d seconds (got %d)", maxFlexSeconds, e.DisableAfter)
			}
		}
	}
}

func (v *validator) attributeDefaults() {
	seen := map[string]int{}
	for i, a := range v.rs.AttributeDefaults {
		p := index("attribute_defaults", i)
		if v.name(p+".name", a.Name) {
			if j, dup := seen[a.Name]; dup {
				v.add(p+".name", "%q already has a default (attribute_defaults[%d])", a.Name, j)
			}
			seen[a.Name] = i
			if _, reserved := reservedKeys[a.Name]; reserved {
				v.add(p+".name", "%q is a reserved ticket key; it takes no default", a.Name)
			}
		}
		switch a.Value.Kind {
		case cupid.KindNumber:
			v.finiteAt(p+".value", a.Value.Number)
		case cupid.KindString, cupid.KindStrings:
		case cupid.KindNumbers:
			for _, key := range cupid.SortedKeys(a.Value.Map) {
				if key == "" {
					v.add(p+".value", "map keys must not be empty")
				} else {
					v.finiteAt(p+".value."+key, a.Value.Map[key])
				}
			}
		default:
			if !v.hasProblemUnder(p + ".value") {
				v.add(p+".value", "required: a number, a string, a list of strings or a map of numbers")
			}
		}
	}
}

func (v *validator) teamSizes() {
	rs := v.rs
	if rs.TeamSizes == "" && !v.written("team_sizes") {
		return
	}
	if !v.oneOf("team_sizes", rs.TeamSizes, TeamSizesEqual, TeamSizesWithinOne) {
		return
	}
	if rs.Alliance.MaxNumber < 2 {
		v.add("team_sizes", "needs at least two teams (alliance.max_number is %d)", rs.Alliance.MaxNumber)
	}
}

// compoundRules checks each statement: it parses, names filters that exist
// and share one scope, and the combined expression stays in budget.
func (v *validator) compoundRules() {
	rs := v.rs
	byName := map[string]ExprRule{}
	for _, f := range rs.Filter {
		byName[f.Name] = f
	}
	seen := map[string]int{}
	for i, c := range rs.CompoundRule {
		p := index("compound_rule", i)
		if v.name(p+".name", c.Name) {
			if _, dup := byName[c.Name]; dup {
				v.add(p+".name", "%q is already the name of a filter", c.Name)
			} else if j, dup := seen[c.Name]; dup {
				v.add(p+".name", "%q is already the name of compound_rule[%d]", c.Name, j)
			}
			seen[c.Name] = i
		}
		if c.DisableAfter < 0 || c.DisableAfter > maxFlexSeconds {
			v.add(p+".disable_after", "must be between 0 and %d seconds (got %d)", maxFlexSeconds, c.DisableAfter)
		}
		if c.Statement == "" {
			v.add(p+".statement", "required: and(…), or(…), xor(…) or not(…) over filter names")
			continue
		}
		st, err := parseStatement(c.Statement)
		if err != nil {
			v.add(p+".statement", "%v", err)
			continue
		}
		scope, ok := "", true
		for _, n := range st.names() {
			f, found := byName[n]
			if !found {
				msg := fmt.Sprintf("%q is not the name of a filter", n)
				names := make([]string, 0, len(byName))
				for k := range byName {
					names = append(names, k)
				}
				if s := suggest(n, names); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				v.add(p+".statement", "%s", msg)
				ok = false
				continue
			}
			if f.DisableAfter != 0 {
				v.add(p+".statement", "filter %q has disable_after; in a compound rule, set disable_after on the compound rule instead", n)
				ok = false
			}
			s := exprScope(f, false)
			if scope != "" && s != scope {
				v.add(p+".statement", "mixes %q and %q filters (%q is %q): a statement judges either pairs or matches", scope, s, n, s)
				ok = false
			}
			scope = s
		}
		if !ok || v.hasProblemUnder("filter") {
			continue
		}
		srcs := map[string]string{}
		for _, n := range st.names() {
			srcs[n] = byName[n].Expr
		}
		if _, err := compileExpr(st.source(srcs), scope, false); err != nil {
			v.add(p+".statement", "the combined expression %v", err)
		}
	}
}

// exprScope is a rule's scope with the default filled in: filters judge
// pairs, scores judge matches.
func exprScope(e ExprRule, score bool) string {
	if e.Scope != "" {
		return e.Scope
	}
	if score {
		return ExprMatch
	}
	return ExprPair
}

func (v *validator) quality() {
	q := v.rs.Quality
	if q == nil {
		return
	}
	weights := []struct {
		name string
		w    *float64
	}{
		{"skill_gap", q.SkillGap}, {"skill_spread", q.SkillSpread}, {"parties", q.Parties},
		{"ping", q.Ping}, {"variety", q.Variety}, {"wait", q.Wait}, {"roles", q.Roles},
	}
	for _, w := range weights {
		if w.w != nil {
			v.nonNegative("quality."+w.name, *w.w)
		}
	}
	if q.SkillAttribute != "" || v.written("quality.skill_attribute") {
		if v.name("quality.skill_attribute", q.SkillAttribute) {
			found := false
			var attrs []string
			for _, m := range v.rs.MatchingRule {
				attrs = append(attrs, m.Attribute)
				found = found || m.Attribute == q.SkillAttribute
			}
			if !found {
				v.add("quality.skill_attribute", "no matching_rule has attribute %q", q.SkillAttribute)
			}
		}
	}
	ok, bad := DefaultPingOkMs, DefaultPingBadMs
	if q.PingOkMs != nil {
		ok = *q.PingOkMs
		if ok < 0 {
			v.add("quality.ping_ok_ms", "must be ≥ 0 (got %d)", ok)
		}
	}
	if q.PingBadMs != nil {
		bad = *q.PingBadMs
	}
	if bad <= ok {
		v.add("quality.ping_bad_ms", "must be > ping_ok_ms (%d ≤ %d)", bad, ok)
	} else if bad > MaxLatencyMs {
		v.add("quality.ping_bad_ms", "must be at most %d ms (got %d)", MaxLatencyMs, bad)
	}
	if q.WaitBadSeconds != nil && (*q.WaitBadSeconds <= 0 || *q.WaitBadSeconds > maxFlexSeconds) {
		v.add("quality.wait_bad_seconds", "must be between 1 and %d (got %d)", maxFlexSeconds, *q.WaitBadSeconds)
	}
	cq := compileQuality(v.rs)
	total := cq.SkillGap + cq.SkillSpread + cq.Parties + cq.Ping + cq.Variety + cq.Wait + cq.Roles
	for _, s := range v.rs.Score {
		if s.Weight == nil {
			total++
		} else if finite(*s.Weight) {
			total += *s.Weight
		}
	}
	if total == 0 {
		v.add("quality", "every criterion weighs zero: the match score would be undefined")
	}
}
