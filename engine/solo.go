package engine

import (
	"slices"
	"time"
	"unsafe"
)

// The solo pass: a Step over the whole order for the plainest rulesets —
// one distance rule, solo tickets, nothing else judged between two tickets —
// with the index laid out for the anchor loop.
//
// In such a pass the anchors come in age order and the index is in skill
// order, so each anchor's first reads are cache misses: its place in the
// index, then its nearest candidates' entries, read only to compare their
// ages. Here the index is copied, at the start of the pass, entry for entry
// into one flat array whose elements hold the key, the ticket's rank in the
// pass's age order and its slot side by side (16 bytes), and a table gives
// each rank its place in that array. An anchor finds its place from the
// table, walks outward through the array and orders its candidates by their
// ranks, all in the one or two cache lines around its place; the only other
// ticket it reads is the partner it takes. A matched ticket is marked in
// place.
//
// Every decision is the general path's: the same candidates in the same
// order (nearest first, the lower side first at equal distance, equal keys
// in the index's order), the same count of tickets scanned, the same age
// order (rank order is the order olderCmp gives), and the match formed by
// the same search, team stage and quality score. The pass runs only where
// the general path finds each anchor's own entry from the index's position
// table (a pass of minLocate tickets or more), as the array does. At the end
// of the anchor loop the index is left as the general path leaves it — the
// same entries, buried ones included, in the same chunks — so settling and
// later Steps, whose inserts among equal keys depend on the buried entries,
// decide the same (soloEnd). TestSoloPassDecidesAsTheGeneralPath holds this
// step by step, index included.

// soloAt marks an ipos that is a place in the solo pass's array (ipos.i)
// rather than in the index.
const soloAt = -2

// soloOn lets passes take the solo path; tests turn it off to compare the
// two paths.
var soloOn = true

// soloEntry is an index entry with its ticket's rank (its place in the
// pass's age order). A negative rank marks an entry that holds no waiting
// ticket: soloGone a ticket taken in this pass, soloBefore one removed
// before it (buried, or not found when it was removed).
type soloEntry struct {
	key  float64
	rank int32
	slot int32
}

const (
	soloGone   = -1
	soloBefore = -2
)

// soloPass is a solo pass's state (Pool.solo).
type soloPass struct {
	on bool
	// flat is the index as one array, entry for entry and in its order.
	flat []soloEntry
	// pos maps a rank to its place in flat (-1: not in it).
	pos []int32
	// idxDead and idxN are the index's counters as the general path would
	// keep them (removed tickets it still holds, entries), so that the
	// array is compacted when the index would be; compacted says whether
	// it was.
	idxDead, idxN int
	compacted     bool
	// anchor is the current anchor's place in flat; ahead the rank of the
	// anchor after it, from which the pass reads ahead.
	anchor int
	ahead  int32
	// pairs are the pair pass's decisions.
	pairs []soloPair
	// passes and pairPasses count the solo and pair passes run, for
	// tests.
	passes, pairPasses int
}

// soloEligible reports whether a pass over the whole order whose ranks and
// index positions the general path would tabulate (minLocate) may take the
// solo path: the walk then judges a candidate as pairKey's plain case does,
// by its key and, when the ruleset has block lists, by the two slots' heads
// (headFilters, excludes.go), which needs one distance rule, no filters but
// block lists (what p.plain allows) with a head per slot, solo tickets
// only, and no ordering of the candidates but by age. (In smaller passes the
// general path finds an anchor in the index by binary search, which among
// equal keys next to buried entries may start its walk a few entries off;
// the array always starts at the anchor's own entry.)
func (p *Pool) soloEligible() bool {
	if !soloOn || !p.plain || len(p.r.dist) != 1 || p.maxSize > 1 || p.r.sorted() || p.r.query != nil ||
		(len(p.r.filters) > 0 && len(p.heads) == 0) {
		return false
	}
	for i := range p.r.envs {
		if p.r.envs[i].maxPlayers < 1 {
			return false
		}
	}
	return true
}

