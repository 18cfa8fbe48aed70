package engine

import (
	"math/bits"
	"slices"
	"time"

	"github.com/cupid-match/cupid"
)

// A block-list filter (ruleset.Expr.Excludes: a collection rule
// "player_ids" with max_count 0 over the match, such as the encounter
// history's "blocked" and "met" lists) is judged here natively: the pair
// passes when no player of either ticket holds a player id of the other in
// his own list. It answers as the rule's expression does — a player's own
// attribute only (the expression's #[attr]), a missing one an empty list —
// and gives up (native false) on a value that is not a list of strings,
// which the expression then judges.
//
// The lists are long (the server fills up to 64 ids in each, and a queue
// with a history reads two of them) and a pass judges every anchor against
// its nearest candidates, so comparing strings pair by pair cost several
// times the rest of the pass: every id compared is a read of memory the
// pass has not touched. Each ticket's lists are therefore summarised once,
// when it joins the pool (extract), in one array of 64-bit words
// (extra.ex): the hashes of its own players' ids, and per list attribute
// the hashes of the ids its players name there, sorted. A pair is judged by
// a search of each side's players in the other's list (has), and a hit is
// a block without comparing the ids: confirming it read the listed id
// through the ticket (four or five reads of memory the pass had not
// touched, for a third of the nearest candidates), which cost more than
// the search. The hash is the id table's (idTable.hash64: maphash, seeded
// per pool, 64 bits), so two distinct ids agree with probability 2^-64. A
// false block needs one of a ticket's player ids to agree with one of the
// other's listed ids: for two solo tickets with lists of 64, 2·64 chances
// per rule, below 2^-57 (7·10^-18) per pair judged — one false block in
// some 4,000 years of passes judging a million pairs a second. At the limits
// (parties of 100, lists of 64 each) it stays below 2^-43 per pair. A miss
// is certain.
//
// For K block-list attributes the array holds
//
//	ex[k], k < K     list k's end in ex (exEnd), and exForeign when one
//	                 of the players' values there is not a list of
//	                 strings (the rule's expression then judges the
//	                 ticket)
//	ex[K]            the start of list 0
//	ex[K+1:ex[K]]    the hashes of the ticket's players' ids
//	then list 0, list 1, …
const (
	exEnd     = 1<<32 - 1
	exForeign = 1 << 63
)

// exclAttrs lists, in order of first use, the attributes of the ruleset's
// block-list filters, and for each filter the index of its attribute
// there (-1: not a block-list filter).
func exclAttrs(r *rules) (attrs []string, of []int) {
	of = make([]int, len(r.filters))
	for i, f := range r.filters {
		of[i] = -1
		if f.Excludes == "" {
			continue
		}
		k := slices.Index(attrs, f.Excludes)
		if k < 0 {
			k = len(attrs)
			attrs = append(attrs, f.Excludes)
		}
		of[i] = k
	}
	return attrs, of
}

// summarise builds a ticket's block-list summary, extra.ex.
func (p *Pool) summarise(t *cupid.Ticket, x *extra) {
	na := len(p.r.exclAttrs)
	if na == 0 {
		return
	}
	n := na + 1 + len(t.Players)
	for _, attr := range p.r.exclAttrs {
		for i := range t.Players {
			n += len(ownList(&t.Players[i], attr))
		}
	}
	ex := make([]uint64, na+1, n)
	for i := range t.Players {
		ex = append(ex, p.ids.hash64(t.Players[i].ID))
	}
	ex[na] = uint64(len(ex))
	for k, attr := range p.r.exclAttrs {
		start := len(ex)
		foreign := uint64(0)
		for i := range t.Players {
			if v, ok := t.Players[i].Attributes.Get(attr); ok && v.Kind != cupid.KindStrings {
				foreign = exForeign
			}
			for _, id := range ownList(&t.Players[i], attr) {
				ex = append(ex, p.ids.hash64(id))
			}
		}
		slices.Sort(ex[start:])
		ex[k] = uint64(len(ex)) | foreign
	}
	x.ex = ex
}

