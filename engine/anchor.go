package engine

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// The streaming anchor loop, after Pragma's matchmaking design: the oldest
// waiting ticket is the anchor and is compared with the others from the next
// oldest on. Step takes the tickets that could have something new to do,
// oldest first; each in turn is the anchor:
//
//  1. Its wait picks the flex level, hence the envelope (flex.go).
//  2. It gathers candidates: waiting tickets that pass every rule judged
//     between two tickets at its level — distance, gates, options,
//     cross-play, region, collections, pair filters. With a distance rule it
//     walks the sorted index outward from its own value, nearest first,
//     until the candidates hold Options.Candidates times the players still
//     needed; without one it walks the tickets of its class (those it could
//     ever share a match with) oldest first.
//  3. It considers the candidates oldest first and looks for a group that
//     fills the match: parties whole, the group's rules holding, the parties
//     packable into teams. The search takes the oldest candidate that fits
//     at every turn and backtracks (within a budget) when the group cannot
//     be completed, so the group it finds is the first in age order: a
//     younger candidate joins only where no older one can.
//  4. A full group is finalised: team balancing under the team-level rules
//     (balance.go), match totals and match filters, region choice, quality.
//     If that fails the search goes on (at most maxFinalizeFailures times).
//  5. With no full match among the candidates and a walk that stopped early,
//     the anchor gathers again, four times as many, until its window (or
//     class) or ScanLimit waiting tickets are exhausted. Only then, if the
//     flexed alliance allows a smaller match, the largest group found is
//     tried as one.
//
// A match forms the moment one is valid; its tickets leave the pool at once,
// so they cannot be in two matches.
//
// Nearest first keeps skill gaps small where the pool is dense, but alone it
// would let an anchor take a younger ticket C where an older ticket B beyond
// its nearest candidates would have done as well. Settling (settle, distance
// rules only) closes that gap after the anchors are done: every ticket left
// waiting that an anchor of this Step could have taken tries, oldest first,
// to take the place of a younger member of that anchor's match. The match
// forms again with B instead of C, under the same anchor and level, and C
// waits again — and gets its own try, as do the tickets whose window holds
// it. At the end of a Step no waiting ticket could have had a younger
// ticket's place, so a ticket that could be matched is never starved by
// younger ones, while in a dense pool, where nearly everyone matches, the
// skill gaps stay those of nearest first.
//
// Which tickets a Step tries: new and returned tickets, tickets whose level
// changed since they last failed (found by binary search on creation time for
// each relaxation step), and older tickets whose window holds a newcomer
// (woken only while that newcomer is still waiting). A ticket that failed and
// has nothing new is not tried again, so a Step after one arrival costs the
// neighbourhood of that arrival, not the whole pool.

// Step runs the anchor loop at time now and returns the matches formed; their
// tickets have left the pool. Open sessions are filled first (backfill.go):
// their proposals come first in the list.
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
	var out []Proposal
	if len(p.bf.open) > 0 {
		// Running games first (backfill.go): a ticket that fits an
		// open session joins it rather than a new match.
		out = p.backfillPass(now, out)
	}
	var due []int32
	whole := p.allDirty || len(p.dirty)*8 > p.live
	if whole {
		due = p.order
		if len(p.r.dist) > 0 && len(due) >= minLocate {
			p.rankOrder()
			if p.soloEligible() {
				p.soloBegin() // solo.go
			} else {
				p.idx.locate(p.rank, len(due))
			}
		}
	} else {
		due = slices.Clone(p.dirty)
		slices.SortFunc(due, func(a, b int32) int { return p.olderCmp(a, b) })
	}
	ps := &p.pass
	ps.begin(p)
	if len(p.r.dist) == 0 && len(due) > 0 {
		p.ages.build(p)
	}
	if p.solo.on && p.soloPairsEligible() {
		out = p.soloPairs(now, out) // solo.go
		due = nil
	}
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
		if p.solo.on {
			p.solo.anchor, p.solo.ahead = int(p.solo.pos[i]), int32(i+1)
		} else if p.rankOn {
			p.sc.anchorHint = p.idx.located(int32(i))
			p.sc.aheadRank = int32(i + 1)
		}
		out = p.anchorStep(s, now, out, i+1, len(due))
	}
	for _, s := range p.dirty {
		p.entries[s].dirty = dirtyNone
	}
	p.soloEnd()
	if len(p.r.dist) > 0 && !p.r.sorted() {
		out = p.settle(out, now)
	}
	p.ages.release()
	ps.end()
	p.unrank()
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