// soloBegin copies the index into the solo array for a pass whose ranks
// (p.rank) are set.
func (p *Pool) soloBegin() {
	sp := &p.solo
	flat := sp.flat[:0]
	if cap(flat) < p.idx.n {
		flat = make([]soloEntry, 0, p.idx.n)
	}
	for c := range p.idx.chunks {
		ch := &p.idx.chunks[c]
		for i, s := range ch.slots {
			r := int32(soloBefore)
			if s >= 0 && (p.idxLoose == 0 || p.entries[s].alive) {
				r = p.rank[s]
			}
			flat = append(flat, soloEntry{key: ch.keys[i], rank: r, slot: s})
		}
	}
	sp.flat = flat
	sp.pos = sized(sp.pos, len(p.order))
	for i := range sp.pos {
		sp.pos[i] = -1
	}
	for j := range flat {
		if r := flat[j].rank; r >= 0 {
			sp.pos[r] = int32(j)
		}
	}
	sp.idxDead, sp.idxN, sp.compacted = p.idxDead, p.idx.n, false
	sp.on = true
	sp.passes++
}

// soloEnd leaves the index as the general path would have left it and ends
// the solo pass. The general path buries each ticket it takes in place and,
// when the removed tickets outnumber the rest, filters the index (repacked
// into full chunks); soloCompact filtered the array at the same moments. So
// the index is the one of the pass's start, or the array's entries at the
// last compaction, with the tickets taken since buried — entry for entry,
// chunk for chunk, since where an insert lands among equal keys depends on
// the buried entries there.
func (p *Pool) soloEnd() {
	sp := &p.solo
	if !sp.on {
		return
	}
	if sp.compacted {
		keys := make([]float64, len(sp.flat))
		slots := make([]int32, len(sp.flat))
		for j, f := range sp.flat {
			keys[j], slots[j] = f.key, f.slot
		}
		p.idx.rebuild(keys, slots)
		p.idxLoose = 0
	}
	// The position table as the general path filled it, when the
	// tickets taken since were still unburied: settling finds a ticket it
	// takes back and then matches again by it.
	p.idx.locate(p.rank, len(p.order))
	j := 0
	for c := range p.idx.chunks {
		ch := &p.idx.chunks[c]
		for i := range ch.slots {
			if sp.flat[j].rank == soloGone {
				ch.slots[i] = ^ch.slots[i]
			}
			j++
		}
	}
	p.idxDead = sp.idxDead
	sp.on = false
	// The arrays are dropped rather than kept for the next large pass:
	// between Steps a waiting ticket costs no memory for them.
	sp.flat, sp.pos = nil, nil
}

// soloKill marks a ticket taken in the solo pass; at is its place in the
// array when the walk that found it knew it.
func (p *Pool) soloKill(slot int32, at ipos) {
	sp := &p.solo
	j := -1
	if at.c == soloAt {
		j = at.i
	} else if r := p.rank[slot]; r >= 0 && int(r) < len(sp.pos) {
		j = int(sp.pos[r])
	}
	if j >= 0 && j < len(sp.flat) && sp.flat[j].slot == slot && sp.flat[j].rank >= 0 {
		sp.flat[j].rank = soloGone
		sp.idxDead++
	}
}

// soloCompact drops the entries holding no waiting ticket from the array
// when maybeCompactIndex would filter the index: with the same counters, at
// the same moment, so that the index rebuilt at the end is the general
// path's, and walks late in a pass that matches most of the pool stay short.
func (p *Pool) soloCompact() {
	sp := &p.solo
	if sp.idxDead < 4096 || sp.idxDead < sp.idxN-sp.idxDead {
		return
	}
	w := 0
	for _, f := range sp.flat {
		if f.rank >= 0 {
			sp.flat[w] = f
			sp.pos[f.rank] = int32(w)
			w++
		}
	}
	sp.flat = sp.flat[:w]
	sp.idxDead, sp.idxN, sp.compacted = 0, w, true
}

// soloGather is gather's walk over the solo array for the anchor at
// p.solo.anchor: the waiting tickets within ref of its key, nearest first,
// until they hold want players or ScanLimit of them were looked at, returned
// oldest first. Every ticket the walk meets within ref is a candidate unless
// the block lists keep it apart from the anchor (the eligibility makes
// pairKey's answer depend on the distance and the heads alone).
func (p *Pool) soloGather(env *envelope, now time.Time, want int) (cands []cand, more bool) {
	cands, more = p.soloWalk(env, now, want)
	if p.rankOn {
		p.sc.touched += p.soloReadAhead(p.solo.ahead)
	}
	return cands, more
}

