package engine

import (
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/cupid-match/cupid/ruleset"
)

// packable reports whether parties of these sizes fit into at most teams
// teams of at most size players.
func (p *Pool) packable(sizes []int, teams, size int) bool {
	if p.r.namedTeams() {
		return p.packableNamed(sizes)
	}
	total, big := 0, 0
	for _, s := range sizes {
		total += s
		big = max(big, s)
	}
	if total > teams*size || big > size {
		return false
	}
	if big == 1 {
		return true
	}
	sorted := append(p.sc.bins[:0], sizes...)
	slices.SortFunc(sorted, func(a, b int) int { return b - a })
	bins := make([]int, teams)
	p.sc.bins = sorted
	var place func(i int) bool
	place = func(i int) bool {
		if i == len(sorted) {
			return true
		}
		for t := range bins {
			if bins[t]+sorted[i] > size {
				continue
			}
			if t > 0 && bins[t] == bins[t-1] {
				continue // same load as the team before: same outcome
			}
			bins[t] += sorted[i]
			if place(i + 1) {
				return true
			}
			bins[t] -= sorted[i]
		}
		return false
	}
	return place(0)
}

// group is the match being formed around an anchor, with the running state of
// the rules judged over the whole group.
type group struct {
	slots        []int32
	masks        []uint64
	ats          []ipos
	sizes        []int
	total        int
	mask         uint64
	lo, hi       []float64  // per distance rule: lowest and highest value
	anySet       [][]uint32 // per "any" option: values everyone accepts (nil: all)
	uniq         [][]uint32 // per "unique" option: values taken
	plat, accept uint64
	coll         [][]uint32 // per collection rule: shared values
	counts       []int32    // per count limit: players holding the value
	roleMasks    []uint64   // every player's acceptable roles
	rolePrefs    []int8
	// roleCnt counts the group's players by acceptable-role set and
	// roleCap the slots of each role set (rolesFit), for few roles.
	roleCnt [1 << maxHallRoles]int32
	roleCap [1 << maxHallRoles]int
	// latLo and latHi are, per region still in mask, the lowest and
	// highest latency of the group's tickets there (latency spread).
	latLo, latHi [64]int32
}

func (g *group) reset(p *Pool, anchor cand) {
	g.slots, g.masks, g.sizes, g.ats = g.slots[:0], g.masks[:0], g.sizes[:0], g.ats[:0]
	g.total, g.mask = 0, ^uint64(0)
	g.lo, g.hi = g.lo[:0], g.hi[:0]
	for range p.r.dist {
		g.lo = append(g.lo, math.Inf(1))
		g.hi = append(g.hi, math.Inf(-1))
	}
	g.anySet, g.uniq, g.coll = g.anySet[:0], g.uniq[:0], g.coll[:0]
	g.plat, g.accept = 0, ^uint64(0)
	g.counts = g.counts[:0]
	for range p.r.counts {
		g.counts = append(g.counts, 0)
	}
	g.roleMasks, g.rolePrefs = g.roleMasks[:0], g.rolePrefs[:0]
	g.roleCnt = [1 << maxHallRoles]int32{}
	g.add(p, anchor)
}

