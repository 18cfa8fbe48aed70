package engine

import (
	"math"
	"time"

	"github.com/cupid-match/cupid/ruleset"
)

// teamCheck vets complete team assignments against the rules that depend on
// who plays with whom: role quotas, team aggregates (team_rule), team-scope
// collections, "!=" comparisons (players on different teams must differ:
// clans never face each other) and match-scope filters. It is built once per
// finalisation, so the balancing search only reads prepared numbers.
type teamCheck struct {
	p     *Pool
	env   *envelope
	slots []int32
	teams int

	roles      bool
	teamVals   [][][]float64 // [team rule][member] values
	teamColls  []int
	neq        []int
	matchExprs []int
	views      []ruleset.TicketView

	// buffers
	masks []uint64
	prefs []int8
	out   []int
	vals  []float64

	// memo remembers teamOK by the set of parties on the team: the
	// balancing search asks about the same team many times over, and
	// staffing roles is the costliest check. An entry is valid when its
	// stamp (entry >> 1) is gen; its low bit is the answer.
	memo []uint64
	gen  uint64
}

// memoParties bounds the groups whose teamOK answers are remembered: 2^12
// entries, 32 KiB.
const memoParties = 12

// newTeamCheck returns nil when no team-level rule applies.
func (p *Pool) newTeamCheck(g *group, teams int, env *envelope, now time.Time) *teamCheck {
	if !p.teamRules {
		return nil
	}
	// The check is reused from match to match: its buffers survive.
	tc := &p.sc.tc
	*tc = teamCheck{
		p: p, env: env, slots: append(tc.slots[:0], g.slots...), teams: teams,
		masks: tc.masks, prefs: tc.prefs, out: tc.out, vals: tc.vals,
		memo: tc.memo, gen: tc.gen + 1,
	}
	tc.roles = p.r.roles != nil
	for _, tr := range p.r.teams {
		per := make([][]float64, len(g.slots))
		for k, s := range g.slots {
			vals := p.playerValues([]int32{s}, tr.Attribute)
			if tr.PartyAggregate != "" {
				vals = []float64{aggregate(vals, tr.PartyAggregate)}
			}
			per[k] = vals
		}
		tc.teamVals = append(tc.teamVals, per)
	}
	for i, c := range p.r.colls {
		if c.team && !c.contains {
			tc.teamColls = append(tc.teamColls, i)
		}
	}
	for i, c := range p.r.comps {
		if !c.gate && c.op == ruleset.OpNotEqual {
			tc.neq = append(tc.neq, i)
		}
	}
	for i, f := range p.r.filters {
		if env.filterOn[i] && f.Scope == ruleset.ExprMatch {
			tc.matchExprs = append(tc.matchExprs, i)
		}
	}
	if len(tc.matchExprs) > 0 {
		for _, s := range g.slots {
			tc.views = append(tc.views, *p.view(&p.entries[s], now))
		}
	}
	if !tc.roles && len(tc.teamVals) == 0 && len(tc.teamColls) == 0 && len(tc.neq) == 0 && len(tc.matchExprs) == 0 && len(p.r.tcomps) == 0 {
		return nil
	}
	return tc
}

// teamOK checks the rules of one complete team t: its role quotas and its
// team-scope collections. Members with team[k] == -1 are not placed yet.
func (tc *teamCheck) teamOK(team []int, t int) bool {
	// The memo is by set of parties alone: teams aimed at by name
	// answer differently for the same set.
	if len(tc.slots) > memoParties || len(tc.p.r.tcomps) > 0 {
		return tc.teamOKUncached(team, t)
	}
	set := 0
	for k, tk := range team[:len(tc.slots)] {
		if tk == t {
			set |= 1 << k
		}
	}
	if n := 1 << len(tc.slots); len(tc.memo) < n {
		tc.memo = make([]uint64, n)
	}
	if e := tc.memo[set]; e>>1 == tc.gen {
		return e&1 == 1
	}
	ok := tc.teamOKUncached(team, t)
	e := tc.gen << 1
	if ok {
		e |= 1
	}
	tc.memo[set] = e
	return ok
}

func (tc *teamCheck) teamOKUncached(team []int, t int) bool {
	if tc.roles && !tc.staff(team, t, nil) {
		return false
	}
	if len(tc.p.r.tcomps) > 0 && !tc.teamCompsOK(team, t) {
		return false
	}
	p := tc.p
	for _, ci := range tc.teamColls {
		c := p.r.colls[ci]
		var common []uint32
		first := true
		for k, s := range tc.slots {
			if team[k] != t {
				continue
			}
			list := p.entries[s].x.colls[ci]
			if first {
				common, first = list, false
			} else {
				common = intersectIDs(common, list)
			}
		}
		if len(common) < tc.env.collMin[ci] || (c.maxCount >= 0 && len(common) > c.maxCount) {
			return false
		}
	}
	return true
}