// soloWalk is soloGather without reading ahead. A candidate the block
// lists refuse counts as scanned, as in gather.
func (p *Pool) soloWalk(env *envelope, now time.Time, want int) (cands []cand, more bool) {
	sp := &p.solo
	flat := sp.flat
	out := p.sc.cands[:0]
	j := sp.anchor
	p.sc.anchorAt = ipos{soloAt, j}
	if want <= 0 {
		p.sc.cands = out
		return out, false
	}
	ref := env.ref[0]
	key, a := flat[j].key, flat[j].slot
	// The block lists that apply at the anchor's level, set up once for
	// its candidates (excludes.go); none at a level past disable_after.
	blocks := len(p.r.filters) > 0 && p.headJudgeFor(&p.sc.judge, a, env)
	got, scanned, stopped := 0, 0, false
	limit := p.opts.ScanLimit
	d, u := j-1, j+1
	for d >= 0 && flat[d].rank < 0 {
		d--
	}
	for u < len(flat) && flat[u].rank < 0 {
		u++
	}
	for {
		dok := d >= 0 && key-flat[d].key <= ref
		uok := u < len(flat) && flat[u].key-key <= ref
		if !dok && !uok {
			break
		}
		var at int
		if dok && (!uok || key-flat[d].key <= flat[u].key-key) {
			at = d
			for d--; d >= 0 && flat[d].rank < 0; d-- {
			}
		} else {
			at = u
			for u++; u < len(flat) && flat[u].rank < 0; u++ {
			}
		}
		scanned++
		if blocks && p.headPass(&p.sc.judge, flat[at].slot, now).kind != rOK {
			if scanned >= limit {
				break
			}
			continue
		}
		out = append(out, cand{slot: flat[at].slot, mask: ^uint64(0), at: ipos{soloAt, at}})
		got++
		if got >= want {
			stopped = true
			break
		}
		if scanned >= limit {
			break
		}
	}
	// Oldest first: ranks are the order olderCmp gives.
	switch {
	case len(out) == 2:
		if flat[out[0].at.i].rank > flat[out[1].at.i].rank {
			out[0], out[1] = out[1], out[0]
		}
	case len(out) > 2:
		sortByRank(out, flat)
	}
	p.stats.Scanned += uint64(scanned)
	p.sc.cands = out
	return out, stopped && scanned < limit
}

// sortByRank sorts candidates found in the solo array by their rank
// (insertion sort: there are few).
func sortByRank(cs []cand, flat []soloEntry) {
	for i := 1; i < len(cs); i++ {
		for k := i; k > 0 && flat[cs[k].at.i].rank < flat[cs[k-1].at.i].rank; k-- {
			cs[k], cs[k-1] = cs[k-1], cs[k]
		}
	}
}

// soloReadAhead loads into the cache what the next anchors will read first,
// as readAhead does for the index: the array around the anchor two ranks
// ahead, and the entries of the tickets nearest the next anchor (the array
// there was loaded by the previous call) with the anchor's own. It returns a
// sum of what it read, which the caller keeps so the loads stay.
func (p *Pool) soloReadAhead(r int32) float64 {
	sp := &p.solo
	n := int32(len(sp.pos))
	sum := 0.0
	if r < n {
		if j := int(sp.pos[r]); j >= 0 {
			for _, k := range [...]int{j - 1, j + 1} {
				if k >= 0 && k < len(sp.flat) && sp.flat[k].slot >= 0 {
					e := &p.entries[sp.flat[k].slot]
					sum += float64(e.size) + float64(e.created)
					if e.h == nil {
						sum++
					}
				}
			}
		}
		if int(r) < len(p.order) {
			sum += float64(p.entries[p.order[r]].created)
		}
	}
	if r+1 < n {
		if j := int(sp.pos[r+1]); j >= 0 && j < len(sp.flat) {
			sum += sp.flat[j].key
		}
	}
	return sum
}

// The pair pass: a solo pass of 1v1 — two teams of one solo ticket, nothing
// judged on the pair but the distance, nothing on the match — over every
// waiting ticket. There the search's answer is known without running it: the
// oldest of the anchor's candidates (the team stage of two solos always
// succeeds), and no anchor gathers twice (a candidate always makes a match),
// so the pass runs in two loops. The first decides: anchor by anchor, in the
// age order, the walk over the array picks the partner, and the two are
// marked taken there, all in the one or two cache lines around the anchor's
// place, read ahead sixteen anchors at a time. The second builds the matches
// in the same order with the general path's team stage and quality score
// and takes the tickets out of the pool; the partners' entries, read in the
// first loop's order of decisions, are each a cache miss, and reading them
// sixteen at a time lets the misses overlap. Nothing between two decisions
// depends on what the second loop computes, so the decisions, the counters
// and the proposals are the general path's, in its order.