func (g *group) add(p *Pool, c cand) {
	e := &p.entries[c.slot]
	first := len(g.slots) == 0
	g.slots = append(g.slots, c.slot)
	g.masks = append(g.masks, c.mask)
	g.ats = append(g.ats, c.at)
	g.sizes = append(g.sizes, int(e.size))
	g.total += int(e.size)
	g.mask &= c.mask
	if len(p.r.counts) > 0 {
		nums := p.numsOf(c.slot)
		for i := range p.r.counts {
			g.counts[i] += int32(nums[p.countBase+i])
		}
	}
	if p.anySpread {
		// Running bounds, for the spread rules.
		nums := p.numsOf(c.slot)
		for i := range p.r.dist {
			g.lo[i], g.hi[i] = min(g.lo[i], nums[i]), max(g.hi[i], nums[i])
		}
	}
	x := e.x
	if x == nil || !p.groupExtra {
		return
	}
	ni, ui := 0, 0
	for _, o := range p.r.options {
		switch o.kind {
		case optAny:
			s := x.anySets[ni]
			switch {
			case first:
				g.anySet = append(g.anySet, s)
			case s != nil && g.anySet[ni] == nil:
				g.anySet[ni] = s
			case s != nil:
				g.anySet[ni] = intersectIDs(g.anySet[ni], s)
			}
			ni++
		case optUnique:
			if first {
				g.uniq = append(g.uniq, slices.Clone(x.uniq[ui]))
			} else {
				g.uniq[ui] = append(g.uniq[ui], x.uniq[ui]...)
				slices.Sort(g.uniq[ui])
			}
			ui++
		}
	}
	if sp := p.r.spread; sp > 0 {
		if !first {
			g.mask = g.spreadMask(x, g.mask, sp)
		}
		for m := g.mask; m != 0; m &= m - 1 {
			reg := bits.TrailingZeros64(m)
			ms := latencyTo(x.lats, uint8(reg))
			if first {
				g.latLo[reg], g.latHi[reg] = ms, ms
			} else {
				g.latLo[reg], g.latHi[reg] = min(g.latLo[reg], ms), max(g.latHi[reg], ms)
			}
		}
	}
	g.plat |= x.plat
	g.accept &= x.accept
	g.roleMasks = append(g.roleMasks, x.roles...)
	g.rolePrefs = append(g.rolePrefs, x.pref...)
	if p.r.roles != nil && len(p.r.roles.names) <= maxHallRoles {
		for _, m := range x.roles {
			g.roleCnt[m]++
		}
	}
	for i, c := range p.r.colls {
		switch {
		case c.contains || c.team:
			if first {
				g.coll = append(g.coll, nil)
			}
		case first:
			g.coll = append(g.coll, x.colls[i])
		default:
			g.coll[i] = intersectIDs(g.coll[i], x.colls[i])
		}
	}
}

// spreadMask is the regions of mask where a ticket with these latencies
// keeps the group's latencies within spread of each other.
func (g *group) spreadMask(x *extra, mask uint64, spread int32) uint64 {
	out := mask
	for m := mask; m != 0; m &= m - 1 {
		reg := bits.TrailingZeros64(m)
		ms := latencyTo(x.lats, uint8(reg))
		if ms < 0 || max(g.latHi[reg], ms)-min(g.latLo[reg], ms) > spread {
			out &^= 1 << reg
		}
	}
	return out
}

// removeLast takes the last party out again, recomputing the running state
// (groups are small, and this is rare).
func (g *group) removeLast(p *Pool) {
	keep := p.sc.keep[:0]
	for i := 0; i < len(g.slots)-1; i++ {
		keep = append(keep, cand{slot: g.slots[i], mask: g.masks[i], at: g.ats[i]})
	}
	p.sc.keep = keep
	g.reset(p, keep[0])
	for _, c := range keep[1:] {
		g.add(p, c)
	}
}

// accepts checks the rules judged over the whole group that the pairwise
// check against the anchor did not already settle.
func (g *group) accepts(p *Pool, c cand, env *envelope, now time.Time) bool {
	if g.mask&c.mask == 0 {
		return false
	}
	if sp := p.r.spread; sp > 0 {
		if x := p.entries[c.slot].x; x != nil && g.spreadMask(x, g.mask&c.mask, sp) == 0 {
			return false
		}
	}
	if p.anySpread {
		nums := p.numsOf(c.slot)
		for i, d := range p.r.dist {
			if d.spread && max(g.hi[i], nums[i])-min(g.lo[i], nums[i]) > env.ref[i] {
				return false
			}
		}
	}
	if p.teamGates && !g.teamsFit(p, c.slot, env) {
		return false
	}
	x := p.entries[c.slot].x
	if x == nil {
		return true
	}
	ni, ui := 0, 0
	for _, o := range p.r.options {
		switch o.kind {
		case optAny:
			if s := x.anySets[ni]; s != nil && g.anySet[ni] != nil && countCommon(g.anySet[ni], s) == 0 {
				return false
			}
			ni++
		case optUnique:
			if countCommon(g.uniq[ui], x.uniq[ui]) > 0 {
				return false
			}
			ui++
		}
	}
	if p.r.cross != nil && (x.plat&g.accept != x.plat || g.plat&x.accept != g.plat) {
		return false
	}
	for i, col := range p.r.colls {
		if !col.contains && !col.team && countCommon(g.coll[i], x.colls[i]) < env.collMin[i] {
			return false
		}
	}
	if len(p.r.counts) > 0 {
		nums := p.numsOf(c.slot)
		for i, cl := range p.r.counts {
			if int(g.counts[i])+int(nums[p.countBase+i]) > cl.Max {
				return false
			}
		}
	}
	if p.r.roles != nil && !g.rolesFit(p, x, env) {
		return false
	}
	if p.r.query != nil && p.r.query.mutual {
		// The anchor and the candidate were judged by pairOK; every
		// other member and the candidate, both ways, here.
		ec := &p.entries[c.slot]
		for _, s := range g.slots[1:] {
			es := &p.entries[s]
			if queryFailing(es, ec) != "" || queryFailing(ec, es) != "" {
				return false
			}
		}
	}
	if len(p.r.filters) > 0 {
		ec := &p.entries[c.slot]
		for i, f := range p.r.filters {
			if !env.filterOn[i] || f.Scope != ruleset.ExprPair {
				continue
			}
			for _, s := range g.slots[1:] {
				if !p.pairFilter(i, &p.entries[s], ec, now) {
					return false
				}
			}
		}
	}
	return true
}

