package engine

import (
	"math"
	"slices"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// finalize turns a group into a match, written to dst: team sizes, balanced
// teams under the team-level rules, match-level rules, region, roles and
// quality. full asks for the full alliance; otherwise the flexed minimums
// apply. It leaves the pool unchanged, and dst too when it fails. (Writing in
// place spares copying a proposal of two hundred bytes up the calls, several
// times per match.)
func (p *Pool) finalize(g *group, lv int, env *envelope, now time.Time, full bool, dst *Proposal) bool {
	n := g.total
	teams, lo, hi := env.maxTeams, env.maxPlayers, env.maxPlayers
	var splits [][]int
	if p.r.namedTeams() {
		// Each team its own size, in the ruleset's order (named.go).
		if splits = p.namedSplits(n, full); len(splits) == 0 {
			return false
		}
		teams = len(p.r.named)
	} else if !full {
		teams = max(env.minTeams, (n+env.maxPlayers-1)/env.maxPlayers)
		lo = env.minPlayers
		if teams > env.maxTeams || n < teams*lo {
			return false
		}
	}
	if !p.matchTotalsOK(g, env) || !p.matchCollectionsOK(g, env) {
		return false
	}
	m := len(g.slots)
	nb := len(p.r.balance)
	p.sc.vals = grow(p.sc.vals, m*nb)
	p.sc.parties = grow(p.sc.parties, m)
	vals, parties := p.sc.vals, p.sc.parties
	for k, s := range g.slots {
		e := &p.entries[s]
		size := float64(e.size)
		parties[k] = bparty{size: int(size), vals: vals[k*nb : (k+1)*nb]}
		for j, di := range p.r.balance {
			d := &p.r.dist[di]
			// The party's average times its size is its players' sum.
			parties[k].vals[j] = p.distValue(e, s, di) * size * d.weight / d.scale
		}
	}
	tc := p.newTeamCheck(g, teams, env, now)
	var teamOK func([]int, int) bool
	var accept func([]int) bool
	if tc != nil {
		teamOK, accept = tc.teamOK, tc.ok
	}
	var res balanceResult
	if splits != nil {
		res = p.sc.bal.balanceNamed(parties, nb, splits, p.opts.ExactTeamSize, teamOK, accept, tc.tieBreak())
	} else {
		res = p.sc.bal.balanceTies(parties, nb, teams, lo, hi, p.opts.ExactTeamSize, teamOK, accept, tc.tieBreak())
	}
	if !res.ok {
		return false
	}
	p.propose(g, lv, res, tc, now, dst)
	return true
}

// propose builds the proposal for a balanced group. The tickets stay in the
// pool: the caller takes them out (anchor.go, commit), so that settling can
// form a match again without touching the pool.
func (p *Pool) propose(g *group, lv int, res balanceResult, tc *teamCheck, now time.Time, dst *Proposal) {
	// Number teams in the order their first party joined the group, so
	// the anchor's team comes first and output does not depend on the
	// search's internal order. Named teams keep the ruleset's order.
	T := len(res.sizes)
	if !p.r.namedTeams() {
		p.sc.teamOf = grow(p.sc.teamOf, T)
		for t := range p.sc.teamOf {
			p.sc.teamOf[t] = -1
		}
		next := 0
		for _, t := range res.team {
			if p.sc.teamOf[t] < 0 {
				p.sc.teamOf[t] = next
				next++
			}
		}
		for k, t := range res.team {
			res.team[k] = p.sc.teamOf[t]
		}
	}
	p.sc.teamSlots = grow(p.sc.teamSlots, T)
	teamSlots := p.sc.teamSlots
	if cap(p.sc.members) < len(g.slots) {
		p.sc.members = make([]int32, 0, 2*len(g.slots))
	}
	p.sc.members = p.sc.members[:0]
	for t := 0; t < T; t++ {
		start := len(p.sc.members)
		for k, s := range g.slots {
			if res.team[k] == t {
				p.sc.members = append(p.sc.members, s)
			}
		}
		end := len(p.sc.members)
		teamSlots[t] = p.sc.members[start:end:end]
	}
	members := p.slab.members(len(g.slots))
	*dst = Proposal{AnchorID: p.entries[g.slots[0]].id, Level: lv, key: p.sharedKey(), created: now, teams: T}
	for t, slots := range teamSlots {
		for _, s := range slots {
			e := &p.entries[s]
			members = append(members, member{id: e.id, created: e.created, h: e.h, team: int32(t)})
		}
	}
	dst.members = members
	in := qualityInput{teams: teamSlots, region: p.chooseRegion(g.mask, g.slots)}
	if in.region >= 0 {
		dst.Region = p.regionNames[in.region]
	}
	if p.r.roles != nil && tc != nil {
		dst.Roles, in.roleFirst = tc.roleMap(res.team)
	}
	if len(p.r.scores) > 0 {
		in.views = make([][]ruleset.TicketView, T)
		for t, slots := range teamSlots {
			for _, s := range slots {
				in.views[t] = append(in.views[t], *p.view(&p.entries[s], now))
			}
		}
	}
	dst.Quality = p.quality(&in, now)
}

// matchTotalsOK checks the match_total rules over every player of the group.
func (p *Pool) matchTotalsOK(g *group, env *envelope) bool {
	for i, tr := range p.r.totals {
		vals := p.playerValues(g.slots, tr.Attribute)
		v := aggregate(vals, tr.Aggregate)
		if v < env.totalMin[i] || v > env.totalMax[i] {
			return false
		}
	}
	return true
}

// matchCollectionsOK checks the upper bound of match-scope intersections
// (the lower bound was kept while the group grew).
func (p *Pool) matchCollectionsOK(g *group, env *envelope) bool {
	for i, c := range p.r.colls {
		if c.contains || c.team || c.maxCount < 0 {
			continue
		}
		if len(g.coll[i]) > c.maxCount {
			return false
		}
	}
	return true
}

func (p *Pool) playerValues(slots []int32, attr string) []float64 {
	var vals []float64
	for _, s := range slots {
		h := p.entries[s].h
		for i := range h.players {
			vals = append(vals, h.number(i, attr))
		}
	}
	return vals
}

// aggregate reduces values with one of the ruleset's aggregates.
func aggregate(vals []float64, agg string) float64 {
	if len(vals) == 0 {
		return 0
	}
	switch agg {
	case ruleset.AggregateMin:
		return slices.Min(vals)
	case ruleset.AggregateMax:
		return slices.Max(vals)
	case ruleset.AggregateSum:
		s := 0.0
		for _, v := range vals {
			s += v
		}
		return s
	case ruleset.AggregateStddev:
		s, sq := 0.0, 0.0
		for _, v := range vals {
			s += v
			sq += v * v
		}
		n := float64(len(vals))
		return math.Sqrt(max(sq/n-(s/n)*(s/n), 0))
	}
	s := 0.0
	for _, v := range vals {
		s += v
	}
	return s / float64(len(vals))
}

// slab carves the slices of proposals out of larger arrays, so that a pass
// forming half a million matches does not make three small allocations for
// each (its members and quality parts). Every slice handed out has its capacity capped at its length, so a
// caller appending to one cannot write into a neighbour.
type slab struct {
	mbs []member
	qps cupid.QualityParts
}

// slabSize is how many elements one slab array holds.
const slabSize = 4096

func (s *slab) members(n int) []member {
	if n > slabSize/8 {
		return make([]member, 0, n)
	}
	if cap(s.mbs)-len(s.mbs) < n {
		s.mbs = make([]member, 0, slabSize)
	}
	out := s.mbs[len(s.mbs) : len(s.mbs) : len(s.mbs)+n]
	s.mbs = s.mbs[:len(s.mbs)+n]
	return out
}

// parts returns an empty slice with room for n quality parts. It is never
// nil, so a match that no criterion applies to still has empty parts, as the
// empty map was before.
func (s *slab) parts(n int) cupid.QualityParts {
	if n == 0 {
		return cupid.QualityParts{}
	}
	if n > slabSize/8 {
		return make(cupid.QualityParts, 0, n)
	}
	if cap(s.qps)-len(s.qps) < n {
		s.qps = make(cupid.QualityParts, 0, slabSize)
	}
	out := s.qps[len(s.qps) : len(s.qps) : len(s.qps)+n]
	s.qps = s.qps[:len(s.qps)+n]
	return out
}