// soloPair is a decision of the pair pass's first loop.
type soloPair struct {
	a, b int32 // the anchor's slot and its partner's
	lv   int32 // the anchor's flex level
}

// soloPairsEligible reports whether a solo pass may run as a pair pass.
// The extras of a plain pool are the block lists' summaries, which the walk
// reads (headFilters); nothing else of them is judged on a pair of solos.
func (p *Pool) soloPairsEligible() bool {
	if !p.allDirty || p.teamRules || p.anySpread || p.r.namedTeams() || p.r.lat != nil || p.r.roles != nil ||
		len(p.r.totals) > 0 || len(p.r.counts) > 0 || len(p.r.colls) > 0 || (p.needsExtra && !p.plain) {
		return false
	}
	for i := range p.r.envs {
		e := &p.r.envs[i]
		// Exactly two teams of one, and no smaller match.
		if e.maxTeams != 2 || e.maxPlayers != 1 || e.minTeams*e.minPlayers < 2 || e.namedCap > 0 {
			return false
		}
	}
	return true
}

// soloPairs runs the pair pass over the whole order at now, appending its
// matches to out, and records what settling needs, as the anchor loop does.
func (p *Pool) soloPairs(now time.Time, out []Proposal) []Proposal {
	sp := &p.solo
	ps := &p.pass
	sp.pairPasses++
	pairs := sp.pairs[:0]
	// judging says whether the anchors from here on judge block lists,
	// whose heads are then asked for ahead. Waits only shorten along the
	// age order, and a filter off at one level (disable_after) is off at
	// every level above it, so once an anchor's level judges the lists
	// every later anchor's does; before that the heads are not read.
	judging := false
	for i, s := range p.order {
		if i%soloAhead == 0 {
			p.sc.touched += p.soloAheadAnchors(i + soloAhead)
		}
		if judging {
			p.soloPrefetchHeads(i + soloAhead/2)
		}
		// Not waiting, or taken earlier in the pass (after a compaction
		// the place of a ticket taken is stale: another ticket's, or
		// beyond the array).
		j := sp.pos[i]
		if j < 0 || int(j) >= len(sp.flat) || sp.flat[j].slot != s || sp.flat[j].rank < 0 {
			continue
		}
		e := &p.entries[s]
		e.dirty = dirtyNone
		p.stats.AnchorTries++
		lv := p.r.level(p.waitOf(e, now))
		sp.anchor = int(j)
		cands, _ := p.soloWalk(&p.r.envs[lv], now, p.opts.Candidates)
		judging = judging || (len(p.heads) > 0 && len(p.sc.judge.rules) > 0)
		if len(cands) == 0 {
			ps.failed = append(ps.failed, s)
			continue
		}
		b := cands[0] // the oldest
		sp.flat[j].rank, sp.flat[b.at.i].rank = soloGone, soloGone
		sp.idxDead += 2
		pairs = append(pairs, soloPair{a: s, b: b.slot, lv: int32(lv)})
		p.soloCompact()
	}
	sp.pairs = pairs
	out = slices.Grow(out, len(pairs))
	ps.recs = slices.Grow(ps.recs, len(pairs))
	for k, pr := range pairs {
		if k%soloAhead == 0 {
			p.sc.touched += p.soloAheadPartners(pairs, k+soloAhead)
		}
		out = out[:len(out)+1]
		dst := &out[len(out)-1]
		p.proposePair(pr.a, pr.b, int(pr.lv), now, dst)
		p.take(pr.a)
		p.take(pr.b)
		p.stats.Formed++
		p.stats.QualitySum += dst.Quality.Score
		// recordMatch's record: the partner is the youngest member.
		ps.recs = append(ps.recs, matchRec{key: p.entries[pr.a].key, young: p.entries[pr.b].created, anchor: pr.a, prop: int32(len(out) - 1)})
	}
	if cap(sp.pairs) > 1<<16 {
		sp.pairs = nil
	}
	return out
}