// ok checks the rules judged across teams on a complete assignment: team
// aggregate differences, "!=" comparisons and match filters. (Each team has
// passed teamOK already.)
func (tc *teamCheck) ok(team []int) bool {
	p := tc.p
	for ri, per := range tc.teamVals {
		if p.r.teams[ri].Against == ruleset.AgainstMatch {
			if !tc.fromMatchOK(ri, per, team) {
				return false
			}
			continue
		}
		hi, lo := math.Inf(-1), math.Inf(1)
		for t := 0; t < tc.teams; t++ {
			tc.vals = tc.vals[:0]
			for k := range tc.slots {
				if team[k] == t {
					tc.vals = append(tc.vals, per[k]...)
				}
			}
			v := aggregate(tc.vals, p.r.teams[ri].Aggregate)
			hi, lo = max(hi, v), min(lo, v)
		}
		if hi-lo > tc.env.teamDiff[ri] {
			return false
		}
	}
	for _, ci := range tc.neq {
		for k, s := range tc.slots {
			for l := k + 1; l < len(tc.slots); l++ {
				if team[k] != team[l] && p.entries[s].x.eqIDs[ci] == p.entries[tc.slots[l]].x.eqIDs[ci] {
					return false
				}
			}
		}
	}
	if len(p.r.tcomps) > 0 && !tc.crossCompsOK(team) {
		return false
	}
	if len(tc.matchExprs) > 0 {
		byTeam := make([][]ruleset.TicketView, tc.teams)
		for k := range tc.slots {
			byTeam[team[k]] = append(byTeam[team[k]], tc.views[k])
		}
		env := ruleset.NewMatchEnv(byTeam)
		for _, fi := range tc.matchExprs {
			if ok, err := p.r.filters[fi].Pass(env); err != nil || !ok {
				return false
			}
		}
	}
	return true
}

// staff assigns roles in team t; when got is not nil it records each
// player's role name by player ID, choosing the assignment with the most
// first choices, and staffCount returns how many got their first choice.
func (tc *teamCheck) staff(team []int, t int, got map[string]string) bool {
	_, ok := tc.staffCount(team, t, got != nil, got)
	return ok
}

// staffCount staffs team t, with the most first choices when best, and
// returns how many players got theirs.
func (tc *teamCheck) staffCount(team []int, t int, best bool, got map[string]string) (int, bool) {
	p := tc.p
	tc.masks, tc.prefs = tc.masks[:0], tc.prefs[:0]
	for k, s := range tc.slots {
		if team[k] != t {
			continue
		}
		x := p.entries[s].x
		tc.masks = append(tc.masks, x.roles...)
		tc.prefs = append(tc.prefs, x.pref...)
	}
	tc.out = fill(tc.out, len(tc.masks), -1)
	solve := p.sc.roles.assign
	if best {
		// The roles players will play: as many first choices as the
		// quotas allow.
		solve = p.sc.roles.assignBest
	}
	if !solve(tc.masks, tc.prefs, tc.env.roleMin, p.r.roles.max, tc.out) {
		return 0, false
	}
	first, i := 0, 0
	for k, s := range tc.slots {
		if team[k] != t {
			continue
		}
		for _, pl := range p.entries[s].h.players {
			if got != nil {
				got[pl.ID] = p.r.roles.names[tc.out[i]]
			}
			if int(tc.prefs[i]) == tc.out[i] {
				first++
			}
			i++
		}
	}
	return first, true
}

// roleMap returns every player's role for the chosen assignment and how
// many players got their first choice.
func (tc *teamCheck) roleMap(team []int) (map[string]string, int) {
	got := make(map[string]string)
	first := 0
	for t := 0; t < tc.teams; t++ {
		n, _ := tc.staffCount(team, t, true, got)
		first += n
	}
	return got, first
}

// firstChoices is how many players of a complete assignment, each team
// staffed with the most first choices its quotas allow, play their first
// choice: balancing's tie-break between equally even splits.
func (tc *teamCheck) firstChoices(team []int) int {
	first := 0
	for t := 0; t < tc.teams; t++ {
		n, _ := tc.staffCount(team, t, true, nil)
		first += n
	}
	return first
}

// tieBreak is the balancing tie-break of this match: first-choice roles,
// when the ruleset has quotas.
func (tc *teamCheck) tieBreak() tieBreak {
	if tc == nil || !tc.roles {
		return tieBreak{}
	}
	players := 0
	for _, s := range tc.slots {
		players += int(tc.p.entries[s].size)
	}
	return tieBreak{score: tc.firstChoices, max: players}
}
