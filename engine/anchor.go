package engine

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/cupid-match/cupid/ruleset"
)

// The streaming anchor loop (seed 002). Step takes the tickets that could
// have something new to do, oldest first; each in turn is the anchor:
//
//  1. Its wait picks the flex level, hence the envelope (flex.go).
//  2. It gathers candidates: the nearest waiting tickets on the primary
//     distance attribute (a walk outward in the sorted index, within the
//     allowed distance) that pass every rule judged between two tickets —
//     distance, gates, options, cross-play, region, collections, pair
//     filters. With no distance rule, the oldest tickets are the nearest.
//     It stops after Options.Candidates times the players still needed.
//  3. It takes the candidates oldest first (seed 002 compares the anchor
//     with the others by age) and moves each party into the forming match
//     when the group's rules still hold and the parties can still be packed
//     into teams; otherwise the party is skipped, as Pragma's plugin leaves a
//     party in the other matchable.
//  4. As soon as the group is full it tries to finalise: team balancing under
//     the team-level rules (balance.go), match totals and match filters,
//     region choice, quality. If that fails, the last party goes back and the
//     search goes on. If no full match forms and the flexed alliance allows a
//     smaller one, the largest group gathered is tried as a smaller match.
//
// A match forms the moment one is valid; its tickets leave the pool at once,
// so they cannot be in two matches.
//
// Which tickets a Step tries: new and returned tickets, tickets whose level
// changed since they last failed (found by binary search on creation time for
// each relaxation step), and older tickets whose window holds a newcomer
// (woken only while that newcomer is still waiting). A ticket that failed and
// has nothing new is not tried again, so a Step after one arrival costs the
// neighbourhood of that arrival, not the whole pool.

// Step runs the anchor loop at time now and returns the matches formed; their
// tickets have left the pool.
func (p *Pool) Step(now time.Time) []Proposal {
	p.stats.Steps++
	p.flush()
	p.sortOrder()
	wakers := p.fresh
	if !p.allDirty {
		if p.stepped && now.After(p.lastStep) {
			wakers = p.markCrossers(p.lastStep, now, wakers)
		}
		p.markNeighbours(now, wakers)
	}
	var due []int32
	if p.allDirty || len(p.dirty)*8 > p.live {
		due = p.order
		if len(p.r.dist) > 0 && !p.idx.posValid {
			p.idx.locatePositions(len(p.entries))
		}
	} else {
		due = slices.Clone(p.dirty)
		slices.SortFunc(due, func(a, b int32) int { return p.olderCmp(a, b) })
	}
	var out []Proposal
	for i, s := range due {
		e := &p.entries[s]
		if !e.alive || (!p.allDirty && e.dirty == dirtyNone) {
			continue
		}
		why := e.dirty
		e.dirty = dirtyNone
		if why == dirtyNeighbour && !p.allDirty && !p.wakerNear(s, wakers, now) {
			continue
		}
		p.stats.AnchorTries++
		if prop, ok := p.tryAnchor(s, now); ok {
			if len(out) == cap(out) {
				out = p.growProposals(out, i+1, len(due))
			}
			out = append(out, prop)
			p.maybeCompactIndex()
		}
	}
	for _, s := range p.dirty {
		p.entries[s].dirty = dirtyNone
	}
	p.dirty = p.dirty[:0]
	p.fresh = p.fresh[:0]
	p.allDirty = false
	if !p.stepped || now.After(p.lastStep) {
		p.lastStep = now
	}
	p.stepped = true
	p.maybeCompact()
	return out
}

// growProposals makes room in a full proposal list, done anchors into a
// Step of total. A proposal is over 200 bytes and a full pass over a large
// pool forms hundreds of thousands, so the growth aims at the count the pass
// is heading for — the proposals so far, extrapolated over the anchors still
// to try — instead of doubling, which would allocate twice the final list
// and copy it along the way. The jump is at most eightfold (an early rate is
// a rough guess), and never beyond what the waiting players could still
// form, so a wrong guess costs at most a few small lists.
func (p *Pool) growProposals(out []Proposal, done, total int) []Proposal {
	n := len(out)
	want := 2 * n
	if done > 0 {
		projected := int(float64(n)*float64(total)/float64(done)*17/16) + 16
		want = min(8*n, projected)
	}
	want = min(want, n+p.players/p.r.minPlayers+1)
	want = max(want, n+16)
	return slices.Grow(out, want-n)
}

func (p *Pool) olderCmp(a, b int32) int {
	ea, eb := &p.entries[a], &p.entries[b]
	switch {
	case ea.created != eb.created:
		if ea.created < eb.created {
			return -1
		}
		return 1
	case ea.seq < eb.seq:
		return -1
	case ea.seq > eb.seq:
		return 1
	}
	return 0
}