// ownList is the player's own list under attr: none when he has no such
// attribute or it is not a list of strings.
func ownList(pl *cupid.Player, attr string) []string {
	v, ok := pl.Attributes.Get(attr)
	if !ok || v.Kind != cupid.KindStrings {
		return nil
	}
	return v.Strings
}

// exList is the ticket's list k; native is false when the rule's
// expression must judge the ticket.
func exList(ex []uint64, k, na int) (list []uint64, native bool) {
	start := ex[na]
	if k > 0 {
		start = ex[k-1] & exEnd
	}
	w := ex[k]
	return ex[start : w&exEnd], w&exForeign == 0
}

// excludesPass judges a block-list filter over the attribute of index k
// in exclAttrs for a pair.
func (p *Pool) excludesPass(k int, a, c *entry) (ok, native bool) {
	na := len(p.r.exclAttrs)
	xa, xc := a.x.ex, c.x.ex
	la, nativeA := exList(xa, k, na)
	lc, nativeC := exList(xc, k, na)
	if !nativeA || !nativeC {
		return false, false
	}
	if lists(la, xc[na+1:xc[na]]) || lists(lc, xa[na+1:xa[na]]) {
		return false, true
	}
	return true, true
}

// lists reports whether a list (its hashes, sorted) names one of the
// players whose id hashes are ids.
func lists(list, ids []uint64) bool {
	for _, h := range ids {
		if has(list, h) {
			return true
		}
	}
	return false
}

// has reports whether a sorted list of hashes holds h. The hashes are
// uniform over 64 bits, so h's place in a list of n is close to n·h/2^64
// (within √n/2 places for most lists): the search looks there first and
// widens by doubling steps only as far as it must, so a list of 64 costs
// one or two cache lines instead of the four or five a binary search from
// the middle touches. The answer is the binary search's.
func has(list []uint64, h uint64) bool {
	n := len(list)
	if n == 0 {
		return false
	}
	g, _ := bits.Mul64(h, uint64(n))
	i := int(g)
	lo, hi := 0, n // h, if there, is in list[lo:hi]
	switch v := list[i]; {
	case v == h:
		return true
	case v < h:
		lo = i + 1
		for d := 4; i+d < n; d *= 2 {
			if list[i+d] >= h {
				hi = i + d + 1
				break
			}
			lo = i + d + 1
		}
	default:
		hi = i
		for d := 4; i-d >= 0; d *= 2 {
			if list[i-d] <= h {
				lo = i - d
				break
			}
			hi = i - d
		}
	}
	_, found := slices.BinarySearch(list[lo:hi], h)
	return found
}

// A pass judges a candidate's block lists before it has read anything of
// the candidate but its index key, and the summary is three reads away
// (the entry, its extra, the array), then a search of the candidate's
// list. For a pool of solo tickets each slot therefore also has a head
// (headSize words, in Pool.heads, aligned to cache lines): the hash of its
// player's id, and per list attribute a Bloom filter of the hashes it
// lists, 448 bits (7 words) each for one or two attributes. The plain path
// (headFilters) judges a pair on the two heads: whether the anchor may list
// the candidate, and whether the candidate may list the anchor; either
// hit is looked up in that side's list (a real block, or a false positive
// of the filter). With four bits per id, of the players a list does not
// name 0.3 % pass a filter of 31 ids, 1.9 % of 52, 3.6 % of 64 — where 192
// bits with three per id let 6, 17 and 25 % through, and each of those
// cost the reads to the list. A value that is not a list fills its filter
// with ones, which sends every pair to the summary, as does a filter that
// happens to be full.
//
// With one list attribute (the history's "met" alone) the head is one
// cache line, the hash and one filter; with two (with "blocked") two
// lines. The second line of a one-list head held only more bits of the
// same filter (for 52 ids 0.14 % of the others through instead of 1.9 %):
// without it the pass measured no slower, and a ticket costs 64 bytes
// less. A pass reads a head for every candidate it judges and for every
// anchor, each from a place in memory no other read of the pass is near;
// read ahead as plain loads they made the pass slower, so the pair pass
// asks for them with a prefetch hint instead (soloPrefetchHeads;
// docs/PERFORMANCE.md, the fourth round).
const exHead = 16

