package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// FlexMatch reads an Amazon GameLift FlexMatch rule set (the rule set
// language as AWS documents it, comments and all) and writes the Cupid
// ruleset that matches the same players.
//
// Teams become the alliance; player attribute defaults become
// attribute_defaults; each rule becomes the native Cupid rule with the same
// meaning where there is one (batchDistance → a spread matching rule,
// comparison with a constant → a comparison gate, distance between team
// averages → a team rule, contains with a count → a counting collection rule,
// block lists → player_ids, latency → region latency, compound → compound_rule)
// and otherwise a match filter computing the same property expression; each
// expansion becomes the flexing of the rule it targets. The report says, rule
// by rule, what is exact and what is not.
func FlexMatch(src []byte) *Result {
	rep := Report{From: "flexmatch"}
	clean := stripComments(src)
	clean = trailingComma.ReplaceAll(clean, []byte("$1"))
	var doc fmRuleSet
	if err := json.Unmarshal(clean, &doc); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			rep.Refused = fmt.Sprintf("line %d: not JSON: %v", newLineFinder(string(clean)).lineAt(int(se.Offset)), err)
		} else {
			rep.Refused = "not a FlexMatch rule set: " + err.Error()
		}
		return finish(nil, rep)
	}
	if why := doc.tooLarge(); why != "" {
		rep.Refused = why
		return finish(nil, rep)
	}
	b := &fmBuilder{doc: doc, lines: newLineFinder(string(clean)), rs: &ruleset.Ruleset{}, rep: rep,
		attrTypes: map[string]string{}, teams: teamIndex{}, flex: map[string]flexer{}, filterOf: map[string]string{}, filterIndex: map[string]int{}}
	b.run(clean)
	return finish(b.rs, b.rep)
}

type fmRuleSet struct {
	Name                string        `json:"name"`
	RuleLanguageVersion string        `json:"ruleLanguageVersion"`
	PlayerAttributes    []fmAttribute `json:"playerAttributes"`
	Algorithm           *fmAlgorithm  `json:"algorithm"`
	Teams               []fmTeam      `json:"teams"`
	Rules               []fmRule      `json:"rules"`
	Expansions          []fmExpansion `json:"expansions"`
}

// maxList bounds every list of a source, as Cupid bounds a ruleset's lists:
// an import is work done for whoever sends the file.
const maxList = 256

// maxTeams is the most teams a Cupid match has.
const maxTeams = 100

func (d *fmRuleSet) tooLarge() string {
	for _, l := range []struct {
		name string
		n    int
	}{{"playerAttributes", len(d.PlayerAttributes)}, {"teams", len(d.Teams)}, {"rules", len(d.Rules)}, {"expansions", len(d.Expansions)}} {
		if l.n > maxList {
			return fmt.Sprintf("%s has %d entries, more than %d", l.name, l.n, maxList)
		}
	}
	teams := 0
	for _, t := range d.Teams {
		if t.Quantity > maxTeams || t.Quantity < 0 {
			return fmt.Sprintf("team %q has quantity %d: a Cupid match has at most %d teams", t.Name, t.Quantity, maxTeams)
		}
		teams += max(t.Quantity, 1)
	}
	if teams > maxTeams {
		return fmt.Sprintf("%d teams: a Cupid match has at most %d", teams, maxTeams)
	}
	for _, e := range d.Expansions {
		if len(e.Steps) > maxList {
			return fmt.Sprintf("expansion %s has %d steps, more than %d", e.Target, len(e.Steps), maxList)
		}
	}
	return ""
}

type fmAttribute struct {
	Name    string          `json:"name"`
	Type    string          `json:"type"`
	Default json.RawMessage `json:"default"`
}

type fmAlgorithm struct {
	Strategy              string   `json:"strategy"`
	BatchingPreference    string   `json:"batchingPreference"`
	SortByAttributes      []string `json:"sortByAttributes"`
	ExpansionAgeSelection string   `json:"expansionAgeSelection"`
	BackfillPriority      string   `json:"backfillPriority"`
	BalancedAttribute     string   `json:"balancedAttribute"`
}

type fmTeam struct {
	Name       string `json:"name"`
	MinPlayers int    `json:"minPlayers"`
	MaxPlayers int    `json:"maxPlayers"`
	Quantity   int    `json:"quantity"`
}

type fmRule struct {
	Name              string          `json:"name"`
	Description       string          `json:"description"`
	Type              string          `json:"type"`
	Measurements      json.RawMessage `json:"measurements"`
	ReferenceValue    json.RawMessage `json:"referenceValue"`
	Operation         string          `json:"operation"`
	MinDistance       number          `json:"minDistance"`
	MaxDistance       number          `json:"maxDistance"`
	MinCount          number          `json:"minCount"`
	MaxCount          number          `json:"maxCount"`
	MaxLatency        number          `json:"maxLatency"`
	DistanceReference string          `json:"distanceReference"`
	PartyAggregation  string          `json:"partyAggregation"`
	BatchAttribute    string          `json:"batchAttribute"`
	SortDirection     string          `json:"sortDirection"`
	SortAttribute     string          `json:"sortAttribute"`
	MapKey            string          `json:"mapKey"`
	Statement         string          `json:"statement"`
}

type fmExpansion struct {
	Target string   `json:"target"`
	Steps  []fmStep `json:"steps"`
}

type fmStep struct {
	WaitTimeSeconds number          `json:"waitTimeSeconds"`
	Value           json.RawMessage `json:"value"`
}

// flexer applies an expansion's steps to what a rule became: prop is the
// property expanded (maxDistance, referenceValue, …).
type flexer func(prop string, steps []fmStep) (Status, string)

type fmBuilder struct {
	doc   fmRuleSet
	lines *lineFinder
	rs    *ruleset.Ruleset
	rep   Report

	attrTypes map[string]string
	teams     teamIndex
	nTeams    int
	// sameSize: every team always has the same number of players (fixed
	// sizes, or a rule that makes them equal), which makes some rules exact.
	sameSize bool
	rulesAt  int
	flex     map[string]flexer
	// filterOf holds, for rules a compound statement names, the filter
	// expression each became.
	filterOf map[string]string
	// filterIndex holds, for rules that became a filter on their own, the
	// index of that filter (an expansion switches it off).
	filterIndex map[string]int
}

func (b *fmBuilder) run(clean []byte) {
	b.unknownKeys(clean)
	if b.doc.Name != "" {
		line, _ := b.lines.key("name", 0)
		b.rep.add(line, fmt.Sprintf("name %q", b.doc.Name), "", Exact, "a Cupid ruleset has no name of its own: name the queue that uses it in the configuration")
	}
	if !b.teamsToAlliance() {
		return
	}
	b.attributes()
	_, b.rulesAt = b.lines.key("rules", 0)
	b.sameSize = b.sameSize && !b.teamsExpand() || b.equalSizeRule()
	consumed := b.compoundMembers()
	for _, r := range b.doc.Rules {
		if consumed[r.Name] {
			continue
		}
		b.rule(r)
	}
	for _, r := range b.doc.Rules {
		if r.Type == "compound" {
			b.compound(r)
		}
	}
	b.algorithm()
	b.expansions()
}

