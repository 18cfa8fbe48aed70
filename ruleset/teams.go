package ruleset

import (
	"math"
	"time"
)

// Named teams and the rules aimed at them. A FlexMatch rule set names its
// teams, gives each its own size (5 hunters against 1 monster) and aims
// rules at one of them ("the monster's skill at least what the hunters ask
// for"); Cupid's alliance has one pair of size bounds for every team and its
// rules treat all teams alike. "teams" and "team_comparison" add what is
// missing, checked here and compiled to what the engine reads.

// maxNamedTeams bounds the named teams of a match: the engine checks that a
// group's players can still fill them by looking at every subset of teams.
const maxNamedTeams = 10

// teamAggregates are the aggregates a team comparison may use: the team
// rules' and the number of players.
var teamAggregates = []string{AggregateAvg, AggregateMin, AggregateMax, AggregateSum, AggregateStddev, AggregateCount}

// TeamComparison is one compiled team_comparison rule.
type TeamComparison struct {
	// Path is where the rule was written ("team_comparison[1]").
	Path string
	// Team is the index of the team judged in Compiled.NamedTeams, or -1
	// for every team on its own.
	Team      int
	Attribute string
	// Aggregate is empty when every player (or party) is compared.
	Aggregate      string
	PartyAggregate string
	Operator       string
	// Threshold is the constant over time; nil when Reference is set.
	Threshold Schedule
	// Reference is the other team's aggregate compared with.
	Reference *TeamReference
}

// TeamReference is a compiled TeamValue: the team by index.
type TeamReference struct {
	Team      int
	Attribute string
	Aggregate string
}

// PerPlayer reports whether the rule compares each player (or party) of the
// team with a constant: a rule that decides which teams a ticket may join.
func (c TeamComparison) PerPlayer() bool { return c.Aggregate == "" && c.Reference == nil }

// Holds reports whether x Operator the rule's constant holds after waiting
// wait.
func (c TeamComparison) Holds(x float64, wait time.Duration) bool {
	return compareNumbers(x, c.Operator, c.Threshold.At(wait))
}

// CompareNumbers is a Operator b for one of the comparison operators.
func CompareNumbers(a float64, op string, b float64) bool { return compareNumbers(a, op, b) }

// teamIndex is the index of a named team, or -1.
func teamIndex(teams []NamedTeam, name string) int {
	for i, t := range teams {
		if t.Name == name {
			return i
		}
	}
	return -1
}

func teamNames(teams []NamedTeam) []string {
	out := make([]string, len(teams))
	for i, t := range teams {
		out[i] = t.Name
	}
	return out
}

// namedTeams checks teams and that the alliance agrees with them.
func (v *validator) namedTeams() {
	rs := v.rs
	if len(rs.Teams) == 0 {
		return
	}
	if len(rs.Teams) > maxNamedTeams {
		v.add("teams", "has %d teams, more than the limit of %d", len(rs.Teams), maxNamedTeams)
		return
	}
	seen := map[string]bool{}
	lo, hi, total := math.MaxInt, 0, 0
	ok := true
	for i, t := range rs.Teams {
		p := index("teams", i)
		if v.name(p+".name", t.Name) {
			if seen[t.Name] {
				v.add(p+".name", "%q names two teams", t.Name)
				ok = false
			}
			seen[t.Name] = true
		} else {
			ok = false
		}
		if !v.requiredNumber(p+".player_min_number") || !v.requiredNumber(p+".player_max_number") {
			ok = false
			continue
		}
		switch {
		case t.PlayerMinNumber < 1 || t.PlayerMinNumber > maxTeamPlayers:
			v.add(p+".player_min_number", "must be between 1 and %d (got %d)", maxTeamPlayers, t.PlayerMinNumber)
			ok = false
			continue
		case t.PlayerMaxNumber < 1 || t.PlayerMaxNumber > maxTeamPlayers:
			v.add(p+".player_max_number", "must be between 1 and %d (got %d)", maxTeamPlayers, t.PlayerMaxNumber)
			ok = false
			continue
		case t.PlayerMinNumber > t.PlayerMaxNumber:
			v.add(p+".player_min_number", "must be ≤ player_max_number (%d > %d)", t.PlayerMinNumber, t.PlayerMaxNumber)
			ok = false
			continue
		}
		lo, hi, total = min(lo, t.PlayerMinNumber), max(hi, t.PlayerMaxNumber), total+t.PlayerMaxNumber
	}
	if !ok {
		return
	}
	if total > maxMatchPlayers {
		v.add("teams", "the teams hold %d players, more than the limit of %d", total, maxMatchPlayers)
	}
	if len(rs.AllianceFlexingRule) > 0 {
		v.add("alliance_flexing_rule", "named teams do not flex: leave alliance_flexing_rule out with teams")
	}
	uneven := lo != hi || rs.Teams[0].PlayerMinNumber != rs.Teams[0].PlayerMaxNumber
	for _, t := range rs.Teams {
		uneven = uneven || t.PlayerMaxNumber != hi
	}
	if rs.AutoBackfill && uneven {
		v.add("auto_backfill", "backfill fills every team to one seat count; it does not apply to named teams of different sizes")
	}
	if !v.allianceOK {
		return
	}
	a, n := rs.Alliance, len(rs.Teams)
	switch {
	case a.MinNumber != n || a.MaxNumber != n:
		v.add("alliance", "must have min_number and max_number %d, the number of teams (got %d and %d)", n, a.MinNumber, a.MaxNumber)
	case a.PlayerMinNumber != lo:
		v.add("alliance.player_min_number", "must be %d, the smallest team's player_min_number (got %d)", lo, a.PlayerMinNumber)
	case a.PlayerMaxNumber != hi:
		v.add("alliance.player_max_number", "must be %d, the largest team's player_max_number (got %d)", hi, a.PlayerMaxNumber)
	}
}