// rolesFit reports whether the group's players and the candidate's could
// still take role slots in a full match: every team's maxima together, minima
// ignored (later players may still fill them). A group that cannot is
// refused before team balancing is ever tried.
//
// With at most maxHallRoles roles this is Hall's condition, checked on
// counts: for every set S of roles, the players who accept only roles in S
// must not outnumber the slots of S. Players are counted by their set of
// acceptable roles, so the check costs 3^roles steps, not a matching.
func (g *group) rolesFit(p *Pool, x *extra, env *envelope) bool {
	nr := len(p.r.roles.names)
	if nr > maxHallRoles {
		return g.rolesFitMatching(p, x, env)
	}
	if !p.partyStaffable(x, env) {
		return false
	}
	for _, m := range x.roles {
		g.roleCnt[m]++
	}
	ok := true
	for set := 1; set < 1<<nr && ok; set++ {
		players := int32(0)
		for m := set; m > 0; m = (m - 1) & set {
			players += g.roleCnt[m]
		}
		ok = int(players) <= g.roleCap[set]
	}
	for _, m := range x.roles {
		g.roleCnt[m]--
	}
	return ok
}

// partyStaffable reports whether a party's players could take roles within
// one team's maxima (a party plays on one team): for every set S of roles,
// its players who accept only roles in S must not outnumber one team's
// slots of S. A party of two players who both only tank, under "at most one
// tank a team", can never be matched; refusing it here spares the team
// stage a failure for every group it would join. With more than
// maxHallRoles roles it answers true (the team stage decides).
func (p *Pool) partyStaffable(x *extra, env *envelope) bool {
	nr := len(p.r.roles.names)
	if len(x.roles) < 2 || nr > maxHallRoles {
		return true
	}
	for set := uint64(1); set < 1<<nr; set++ {
		players := 0
		for _, m := range x.roles {
			if m&^set == 0 {
				players++
			}
		}
		slots := 0
		for r := 0; r < nr; r++ {
			if set&(1<<r) == 0 {
				continue
			}
			if m := p.r.roles.max[r]; m >= 0 {
				slots += m
			} else {
				slots += env.maxPlayers
			}
		}
		if players > slots {
			return false
		}
	}
	return true
}

// maxHallRoles bounds the role count for the counting check.
const maxHallRoles = 6

// rolesFitMatching is rolesFit by bipartite matching, for many roles.
func (g *group) rolesFitMatching(p *Pool, x *extra, env *envelope) bool {
	n := len(g.roleMasks)
	masks := append(g.roleMasks, x.roles...)
	prefs := append(g.rolePrefs, x.pref...)
	mins := p.sc.roleMins[:0]
	maxs := p.sc.roleMaxs[:0]
	for _, m := range p.r.roles.max {
		mins = append(mins, 0)
		if m < 0 {
			maxs = append(maxs, -1)
		} else {
			maxs = append(maxs, m*env.maxTeams)
		}
	}
	p.sc.roleMins, p.sc.roleMaxs = mins, maxs
	p.sc.roleOut = fill(p.sc.roleOut, len(masks), -1)
	ok := p.sc.roles.assign(masks, prefs, mins, maxs, p.sc.roleOut)
	g.roleMasks, g.rolePrefs = masks[:n], prefs[:n]
	return ok
}

// setRoleCaps computes, for every set of roles, how many players a full match
// at env can put in them.
func (g *group) setRoleCaps(p *Pool, env *envelope) {
	nr := len(p.r.roles.names)
	if nr > maxHallRoles {
		return
	}
	capacity := env.capacity()
	for set := 1; set < 1<<nr; set++ {
		c := 0
		for r := 0; r < nr; r++ {
			if set&(1<<r) == 0 {
				continue
			}
			if m := p.r.roles.max[r]; m >= 0 {
				c += m * env.maxTeams
			} else {
				c += capacity
			}
		}
		g.roleCap[set] = min(c, capacity)
	}
}