func (p *Pool) waitOf(e *entry, now time.Time) time.Duration {
	d := time.Duration(now.UnixNano() - e.created)
	if d < 0 {
		return 0
	}
	return d
}

// markCrossers marks the tickets that passed a relaxation step between from
// and to. With latency rules a ticket that expanded may now be a candidate of
// older anchors, so it also joins the wakers.
func (p *Pool) markCrossers(from, to time.Time, wakers []int32) []int32 {
	f, t := from.UnixNano(), to.UnixNano()
	for _, st := range p.r.steps {
		lo, hi := f-int64(st), t-int64(st) // created in (lo, hi]
		i := sort.Search(len(p.order), func(i int) bool { return p.entries[p.order[i]].created > lo })
		for ; i < len(p.order); i++ {
			s := p.order[i]
			e := &p.entries[s]
			if e.created > hi {
				break
			}
			if !e.alive {
				continue
			}
			p.markDirty(s, dirtySelf)
			if p.r.lat != nil {
				wakers = append(wakers, s)
			}
		}
	}
	return wakers
}

// markNeighbours wakes the waiting tickets that would accept a newcomer as a
// candidate at their own flex level: the newcomer may complete their match.
func (p *Pool) markNeighbours(now time.Time, wakers []int32) {
	if len(wakers) == 0 {
		return
	}
	if len(p.r.dist) == 0 || (len(wakers) > 256 && len(wakers)*16 > p.live) {
		// Without a distance rule every ticket's window is the whole
		// pool; with many newcomers (a bulk load, a restart) trying
		// everyone is cheaper than finding their neighbours.
		p.allDirty = true
		return
	}
	oldest := p.oldestAlive()
	if oldest < 0 {
		return
	}
	maxRef := p.r.envs[p.r.level(p.waitOf(&p.entries[oldest], now))].ref[0]
	for _, b := range wakers {
		eb := &p.entries[b]
		if !eb.alive {
			continue
		}
		down, up := p.idx.around(eb.key, b)
		for _, c := range []*cursor{&down, &up} {
			for {
				k, s, ok := c.next()
				if !ok || math.Abs(k-eb.key) > maxRef {
					break
				}
				if s < 0 {
					continue // tombstone
				}
				ea := &p.entries[s]
				if !ea.alive || ea.dirty != dirtyNone {
					continue
				}
				wa := p.waitOf(ea, now)
				env := &p.r.envs[p.r.level(wa)]
				if math.Abs(k-eb.key) > env.ref[0] {
					continue
				}
				if _, r := p.pairOK(s, b, env, p.anchorMask(ea, env), now); r.kind != rOK {
					continue
				}
				p.markDirty(s, dirtyNeighbour)
			}
		}
	}
}

// wakerNear reports whether a newcomer that woke s is still waiting and
// still within its window.
func (p *Pool) wakerNear(s int32, wakers []int32, now time.Time) bool {
	if len(wakers) > 64 || len(p.r.dist) == 0 {
		return true
	}
	ea := &p.entries[s]
	env := &p.r.envs[p.r.level(p.waitOf(ea, now))]
	for _, b := range wakers {
		if eb := &p.entries[b]; eb.alive && b != s && math.Abs(eb.key-ea.key) <= env.ref[0] {
			return true
		}
	}
	return false
}

func (p *Pool) oldestAlive() int32 {
	for _, s := range p.order {
		if p.entries[s].alive {
			return s
		}
	}
	return -1
}

// reason says which rule kept a candidate out (rOK: none). i indexes the
// rule within its kind.
type reason struct {
	kind uint8
	i    int
}

// Kinds of reasons, in the order rules are checked.
const (
	rOK uint8 = iota
	rParty
	rDist
	rGate
	rEqual
	rOption
	rCross
	rLatency
	rColl
	rFilter
)

// anchorMask is the set of regions an anchor offers at its level; all
// regions (^0) without latency rules.
func (p *Pool) anchorMask(ea *entry, env *envelope) uint64 {
	if p.r.lat == nil {
		return ^uint64(0)
	}
	return maskAt(ea.x.lats, env.latRange)
}

// selfOK checks the anchor against the rules that concern it alone at its
// level: its party must fit a team, its players must pass the gates, and it
// must accept at least one region.
func (p *Pool) selfOK(ea *entry, slot int32, env *envelope, aMask uint64) reason {
	if int(ea.size) > env.maxPlayers {
		return reason{rParty, 0}
	}
	if r := p.gateOK(slot, env); r.kind != rOK {
		return r
	}
	if aMask == 0 {
		return reason{rLatency, 0}
	}
	return reason{}
}

