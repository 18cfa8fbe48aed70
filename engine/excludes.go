package engine

import (
	"github.com/cupid-match/cupid"
)

// A block-list filter (ruleset.Expr.Excludes: a collection rule
// "player_ids" with max_count 0 over the match, such as the encounter
// history's "blocked" and "met" lists) is judged here natively: the pair
// passes when no player of either ticket holds a player id of the other in
// his own list. It answers as the rule's expression does — a player's own
// attribute only (the expression's #[attr]), a missing one an empty list —
// and gives up (native false) on a value that is not a list of strings,
// which the expression then judges. The expression builds a view of both
// tickets and runs twice; this compares a few strings.

// names reports whether own's players hold one of other's player ids in
// their attr lists; native is false when a value is not a list of
// strings. A ticket's lists are read where they are (no summary is built:
// a pass judges each ticket against a few candidates only, so building one
// cost more than it saved when measured).
func names(attr string, own, other *held) (found, native bool) {
	for i := range own.players {
		v, ok := own.players[i].Attributes.Get(attr)
		if !ok {
			continue
		}
		if v.Kind != cupid.KindStrings {
			return false, false
		}
		for _, id := range v.Strings {
			for j := range other.players {
				if other.players[j].ID == id {
					return true, true
				}
			}
		}
	}
	return false, true
}

// excludesPass judges a block-list filter over attr for a pair.
func excludesPass(attr string, a, c *entry) (ok, native bool) {
	ac, native := names(attr, a.h, c.h)
	if !native {
		return false, false
	}
	ca, native := names(attr, c.h, a.h)
	if !native {
		return false, false
	}
	return !ac && !ca, true
}