// headSize is how many words a slot's head takes with na list
// attributes: one cache line for one attribute, two for more.
func headSize(na int) int {
	if na == 1 {
		return exHead / 2
	}
	return exHead
}

// headBloom is how many words of a head each list attribute's Bloom
// filter takes, after the player's hash: 7 (448 bits) for one list
// attribute or two, fewer for more.
func headBloom(na int) (words int) { return (headSize(na) - 1) / na }

// setHead writes the head of a slot from its entry's summary. A ticket of
// several players, or a pool with more list attributes than a head has
// words for, has no head: such a pool never takes the plain path's
// shortcut (headFilters).
func (p *Pool) setHead(slot int32, e *entry) {
	na := len(p.r.exclAttrs)
	if na == 0 || na >= exHead {
		return
	}
	hw := headSize(na)
	for int(slot)*hw >= len(p.heads) {
		p.heads = append(p.heads, make([]uint64, hw)...)
	}
	for int(slot)*na >= len(p.exLists) {
		p.exLists = append(p.exLists, make([][]uint64, na)...)
	}
	h := p.head(slot)
	clear(h)
	lists := p.exLists[int(slot)*na : int(slot+1)*na]
	clear(lists)
	ex := e.x.ex
	if e.size != 1 {
		return
	}
	h[0] = ex[na+1]
	w := headBloom(na)
	for k := range na {
		bloom := h[1+k*w : 1+(k+1)*w]
		list, native := exList(ex, k, na)
		if native {
			lists[k] = list
		}
		if !native {
			for i := range bloom {
				bloom[i] = ^uint64(0)
			}
			continue
		}
		for _, x := range list {
			for _, b := range bloomBits(x, w) {
				bloom[b/64] |= 1 << (b % 64)
			}
		}
	}
}

// bloomBits are the four bits a hash sets in a filter of w words, each
// from 16 bits of it by multiply-shift (the hash is uniform already).
// Four rather than three: for lists of 31 and 52 ids in 448 bits, 0.3 and
// 1.9 % of the hashes not in them pass instead of 0.7 and 2.5 %.
func bloomBits(x uint64, w int) [4]uint64 {
	n := uint64(w * 64)
	const m = 1<<16 - 1
	return [4]uint64{(x & m) * n >> 16, (x >> 16 & m) * n >> 16, (x >> 32 & m) * n >> 16, (x >> 48) * n >> 16}
}

// bloomHas reports whether a filter may hold the hash x. A full filter
// (a value that is not a list) answers yes to every hash. The four bits
// are read and combined without a branch between them: a pass asks this
// of heads still arriving from memory, and a branch on each bit, taken
// or not at random, was mispredicted often enough to cost more than the
// reads.
func bloomHas(bloom []uint64, x uint64) bool {
	b := bloomBits(x, len(bloom))
	v := (bloom[b[0]/64] >> (b[0] % 64)) & (bloom[b[1]/64] >> (b[1] % 64)) &
		(bloom[b[2]/64] >> (b[2] % 64)) & (bloom[b[3]/64] >> (b[3] % 64))
	return v&1 != 0
}

// headFilters is pairFilters for the plain path of a pool of solo tickets
// with a head per slot. The two heads decide most pairs: neither filter
// holding the other's player, neither lists the other. A hit on a side is
// looked up in that side's list (a real block, or a false positive), and
// a value that is not a list (a full filter) goes to the rule's
// expression as before. The anchor's own summary is then read only for
// the few pairs its filter lets through, not for every anchor: reading it
// ahead for each of them cost about as much as all the rest of the rules'
// work in a pass. A walk judging many candidates against one anchor sets
// up a headJudge once instead (headJudgeFor, then headPass for each).
func (p *Pool) headFilters(slotA, slotC int32, env *envelope, now time.Time) reason {
	j := &p.sc.pairJudge
	if !p.headJudgeFor(j, slotA, env) {
		return reason{}
	}
	return p.headPass(j, slotC, now)
}