// proposePair writes the match of anchor a and partner b at level lv to dst:
// what finalize and propose make of two solos in two teams of one when no
// rule judges teams or the match (soloPairsEligible) — the balancing has
// one answer, the anchor's team first, no region, no roles — with the same
// quality score.
func (p *Pool) proposePair(a, b int32, lv int, now time.Time, dst *Proposal) {
	ea, eb := &p.entries[a], &p.entries[b]
	members := p.slab.members(2)
	members = append(members,
		member{id: ea.id, created: ea.created, h: ea.h, team: 0},
		member{id: eb.id, created: eb.created, h: eb.h, team: 1})
	*dst = Proposal{AnchorID: ea.id, Level: lv, key: p.sharedKey(), created: now, teams: 2, members: members}
	sc := &p.sc
	sc.pairSlots = [2]int32{a, b}
	sc.pairTeams = [2][]int32{sc.pairSlots[0:1:1], sc.pairSlots[1:2:2]}
	dst.Quality = p.quality(&qualityInput{teams: sc.pairTeams[:], region: -1}, now)
}

// take is killAt for a ticket the pair pass matched: the array marked it
// already, and the index is set right when the pass ends.
func (p *Pool) take(slot int32) {
	e := &p.entries[slot]
	e.alive = false
	p.live--
	p.players -= int(e.size)
	p.dead++
}

// soloAhead is how many anchors, and partners, the pair pass reads ahead at
// a time: as many cache misses in flight together.
const soloAhead = 16

// soloAheadAnchors loads the array around the places of the soloAhead
// anchors from rank r on (the cache lines on either side too, where a walk
// often steps), and their entries, so that the cache misses overlap. It
// returns a sum of what it read, which the caller keeps so that the loads
// stay.
func (p *Pool) soloAheadAnchors(r int) float64 {
	sp := &p.solo
	sum := 0.0
	for k := r; k < r+soloAhead && k < len(sp.pos); k++ {
		if j := int(sp.pos[k]); j >= 2 && j+2 < len(sp.flat) {
			sum += sp.flat[j-2].key + sp.flat[j+2].key + float64(p.entries[p.order[k]].created)
		}
	}
	return sum
}

// soloPrefetchHeads asks for the heads (excludes.go) the walk of the anchor
// at rank r will read first: its own and those of the nearest waiting
// tickets on either side of its place in the array, whose lines
// soloAheadAnchors loaded. Each head is a place in memory of its own — the
// slots are in arrival order, the array in skill order — and the walk
// would otherwise wait for each in turn. Hints, not loads (prefetch): the
// anchors in between go on while the lines arrive.
func (p *Pool) soloPrefetchHeads(r int) {
	sp := &p.solo
	if r >= len(sp.pos) {
		return
	}
	j := int(sp.pos[r])
	if j < 0 || j >= len(sp.flat) || sp.flat[j].rank < 0 {
		return
	}
	p.prefetchHead(sp.flat[j].slot)
	for d := j - 1; d >= max(j-soloNear, 0); d-- {
		if sp.flat[d].rank >= 0 {
			p.prefetchHead(sp.flat[d].slot)
			break
		}
	}
	for u := j + 1; u <= min(j+soloNear, len(sp.flat)-1); u++ {
		if sp.flat[u].rank >= 0 {
			p.prefetchHead(sp.flat[u].slot)
			break
		}
	}
}

// soloNear is how far from an anchor's place soloPrefetchHeads looks on
// each side for a waiting ticket: as far as the lines soloAheadAnchors
// loaded reach.
const soloNear = 2

// prefetchHead asks for every cache line of a slot's head.
func (p *Pool) prefetchHead(slot int32) {
	hw := headSize(len(p.r.exclAttrs))
	h := int(slot) * hw
	if slot < 0 || h+hw > len(p.heads) {
		return
	}
	for w := 0; w < hw; w += 8 {
		prefetch(unsafe.Pointer(&p.heads[h+w]))
	}
}

// soloAheadPartners loads the entries of the soloAhead partners from
// pairs[k] on (both cache lines an entry may span).
func (p *Pool) soloAheadPartners(pairs []soloPair, k int) float64 {
	sum := 0.0
	for i := k; i < k+soloAhead && i < len(pairs); i++ {
		e := &p.entries[pairs[i].b]
		sum += float64(e.size)
		if e.h == nil {
			sum++
		}
	}
	return sum
}
