package cupid

import (
	"context"
	"time"
)

// Encounter is one line of a player's history: he met Other, in a mode
// (a real-time match, an async attack, a speed-dating round), at a place
// (the queue, the opponent finder, the event), at a time. Every meeting is
// two encounters, one for each player, so a player's history is read by
// his own id alone. Ref names what the meeting was (the match id, the
// attack, the event's round); (Player, Other, Ref) is unique, so writing
// the same meeting twice — two nodes following the same match log, a
// follower replaying after a restart — stores it once. The rules over
// encounters are in package encounter.
type Encounter struct {
	Player string
	Other  string
	// Mode is "queue", "opponent" or "pairing" (see package encounter).
	Mode string
	// Side is "opponent" or "teammate": in a team match the players of
	// one team met as teammates.
	Side  string
	Place string
	Ref   string
	At    time.Time
	// Outcome is the meeting's result for Player when one is known
	// ("win", "loss", "draw"), or empty.
	Outcome string
}

// ListEntry is one line of a player's block or avoid list: Player does
// not want to meet Other (Kind "block": never; Kind "avoid": rather not,
// with Weight in (0, 1]).
type ListEntry struct {
	Player string
	Kind   string
	Other  string
	Weight float64
	At     time.Time
}

// EncounterStore keeps who met whom and the players' block and avoid
// lists. Encounters are append-only rows unique by (Player, Other, Ref):
// writers on several nodes add the same meeting without overwriting each
// other or failing. The store bounds nothing itself: the service reads a
// player's recent history with a limit and a horizon and prunes the rows
// beyond the horizon.
type EncounterStore interface {
	// AddEncounters stores encounters in one transaction; one already
	// stored (same Player, Other, Ref) is kept as it is.
	AddEncounters(ctx context.Context, es []Encounter) error
	// Encounters returns a player's encounters at or after since, newest
	// first, at most limit (limit > 0).
	Encounters(ctx context.Context, player string, since time.Time, limit int) ([]Encounter, error)
	// PutListEntry stores a block or avoid entry, replacing the entry of
	// the same (Player, Kind, Other).
	PutListEntry(ctx context.Context, e ListEntry) error
	// DeleteListEntry removes an entry; a missing one is not an error.
	DeleteListEntry(ctx context.Context, player, kind, other string) error
	// ListEntries returns the entries of players' own lists, ordered by
	// Player, Kind, Other. (A block holds both ways: the rules read the
	// lists of both players. Who blocked a player is never listed, which
	// also bounds the read by the lists' limits.)
	ListEntries(ctx context.Context, players []string) ([]ListEntry, error)
	// EraseEncounters deletes a player's history: his encounters, the
	// encounters of others with him, and his own lists. Entries on other
	// players' lists that name him stay: they are those players' choice,
	// and erasing must not lift a block against him.
	EraseEncounters(ctx context.Context, player string) error
}