// gateOK checks a ticket's players against the numeric comparison gates at
// the envelope's level (string gates were checked once, by Check).
func (p *Pool) gateOK(slot int32, env *envelope) reason {
	if p.stride == len(p.r.dist) {
		return reason{}
	}
	nums := p.numsOf(slot)
	g := len(p.r.dist)
	for i, c := range p.r.comps {
		if !c.gate || c.isStr {
			continue
		}
		lo, hi := nums[g], nums[g+1]
		g += 2
		if !compareNum(lo, c.op, env.compNum[i]) || !compareNum(hi, c.op, env.compNum[i]) {
			return reason{rGate, i}
		}
	}
	return reason{}
}

// pairOK judges whether candidate c may join anchor a's match under a's
// envelope, returning the regions c may join in.
func (p *Pool) pairOK(slotA, slotC int32, env *envelope, aMask uint64, now time.Time) (uint64, reason) {
	ea, ec := &p.entries[slotA], &p.entries[slotC]
	if int(ec.size) > env.maxPlayers {
		return 0, reason{rParty, 0}
	}
	if len(p.r.dist) > 0 {
		// The primary attribute is the entry's key: no trip to the
		// slab for the common single-rule queue.
		if math.Abs(ec.key-ea.key) > env.ref[0] {
			return 0, reason{rDist, 0}
		}
		if len(p.r.dist) > 1 {
			na, nc := p.numsOf(slotA), p.numsOf(slotC)
			for i := 1; i < len(p.r.dist); i++ {
				if math.Abs(nc[i]-na[i]) > env.ref[i] {
					return 0, reason{rDist, i}
				}
			}
		}
	}
	if r := p.gateOK(slotC, env); r.kind != rOK {
		return 0, r
	}
	xa, xc := ea.x, ec.x
	if xa == nil {
		return ^uint64(0), reason{}
	}
	for i, c := range p.r.comps {
		if !c.gate && c.op == ruleset.OpEqual && xa.eqIDs[i] != xc.eqIDs[i] {
			return 0, reason{rEqual, i}
		}
	}
	ai, ni, ui := 0, 0, 0
	for k, o := range p.r.options {
		switch o.kind {
		case optAll:
			if xa.allIDs[ai] != xc.allIDs[ai] {
				return 0, reason{rOption, k}
			}
			ai++
		case optAny:
			sa, sc := xa.anySets[ni], xc.anySets[ni]
			if sa != nil && sc != nil && countCommon(sa, sc) == 0 {
				return 0, reason{rOption, k}
			}
			ni++
		case optUnique:
			if countCommon(xa.uniq[ui], xc.uniq[ui]) > 0 {
				return 0, reason{rOption, k}
			}
			ui++
		}
	}
	if p.r.cross != nil && (xc.plat&xa.accept != xc.plat || xa.plat&xc.accept != xa.plat) {
		return 0, reason{rCross, 0}
	}
	mask := ^uint64(0)
	if p.r.lat != nil {
		mask = p.candidateMask(ec, slotC, env, now, aMask)
		if mask == 0 {
			return 0, reason{rLatency, 0}
		}
	}
	for i, c := range p.r.colls {
		if c.contains || c.team {
			continue
		}
		if countCommon(xa.colls[i], xc.colls[i]) < env.collMin[i] {
			return 0, reason{rColl, i}
		}
	}
	for i, f := range p.r.filters {
		if !env.filterOn[i] || f.Scope != ruleset.ExprPair {
			continue
		}
		if !p.pairFilter(f, ea, ec, now) {
			return 0, reason{rFilter, i}
		}
	}
	return mask, reason{}
}

// pairFilter evaluates a pair expression both ways round: "may these two
// share a match" should not depend on which one is the anchor.
func (p *Pool) pairFilter(f *ruleset.Expr, a, c *entry, now time.Time) bool {
	va, vc := p.view(a, now), p.view(c, now)
	ok, err := f.Pass(ruleset.PairEnv{Ticket: *va, Candidate: *vc})
	if err != nil || !ok {
		return false
	}
	ok, err = f.Pass(ruleset.PairEnv{Ticket: *vc, Candidate: *va})
	return err == nil && ok
}

// view is the expression view of a ticket at now, cached per Step.
func (p *Pool) view(e *entry, now time.Time) *ruleset.TicketView {
	n := now.UnixNano()
	if e.x.view == nil || e.x.viewAt != n {
		v := ruleset.NewTicketView(e.t, now)
		e.x.view, e.x.viewAt = &v, n
	}
	return e.x.view
}

// cand is a gathered candidate.
type cand struct {
	slot int32
	mask uint64
	at   ipos // index position where the walk met it ({-1, -1}: unknown)
}

var nowhere = ipos{-1, -1}