// unknownKeys reports top-level members the rule set language does not
// have, so nothing disappears silently.
func (b *fmBuilder) unknownKeys(clean []byte) {
	var top map[string]json.RawMessage
	if json.Unmarshal(clean, &top) != nil {
		return
	}
	known := []string{"name", "ruleLanguageVersion", "playerAttributes", "algorithm", "teams", "rules", "expansions"}
	var keys []string
	for k := range top {
		if !slices.Contains(known, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		line, _ := b.lines.key(k, 0)
		b.rep.add(line, k, "", Dropped, "not part of FlexMatch's rule set language")
	}
}

// teamsToAlliance turns the teams into Cupid's alliance. Teams of one size
// are the alliance's numbered teams; teams of different sizes (5 hunters
// against 1 monster) become named teams, each with its own bounds, and the
// alliance that agrees with them.
func (b *fmBuilder) teamsToAlliance() bool {
	_, at := b.lines.key("teams", 0)
	if len(b.doc.Teams) == 0 {
		b.rep.Refused = "the rule set has no teams"
		return false
	}
	first := b.doc.Teams[0]
	for _, t := range b.doc.Teams {
		if t.MinPlayers != first.MinPlayers || t.MaxPlayers != first.MaxPlayers {
			return b.namedTeams(at)
		}
	}
	for _, t := range b.doc.Teams {
		q := max(t.Quantity, 1)
		for range q {
			b.teams[t.Name] = append(b.teams[t.Name], b.nTeams)
			b.nTeams++
		}
	}
	b.rs.Alliance = ruleset.Alliance{MinNumber: b.nTeams, MaxNumber: b.nTeams,
		PlayerMinNumber: first.MinPlayers, PlayerMaxNumber: first.MaxPlayers}
	b.sameSize = first.MinPlayers == first.MaxPlayers
	for _, t := range b.doc.Teams {
		line := b.lines.named(t.Name, at)
		why := ""
		if len(b.doc.Teams) > 1 || t.Quantity > 1 {
			var idx []string
			for _, i := range b.teams[t.Name] {
				idx = append(idx, strconv.Itoa(i))
			}
			why = fmt.Sprintf("Cupid numbers teams: %q is team %s", t.Name, strings.Join(idx, ", "))
		}
		b.rep.add(line, fmt.Sprintf("teams[%s] (%d–%d players ×%d)", t.Name, t.MinPlayers, t.MaxPlayers, max(t.Quantity, 1)), "alliance", Exact, why)
	}
	return true
}

// namedTeams writes teams of different sizes as Cupid's named teams; a team
// with a quantity becomes that many, numbered ("trio_1", "trio_2").
func (b *fmBuilder) namedTeams(at int) bool {
	lo, hi := math.MaxInt, 0
	for _, t := range b.doc.Teams {
		q := max(t.Quantity, 1)
		for k := range q {
			name := t.Name
			if q > 1 {
				name = fmt.Sprintf("%s_%d", t.Name, k+1)
			}
			b.teams[t.Name] = append(b.teams[t.Name], b.nTeams)
			b.nTeams++
			b.rs.Teams = append(b.rs.Teams, ruleset.NamedTeam{Name: name, PlayerMinNumber: t.MinPlayers, PlayerMaxNumber: t.MaxPlayers})
			lo, hi = min(lo, t.MinPlayers), max(hi, t.MaxPlayers)
		}
	}
	b.rs.Alliance = ruleset.Alliance{MinNumber: b.nTeams, MaxNumber: b.nTeams, PlayerMinNumber: lo, PlayerMaxNumber: hi}
	for _, t := range b.doc.Teams {
		line := b.lines.named(t.Name, at)
		var idx []string
		for _, i := range b.teams[t.Name] {
			idx = append(idx, strconv.Itoa(i))
		}
		b.rep.add(line, fmt.Sprintf("teams[%s] (%d–%d players ×%d)", t.Name, t.MinPlayers, t.MaxPlayers, max(t.Quantity, 1)),
			"teams["+strings.Join(idx, ", ")+"]", Exact, "teams of different sizes are named teams, each with its own bounds; matches list them in this order")
	}
	return true
}

// teamsExpand reports whether an expansion changes a team's size bounds.
func (b *fmBuilder) teamsExpand() bool {
	for _, e := range b.doc.Expansions {
		if strings.HasPrefix(e.Target, "teams[") {
			return true
		}
	}
	return false
}

// equalSizeRule reports whether some rule makes every team the same size
// (count(teams[a].players) = count(teams[b].players), or team sizes at
// distance 0), which the translation of other rules may rely on.
func (b *fmBuilder) equalSizeRule() bool {
	for _, r := range b.doc.Rules {
		m, err := measurement(r.Measurements)
		if err != nil {
			continue
		}
		mp, err1 := parseProp(m)
		refP, _, _ := b.reference(r.ReferenceValue)
		if err1 != nil || refP == nil {
			continue
		}
		switch r.Type {
		case "comparison":
			if r.Operation == "=" && mp.attr == "" && !mp.ids && refP.attr == "" && !refP.ids &&
				len(mp.fns) == 1 && len(refP.fns) == 1 && mp.fns[0] == "count" && refP.fns[0] == "count" &&
				mp.team != refP.team && b.nTeams == 2 && len(b.doc.Teams) == 2 {
				return true
			}
		case "distance":
			me, ok1 := mp.teamSizes()
			re, ok2 := refP.teamSizes()
			if ok1 && ok2 && me != "" && re != "" && me != re && r.MaxDistance.set && r.MaxDistance.v == 0 && !r.MinDistance.set {
				return true
			}
		}
	}
	return false
}

// attributes carries the declared types and defaults over.
func (b *fmBuilder) attributes() {
	_, at := b.lines.key("playerAttributes", 0)
	for _, a := range b.doc.PlayerAttributes {
		line := b.lines.named(a.Name, at)
		src := fmt.Sprintf("playerAttributes[%s] (%s)", a.Name, a.Type)
		b.attrTypes[a.Name] = a.Type
		if len(a.Default) == 0 || string(a.Default) == "null" {
			b.rep.add(line, src, "", Exact, "no default: a ticket without it is refused by the rules that need it")
			continue
		}
		v, err := defaultValue(a.Type, a.Default)
		if err != nil {
			b.rep.add(line, src, "", Dropped, "default %s: %v", a.Default, err)
			continue
		}
		b.rs.AttributeDefaults = append(b.rs.AttributeDefaults, ruleset.AttributeDefault{Name: a.Name, Value: v})
		why := ""
		if a.Type == "string_number_map" {
			why = fmt.Sprintf("a map of numbers; rules read one key of it by its path (%s.KEY)", a.Name)
		}
		b.rep.add(line, src, fmt.Sprintf("attribute_defaults[%d]", len(b.rs.AttributeDefaults)-1), Exact, why)
	}
}

func defaultValue(typ string, raw json.RawMessage) (cupid.Value, error) {
	switch typ {
	case "number":
		var n number
		if err := json.Unmarshal(raw, &n); err != nil {
			return cupid.Value{}, fmt.Errorf("not a number")
		}
		return cupid.Number(n.v), nil
	case "string":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return cupid.Value{}, fmt.Errorf("not a string")
		}
		return cupid.String(s), nil
	case "string_list":
		var l []string
		if err := json.Unmarshal(raw, &l); err != nil {
			return cupid.Value{}, fmt.Errorf("not a list of strings")
		}
		return cupid.Strings(l...), nil
	case "string_number_map":
		var m map[string]float64
		if err := json.Unmarshal(raw, &m); err != nil || m == nil {
			return cupid.Value{}, fmt.Errorf("not a map of numbers")
		}
		return cupid.Numbers(m), nil
	}
	return cupid.Value{}, fmt.Errorf("type %q is not one of number, string, string_list, string_number_map", typ)
}