// headJudge is what judging candidates against one anchor on the heads
// needs of the anchor, worked out once per anchor: which filters apply at
// its level, and for each where its player's hash sits in a candidate's
// filter (the four words and bits), so that a candidate costs four reads
// of its head and no arithmetic on the anchor's side.
type headJudge struct {
	a     int32
	ha    []uint64
	rules []headRule
}

// headRule is one block-list filter in a headJudge.
type headRule struct {
	i, k  int       // the filter, and its attribute in exclAttrs
	lo    int       // where attribute k's filter starts in a head
	words [4]int    // the words of a head holding the anchor's four bits
	shift [4]uint64 // and where in them
}

// headJudgeFor sets j up for anchor a at level env and reports whether any
// block-list filter applies there (none: every candidate passes).
func (p *Pool) headJudgeFor(j *headJudge, a int32, env *envelope) bool {
	j.a = a
	j.ha = p.head(a)
	j.rules = j.rules[:0]
	w := headBloom(len(p.r.exclAttrs))
	for i := range p.r.filters {
		if !env.filterOn[i] {
			continue
		}
		k := p.r.exclOf[i]
		r := headRule{i: i, k: k, lo: 1 + k*w}
		for n, b := range bloomBits(j.ha[0], w) {
			r.words[n], r.shift[n] = r.lo+int(b/64), b%64
		}
		j.rules = append(j.rules, r)
	}
	return len(j.rules) > 0
}

// head is a slot's head.
func (p *Pool) head(slot int32) []uint64 {
	hw := headSize(len(p.r.exclAttrs))
	h := int(slot) * hw
	return p.heads[h : h+hw : h+hw]
}

// headPass judges candidate c against the anchor of j, as headFilters.
func (p *Pool) headPass(j *headJudge, c int32, now time.Time) reason {
	hc := p.head(c)
	w := headBloom(len(p.r.exclAttrs))
	for n := range j.rules {
		r := &j.rules[n]
		v := (hc[r.words[0]] >> r.shift[0]) & (hc[r.words[1]] >> r.shift[1]) &
			(hc[r.words[2]] >> r.shift[2]) & (hc[r.words[3]] >> r.shift[3])
		cMay := v&1 != 0
		aMay := bloomHas(j.ha[r.lo:r.lo+w], hc[0])
		if !aMay && !cMay {
			continue
		}
		if !p.headHit(r.i, r.k, j.a, c, aMay, cMay, now) {
			return reason{rFilter, r.i}
		}
	}
	return reason{}
}

// headHit settles a pair that a head's filter let through on filter i
// (block-list attribute k): in the lists of the sides whose filter hit,
// reached from the slot (Pool.exLists) rather than through the entry and
// its extra, or by the rule's expression when a side's value is not a list
// (its filter is full, so it always hits).
func (p *Pool) headHit(i, k int, slotA, slotC int32, aMay, cMay bool, now time.Time) bool {
	na := len(p.r.exclAttrs)
	if aMay {
		la := p.exLists[int(slotA)*na+k]
		if la == nil {
			return p.pairFilter(i, &p.entries[slotA], &p.entries[slotC], now)
		}
		if has(la, p.head(slotC)[0]) {
			return false
		}
	}
	if !cMay {
		return true
	}
	lc := p.exLists[int(slotC)*na+k]
	if lc == nil {
		return p.pairFilter(i, &p.entries[slotA], &p.entries[slotC], now)
	}
	return !has(lc, p.head(slotA)[0])
}

// readAheadLists is readAhead's part for block lists: the next anchor's
// head (headFilters reads it for each candidate). In a full pass about
// half the tickets have been matched by the time their rank comes, so the
// next anchor is the first waiting ticket from rank r on (a few ranks at
// most are looked at). The load is independent of the current anchor's
// and overlaps with its work.
func (p *Pool) readAheadLists(r int32) float64 {
	for k := r; k < r+4 && int(k) < len(p.order); k++ {
		s := p.order[k]
		if !p.entries[s].alive {
			continue
		}
		hw := headSize(len(p.r.exclAttrs))
		if h := int(s) * hw; h < len(p.heads) {
			return float64(p.heads[h] + p.heads[h+hw-1])
		}
		break
	}
	return 0
}