// scratch holds buffers reused across anchor attempts, so a pass allocates
// mostly for the matches it forms.
type scratch struct {
	cands     []cand
	grp       group
	bins      []int
	roles     roleSolver
	bal       balancer
	parties   []bparty
	vals      []float64
	teamOf    []int
	members   []int32
	teamSlots [][]int32
	tc        teamCheck
	keep      []cand
	anchorAt  ipos
	roleOut   []int
	roleMins  []int
	roleMaxs  []int
	partVals  []float64
}

// tryAnchor tries to build a match around slot a.
func (p *Pool) tryAnchor(a int32, now time.Time) (Proposal, bool) {
	ea := &p.entries[a]
	lv := p.r.level(p.waitOf(ea, now))
	env := &p.r.envs[lv]
	aMask := p.anchorMask(ea, env)
	if p.selfOK(ea, a, env, aMask).kind != rOK {
		return Proposal{}, false
	}
	cands := p.gather(a, env, aMask, now)
	return p.form(a, lv, env, aMask, cands, now)
}

// gather collects up to Options.Candidates times the missing players' worth
// of compatible candidates, nearest first, and returns them oldest first.
func (p *Pool) gather(a int32, env *envelope, aMask uint64, now time.Time) []cand {
	ea := &p.entries[a]
	out := p.sc.cands[:0]
	need := env.capacity() - int(ea.size)
	if need <= 0 {
		p.sc.cands = out
		return out
	}
	want := p.opts.Candidates * need
	got, scanned := 0, 0
	consider := func(s int32, at ipos) bool {
		scanned++
		if s < 0 {
			// A tombstone: matched earlier in this pass.
			return scanned < p.opts.ScanLimit
		}
		ec := &p.entries[s]
		if !ec.alive || s == a {
			return scanned < p.opts.ScanLimit
		}
		mask, r := p.pairOK(a, s, env, aMask, now)
		if r.kind == rOK {
			out = append(out, cand{slot: s, mask: mask, at: at})
			got += int(ec.size)
		}
		return got < want && scanned < p.opts.ScanLimit
	}
	if len(p.r.dist) > 0 {
		ref := env.ref[0]
		down, up := p.idx.around(ea.key, a)
		dk, ds, dok := down.next()
		uk, us, uok := up.next()
		dok = dok && ea.key-dk <= ref
		uok = uok && uk-ea.key <= ref
		p.sc.anchorAt = p.idx.lastFound
		for dok || uok {
			var s int32
			var at ipos
			if dok && (!uok || ea.key-dk <= uk-ea.key) {
				s, at = ds, down.at
				dk, ds, dok = down.next()
				dok = dok && ea.key-dk <= ref
			} else {
				s, at = us, up.at
				uk, us, uok = up.next()
				uok = uok && uk-ea.key <= ref
			}
			if !consider(s, at) {
				break
			}
		}
		slices.SortFunc(out, func(x, y cand) int { return p.olderCmp(x.slot, y.slot) })
	} else {
		p.sc.anchorAt = nowhere
		for _, s := range p.order {
			if !consider(s, nowhere) {
				break
			}
		}
	}
	p.stats.Scanned += uint64(scanned)
	p.sc.cands = out
	return out
}

// form grows a match around the anchor from the candidates.
func (p *Pool) form(a int32, lv int, env *envelope, aMask uint64, cands []cand, now time.Time) (Proposal, bool) {
	g := &p.sc.grp
	if p.r.roles != nil {
		g.setRoleCaps(p, env)
	}
	g.reset(p, cand{slot: a, mask: aMask, at: p.sc.anchorAt})
	full := env.capacity()
	if g.total == full {
		return p.finalize(g, lv, env, now, true)
	}
	failures := 0
	for _, c := range cands {
		ec := &p.entries[c.slot]
		if g.total+int(ec.size) > full || !g.accepts(p, c, env, now) {
			continue
		}
		g.add(p, c)
		if !p.packable(g.sizes, env.maxTeams, env.maxPlayers) {
			g.removeLast(p)
			continue
		}
		if g.total < full {
			continue
		}
		if prop, ok := p.finalize(g, lv, env, now, true); ok {
			return prop, true
		}
		g.removeLast(p)
		if failures++; failures >= maxFinalizeFailures {
			break
		}
	}
	minimum := env.minTeams * env.minPlayers
	if minimum < full {
		for tries := 0; tries < maxFinalizeFailures && g.total >= minimum; tries++ {
			if prop, ok := p.finalize(g, lv, env, now, false); ok {
				return prop, true
			}
			if len(g.slots) <= 1 {
				break
			}
			g.removeLast(p)
		}
	}
	return Proposal{}, false
}

// maxFinalizeFailures bounds how often one anchor attempt may fail at the
// team stage before it gives up until its next chance.
const maxFinalizeFailures = 8