func (b *fmBuilder) ruleLine(name string) int { return b.lines.named(name, b.rulesAt) }

// measurement reads a rule's measurements: one property expression (FlexMatch
// accepts a string or a list of one).
func measurement(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "", fmt.Errorf("no measurements")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var l []string
	if json.Unmarshal(raw, &l) == nil {
		if len(l) == 1 {
			return l[0], nil
		}
		return "", fmt.Errorf("%d measurements: Cupid imports rules with one", len(l))
	}
	return "", fmt.Errorf("measurements must be a string or a list of strings")
}

// reference reads a referenceValue: a property expression, or a literal
// number or string. ok is false when there is none.
func (b *fmBuilder) reference(raw json.RawMessage) (p *prop, lit *literal, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, false
	}
	var n number
	if json.Unmarshal(raw, &n) == nil {
		var s string
		if json.Unmarshal(raw, &s) != nil { // a JSON number, not "500"
			return nil, &literal{isNum: true, num: n.v}, true
		}
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if pp, err := parseProp(s); err == nil {
			return &pp, nil, true
		}
		if n.set {
			return nil, &literal{isNum: true, num: n.v}, true
		}
		return nil, &literal{str: s}, true
	}
	return nil, nil, true
}

// rule translates one rule that no compound statement consumes.
func (b *fmBuilder) rule(r fmRule) {
	line := b.ruleLine(r.Name)
	src := fmt.Sprintf("rules[%s] (%s)", r.Name, r.Type)
	var became string
	var st Status
	var why string
	switch r.Type {
	case "batchDistance":
		became, st, why = b.batchDistance(r)
	case "comparison":
		became, st, why = b.comparison(r)
	case "distance":
		became, st, why = b.distance(r)
	case "collection":
		became, st, why = b.collection(r)
	case "latency":
		became, st, why = b.latency(r)
	case "absoluteSort", "distanceSort":
		became, st, why = b.sortRule(r)
	case "compound":
		return // after the other rules, when its members exist
	default:
		st, why = Dropped, fmt.Sprintf("unknown rule type %q", r.Type)
	}
	if r.PartyAggregation != "" && st == Exact && r.Type != "collection" && r.Type != "batchDistance" && r.Type != "comparison" && !strings.HasSuffix(r.Type, "Sort") {
		if r.PartyAggregation != "avg" {
			st, why = Approximate, join(why, fmt.Sprintf("partyAggregation %q: Cupid reads a party's numeric attribute as its players' average (team rules take party_aggregate)", r.PartyAggregation))
		}
	}
	b.rep.add(line, src, became, st, why)
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// --- batchDistance -----------------------------------------------------------

func (b *fmBuilder) batchDistance(r fmRule) (string, Status, string) {
	attr := r.BatchAttribute
	if attr == "" {
		return "", Dropped, "no batchAttribute"
	}
	if b.attrTypes[attr] == "string" || !r.MaxDistance.set {
		b.rs.ComparisonRule = append(b.rs.ComparisonRule, ruleset.ComparisonRule{Attribute: attr, Operator: ruleset.OpEqual})
		return fmt.Sprintf("comparison_rule[%d]", len(b.rs.ComparisonRule)-1), Exact, "every player has the same value"
	}
	i := len(b.rs.MatchingRule)
	b.rs.MatchingRule = append(b.rs.MatchingRule, ruleset.MatchingRule{Attribute: attr, Criteria: ruleset.CriteriaSpread, Reference: r.MaxDistance.v,
		PartyAggregate: r.PartyAggregation})
	b.flex[r.Name] = func(p string, steps []fmStep) (Status, string) {
		if p != "maxDistance" {
			return Dropped, "only maxDistance expands"
		}
		prev := r.MaxDistance.v
		for _, s := range steps {
			v, ok := stepNumber(s)
			if !ok || v < prev {
				return Dropped, "a step is not a number at least the one before"
			}
			b.rs.FlexingRule = append(b.rs.FlexingRule, ruleset.FlexingRule{Duration: stepWait(s), Attribute: attr, Criteria: ruleset.CriteriaSpread, Reference: v})
			prev = v
		}
		return Exact, ""
	}
	return fmt.Sprintf("matching_rule[%d]", i), Exact, "spread: every player within maxDistance of every other"
}

// --- comparison --------------------------------------------------------------

func (b *fmBuilder) comparison(r fmRule) (string, Status, string) {
	mp, err := b.measured(r)
	if err != nil {
		return "", Dropped, err.Error()
	}
	op := r.Operation
	if op == "<>" {
		op = "!="
	}
	refP, lit, hasRef := b.reference(r.ReferenceValue)
	// A gate: every player's attribute against a constant.
	if mp.plainAttr() && lit != nil && slices.Contains([]string{"<", "<=", "=", "!=", ">=", ">"}, op) {
		if !lit.isNum && op != "=" && op != "!=" {
			return "", Dropped, fmt.Sprintf("%s compares a string with %s", r.Name, op)
		}
		cr := ruleset.ComparisonRule{Attribute: mp.attr, Operator: op, Value: &ruleset.Literal{IsString: !lit.isNum, Number: lit.num, String: lit.str}}
		i := len(b.rs.ComparisonRule)
		b.rs.ComparisonRule = append(b.rs.ComparisonRule, cr)
		b.flex[r.Name] = func(p string, steps []fmStep) (Status, string) {
			if p != "referenceValue" || !lit.isNum {
				return Dropped, "only a numeric referenceValue expands"
			}
			prev := lit.num
			for _, s := range steps {
				v, ok := stepNumber(s)
				loosens := ok && ((op == ">" || op == ">=") && v <= prev || (op == "<" || op == "<=") && v >= prev)
				if !loosens {
					return Dropped, "a step that does not loosen the gate: Cupid's rules only relax while players wait"
				}
				b.rs.ComparisonRule[i].Flexing = append(b.rs.ComparisonRule[i].Flexing, ruleset.Flex{Duration: stepWait(s), Value: v})
				prev = v
			}
			return Exact, ""
		}
		// FlexMatch compares a party's aggregate (avg by default); Cupid
		// holds every player to the gate unless party_aggregate says
		// otherwise. Every player passing is the party's min passing >
		// or >=, its max passing < or <=: no need to say it then.
		agg := r.PartyAggregation
		if agg == "" {
			agg = "avg"
		}
		if agg == "min" && (op == ">" || op == ">=") || agg == "max" && (op == "<" || op == "<=") || !lit.isNum {
			return fmt.Sprintf("comparison_rule[%d]", i), Exact, ""
		}
		b.rs.ComparisonRule[i].PartyAggregate = agg
		return fmt.Sprintf("comparison_rule[%d]", i), Exact, fmt.Sprintf("a party passes by its players' %s (party_aggregate)", agg)
	}
	if became, why, ok := b.teamComparison(r, mp, op, refP, lit); ok {
		return became, Exact, why
	}
	// Everyone equal.
	if mp.plainAttr() && !hasRef && op == "=" {
		b.rs.ComparisonRule = append(b.rs.ComparisonRule, ruleset.ComparisonRule{Attribute: mp.attr, Operator: ruleset.OpEqual})
		return fmt.Sprintf("comparison_rule[%d]", len(b.rs.ComparisonRule)-1), Exact, ""
	}
	// count(teams[a].players) = count(teams[b].players) over two teams:
	// equal team sizes.
	if op == "=" && refP != nil && mp.attr == "" && !mp.ids && refP.attr == "" && !refP.ids &&
		len(mp.fns) == 1 && len(refP.fns) == 1 && mp.fns[0] == "count" && refP.fns[0] == "count" &&
		mp.team != refP.team && b.nTeams == 2 && len(b.doc.Teams) == 2 {
		b.rs.TeamSizes = ruleset.TeamSizesEqual
		b.sameSize = true
		return "team_sizes", Exact, ""
	}
	return b.asFilter(r, "")
}

// teamComparison writes a comparison aimed at teams as a team_comparison:
// a team's players (teams[monster].players.attributes[a]) or its aggregate
// (avg(teams[monster]…), avg(teams[*]…) for each team) against a constant
// or against another team's values. A list on the other side is every one
// of its values: ">= every value" is ">= their max", "<= every value" is
// "<= their min".
func (b *fmBuilder) teamComparison(r fmRule, mp prop, op string, refP *prop, lit *literal) (string, string, bool) {
	if mp.attr == "" || mp.ids || !slices.Contains([]string{"<", "<=", "=", "!=", ">=", ">"}, op) {
		return "", "", false
	}
	agg, flat := mp.shape()
	if flat || len(mp.fns) > 1 || mp.team == "*" && agg == "" {
		return "", "", false
	}
	why := ""
	tc := ruleset.TeamComparisonRule{Attribute: mp.attr, Aggregate: agg, Operator: op}
	if mp.team != "*" {
		name, ok := b.teamName(mp.team)
		if !ok {
			return "", "", false
		}
		tc.Team = name
	}
	if agg == "" {
		// FlexMatch compares a party by its aggregate, avg by default.
		tc.PartyAggregate = cmpOr(r.PartyAggregation, "avg")
	}
	switch {
	case lit != nil && lit.isNum:
		v := lit.num
		tc.Value = &v
	case refP != nil && refP.attr != "" && !refP.ids && refP.team != "*":
		name, ok := b.teamName(refP.team)
		if !ok {
			return "", "", false
		}
		ragg, _ := refP.shape()
		if ragg == "" {
			// A list: every value of it.
			switch op {
			case ">", ">=":
				ragg = ruleset.AggregateMax
			case "<", "<=":
				ragg = ruleset.AggregateMin
			default:
				return "", "", false
			}
			why = fmt.Sprintf("against every value of the list: their %s", ragg)
		}
		tc.Reference = &ruleset.TeamValue{Team: name, Attribute: refP.attr, Aggregate: ragg}
	default:
		return "", "", false
	}
	i := len(b.rs.TeamComparison)
	b.rs.TeamComparison = append(b.rs.TeamComparison, tc)
	b.flex[r.Name] = func(p string, steps []fmStep) (Status, string) {
		if p != "referenceValue" || tc.Value == nil {
			return Dropped, "only a numeric referenceValue expands"
		}
		prev := *tc.Value
		for _, s := range steps {
			v, ok := stepNumber(s)
			loosens := ok && ((op == ">" || op == ">=") && v <= prev || (op == "<" || op == "<=") && v >= prev)
			if !loosens {
				return Dropped, "a step that does not loosen the comparison: Cupid's rules only relax while players wait"
			}
			b.rs.TeamComparison[i].Flexing = append(b.rs.TeamComparison[i].Flexing, ruleset.Flex{Duration: stepWait(s), Value: v})
			prev = v
		}
		return Exact, ""
	}
	if tc.Team == "" {
		why = join(why, "every team on its own")
	}
	return fmt.Sprintf("team_comparison[%d]", i), why, true
}

// teamName is the Cupid name of a FlexMatch team named in a rule: one named
// team (a team with a quantity is several, which one rule cannot aim at).
func (b *fmBuilder) teamName(fm string) (string, bool) {
	idx := b.teams[fm]
	if len(idx) != 1 || len(b.rs.Teams) == 0 {
		return "", false
	}
	return b.rs.Teams[idx[0]].Name, true
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// --- distance ----------------------------------------------------------------

func (b *fmBuilder) distance(r fmRule) (string, Status, string) {
	mp, err := b.measured(r)
	if err != nil {
		return "", Dropped, err.Error()
	}
	refP, _, _ := b.reference(r.ReferenceValue)
	// Team averages close to the match's average: a team rule on avg.
	if refP != nil && mp.teamAvg() && refP.matchAvg() && mp.attr == refP.attr && r.MaxDistance.set && !r.MinDistance.set && b.nTeams >= 2 {
		// Every team within D of the match average. The match average lies
		// between the lowest and highest team average, so a gap between
		// teams of at most D guarantees it; with two teams of the same
		// size the average is the midpoint and the rule is exactly a gap
		// of at most 2D.
		factor, st, why, against := 1.0, Exact, "each team's average within maxDistance of the match's (against: match)", ruleset.AgainstMatch
		if b.nTeams == 2 && b.sameSize {
			factor, why, against = 2, "two teams of the same size: each within maxDistance of the match average is the two at most twice maxDistance apart", ""
		}
		i := len(b.rs.TeamRule)
		b.rs.TeamRule = append(b.rs.TeamRule, ruleset.TeamRule{Attribute: mp.attr, Aggregate: ruleset.AggregateAvg, MaxDifference: factor * r.MaxDistance.v, Against: against})
		b.flex[r.Name] = func(p string, steps []fmStep) (Status, string) {
			if p != "maxDistance" {
				return Dropped, "only maxDistance expands"
			}
			prev := r.MaxDistance.v
			for _, s := range steps {
				v, ok := stepNumber(s)
				if !ok || v < prev {
					return Dropped, "a step is not a number at least the one before"
				}
				b.rs.TeamRule[i].Flexing = append(b.rs.TeamRule[i].Flexing, ruleset.Flex{Duration: stepWait(s), Value: factor * v})
				prev = v
			}
			return st, ""
		}
		return fmt.Sprintf("team_rule[%d]", i), st, why
	}
	if became, why, ok := b.soloDistance(r, mp, refP); ok {
		return became, Exact, why
	}
	// Team sizes within D of each other.
	if refP != nil && r.MaxDistance.set && !r.MinDistance.set && (r.MaxDistance.v == 0 || r.MaxDistance.v == 1) {
		me, ok1 := mp.teamSizes()
		re, ok2 := refP.teamSizes()
		if ok1 && ok2 && me != re && me != "" && re != "" {
			if r.MaxDistance.v == 0 {
				b.rs.TeamSizes = ruleset.TeamSizesEqual
				b.sameSize = true
			} else if b.rs.TeamSizes == "" {
				b.rs.TeamSizes = ruleset.TeamSizesWithinOne
			}
			return "team_sizes", Exact, ""
		}
	}
	return b.asFilter(r, "")
}

// soloDistance writes a distance rule between the two players of a one
// against one as a matching rule with criteria distance, minDistance
// becoming its min_distance. With two players, "each player within D of the
// match's average" is "the two at most 2D apart" (the average is their
// midpoint), and "a player within D of the other team's value" (one player
// a team: its avg, min, max and sum are his value) is "the two at most D
// apart"; the same holds for the smallest distance. Cupid measures from the
// pivot, the other player of the pair.
func (b *fmBuilder) soloDistance(r fmRule, mp prop, refP *prop) (string, string, bool) {
	if refP == nil || mp.attr == "" || mp.ids || refP.attr != mp.attr || refP.ids || !b.oneAgainstOne() {
		return "", "", false
	}
	for _, f := range mp.fns {
		if f != "flatten" {
			return "", "", false
		}
	}
	agg, _ := refP.shape()
	factor, why := 0.0, ""
	switch {
	case refP.team == "*" && agg == ruleset.AggregateAvg:
		factor, why = 2, "one against one: each player within maxDistance of the match average is the two at most twice maxDistance apart (and at least twice minDistance)"
	case mp.team != "*" && refP.team != "*" && refP.team != mp.team && agg != "":
		factor, why = 1, "one against one: the other team's value is the other player's"
	default:
		return "", "", false
	}
	maxD := neverRefuses
	if r.MaxDistance.set {
		maxD = factor * r.MaxDistance.v
	}
	m := ruleset.MatchingRule{Attribute: mp.attr, Criteria: ruleset.CriteriaDistance, Reference: maxD}
	for _, o := range b.rs.MatchingRule {
		if o.Attribute == m.Attribute && o.Criteria == m.Criteria {
			return "", "", false // a second rule on the attribute: flexing could not tell them apart
		}
	}
	if r.MinDistance.set {
		v := factor * r.MinDistance.v
		m.MinDistance = &v
	}
	i := len(b.rs.MatchingRule)
	b.rs.MatchingRule = append(b.rs.MatchingRule, m)
	// Each expansion gives the steps of one property; the flexing steps
	// carry both, so they are rebuilt from the two after each.
	steps := map[string][]fmStep{}
	b.flex[r.Name] = func(p string, st []fmStep) (Status, string) {
		if p != "maxDistance" && p != "minDistance" {
			return Dropped, "only maxDistance and minDistance expand"
		}
		if p == "minDistance" && m.MinDistance == nil {
			return Dropped, "the rule has no minDistance to expand"
		}
		prev := maxD / factor
		if p == "minDistance" {
			prev = *m.MinDistance / factor
		}
		for _, s := range st {
			v, ok := stepNumber(s)
			if !ok || p == "maxDistance" && v < prev || p == "minDistance" && v > prev {
				return Dropped, "a step that does not loosen the rule: Cupid's rules only relax while players wait (maxDistance may only grow, minDistance only fall)"
			}
			prev = v
		}
		steps[p] = st
		b.rebuildDistanceFlex(i, factor, steps)
		return Exact, ""
	}
	return fmt.Sprintf("matching_rule[%d]", i), why, true
}

// rebuildDistanceFlex writes the flexing steps of matching rule i from the
// expansions of its maxDistance and minDistance: a step at every wait either
// changes, carrying the values of both in force then.
func (b *fmBuilder) rebuildDistanceFlex(i int, factor float64, steps map[string][]fmStep) {
	m := b.rs.MatchingRule[i]
	keep := b.rs.FlexingRule[:0]
	for _, f := range b.rs.FlexingRule {
		if f.Attribute != m.Attribute || f.Criteria != m.Criteria {
			keep = append(keep, f)
		}
	}
	b.rs.FlexingRule = keep
	var waits []int
	for _, st := range steps {
		for _, s := range st {
			waits = append(waits, stepWait(s))
		}
	}
	slices.Sort(waits)
	waits = slices.Compact(waits)
	at := func(p string, base float64, w int) float64 {
		for _, s := range steps[p] {
			if stepWait(s) <= w {
				v, _ := stepNumber(s)
				base = factor * v
			}
		}
		return base
	}
	for _, w := range waits {
		f := ruleset.FlexingRule{Duration: w, Attribute: m.Attribute, Criteria: m.Criteria, Reference: at("maxDistance", m.Reference, w)}
		if m.MinDistance != nil {
			v := at("minDistance", *m.MinDistance, w)
			f.MinDistance = &v
		}
		b.rs.FlexingRule = append(b.rs.FlexingRule, f)
	}
}

// oneAgainstOne reports whether every match is two teams of one player:
// two tickets, no parties.
func (b *fmBuilder) oneAgainstOne() bool {
	a := b.rs.Alliance
	return b.nTeams == 2 && len(b.rs.Teams) == 0 && a.PlayerMinNumber == 1 && a.PlayerMaxNumber == 1 && !b.teamsExpand()
}

// --- collection --------------------------------------------------------------

func (b *fmBuilder) collection(r fmRule) (string, Status, string) {
	mp, err := b.measuredAs(r, true)
	if err != nil {
		return "", Dropped, err.Error()
	}
	var note string
	if b.mapAttr(mp.attr) {
		note = fmt.Sprintf("%s is a map: its keys are the list", mp.attr)
	}
	st := Exact
	if r.PartyAggregation != "" && r.PartyAggregation != "union" {
		st, note = Approximate, fmt.Sprintf("partyAggregation %q: Cupid reads each player's own list", r.PartyAggregation)
	}
	count := func(n number) *int {
		if !n.set {
			return nil
		}
		v := int(n.v)
		return &v
	}
	if !mp.plainAttr() {
		m, _ := measurement(r.Measurements) // read by measured already
		return "", Dropped, fmt.Sprintf("measurements %q: Cupid's collection rules read one attribute of every player", m)
	}
	refP, lit, _ := b.reference(r.ReferenceValue)
	switch r.Operation {
	case "intersection":
		cr := ruleset.CollectionRule{Attribute: mp.attr, Operation: ruleset.CollectionIntersection, MinCount: count(r.MinCount), MaxCount: count(r.MaxCount)}
		i := len(b.rs.CollectionRule)
		b.rs.CollectionRule = append(b.rs.CollectionRule, cr)
		b.flex[r.Name] = func(p string, steps []fmStep) (Status, string) {
			if p != "minCount" {
				return Dropped, "only minCount expands"
			}
			for _, s := range steps {
				v, ok := stepNumber(s)
				if !ok {
					return Dropped, "a step is not a number"
				}
				b.rs.CollectionRule[i].Flexing = append(b.rs.CollectionRule[i].Flexing, ruleset.Flex{Duration: stepWait(s), Value: v})
			}
			return Exact, ""
		}
		return fmt.Sprintf("collection_rule[%d]", i), st, note
	case "contains":
		if lit == nil || lit.isNum {
			return "", Dropped, "contains needs a string referenceValue"
		}
		cr := ruleset.CollectionRule{Attribute: mp.attr, Operation: ruleset.CollectionContains, Value: lit.str, MinCount: count(r.MinCount), MaxCount: count(r.MaxCount)}
		if cr.MinCount == nil && cr.MaxCount == nil {
			one := 1
			cr.MinCount = &one
			note = join(note, "no count given: read as at least one player")
		}
		b.rs.CollectionRule = append(b.rs.CollectionRule, cr)
		b.flex[r.Name] = fixedCount
		return fmt.Sprintf("collection_rule[%d]", len(b.rs.CollectionRule)-1), st, join(note, fmt.Sprintf("counts the players holding %q", lit.str))
	case "reference_intersection_count":
		if refP != nil && refP.ids && refP.team == "*" {
			cr := ruleset.CollectionRule{Attribute: mp.attr, Operation: ruleset.CollectionPlayerIDs, MinCount: count(r.MinCount), MaxCount: count(r.MaxCount)}
			b.rs.CollectionRule = append(b.rs.CollectionRule, cr)
			b.flex[r.Name] = fixedCount
			return fmt.Sprintf("collection_rule[%d]", len(b.rs.CollectionRule)-1), st, join(note, "player_ids: counts the players of the match named in the lists")
		}
		return b.asFilter(r, note)
	}
	return "", Dropped, fmt.Sprintf("unknown collection operation %q", r.Operation)
}

// fixedCount answers expansions of the counting collection rules, which do
// not flex in Cupid.
func fixedCount(string, []fmStep) (Status, string) {
	return Dropped, "Cupid's counting collection rules do not flex: the first count applies at every wait"
}

// --- latency -----------------------------------------------------------------

func (b *fmBuilder) latency(r fmRule) (string, Status, string) {
	if !r.MaxLatency.set {
		return "", Dropped, "no maxLatency"
	}
	ms := int(r.MaxLatency.v)
	b.rs.RegionLatencyMaxMs = ms
	b.rs.RegionLatencyInitialRangeMs = ms
	st, why := Exact, "every player's latency to the match's region at most maxLatency"
	if r.MaxDistance.set {
		b.rs.RegionLatencySpreadMs = int(r.MaxDistance.v)
		why = join(why, "maxDistance: region_latency_spread_ms, the slowest player at most that much above the fastest")
		if r.DistanceReference != "" && r.DistanceReference != "min" {
			st, why = Approximate, join(why, fmt.Sprintf("distanceReference %q: Cupid measures from the fastest player (min)", r.DistanceReference))
		}
	}
	b.flex[r.Name] = func(p string, steps []fmStep) (Status, string) {
		if p != "maxLatency" {
			return Dropped, "only maxLatency expands"
		}
		// Even steps are AccelByte's expansion (a range every rate);
		// uneven ones region_latency_flexing. Both are exact.
		prevV, prevW := float64(ms), 0
		delta, rate := 0.0, 0
		even := true
		for k, s := range steps {
			v, ok := stepNumber(s)
			if !ok || v < prevV {
				return Dropped, "a step is not a number at least the one before"
			}
			w := stepWait(s)
			if k == 0 {
				delta, rate = v-prevV, w-prevW
			} else if v-prevV != delta || w-prevW != rate {
				even = false
			}
			prevV, prevW = v, w
		}
		if len(steps) == 0 {
			return Exact, ""
		}
		last := steps[len(steps)-1]
		lastV, _ := stepNumber(last)
		b.rs.RegionLatencyMaxMs = int(lastV)
		if even && delta == float64(int(delta)) && rate > 0 {
			b.rs.RegionExpansionRangeMs = int(delta)
			b.rs.RegionExpansionRateMs = rate * 1000
			return Exact, fmt.Sprintf("region latency from %d ms, +%d ms every %d s, up to %d ms", ms, int(delta), rate, int(lastV))
		}
		b.rs.RegionLatencyFlexing = nil
		for _, s := range steps {
			v, _ := stepNumber(s)
			b.rs.RegionLatencyFlexing = append(b.rs.RegionLatencyFlexing, ruleset.Flex{Duration: stepWait(s), Value: v})
		}
		return Exact, fmt.Sprintf("uneven steps: region_latency_flexing from %d ms up to %d ms", ms, int(lastV))
	}
	return "region_latency_max_ms", st, why
}

// --- absoluteSort, distanceSort ----------------------------------------------

// sortRule writes a sort rule as a Cupid sort_rule: the anchor, the oldest
// ticket as in FlexMatch, takes its candidates in the rule's order.
func (b *fmBuilder) sortRule(r fmRule) (string, Status, string) {
	if r.SortAttribute == "" {
		return "", Dropped, "no sortAttribute"
	}
	sr := ruleset.SortRule{Attribute: r.SortAttribute, Sort: ruleset.SortAbsolute}
	what := "by the value"
	if b.mapAttr(r.SortAttribute) {
		switch r.MapKey {
		case "maxValue":
			sr.MapKey, what = ruleset.MapKeyMax, "by their value at the key the anchor values most (map_key max)"
		case "minValue":
			sr.MapKey, what = ruleset.MapKeyMin, "by their value at the key the anchor values least (map_key min)"
		default:
			return "", Dropped, fmt.Sprintf("%s is a map attribute: mapKey must be minValue or maxValue, got %q", r.SortAttribute, r.MapKey)
		}
		if r.Type == "distanceSort" {
			what = strings.Replace(what, "by their value", "by the distance of their value from the anchor's", 1)
		}
	}
	if r.Type == "distanceSort" {
		sr.Sort = ruleset.SortDistance
		if sr.MapKey == "" {
			what = "by the distance from the anchor's value"
		}
	}
	switch r.SortDirection {
	case "", "ascending":
		sr.Order = ruleset.SortAscending
	case "descending":
		sr.Order = ruleset.SortDescending
	default:
		return "", Dropped, fmt.Sprintf("unknown sortDirection %q", r.SortDirection)
	}
	if r.PartyAggregation != "" && r.PartyAggregation != "avg" {
		sr.PartyAggregate = r.PartyAggregation
	}
	i := len(b.rs.SortRule)
	b.rs.SortRule = append(b.rs.SortRule, sr)
	return fmt.Sprintf("sort_rule[%d]", i), Exact,
		fmt.Sprintf("the anchor (the oldest ticket) takes its candidates %s, %s; sort rules apply in the order written", what, sr.Order)
}

// neverRefuses is a distance wide enough to accept any two players.
const neverRefuses = 1e9

// --- filters and compound rules ----------------------------------------------

// asFilter writes a rule no native Cupid rule expresses as a match filter
// computing the same property expressions.
func (b *fmBuilder) asFilter(r fmRule, note string) (string, Status, string) {
	src, err := b.filterExpr(r)
	if err != nil {
		return "", Dropped, err.Error()
	}
	name := r.Name
	for b.filterNamed(name) {
		name += "_"
	}
	b.rs.Filter = append(b.rs.Filter, ruleset.ExprRule{Name: name, Scope: ruleset.ExprMatch, Expr: src})
	i := len(b.rs.Filter) - 1
	b.flex[r.Name] = func(string, []fmStep) (Status, string) {
		// A filter does not flex; keeping the strict rule forever could
		// strand players, so it stops at the first step instead.
		return Approximate, "the rule became a filter, which does not flex: it applies until the first step's wait and then not at all"
	}
	st, why := Exact, "a match filter computing the same measurement"
	if note != "" {
		st, why = Approximate, join(why, note)
	}
	b.filterIndex[r.Name] = i
	return fmt.Sprintf("filter[%d] %s", i, name), st, why
}

func (b *fmBuilder) filterNamed(name string) bool {
	for _, f := range b.rs.Filter {
		if f.Name == name {
			return true
		}
	}
	return false
}

// filterExpr is the expression of a rule as a match filter.
func (b *fmBuilder) filterExpr(r fmRule) (string, error) {
	if r.Type == "batchDistance" {
		attr := strconv.Quote(r.BatchAttribute)
		if b.attrTypes[r.BatchAttribute] == "string" || !r.MaxDistance.set {
			return "len(uniq(map(match.players, #[" + attr + "]))) <= 1", nil
		}
		return fmt.Sprintf("let v = map(match.players, #[%s]); max(v) - min(v) <= %s", attr, fmtNum(r.MaxDistance.v)), nil
	}
	mp, err := b.measured(r)
	if err != nil {
		return "", err
	}
	ms, mList, err := mp.expr(b.teams)
	if err != nil {
		return "", err
	}
	refP, lit, hasRef := b.reference(r.ReferenceValue)
	var rs string
	rList := false
	switch {
	case refP != nil:
		if rs, rList, err = refP.expr(b.teams); err != nil {
			return "", err
		}
	case lit != nil:
		rs = lit.expr()
	}
	// test builds "every measured value against every reference value".
	test := func(cond func(m, r string) string) string {
		switch {
		case !mList && !rList:
			return cond(ms, rs)
		case mList && !rList:
			return "all(" + ms + ", {" + cond("#", "("+rs+")") + "})"
		case !mList && rList:
			return "all(" + rs + ", {" + cond("("+ms+")", "#") + "})"
		}
		return "all(" + ms + ", {let m = #; all(" + rs + ", {" + cond("m", "#") + "})})"
	}
	switch r.Type {
	case "comparison":
		op, ok := exprOp(r.Operation)
		if !ok {
			return "", fmt.Errorf("unknown operation %q", r.Operation)
		}
		if !hasRef {
			if !mList {
				return "", fmt.Errorf("a comparison without referenceValue compares a list")
			}
			switch op {
			case "==":
				return "len(uniq(" + ms + ")) <= 1", nil
			case "!=":
				return "let v = " + ms + "; len(uniq(v)) == len(v)", nil
			}
			return "", fmt.Errorf("a comparison without referenceValue takes = or !=")
		}
		return test(func(m, r string) string { return m + " " + op + " " + r }), nil
	case "distance":
		if !hasRef {
			return "", fmt.Errorf("a distance rule needs referenceValue")
		}
		var parts []string
		if r.MaxDistance.set {
			parts = append(parts, "abs(%[1]s - %[2]s) <= "+fmtNum(r.MaxDistance.v))
		}
		if r.MinDistance.set {
			parts = append(parts, "abs(%[1]s - %[2]s) >= "+fmtNum(r.MinDistance.v))
		}
		if len(parts) == 0 {
			return "", fmt.Errorf("a distance rule needs maxDistance or minDistance")
		}
		f := strings.Join(parts, " && ")
		return test(func(m, r string) string { return fmt.Sprintf(f, m, r) }), nil
	case "collection":
		if r.Operation != "reference_intersection_count" || !mp.plainAttr() || !rList {
			return "", fmt.Errorf("collection %q cannot be a filter", r.Operation)
		}
		var bounds []string
		if r.MinCount.set {
			bounds = append(bounds, "n >= "+fmtNum(r.MinCount.v))
		}
		if r.MaxCount.set {
			bounds = append(bounds, "n <= "+fmtNum(r.MaxCount.v))
		}
		if len(bounds) == 0 {
			return "", fmt.Errorf("reference_intersection_count needs minCount or maxCount")
		}
		return fmt.Sprintf("let r = %s; all(match.players, {let l = #[%s] ?? []; let n = count(r, {# in l}); %s})",
			rs, strconv.Quote(mp.attr), strings.Join(bounds, " && ")), nil
	}
	return "", fmt.Errorf("a %s rule cannot be a filter", r.Type)
}

// compoundMembers turns every rule a compound statement names into a named
// filter, first, so that the statement can combine them; those rules apply
// only through the statement, as in FlexMatch.
func (b *fmBuilder) compoundMembers() map[string]bool {
	consumed := map[string]bool{}
	byName := map[string]fmRule{}
	for _, r := range b.doc.Rules {
		byName[r.Name] = r
	}
	for _, r := range b.doc.Rules {
		if r.Type != "compound" {
			continue
		}
		for _, n := range statementNames(r.Statement) {
			m, ok := byName[n]
			if !ok || consumed[n] || m.Type == "compound" {
				continue
			}
			consumed[n] = true
			src, err := b.filterExpr(m)
			line := b.ruleLine(n)
			label := fmt.Sprintf("rules[%s] (%s)", n, m.Type)
			if err != nil {
				b.rep.add(line, label, "", Dropped, "named in compound rule %s but cannot be a filter: %v", r.Name, err)
				continue
			}
			b.rs.Filter = append(b.rs.Filter, ruleset.ExprRule{Name: n, Scope: ruleset.ExprMatch, Expr: src})
			b.filterOf[n] = src
			b.rep.add(line, label, fmt.Sprintf("filter[%d] %s", len(b.rs.Filter)-1, n), Exact, "applies through compound rule "+r.Name)
		}
	}
	return consumed
}

var statementWord = regexp.MustCompile(`[A-Za-z0-9_.\-]+`)

// statementNames lists the rule names a compound statement uses.
func statementNames(st string) []string {
	var out []string
	for _, w := range statementWord.FindAllString(st, -1) {
		switch strings.ToLower(w) {
		case "and", "or", "xor", "not":
			continue
		}
		out = append(out, w)
	}
	return out
}

func (b *fmBuilder) compound(r fmRule) {
	line := b.ruleLine(r.Name)
	label := fmt.Sprintf("rules[%s] (compound)", r.Name)
	for _, n := range statementNames(r.Statement) {
		if _, ok := b.filterOf[n]; !ok {
			b.rep.add(line, label, "", Dropped, "%s is not a rule that became a filter", n)
			return
		}
	}
	b.rs.CompoundRule = append(b.rs.CompoundRule, ruleset.CompoundRule{Name: r.Name, Statement: r.Statement})
	b.rep.add(line, label, fmt.Sprintf("compound_rule[%d]", len(b.rs.CompoundRule)-1), Exact, "")
}

func (b *fmBuilder) mapAttr(attr string) bool { return b.attrTypes[attr] == "string_number_map" }

// --- algorithm ---------------------------------------------------------------

func (b *fmBuilder) algorithm() {
	a := b.doc.Algorithm
	if a == nil {
		return
	}
	_, at := b.lines.key("algorithm", 0)
	line := func(key string) int {
		l, _ := b.lines.key(key, at)
		return l
	}
	if a.Strategy != "" {
		switch a.Strategy {
		case "balanced":
			if a.BalancedAttribute == "" {
				b.rep.add(line("strategy"), "algorithm.strategy balanced", "", Dropped, "no balancedAttribute")
				break
			}
			found := false
			for i := range b.rs.MatchingRule {
				if b.rs.MatchingRule[i].Attribute == a.BalancedAttribute {
					b.rs.MatchingRule[i].IsForBalancing = true
					found = true
				}
			}
			if !found {
				b.rs.MatchingRule = append(b.rs.MatchingRule, ruleset.MatchingRule{Attribute: a.BalancedAttribute,
					Criteria: ruleset.CriteriaSpread, Reference: neverRefuses, IsForBalancing: true})
			}
			b.rep.add(line("strategy"), "algorithm.strategy balanced, balancedAttribute "+a.BalancedAttribute, "matching_rule is_for_balancing", Exact,
				"Cupid balances teams on it (a matching rule that never refuses, marked is_for_balancing)")
		default:
			b.rep.add(line("strategy"), "algorithm.strategy "+a.Strategy, "", Approximate,
				"Cupid's own search: the oldest ticket anchors, candidates come in the order of the sort rules or oldest first, the first group that passes every rule forms, teams are balanced")
		}
	}
	switch a.BatchingPreference {
	case "":
	case "largestPopulation":
		b.rep.add(line("batchingPreference"), "algorithm.batchingPreference largestPopulation", "", Exact,
			"Cupid's only way: every waiting ticket that shares a region of acceptable latency with the anchor is its candidate, the largest pool a match can be made from")
	case "fastestRegion":
		b.rs.RegionChoice = ruleset.RegionFastest
		why := "each ticket plays only in the region of its lowest reported latency (ties by region name), with the tickets whose lowest is the same region, and the match is hosted there; a ticket must report its latencies"
		if b.rs.RegionLatencyMaxMs == 0 {
			// Without a latency rule FlexMatch bounds no latency; Cupid
			// reads latencies only under a maximum, here its largest.
			b.rs.RegionLatencyMaxMs = ruleset.MaxLatencyMs
			why += fmt.Sprintf("; region_latency_max_ms %d (the largest Cupid takes) since the rule set bounds no latency", ruleset.MaxLatencyMs)
		}
		b.rep.add(line("batchingPreference"), "algorithm.batchingPreference fastestRegion", "region_choice fastest", Exact, why)
	default:
		b.rep.add(line("batchingPreference"), "algorithm.batchingPreference "+a.BatchingPreference, "", Dropped,
			"Cupid does not form batches: every waiting ticket is a candidate for the anchor")
	}
	if len(a.SortByAttributes) > 0 {
		b.rep.add(line("sortByAttributes"), "algorithm.sortByAttributes", "", Dropped, "Cupid does not sort the pool into batches: each match's candidates come in the order of its sort rules (absoluteSort, distanceSort), else oldest first")
	}
	switch a.ExpansionAgeSelection {
	case "", "oldest":
		if a.ExpansionAgeSelection != "" {
			b.rep.add(line("expansionAgeSelection"), "algorithm.expansionAgeSelection oldest", "", Exact, "Cupid relaxes a match's rules by the wait of its anchor, the oldest ticket")
		}
	default:
		b.rep.add(line("expansionAgeSelection"), "algorithm.expansionAgeSelection "+a.ExpansionAgeSelection, "", Approximate, "Cupid relaxes a match's rules by the wait of its anchor, the oldest ticket")
	}
	if a.BackfillPriority != "" {
		b.rep.add(line("backfillPriority"), "algorithm.backfillPriority "+a.BackfillPriority, "", Dropped,
			"Cupid always offers open sessions before forming new matches; set auto_backfill (FlexMatch's AUTOMATIC backfill mode) in the ruleset")
	}
}

// --- expansions --------------------------------------------------------------

var targetRE = regexp.MustCompile(`^(rules|teams)\[([^\]]+)\]\.(\w+)$`)

func (b *fmBuilder) expansions() {
	_, at := b.lines.key("expansions", 0)
	for _, e := range b.doc.Expansions {
		line := 0
		if loc := regexp.MustCompile(`"target"\s*:\s*` + regexp.QuoteMeta(strconv.Quote(e.Target))).FindStringIndex(b.lines.text[max(at, 0):]); loc != nil {
			line = b.lines.lineAt(max(at, 0) + loc[0])
		}
		label := "expansions " + e.Target
		steps := slices.Clone(e.Steps)
		sort.SliceStable(steps, func(i, j int) bool { return steps[i].WaitTimeSeconds.v < steps[j].WaitTimeSeconds.v })
		for _, s := range steps {
			if w := s.WaitTimeSeconds.v; w < 1 || w > 86400 || w != float64(int(w)) {
				b.rep.add(line, label, "", Dropped, "waitTimeSeconds %s: Cupid's steps are whole seconds from 1 to 86400", fmtNum(w))
				steps = nil
				break
			}
		}
		if steps == nil {
			continue
		}
		m := targetRE.FindStringSubmatch(e.Target)
		if m == nil {
			b.rep.add(line, label, "", Dropped, "a target is rules[NAME].property or teams[NAME].property")
			continue
		}
		if m[1] == "teams" {
			st, why := b.teamExpansion(m[2], m[3], steps)
			became := ""
			if st != Dropped {
				became = "alliance_flexing_rule"
			}
			b.rep.add(line, label, became, st, why)
			continue
		}
		f, ok := b.flex[m[2]]
		if !ok {
			b.rep.add(line, label, "", Dropped, "rule %s was not carried over", m[2])
			continue
		}
		st, why := f(m[3], steps)
		became := ""
		if st != Dropped {
			became = "flexing of rules[" + m[2] + "]"
			if i, ok := b.filterIndex[m[2]]; ok {
				b.rs.Filter[i].DisableAfter = stepWait(steps[0])
				became = fmt.Sprintf("filter[%d].disable_after", i)
			}
		}
		b.rep.add(line, label, became, st, why)
	}
}

// teamExpansion relaxes a team's player counts; Cupid's alliance relaxes
// all teams together.
func (b *fmBuilder) teamExpansion(team, p string, steps []fmStep) (Status, string) {
	if _, ok := b.teams[team]; !ok {
		return Dropped, fmt.Sprintf("no team is named %q", team)
	}
	if p != "minPlayers" {
		return Dropped, "only minPlayers expands: Cupid's alliance may start with fewer players, never hold more"
	}
	if len(b.rs.Teams) > 0 {
		return Dropped, "Cupid's named teams (teams of different sizes) do not flex"
	}
	prev := b.rs.Alliance.PlayerMinNumber
	for _, s := range steps {
		v, ok := stepNumber(s)
		if !ok || int(v) > prev || v < 1 {
			return Dropped, "a step that does not lower minPlayers"
		}
		b.rs.AllianceFlexingRule = append(b.rs.AllianceFlexingRule, ruleset.AllianceFlex{Duration: stepWait(s), Alliance: ruleset.Alliance{PlayerMinNumber: int(v)}})
		prev = int(v)
	}
	b.sameSize = false
	if len(b.doc.Teams) > 1 {
		return Approximate, "Cupid lowers the minimum of every team, not of " + team + " alone"
	}
	return Exact, ""
}

func stepNumber(s fmStep) (float64, bool) {
	var n number
	if json.Unmarshal(s.Value, &n) != nil {
		return 0, false
	}
	return n.v, true
}

func stepWait(s fmStep) int { return int(s.WaitTimeSeconds.v) }
