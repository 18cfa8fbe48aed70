package engine

import (
	"math/bits"
	"slices"

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
// when it joins the pool (extract), in one array of 32-bit words
// (extra.ex): the hashes of its own players' ids, and per list attribute
// the hashes of the ids its players name there, sorted. A pair is judged by
// a binary search of each side's players in the other's list. A list word
// keeps the hash's high bits and, in its low bits, where the id sits in the
// ticket's lists, so that a hit — a real block, or rarely two ids whose
// hashes agree — is confirmed by comparing that one id with the player's;
// a miss is certain. The hash is the id table's (idTable.hash), seeded per
// pool.
//
// For K block-list attributes the array holds
//
//	ex[k], k < K     list k's end in ex (exEnd), its width (exWidth: the
//	                 low bits of its words that place an id), and
//	                 exForeign when one of the players' values there is
//	                 not a list of strings (the rule's expression then
//	                 judges the ticket)
//	ex[K]            the start of list 0
//	ex[K+1:ex[K]]    the hashes of the ticket's players' ids
//	then list 0, list 1, …
const (
	exEnd       = 1<<24 - 1
	exWidthBits = 24
	exForeign   = 1 << 31
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
	ex := make([]uint32, na+1, n)
	for i := range t.Players {
		ex = append(ex, p.ids.hash(t.Players[i].ID))
	}
	ex[na] = uint32(len(ex))
	for k, attr := range p.r.exclAttrs {
		start := len(ex)
		foreign := uint32(0)
		count := 0
		for i := range t.Players {
			if v, ok := t.Players[i].Attributes.Get(attr); ok && v.Kind != cupid.KindStrings {
				foreign = exForeign
			}
			count += len(ownList(&t.Players[i], attr))
		}
		// At most MaxPlayersPerTicket lists of MaxListItems ids: 13 bits.
		width := bits.Len(uint(count))
		place := uint32(0)
		for i := range t.Players {
			for _, id := range ownList(&t.Players[i], attr) {
				ex = append(ex, p.ids.hash(id)>>width<<width|place)
				place++
			}
		}
		slices.Sort(ex[start:])
		ex[k] = uint32(len(ex)) | uint32(width)<<exWidthBits | foreign
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

// listedAt is the id at place in the players' lists under attr, counted
// over all of them in order, as summarise numbers them.
func listedAt(players []cupid.Player, attr string, place int) string {
	for i := range players {
		l := ownList(&players[i], attr)
		if place < len(l) {
			return l[place]
		}
		place -= len(l)
	}
	return ""
}

// exList is the ticket's list k with its width; native is false when the
// rule's expression must judge the ticket.
func exList(ex []uint32, k, na int) (list []uint32, width uint, native bool) {
	start := ex[na]
	if k > 0 {
		start = ex[k-1] & exEnd
	}
	w := ex[k]
	return ex[start : w&exEnd], uint(w>>exWidthBits) & 0x1f, w&exForeign == 0
}

// excludesPass judges a block-list filter over the attribute of index k
// in exclAttrs for a pair.
func (p *Pool) excludesPass(k int, a, c *entry) (ok, native bool) {
	na := len(p.r.exclAttrs)
	xa, xc := a.x.ex, c.x.ex
	la, wa, nativeA := exList(xa, k, na)
	lc, wc, nativeC := exList(xc, k, na)
	if !nativeA || !nativeC {
		return false, false
	}
	attr := p.r.exclAttrs[k]
	if p.lists(la, wa, a.h, attr, xc[na+1:xc[na]], c.h) || p.lists(lc, wc, c.h, attr, xa[na+1:xa[na]], a.h) {
		return false, true
	}
	return true, true
}

// lists reports whether the list of own's (its words, of the width) names
// one of other's players (whose id hashes are ids).
func (p *Pool) lists(list []uint32, width uint, own *held, attr string, ids []uint32, other *held) bool {
	if len(list) == 0 {
		return false
	}
	low := uint32(1)<<width - 1
	for j, h := range ids {
		h &^= low
		i, _ := slices.BinarySearch(list, h)
		for ; i < len(list) && list[i]&^low == h; i++ {
			if listedAt(own.players, attr, int(list[i]&low)) == other.players[j].ID {
				return true
			}
		}
	}
	return false
}
