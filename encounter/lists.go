package encounter

import (
	"math"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// The kinds of list entries.
const (
	// KindBlock: never together, in any mode, whoever blocked whom. The
	// blocked player is never told.
	KindBlock = "block"
	// KindAvoid: rather not together; a soft rule with a weight.
	KindAvoid = "avoid"
)

// Limits of a player's lists. FlexMatch caps block lists at 100 ids; ours
// hold as many as a ticket's list attribute (cupid.MaxListItems), since the
// real-time queue reads a player's list from his ticket.
const (
	MaxBlocks = cupid.MaxListItems
	MaxAvoids = cupid.MaxListItems
)

// DefaultAvoidWeight is an avoid entry's weight when the player gives
// none.
const DefaultAvoidWeight = 1.0

// NewEntry checks a player's request to put other on a list and returns
// the entry to store. entries are the player's entries as the store holds
// them (ListEntries), so the list's limit is judged with what is there:
// replacing an entry (another weight, avoid turned into block) does not
// count twice. weight is for avoid entries: 0 means DefaultAvoidWeight.
func NewEntry(player, kind, other string, weight float64, entries []cupid.ListEntry, now time.Time) (cupid.ListEntry, error) {
	if err := CheckID("player_id", player); err != nil {
		return cupid.ListEntry{}, err
	}
	if err := CheckID("other_id", other); err != nil {
		return cupid.ListEntry{}, err
	}
	if other == player {
		return cupid.ListEntry{}, cupid.Invalid("other_id", "a player cannot %s himself", kind)
	}
	max := 0
	switch kind {
	case KindBlock:
		max = MaxBlocks
		if weight != 0 {
			return cupid.ListEntry{}, cupid.Invalid("weight", "only an avoid entry has a weight")
		}
	case KindAvoid:
		max = MaxAvoids
		if math.IsNaN(weight) || weight < 0 || weight > 1 {
			return cupid.ListEntry{}, cupid.Invalid("weight", "must be between 0 and 1, got %v", weight)
		}
		if weight == 0 {
			weight = DefaultAvoidWeight
		}
	default:
		return cupid.ListEntry{}, cupid.Invalid("kind", "must be %q or %q, got %q", KindBlock, KindAvoid, kind)
	}
	n := 0
	for _, e := range entries {
		if e.Player != player || e.Kind != kind {
			continue
		}
		if e.Other == other {
			n = -1 // a replacement: the list does not grow
			break
		}
		n++
	}
	if n >= max {
		return cupid.ListEntry{}, cupid.Errorf(cupid.CodeExhausted, "other_id", "a %s list holds at most %d players; remove one first", kind, max)
	}
	return cupid.ListEntry{Player: player, Kind: kind, Other: other, Weight: weight, At: now.UTC()}, nil
}

// Own returns the entries of player's own lists of a kind (all kinds when
// empty), in the store's order: what he may see. Entries on others' lists
// naming him are left out, so a blocked player never learns of it.
//
// A block holds both ways because the rules read both players' lists:
// Blocked, IsBlocked and AnyBlocked take the entries of every player
// concerned, and a player's own list is all his ticket carries.
func Own(entries []cupid.ListEntry, player, kind string) []cupid.ListEntry {
	var out []cupid.ListEntry
	for _, e := range entries {
		if e.Player == player && (kind == "" || e.Kind == kind) {
			out = append(out, e)
		}
	}
	return out
}

// Blocked lists, sorted, the players player must never meet: those he
// blocked and those who blocked him.
func Blocked(entries []cupid.ListEntry, player string) []string {
	var out []string
	for _, e := range entries {
		switch {
		case e.Kind != KindBlock:
		case e.Player == player:
			out = append(out, e.Other)
		case e.Other == player:
			out = append(out, e.Player)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// IsBlocked reports whether a and b must never meet.
func IsBlocked(entries []cupid.ListEntry, a, b string) bool {
	for _, e := range entries {
		if e.Kind == KindBlock && (e.Player == a && e.Other == b || e.Player == b && e.Other == a) {
			return true
		}
	}
	return false
}

// AnyBlocked reports whether any two of players must never meet, and
// which two (the first pair found in the order given).
func AnyBlocked(entries []cupid.ListEntry, players []string) (a, b string, ok bool) {
	for i, p := range players {
		for _, q := range players[i+1:] {
			if IsBlocked(entries, p, q) {
				return p, q, true
			}
		}
	}
	return "", "", false
}

// Avoided lists, sorted, the players player would rather not meet (his
// own avoid entries only: avoiding is one person's preference).
func Avoided(entries []cupid.ListEntry, player string) []string {
	var out []string
	for _, e := range entries {
		if e.Kind == KindAvoid && e.Player == player {
			out = append(out, e.Other)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// AvoidWeight is how much a and b avoid each other: the larger of the
// two entries' weights, 0 when neither avoids the other.
func AvoidWeight(entries []cupid.ListEntry, a, b string) float64 {
	w := 0.0
	for _, e := range entries {
		if e.Kind == KindAvoid && (e.Player == a && e.Other == b || e.Player == b && e.Other == a) {
			w = max(w, e.Weight)
		}
	}
	return w
}