// teamRef checks a team name used by a rule.
func (v *validator) teamRef(path, name string) {
	if !v.name(path, name) {
		return
	}
	if len(v.rs.Teams) == 0 {
		v.add(path, "names team %q, but the ruleset names no teams (teams)", name)
		return
	}
	if teamIndex(v.rs.Teams, name) < 0 {
		msg := "no team is named %q"
		if s := suggest(name, teamNames(v.rs.Teams)); s != "" {
			v.add(path, msg+" (did you mean %q?)", name, s)
			return
		}
		v.add(path, msg+" (teams are %s)", name, quoteList(teamNames(v.rs.Teams)...))
	}
}

func (v *validator) teamComparison(p string, c TeamComparisonRule) {
	if c.Team != "" || v.written(p+".team") {
		v.teamRef(p+".team", c.Team)
	}
	if v.name(p+".attribute", c.Attribute) {
		v.reservedFits(p+".attribute", c.Attribute, needNumber)
	}
	if c.Aggregate != "" || v.written(p+".aggregate") {
		v.oneOf(p+".aggregate", c.Aggregate, teamAggregates...)
	}
	if c.PartyAggregate != "" || v.written(p+".party_aggregate") {
		if c.Aggregate != "" {
			v.add(p+".party_aggregate", "applies only without aggregate (each party compared on its own)")
		} else {
			v.oneOf(p+".party_aggregate", c.PartyAggregate, partyAggregates...)
		}
	}
	if !v.oneOf(p+".operator", c.Operator, operators...) {
		return
	}
	switch {
	case c.Value == nil && c.Reference == nil:
		v.add(p, "needs a value or a reference (another team's aggregate)")
		return
	case c.Value != nil && c.Reference != nil:
		v.add(p+".reference", "cannot be given with value: compare with one or the other")
		return
	case c.Value != nil && !finite(*c.Value):
		v.add(p+".value", "must be a finite number")
		return
	}
	if r := c.Reference; r != nil {
		rp := p + ".reference"
		v.teamRef(rp+".team", r.Team)
		if v.name(rp+".attribute", r.Attribute) {
			v.reservedFits(rp+".attribute", r.Attribute, needNumber)
		}
		v.oneOf(rp+".aggregate", r.Aggregate, teamAggregates...)
		if len(c.Flexing) > 0 {
			v.add(p+".flexing", "only a value can flex, not a reference")
		}
		return
	}
	if len(c.Flexing) == 0 {
		return
	}
	dir := up
	switch c.Operator {
	case OpGreater, OpGreaterEqual:
		dir = down
	case OpEqual, OpNotEqual:
		v.add(p+".flexing", "only a value compared with <, <=, >= or > can flex")
		return
	}
	v.flexSteps(p+".flexing", c.Flexing, *c.Value, dir, false)
}

// compileTeamComparisons resolves team names to indexes.
func compileTeamComparisons(rs *Ruleset) []TeamComparison {
	var out []TeamComparison
	for i, r := range rs.TeamComparison {
		tc := TeamComparison{
			Path: index("team_comparison", i), Team: -1, Attribute: r.Attribute,
			Aggregate: r.Aggregate, PartyAggregate: r.PartyAggregate, Operator: r.Operator,
		}
		if r.Team != "" {
			tc.Team = teamIndex(rs.Teams, r.Team)
		}
		if r.Value != nil {
			tc.Threshold = flexSchedule(*r.Value, r.Flexing)
		}
		if r.Reference != nil {
			tc.Reference = &TeamReference{Team: teamIndex(rs.Teams, r.Reference.Team), Attribute: r.Reference.Attribute, Aggregate: r.Reference.Aggregate}
		}
		out = append(out, tc)
	}
	return out
}
