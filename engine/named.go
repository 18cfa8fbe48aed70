package engine

import (
	"fmt"
	"math"
	"slices"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Named teams and the rules aimed at them (ruleset "teams" and
// "team_comparison"). A ruleset that names its teams gives each its own size
// bounds (5 hunters against 1 monster), and its matches list the teams in the
// ruleset's order, so team i of a match is always the same team; rules may
// be aimed at one team. Team formation therefore differs from the alliance's
// in three places, all in this file:
//
//   - a full match holds the sum of the teams' maxima, and a group of
//     parties must pack into the teams' own sizes (packableNamed);
//   - while a group grows, a candidate is taken only if every ticket can
//     still go to a team whose per-player rules it passes, with room for all
//     (teamsFit: Hall's condition over the sets of teams), so six tickets
//     that all want to hunt do not crowd out the one that wants the monster;
//   - balancing keeps team identities: no renumbering after the search, no
//     skipping of "interchangeable" empty teams (balanceNamed).
//
// Rulesets without names never reach this code; the alliance path is as it
// was.

// named reports whether the ruleset names its teams.
func (r *rules) namedTeams() bool { return len(r.named) > 0 }

// partyValue reduces a ticket's players' values of attr with a party
// aggregate (avg, min or max).
func partyValue(t *cupid.Ticket, attr, agg string) float64 {
	vals := make([]float64, 0, len(t.Players))
	for i := range t.Players {
		v, _ := number(t, i, attr, "")
		vals = append(vals, v)
	}
	return aggregate(vals, agg)
}

// teamAggregate is aggregate with "count" (the number of values).
func teamAggregate(vals []float64, agg string) float64 {
	if agg == ruleset.AggregateCount {
		return float64(len(vals))
	}
	return aggregate(vals, agg)
}

// packableNamed reports whether parties of these sizes fit the named teams'
// maxima.
func (p *Pool) packableNamed(sizes []int) bool {
	total, big := 0, 0
	for _, s := range sizes {
		total += s
		big = max(big, s)
	}
	bins := slices.Clone(p.r.namedMax)
	if total > p.r.namedCap || big > slices.Max(bins) {
		return false
	}
	sorted := slices.Clone(sizes)
	slices.SortFunc(sorted, func(a, b int) int { return b - a })
	var place func(i int) bool
	place = func(i int) bool {
		if i == len(sorted) {
			return true
		}
		for t := range bins {
			if bins[t] < sorted[i] {
				continue
			}
			bins[t] -= sorted[i]
			if place(i + 1) {
				return true
			}
			bins[t] += sorted[i]
		}
		return false
	}
	return place(0)
}

// namedSplits lists the team sizes, in the ruleset's team order, that hold n
// players: the teams' maxima for a full match, else every split within each
// team's bounds (fullest first), at most maxSplits of them.
func (p *Pool) namedSplits(n int, full bool) [][]int {
	lo, hi := p.r.namedMin, p.r.namedMax
	if full {
		if n != p.r.namedCap {
			return nil
		}
		return [][]int{slices.Clone(hi)}
	}
	var out [][]int
	cur := make([]int, len(hi))
	var rec func(t, left int)
	rec = func(t, left int) {
		if len(out) >= maxSplits {
			return
		}
		if t == len(hi) {
			if left == 0 {
				out = append(out, slices.Clone(cur))
			}
			return
		}
		rest := 0
		for u := t + 1; u < len(lo); u++ {
			rest += lo[u]
		}
		for s := min(hi[t], left-rest); s >= lo[t]; s-- {
			cur[t] = s
			rec(t+1, left-s)
		}
	}
	rec(0, n)
	return out
}

// balanceNamed balances parties onto the named teams, trying the splits in
// order, keeping each team's identity.
func (b *balancer) balanceNamed(parties []bparty, nattr int, splits [][]int, exactLimit int, teamOK func(team []int, t int) bool, accept func(team []int) bool, tie tieBreak) balanceResult {
	b.tie, b.teamOK, b.named = tie, teamOK, true
	defer func() { b.tie, b.teamOK, b.named = tieBreak{}, nil, false }()
	for _, sizes := range splits {
		var res balanceResult
		if slices.Max(sizes) <= exactLimit {
			res = b.exact(parties, nattr, sizes, accept, exactNodeBudget)
		} else {
			res = b.heuristic(parties, nattr, sizes)
			if res.ok && !b.allOK(res.team, len(sizes), accept) {
				res = b.exact(parties, nattr, sizes, accept, exactNodeBudget/4)
				res.exact = false
			}
		}
		if res.ok {
			return res
		}
	}
	return balanceResult{}
}

// ticketValues appends the values of attr a rule compares for one ticket:
// every player's, or the party's aggregate when party is set.
func (p *Pool) ticketValues(dst []float64, s int32, attr, party string) []float64 {
	h := p.entries[s].h
	if party == "" {
		for i := range h.players {
			dst = append(dst, h.number(i, attr))
		}
		return dst
	}
	start := len(dst)
	for i := range h.players {
		dst = append(dst, h.number(i, attr))
	}
	v := aggregate(dst[start:], party)
	return append(dst[:start], v)
}

// teamMask is the set of named teams (bit t for team t) whose per-player
// team comparisons the ticket in slot s passes at env, and whose maximum
// holds its party. Without named teams there is one bit, for "any team".
func (p *Pool) teamMask(s int32, env *envelope) uint32 {
	n := max(len(p.r.named), 1)
	mask := uint32(1)<<n - 1
	size := int(p.entries[s].size)
	for t := range p.r.named {
		if p.r.namedMax[t] < size {
			mask &^= 1 << t
		}
	}
	var vals []float64
	for i, c := range p.r.tcomps {
		if !c.PerPlayer() {
			continue
		}
		vals = p.ticketValues(vals[:0], s, c.Attribute, c.PartyAggregate)
		pass := true
		for _, v := range vals {
			pass = pass && ruleset.CompareNumbers(v, c.Operator, env.tcompNum[i])
		}
		if pass {
			continue
		}
		if c.Team < 0 {
			return 0
		}
		mask &^= 1 << c.Team
	}
	return mask
}

// teamsFit reports whether the group's tickets and candidate c can each go
// to a team they may join with room for all: for every set S of teams, the
// players who may only join teams in S do not outnumber S's seats.
func (g *group) teamsFit(p *Pool, c int32, env *envelope) bool {
	if !p.teamGates {
		return true
	}
	T := max(len(p.r.named), 1)
	slots := append(slices.Clip(g.slots), c)
	masks := make([]uint32, len(slots))
	for k, s := range slots {
		if masks[k] = p.teamMask(s, env); masks[k] == 0 {
			return false
		}
	}
	if len(p.r.named) == 0 {
		return true
	}
	for set := uint32(1); set < 1<<T; set++ {
		seats := 0
		for t := 0; t < T; t++ {
			if set&(1<<t) != 0 {
				seats += p.r.namedMax[t]
			}
		}
		players := 0
		for k, s := range slots {
			if masks[k]&^set == 0 {
				players += int(p.entries[s].size)
			}
		}
		if players > seats {
			return false
		}
	}
	return true
}

// teamCompsOK checks team t of an assignment against the team comparisons
// judged within one team (those without a reference).
func (tc *teamCheck) teamCompsOK(team []int, t int) bool {
	p := tc.p
	for i, c := range p.r.tcomps {
		if c.Reference != nil || (c.Team >= 0 && c.Team != t) {
			continue
		}
		vals := tc.teamValues(team, t, c.Attribute, c.PartyAggregate)
		if c.Aggregate == "" {
			for _, v := range vals {
				if !ruleset.CompareNumbers(v, c.Operator, tc.env.tcompNum[i]) {
					return false
				}
			}
			continue
		}
		if !ruleset.CompareNumbers(teamAggregate(vals, c.Aggregate), c.Operator, tc.env.tcompNum[i]) {
			return false
		}
	}
	return true
}

// teamValues gathers the values of attr on team t of an assignment, into
// the check's buffer.
func (tc *teamCheck) teamValues(team []int, t int, attr, party string) []float64 {
	tc.vals = tc.vals[:0]
	for k, s := range tc.slots {
		if team[k] == t {
			tc.vals = tc.p.ticketValues(tc.vals, s, attr, party)
		}
	}
	return tc.vals
}

// crossCompsOK checks the team comparisons whose reference is another
// team's aggregate, on a complete assignment.
func (tc *teamCheck) crossCompsOK(team []int) bool {
	p := tc.p
	for _, c := range p.r.tcomps {
		if c.Reference == nil {
			continue
		}
		ref := teamAggregate(tc.teamValues(team, c.Reference.Team, c.Reference.Attribute, ""), c.Reference.Aggregate)
		for t := 0; t < tc.teams; t++ {
			if c.Team >= 0 && c.Team != t {
				continue
			}
			vals := tc.teamValues(team, t, c.Attribute, c.PartyAggregate)
			if c.Aggregate != "" {
				if !ruleset.CompareNumbers(teamAggregate(vals, c.Aggregate), c.Operator, ref) {
					return false
				}
				continue
			}
			for _, v := range vals {
				if !ruleset.CompareNumbers(v, c.Operator, ref) {
					return false
				}
			}
		}
	}
	return true
}

// fromMatchOK checks a team rule measured against the match: every team's
// aggregate within the allowed difference of the aggregate over every
// player.
func (tc *teamCheck) fromMatchOK(ri int, per [][]float64, team []int) bool {
	agg := tc.p.r.teams[ri].Aggregate
	all := tc.vals[:0]
	for k := range tc.slots {
		all = append(all, per[k]...)
	}
	m := aggregate(all, agg)
	for t := 0; t < tc.teams; t++ {
		tc.vals = tc.vals[:0]
		for k := range tc.slots {
			if team[k] == t {
				tc.vals = append(tc.vals, per[k]...)
			}
		}
		if math.Abs(aggregate(tc.vals, agg)-m) > tc.env.teamDiff[ri] {
			return false
		}
	}
	return true
}

// checkTeamComparisons refuses a ticket a team comparison can never accept:
// an attribute it reads missing or not a number, or, fully relaxed, no team
// whose per-player rules the ticket passes.
func (p *Pool) checkTeamComparisons(t *cupid.Ticket) error {
	if len(p.r.tcomps) == 0 {
		return nil
	}
	for i := range t.Players {
		for _, c := range p.r.tcomps {
			if err := checkNumber(t, i, c.Attribute, c.Path); err != nil {
				return err
			}
			if _, err := number(t, i, c.Attribute, c.Path); err != nil {
				return err
			}
			if c.Reference != nil {
				if _, err := number(t, i, c.Reference.Attribute, c.Path); err != nil {
					return err
				}
			}
		}
	}
	last := &p.r.envs[len(p.r.envs)-1]
	n := max(len(p.r.named), 1)
	mask := uint32(1)<<n - 1
	var why string
	for k, hi := range p.r.namedMax {
		if hi < len(t.Players) {
			mask &^= 1 << k
			why = fmt.Sprintf("a party of %d does not fit team %q", len(t.Players), p.r.named[k].Name)
		}
	}
	for i, c := range p.r.tcomps {
		if !c.PerPlayer() {
			continue
		}
		pass := true
		var bad float64
		for pi := range t.Players {
			v, _ := number(t, pi, c.Attribute, "")
			if c.PartyAggregate != "" {
				v = partyValue(t, c.Attribute, c.PartyAggregate)
			}
			if !ruleset.CompareNumbers(v, c.Operator, last.tcompNum[i]) {
				pass, bad = false, v
				break
			}
		}
		if pass {
			continue
		}
		if why == "" {
			why = fmt.Sprintf("%v is not %s %v even after every relaxation (%s)", bad, c.Operator, last.tcompNum[i], c.Path)
		}
		if c.Team < 0 {
			mask = 0
		} else {
			mask &^= 1 << c.Team
		}
	}
	if mask == 0 {
		attr := "attributes"
		for _, c := range p.r.tcomps {
			if c.PerPlayer() {
				attr += "." + c.Attribute
				break
			}
		}
		if len(p.r.named) > 0 {
			return cupid.Invalid(attr, "fits no team: %s", why)
		}
		return cupid.Invalid(attr, "%s", why)
	}
	return nil
}

// namedBackfill refuses a backfill session where its checks would not hold:
// backfill gives every team the same seats and does not judge the rules
// aimed at teams, so a session of a ruleset with named teams of different
// sizes or with team comparisons is not opened rather than filled wrongly.
func (r *rules) namedBackfill() error {
	if len(r.tcomps) > 0 {
		return cupid.Invalid("ruleset.team_comparison", "backfill does not judge rules aimed at teams: a session of this queue cannot be opened to backfill")
	}
	for _, hi := range r.namedMax {
		if hi != r.namedMax[0] {
			return cupid.Invalid("ruleset.teams", "backfill gives every team one seat count: a session of teams of different sizes cannot be opened to backfill")
		}
	}
	return nil
}