// anchorStep tries slot s as an anchor, done anchors into a loop over total,
// and records the outcome for settling.
func (p *Pool) anchorStep(s int32, now time.Time, out []Proposal, done, total int) []Proposal {
	p.stats.AnchorTries++
	ps := &p.pass
	if len(out) == cap(out) {
		out = p.growProposals(out, done, total)
		if len(p.r.dist) > 0 {
			// The records follow the proposals' growth.
			ps.recs = slices.Grow(ps.recs, cap(out)-len(ps.recs))
		}
	}
	ranked := p.rankingQuery(&p.entries[s]) != nil
	// The match is written straight into the list's next place.
	if !p.tryAnchor(s, now, &out[:len(out)+1][len(out)]) {
		ps.failed = append(ps.failed, s)
		return out
	}
	out = out[:len(out)+1]
	if len(p.r.dist) > 0 {
		// A match whose anchor ranked its candidates by its query is
		// not settled: handing its places to older tickets would undo
		// the order (sort.go).
		if !ranked {
			p.recordMatch(s, len(out)-1)
			if !p.allDirty {
				// Tickets not tried in this Step may have been
				// passed over for a younger member.
				p.notePassedOver(s, out[len(out)-1].Level, now)
			}
		}
		if p.solo.on {
			p.soloCompact()
		} else {
			p.maybeCompactIndex()
		}
	}
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

// minLocate is the smallest Step over the whole order that fills the
// index's position table: below it a binary search per anchor costs less
// than the tables. (A variable so that tests can run small pools through
// large passes' path.)
var minLocate = 4096

// rankOrder numbers the slots by their place in order, for the index's
// position table.
func (p *Pool) rankOrder() {
	if cap(p.rank) < len(p.entries) {
		p.rank = make([]int32, len(p.entries))
	}
	p.rank = p.rank[:len(p.entries)]
	for i, s := range p.order {
		p.rank[s] = int32(i)
	}
	p.rankOn = true
}

// unrank ends the Step's ranks. The tables are dropped, not kept for the
// next large Step: between Steps a waiting ticket costs no memory for them.
func (p *Pool) unrank() {
	p.rankOn = false
	p.sc.anchorHint = nowhere
	p.rank = nil
	p.idx.pos = nil
	p.idx.posValid = false
}

// olderCmp orders slots oldest first: by creation time, then arrival.
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
	rQuery
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
		if d := math.Abs(ec.key - ea.key); d > env.ref[0] || d < env.minRef[0] {
			return 0, reason{rDist, 0}
		}
		if len(p.r.dist) > 1 {
			na, nc := p.numsOf(slotA), p.numsOf(slotC)
			for i := 1; i < len(p.r.dist); i++ {
				if d := math.Abs(nc[i] - na[i]); d > env.ref[i] || d < env.minRef[i] {
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
	if r := p.pairFilters(ea, ec, env, now); r.kind != rOK {
		return 0, r
	}
	if p.r.query != nil {
		if r := p.queryOK(ea, ec); r.kind != rOK {
			return 0, r
		}
	}
	return mask, reason{}
}

// pairFilters judges the pair filters in force at the envelope's level.
func (p *Pool) pairFilters(ea, ec *entry, env *envelope, now time.Time) reason {
	for i, f := range p.r.filters {
		if !env.filterOn[i] || f.Scope != ruleset.ExprPair {
			continue
		}
		if !p.pairFilter(i, ea, ec, now) {
			return reason{rFilter, i}
		}
	}
	return reason{}
}

// pairFilter evaluates a pair expression both ways round: "may these two
// share a match" should not depend on which one is the anchor.
func (p *Pool) pairFilter(i int, a, c *entry, now time.Time) bool {
	if k := p.r.exclOf[i]; k >= 0 {
		if ok, native := p.excludesPass(k, a, c); native { // excludes.go
			return ok
		}
	}
	return p.pairExpr(p.r.filters[i], a, c, now)
}

// pairExpr is pairFilter by the filter's expression alone.
func (p *Pool) pairExpr(f *ruleset.Expr, a, c *entry, now time.Time) bool {
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
		var t cupid.Ticket
		p.fill(&t, e)
		v := ruleset.NewTicketView(&t, now)
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
	f         formState
	// anchorHint is where the index table says the next anchor sits.
	anchorHint ipos
	// aheadRank is the rank of the anchor after this one, from which
	// gather reads ahead (readAhead); touched keeps a sum of what it
	// read, so the reads are not optimised away.
	aheadRank int32
	touched   float64
	sorted    sortScratch
	// pairSlots and pairTeams are the teams of a pair pass's match
	// (solo.go), as the quality score reads them.
	pairSlots [2]int32
	pairTeams [2][]int32
	// judge is the solo walk's anchor for the block lists, pairJudge
	// headFilters' (excludes.go).
	judge, pairJudge headJudge
}

// tryAnchor tries to build a match around slot a.

// formState is one anchor attempt's search, kept across its gathers.
type formState struct {
	a        int32
	lv       int
	env      *envelope
	aMask    uint64
	now      time.Time
	full     int
	cands    []cand
	suffix   []int // players in cands[i:]
	nodes    int   // search steps left
	failures int   // finalisations that failed
	dst      *Proposal
}

// Outcomes of a search.
const (
	searchNone  int8 = iota // every combination of the candidates tried
	searchFound             // a match formed
	searchAbort             // the budget or the failure limit ran out
)

// maxSearchNodes bounds the groups one anchor attempt looks at (parties
// tried for a place). Greedy oldest first is the search's first path, so
// the bound only cuts the backtracking, which in a small neighbourhood
// covers every combination.
const maxSearchNodes = 512

// maxFinalizeFailures bounds how often one anchor attempt may fail at the
// team stage before it gives up until its next chance.
const maxFinalizeFailures = 8

// tryAnchor tries to build a match around slot a, written to dst; on
// success the match's tickets have left the pool.
func (p *Pool) tryAnchor(a int32, now time.Time, dst *Proposal) bool {
	ea := &p.entries[a]
	lv := p.r.level(p.waitOf(ea, now))
	env := &p.r.envs[lv]
	aMask := p.anchorMask(ea, env)
	if p.selfOK(ea, a, env, aMask).kind != rOK || (p.r.roles != nil && !p.partyStaffable(ea.x, env)) {
		return false
	}
	f := &p.sc.f
	f.a, f.lv, f.env, f.aMask, f.now, f.dst = a, lv, env, aMask, now, dst
	f.full = env.capacity()
	f.nodes, f.failures = maxSearchNodes, 0
	want := p.opts.Candidates * (f.full - int(ea.size))
	rank := p.rankingQuery(ea)
	ordered := p.r.sorted() || rank != nil
	if p.r.sorted() {
		want = math.MaxInt / 2 // the whole neighbourhood (sort.go)
	}
	var top *ruleset.Query
	if rank != nil && !p.r.sorted() {
		top = rank // want counts the best-scoring candidates only
	}
	for {
		cands, more := p.gather(a, env, aMask, now, want, top)
		if ordered {
			p.sortCands(a, cands, rank)
		}
		switch p.form(cands) {
		case searchFound:
			p.commit(dst)
			return true
		case searchAbort:
			more = false
		}
		if !more {
			break
		}
		// Nothing among the nearest: look further.
		want *= 4
	}
	if p.formSmaller() {
		p.commit(dst)
		return true
	}
	return false
}

// commit takes the tickets of the group just finalised out of the pool.
func (p *Pool) commit(prop *Proposal) {
	g := &p.sc.grp
	for k, s := range g.slots {
		p.killAt(s, g.ats[k])
	}
	p.stats.Formed++
	p.stats.QualitySum += prop.Quality.Score
}

// gather collects compatible candidates until they hold want players, and
// returns them oldest first. With a distance rule the walk goes outward from
// the anchor's value, nearest first, within the allowed distance; without
// one it goes through the anchor's class oldest first. The walk looks at no
// more than ScanLimit waiting tickets; tickets matched earlier in the pass
// do not count. more reports whether it stopped for want alone, so that a
// larger want could find more.
//
// With top, the anchor's ranking query (query.go), only candidates of the
// query's best possible score count towards want: the others are kept but
// could be passed by a better one found later. Without a distance rule no
// candidate found later could come before the best-scoring ones (it would
// be younger); with one, a farther one could, as a farther older ticket can
// without ranking.
func (p *Pool) gather(a int32, env *envelope, aMask uint64, now time.Time, want int, top *ruleset.Query) (cands []cand, more bool) {
	ea := &p.entries[a]
	out := p.sc.cands[:0]
	p.sc.anchorAt = nowhere
	if want <= 0 {
		p.sc.cands = out
		return out, false
	}
	got, scanned, stopped := 0, 0, false
	limit := p.opts.ScanLimit
	sized := p.maxSize > 1
	// A buried index entry is a ticket matched earlier; while every
	// removal was buried, any other entry is waiting. The class lists
	// hold waiting tickets only.
	checkAlive := p.idxLoose > 0
	if len(p.r.dist) == 0 {
		checkAlive = !p.ages.on
	}
	consider := func(s int32, k float64, at ipos) bool {
		if s < 0 || s == a || (checkAlive && !p.entries[s].alive) {
			return true
		}
		scanned++
		mask, r := p.pairKey(a, s, k, env, aMask, now)
		if r.kind == rOK {
			out = append(out, cand{slot: s, mask: mask, at: at})
			if top != nil && !p.scoresTop(top, s) {
				return scanned < limit
			}
			if sized {
				got += int(p.entries[s].size)
			} else {
				got++
			}
			if got >= want {
				stopped = true
				return false
			}
		}
		return scanned < limit
	}
	if p.solo.on {
		return p.soloGather(env, now, want) // solo.go
	}
	if len(p.r.dist) > 0 {
		ref := env.ref[0]
		down, up := p.idx.aroundAt(ea.key, a, p.sc.anchorHint)
		p.sc.anchorHint = nowhere
		dk, ds, dok := down.next()
		uk, us, uok := up.next()
		dok = dok && ea.key-dk <= ref
		uok = uok && uk-ea.key <= ref
		p.sc.anchorAt = p.idx.lastFound
		for dok || uok {
			var s int32
			var k float64
			var at ipos
			if dok && (!uok || ea.key-dk <= uk-ea.key) {
				s, k, at = ds, dk, down.at
				dk, ds, dok = down.next()
				dok = dok && ea.key-dk <= ref
			} else {
				s, k, at = us, uk, up.at
				uk, us, uok = up.next()
				uok = uok && uk-ea.key <= ref
			}
			if !consider(s, k, at) {
				break
			}
		}
		if p.rankOn {
			// What the next anchors read first are cache misses
			// (the index is in skill order, anchors in age order):
			// load it now, alongside the candidates' entries that
			// the age comparison below misses on, rather than one
			// after the other. It changes no decision.
			p.sc.touched += p.readAhead(p.sc.aheadRank)
		}
		switch {
		case len(out) == 2:
			if p.olderCmp(out[0].slot, out[1].slot) > 0 {
				out[0], out[1] = out[1], out[0]
			}
		case len(out) > 2:
			slices.SortFunc(out, func(x, y cand) int { return p.olderCmp(x.slot, y.slot) })
		}
	} else if al := &p.ages; al.on {
		for i := al.find(al.start[al.cls[a]]); ; i = al.find(i + 1) {
			s := al.slots[i]
			if s < 0 || !consider(s, 0, nowhere) {
				break
			}
		}
	} else {
		for _, s := range p.order {
			if !consider(s, 0, nowhere) {
				break
			}
		}
	}
	p.stats.Scanned += uint64(scanned)
	p.sc.cands = out
	return out, stopped && scanned < limit
}

// readAhead loads into the cache, for a pass over the whole order at rank r
// (the anchor after the current one), what the next anchors will read first:
// the entries of the nearest tickets around the next anchor in the index
// (whose position the previous call loaded), and the index entries two and
// three anchors ahead. It returns a sum of what it read, which the caller
// keeps so that the loads are not optimised away. The index is in skill
// order and anchors come in age order, so each of these reads is a cache
// miss; issued together with the current anchor's own, they overlap instead
// of following one another.
func (p *Pool) readAhead(r int32) float64 {
	x := &p.idx
	if !x.posValid {
		return 0
	}
	sum := 0.0
	n := int32(len(x.pos))
	if r < n {
		c, i := int(x.pos[r][0]), int(x.pos[r][1])
		if c < len(x.chunks) {
			ch := &x.chunks[c]
			for _, j := range [...]int{i - 1, i + 1} {
				if j >= 0 && j < len(ch.slots) {
					if s := ch.slots[j]; s >= 0 && int(s) < len(p.entries) {
						sum += float64(p.entries[s].created)
						hw := headSize(len(p.r.exclAttrs))
						if h := int(s) * hw; h < len(p.heads) {
							// Every line of the head (excludes.go).
							sum += float64(p.heads[h] + p.heads[h+hw-1])
						}
					}
				}
			}
		}
	}
	if len(p.heads) > 0 {
		sum += p.readAheadLists(r)
	}
	for k := r + 1; k <= r+2 && k < n; k++ {
		c, i := int(x.pos[k][0]), int(x.pos[k][1])
		if c < len(x.chunks) {
			ch := &x.chunks[c]
			if i < len(ch.keys) && i < len(ch.slots) {
				sum += ch.keys[i] + float64(ch.slots[i])
			}
		}
	}
	return sum
}

// pairKey is pairOK for a candidate whose primary value the caller has at
// hand (the index walk): for the plainest rulesets — one distance rule, no
// gates, nothing but numbers, every party small enough — it decides without
// reading the candidate's entry, and with block lists (excludes.go) on the
// two tickets' summaries alone.
func (p *Pool) pairKey(slotA, slotC int32, keyC float64, env *envelope, aMask uint64, now time.Time) (uint64, reason) {
	if p.plain && p.maxSize <= int32(env.maxPlayers) {
		if len(p.r.dist) == 1 && math.Abs(keyC-p.entries[slotA].key) > env.ref[0] {
			return 0, reason{rDist, 0}
		}
		if len(p.r.filters) > 0 {
			r := reason{}
			if p.maxSize == 1 && len(p.heads) > 0 {
				r = p.headFilters(slotA, slotC, env, now) // excludes.go
			} else {
				r = p.pairFilters(&p.entries[slotA], &p.entries[slotC], env, now)
			}
			if r.kind != rOK {
				return 0, r
			}
		}
		return ^uint64(0), reason{}
	}
	return p.pairOK(slotA, slotC, env, aMask, now)
}

// form looks for a full match around the anchor among the candidates
// (oldest first), writing it to f.dst.
func (p *Pool) form(cands []cand) int8 {
	f := &p.sc.f
	g := &p.sc.grp
	if p.r.roles != nil {
		g.setRoleCaps(p, f.env)
	}
	g.reset(p, cand{slot: f.a, mask: f.aMask, at: p.sc.anchorAt})
	f.cands = cands
	if g.total >= f.full {
		if p.finalize(g, f.lv, f.env, f.now, true, f.dst) {
			return searchFound
		}
		return searchAbort
	}
	f.suffix = sized(f.suffix, len(cands)+1)
	for i := len(cands) - 1; i >= 0; i-- {
		size := 1
		if p.maxSize > 1 {
			size = int(p.entries[cands[i].slot].size)
		}
		f.suffix[i] = f.suffix[i+1] + size
	}
	return p.search(0)
}

// search extends the group with candidates from i on, depth first: at each
// turn the oldest candidate that fits, then the next one if the group cannot
// be completed with it.
func (p *Pool) search(i int) int8 {
	f := &p.sc.f
	g := &p.sc.grp
	env := f.env
	for j := i; j < len(f.cands); j++ {
		if g.total+f.suffix[j] < f.full {
			return searchNone // too few players left
		}
		c := f.cands[j]
		size := int(p.entries[c.slot].size)
		if g.total+size > f.full {
			continue
		}
		if f.nodes--; f.nodes < 0 {
			return searchAbort
		}
		if !g.accepts(p, c, env, f.now) {
			continue
		}
		g.add(p, c)
		if !p.packable(g.sizes, env.maxTeams, env.maxPlayers) {
			g.removeLast(p)
			continue
		}
		if g.total == f.full {
			if p.finalize(g, f.lv, env, f.now, true, f.dst) {
				return searchFound
			}
			if f.failures++; f.failures >= maxFinalizeFailures {
				return searchAbort
			}
		} else {
			if r := p.search(j + 1); r != searchNone {
				return r
			}
		}
		g.removeLast(p)
	}
	return searchNone
}

// formSmaller tries a smaller match, when the anchor's flexed alliance
// allows one: the group the candidates make taken oldest first, short of a
// full match, dropping the youngest parties until it finalises.
func (p *Pool) formSmaller() bool {
	f := &p.sc.f
	env := f.env
	minimum := env.minTeams * env.minPlayers
	if minimum >= f.full {
		return false
	}
	g := &p.sc.grp
	g.reset(p, cand{slot: f.a, mask: f.aMask, at: p.sc.anchorAt})
	for _, c := range f.cands {
		if g.total+int(p.entries[c.slot].size) >= f.full || !g.accepts(p, c, env, f.now) {
			continue
		}
		g.add(p, c)
		if !p.packable(g.sizes, env.maxTeams, env.maxPlayers) {
			g.removeLast(p)
		}
	}
	for tries := 0; tries < maxFinalizeFailures && g.total >= minimum; tries++ {
		if p.finalize(g, f.lv, env, f.now, false, f.dst) {
			return true
		}
		if len(g.slots) <= 1 {
			break
		}
		g.removeLast(p)
	}
	return false
}

// sized returns s with length n, zeroed, reusing its array when it can.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// ageLists are, in a pool without distance rules, the waiting tickets of
// each class (ticket.go, classOf) oldest first, built at the start of a Step:
// an anchor walks only the tickets it could ever share a match with. A ticket
// that leaves during the Step is unlinked — each position keeps a pointer to
// the next position still waiting, path-compressed as in a union-find — so a
// walk skips everyone matched before it at almost no cost. (Without this an
// anchor late in a large pass walked past every ticket matched before it.)
type ageLists struct {
	on    bool
	slots []int32 // the classes one after the other, each closed by -1
	next  []int32 // next[i] == i: position i is waiting (or a class's end)
	pos   []int32 // slot → its position
	cls   []int32 // slot → its class, numbered for this Step
	start []int32 // class → its first position
	dense map[uint64]int32
}

func (al *ageLists) build(p *Pool) {
	if cap(al.cls) < len(p.entries) {
		al.cls = make([]int32, len(p.entries))
		al.pos = make([]int32, len(p.entries))
	}
	al.cls, al.pos = al.cls[:len(p.entries)], al.pos[:len(p.entries)]
	// Number the classes in order of their oldest ticket, counting each
	// class's tickets in start[c+1].
	al.start = append(al.start[:0], 0)
	if al.dense == nil {
		al.dense = make(map[uint64]int32)
	}
	clear(al.dense)
	for _, s := range p.order {
		e := &p.entries[s]
		if !e.alive {
			continue
		}
		c := int32(0)
		if p.classParts > 0 {
			raw := p.classOf(e)
			var ok bool
			if c, ok = al.dense[raw]; !ok {
				c = int32(len(al.dense))
				al.dense[raw] = c
			}
		}
		if int(c)+1 >= len(al.start) {
			al.start = append(al.start, 0)
		}
		al.start[c+1]++
		al.cls[s] = c
	}
	nc := len(al.start) - 1
	// Class c occupies [start[c], start[c+1]); the last position of each
	// range is its -1 end.
	pos := int32(0)
	for c := 0; c < nc; c++ {
		n := al.start[c+1]
		al.start[c] = pos
		pos += n + 1
	}
	al.start[nc] = pos
	al.slots = sized(al.slots, int(pos))
	al.next = sized(al.next, int(pos))
	fill := al.next // the fill cursor per class, borrowed before next is set
	copy(fill, al.start[:nc])
	for _, s := range p.order {
		if !p.entries[s].alive {
			continue
		}
		c := al.cls[s]
		i := fill[c]
		fill[c]++
		al.slots[i] = s
		al.pos[s] = i
	}
	for c := 0; c < nc; c++ {
		al.slots[al.start[c+1]-1] = -1
	}
	for i := range al.next {
		al.next[i] = int32(i)
	}
	al.on = true
}

// find returns the first position at or after i that is still waiting (or
// a class's end).
func (al *ageLists) find(i int32) int32 {
	r := i
	for al.next[r] != r {
		r = al.next[r]
	}
	for al.next[i] != r {
		n := al.next[i]
		al.next[i] = r
		i = n
	}
	return r
}

// remove unlinks a ticket that left the pool.
func (al *ageLists) remove(s int32) {
	i := al.pos[s]
	al.next[i] = i + 1
}

// release ends the Step's lists; large ones are dropped rather than kept
// between Steps, so that a waiting ticket costs no more memory than before.
func (al *ageLists) release() {
	al.on = false
	if cap(al.slots) > 1<<16 || cap(al.cls) > 1<<16 {
		al.slots, al.next, al.pos, al.cls = nil, nil, nil, nil
	}
	if len(al.dense) > 1<<12 {
		al.dense = nil
	}
}

// passState is what a Step keeps of its own work, for settling.
type passState struct {
	recs   []matchRec // matches formed, in order
	failed []int32    // anchors that formed nothing
	passed []int32    // waiting tickets an anchor could have taken instead of a younger member
	sus    []suspect
	queue  []int32
	mem    []int32
	list   []int32
	prop   Proposal // a match formed again, before it replaces the old
	grid   recGrid
	// Work counters at the start of the Step, to size the settling budget
	// and notePassedOver's.
	tries0, scanned0 uint64
	noteUsed         int
}

// matchRec is a match formed in this Step: where its anchor sits on the
// primary attribute, and which proposal it is. A record whose match was
// formed again has prop -1 and a newer record.
type matchRec struct {
	key float64
	// young is the creation time of the youngest member besides the
	// anchor: a ticket created after it cannot replace anyone.
	young  int64
	anchor int32
	prop   int32
}

// recordMatch records a match just formed by anchor a (its group still in
// the scratch group).
func (p *Pool) recordMatch(a int32, prop int) {
	young := int64(math.MinInt64)
	for _, s := range p.sc.grp.slots[1:] {
		young = max(young, p.entries[s].created)
	}
	p.pass.recs = append(p.pass.recs, matchRec{key: p.entries[a].key, young: young, anchor: a, prop: int32(prop)})
}

// suspect is a waiting ticket settling examines, with the first record it
// has not been checked against yet.
type suspect struct {
	slot int32
	from int32
}

func (ps *passState) begin(p *Pool) {
	ps.recs, ps.failed, ps.passed = ps.recs[:0], ps.failed[:0], ps.passed[:0]
	ps.tries0, ps.scanned0 = p.stats.AnchorTries, p.stats.Scanned
	ps.noteUsed = 0
}

// end drops large buffers, as ageLists.release does.
func (ps *passState) end() {
	if cap(ps.recs) > 1<<16 {
		ps.recs = nil
	}
	if cap(ps.failed) > 1<<16 {
		ps.failed = nil
	}
	ps.grid.drop()
}

// Settling costs, in units of one record looked at.
const (
	costPair   = 4  // judging a ticket against an anchor
	costReform = 64 // forming a match again
	costTry    = 16 // an anchor attempt, besides the tickets it scans
)

// settle lets every waiting ticket an anchor of this Step could have taken
// (the anchors that formed nothing; in an incremental Step also the tickets
// an anchor's window held) take the place of a younger member of that
// anchor's match, oldest ticket first; a ticket displaced so gets an anchor
// attempt, as do those whose window holds it, and then its own turn at
// settling. The work is bounded by half the anchor loop's own (tickets
// scanned, anchors tried) plus a floor, spent on the oldest tickets first.
// Small Steps and 1v1 passes run to the end; a bulk pass of team matches
// with thousands of tickets left over does not (the 100k 5v5 benchmark
// would displace tickets along chains for over a minute), and there the
// oldest leftovers get their turn first.
func (p *Pool) settle(out []Proposal, now time.Time) []Proposal {
	ps := &p.pass
	if len(ps.recs) == 0 || len(ps.failed)+len(ps.passed) == 0 {
		return out
	}
	budget := 1<<14 + int((p.stats.Scanned-ps.scanned0)+costTry*(p.stats.AnchorTries-ps.tries0))/2
	ps.sus = ps.sus[:0]
	for _, s := range ps.failed {
		ps.sus = append(ps.sus, suspect{slot: s})
	}
	for _, s := range ps.passed {
		ps.sus = append(ps.sus, suspect{slot: s})
	}
	p.tidySuspects()
	ps.grid.build(ps.recs, p.r.envs[len(p.r.envs)-1].ref[0])
	for round := 0; round < 64 && budget > 0 && len(ps.sus) > 0; round++ {
		n := int32(len(ps.recs))
		ps.queue = ps.queue[:0]
		for k := range ps.sus {
			sp := &ps.sus[k]
			if budget <= 0 {
				break
			}
			if !p.entries[sp.slot].alive {
				continue
			}
			if c, ok := p.repair(sp.slot, sp.from, out, now, &budget); ok {
				ps.queue = append(ps.queue, c)
			}
			sp.from = n
		}
		if len(ps.queue) == 0 {
			break
		}
		// The displaced tickets and those whose window holds them try
		// again, oldest first.
		for _, c := range ps.queue[:len(ps.queue)] {
			ps.queue = p.neighboursOf(c, now, ps.queue, &budget)
		}
		slices.SortFunc(ps.queue, p.olderCmp)
		ps.queue = slices.Compact(ps.queue)
		for _, s := range ps.queue {
			if !p.entries[s].alive || budget <= 0 {
				continue
			}
			scanned := p.stats.Scanned
			p.stats.AnchorTries++
			if len(out) == cap(out) {
				out = slices.Grow(out, len(out)/4+16)
			}
			ok := p.tryAnchor(s, now, &out[:len(out)+1][len(out)])
			budget -= costTry + int(p.stats.Scanned-scanned)
			if !ok {
				ps.sus = append(ps.sus, suspect{slot: s})
				continue
			}
			out = out[:len(out)+1]
			p.recordMatch(s, len(out)-1)
			if !p.allDirty {
				p.notePassedOver(s, out[len(out)-1].Level, now)
				for _, b := range ps.passed {
					ps.sus = append(ps.sus, suspect{slot: b})
				}
				ps.passed = ps.passed[:0]
			}
		}
		p.tidySuspects()
		if len(ps.recs)-ps.grid.n > ps.grid.n/4+64 {
			ps.grid.build(ps.recs, p.r.envs[len(p.r.envs)-1].ref[0])
		}
	}
	return out
}

// tidySuspects keeps each waiting suspect once (with the earliest record
// still to check), oldest first.
func (p *Pool) tidySuspects() {
	ps := &p.pass
	sus := ps.sus[:0]
	for _, sp := range ps.sus {
		if p.entries[sp.slot].alive {
			sus = append(sus, sp)
		}
	}
	slices.SortFunc(sus, func(a, b suspect) int {
		if c := p.olderCmp(a.slot, b.slot); c != 0 {
			return c
		}
		return int(a.from - b.from)
	})
	ps.sus = slices.CompactFunc(sus, func(a, b suspect) bool { return a.slot == b.slot })
}

// repair looks, among the matches recorded from record from on, for one
// whose anchor accepts b and that holds a younger member of b's party size
// that b can replace; nearest anchors first. It forms that match again with
// b and returns the member it displaced, now waiting again.
func (p *Pool) repair(b int32, from int32, out []Proposal, now time.Time, budget *int) (int32, bool) {
	ps := &p.pass
	eb := &p.entries[b]
	displaced := int32(-1)
	visit := func(ri int32) bool {
		if ri < from || *budget <= 0 {
			return *budget > 0
		}
		*budget--
		rec := &ps.recs[ri]
		if rec.prop < 0 || rec.young < eb.created {
			return true
		}
		pr := &out[rec.prop]
		env := &p.r.envs[pr.Level]
		if math.Abs(rec.key-eb.key) > env.ref[0] {
			return true
		}
		*budget -= costPair
		a := rec.anchor
		aMask := p.anchorMask(&p.entries[a], env)
		bMask, r := p.pairOK(a, b, env, aMask, now)
		if r.kind != rOK {
			return true
		}
		mem := p.membersOf(pr)
		// Members b could replace, youngest first (the four youngest).
		var younger [4]int32
		ny := 0
		for _, s := range mem {
			if s == a || p.entries[s].size != eb.size || p.olderCmp(b, s) >= 0 {
				continue
			}
			k := ny
			if ny < len(younger) {
				ny++
			} else if p.olderCmp(s, younger[ny-1]) < 0 {
				continue
			} else {
				k = ny - 1
			}
			younger[k] = s
			for ; k > 0 && p.olderCmp(younger[k], younger[k-1]) > 0; k-- {
				younger[k], younger[k-1] = younger[k-1], younger[k]
			}
		}
		for _, c := range younger[:ny] {
			*budget -= costReform
			prop := &p.pass.prop
			if !p.reform(a, pr.Level, env, aMask, mem, c, b, bMask, now, prop) {
				continue
			}
			p.stats.QualitySum += prop.Quality.Score - pr.Quality.Score
			out[rec.prop] = *prop
			*prop = Proposal{}
			p.recordMatch(a, int(rec.prop))
			ps.recs[ri].prop = -1
			p.revive(c)
			displaced = c
			return false
		}
		return true
	}
	if int(from) < ps.grid.n {
		ps.grid.walk(eb.key, p.r.envs[len(p.r.envs)-1].ref[0], eb.created, visit)
	}
	if displaced < 0 {
		for ri := max(int(from), ps.grid.n); ri < len(ps.recs) && *budget > 0; ri++ {
			if !visit(int32(ri)) {
				break
			}
		}
	}
	return displaced, displaced >= 0
}

// membersOf lists the slots of a proposal's tickets (still in the pool's
// tables while the Step runs).
func (p *Pool) membersOf(pr *Proposal) []int32 {
	mem := p.pass.mem[:0]
	for i := range pr.members {
		if s, ok := p.ids.get(pr.members[i].id, p.entries); ok {
			mem = append(mem, s)
		}
	}
	p.pass.mem = mem
	return mem
}

// reform forms anchor a's match again at level lv with b in place of c,
// the others unchanged; on success b leaves the pool.
func (p *Pool) reform(a int32, lv int, env *envelope, aMask uint64, mem []int32, c, b int32, bMask uint64, now time.Time, dst *Proposal) bool {
	list := p.pass.list[:0]
	for _, s := range mem {
		if s != a && s != c {
			list = append(list, s)
		}
	}
	list = append(list, b)
	slices.SortFunc(list, p.olderCmp)
	p.pass.list = list
	g := &p.sc.grp
	if p.r.roles != nil {
		g.setRoleCaps(p, env)
	}
	g.reset(p, cand{slot: a, mask: aMask, at: nowhere})
	for _, s := range list {
		m := bMask
		if s != b {
			var r reason
			if m, r = p.pairOK(a, s, env, aMask, now); r.kind != rOK {
				return false
			}
		}
		cd := cand{slot: s, mask: m, at: nowhere}
		if g.total+int(p.entries[s].size) > env.capacity() || !g.accepts(p, cd, env, now) {
			return false
		}
		g.add(p, cd)
	}
	if !p.packable(g.sizes, env.maxTeams, env.maxPlayers) {
		return false
	}
	ok := false
	switch {
	case g.total == env.capacity():
		ok = p.finalize(g, lv, env, now, true, dst)
	case g.total >= env.minTeams*env.minPlayers:
		ok = p.finalize(g, lv, env, now, false, dst)
	}
	if ok {
		p.killAt(b, nowhere)
	}
	return ok
}

// notePassedOver records, after anchor a formed a match at level lv in an
// incremental Step, the waiting tickets its window holds that it would have
// accepted and that are older than the youngest member it took: tickets
// this Step did not try, which settling must consider.
func (p *Pool) notePassedOver(a int32, lv int, now time.Time) {
	g := &p.sc.grp
	if len(g.slots) < 2 {
		return
	}
	youngest := g.slots[1]
	for _, s := range g.slots[2:] {
		if p.olderCmp(s, youngest) > 0 {
			youngest = s
		}
	}
	// The walks together look at no more tickets than the anchors'
	// gathers did, plus a floor: a Step that wakes much of a dense pool
	// must not turn into a scan of every window.
	ps := &p.pass
	limit := min(p.opts.ScanLimit, int(p.stats.Scanned-ps.scanned0)+1<<16-ps.noteUsed)
	if limit <= 0 {
		return
	}
	ea := &p.entries[a]
	env := &p.r.envs[lv]
	aMask := p.anchorMask(ea, env)
	down, up := p.idx.around(ea.key, a)
	scanned := 0
	defer func() { ps.noteUsed += scanned }()
	for _, c := range []*cursor{&down, &up} {
		for scanned < limit {
			k, s, ok := c.next()
			if !ok || math.Abs(k-ea.key) > env.ref[0] {
				break
			}
			if s < 0 || !p.entries[s].alive {
				continue
			}
			scanned++
			if p.olderCmp(s, youngest) < 0 {
				if _, r := p.pairOK(a, s, env, aMask, now); r.kind == rOK {
					p.pass.passed = append(p.pass.passed, s)
				}
			}
		}
	}
}

// neighboursOf appends to dst the waiting tickets whose window (at their own
// level) holds c: a ticket that just came back may complete their match.
// Each ticket looked at costs budget a unit.
func (p *Pool) neighboursOf(c int32, now time.Time, dst []int32, budget *int) []int32 {
	ec := &p.entries[c]
	maxRef := p.r.envs[len(p.r.envs)-1].ref[0]
	down, up := p.idx.around(ec.key, c)
	scanned := 0
	defer func() { *budget -= scanned }()
	for _, cur := range []*cursor{&down, &up} {
		for scanned < p.opts.ScanLimit && scanned < *budget {
			k, s, ok := cur.next()
			if !ok || math.Abs(k-ec.key) > maxRef {
				break
			}
			if s < 0 || !p.entries[s].alive {
				continue
			}
			scanned++
			ea := &p.entries[s]
			env := &p.r.envs[p.r.level(p.waitOf(ea, now))]
			if math.Abs(k-ec.key) > env.ref[0] {
				continue
			}
			if _, r := p.pairOK(s, c, env, p.anchorMask(ea, env), now); r.kind == rOK {
				dst = append(dst, s)
			}
		}
	}
	return dst
}

// recGrid buckets a Step's match records by their anchor's primary value,
// so that settling finds the anchors near a ticket without sorting the
// records: a counting sort into buckets a quarter of the widest allowed
// distance wide. Each bucket holds copies of what the first filters read, so
// a walk reads memory in order.
type recGrid struct {
	n     int // records [0, n) are in the grid
	lo, w float64
	head  []int32 // bucket b holds cells[head[b]:head[b+1]]
	cells []gridCell
}

type gridCell struct {
	key   float64
	young int64
	rec   int32
}

func (gr *recGrid) build(recs []matchRec, maxRef float64) {
	gr.n = len(recs)
	if gr.n == 0 {
		return
	}
	lo, hi := recs[0].key, recs[0].key
	for _, r := range recs {
		lo, hi = min(lo, r.key), max(hi, r.key)
	}
	w := maxRef / 4
	if !(w > 0) {
		w = 1
	}
	// At most about two buckets per record: a wide spread of values
	// widens the buckets instead.
	nb, limit := 1, 2*gr.n+16
	if span := hi - lo; span > 0 {
		if f := span / w; f < float64(limit-1) {
			nb = int(f) + 1
		} else {
			nb, w = limit, span/float64(limit-1)
		}
	}
	gr.lo, gr.w = lo, w
	gr.head = sized(gr.head, nb+1)
	for _, r := range recs {
		gr.head[gr.bucket(r.key)+1]++
	}
	for b := 1; b <= nb; b++ {
		gr.head[b] += gr.head[b-1]
	}
	gr.cells = sized(gr.cells, gr.n)
	fill := make([]int32, nb)
	copy(fill, gr.head[:nb])
	for i, r := range recs {
		b := gr.bucket(r.key)
		gr.cells[fill[b]] = gridCell{key: r.key, young: r.young, rec: int32(i)}
		fill[b]++
	}
}

func (gr *recGrid) buckets() int { return len(gr.head) - 1 }

func (gr *recGrid) bucket(k float64) int {
	b := int((k - gr.lo) / gr.w)
	return min(max(b, 0), gr.buckets()-1)
}

// walk visits the records whose anchor lies within radius of k and that
// hold a member created at or after young, nearest buckets first, until
// visit returns false.
func (gr *recGrid) walk(k, radius float64, young int64, visit func(int32) bool) {
	if gr.n == 0 {
		return
	}
	nb := gr.buckets()
	b0 := gr.bucket(k)
	for d := 0; d == 0 || float64(d-1)*gr.w <= radius; d++ {
		lo, hi := b0-d, b0+d
		if lo < 0 && hi >= nb {
			return
		}
		if lo >= 0 && !gr.visitBucket(lo, k, radius, young, visit) {
			return
		}
		if d > 0 && hi < nb && !gr.visitBucket(hi, k, radius, young, visit) {
			return
		}
	}
}

func (gr *recGrid) visitBucket(b int, k, radius float64, young int64, visit func(int32) bool) bool {
	for _, c := range gr.cells[gr.head[b]:gr.head[b+1]] {
		if c.young >= young && math.Abs(c.key-k) <= radius && !visit(c.rec) {
			return false
		}
	}
	return true
}

func (gr *recGrid) drop() {
	gr.n = 0
	if cap(gr.cells) > 1<<16 {
		gr.head, gr.cells = nil, nil
	}
}
