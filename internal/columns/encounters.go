package columns

import (
	"fmt"
	"math"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// The encounters' tables and statements are the same text on both SQL
// stores: SQLite reads the PostgreSQL type names (BIGINT) with the
// affinity they imply and binds $n parameters, so each
// store only runs them with its own driver (sqlite/encounters.go,
// postgres/encounters.go).
//
// Encounters are append-only and unique by (player, other, ref): two
// nodes, or a follower replaying after a restart, insert the same meeting
// with ON CONFLICT DO NOTHING and neither overwrites nor fails. Times are
// Unix nanoseconds, as elsewhere in both stores; an avoid entry's weight
// is kept in thousandths (an integer, as the store copy moves columns).
const EncountersSchema = `
CREATE TABLE encounters (
	player_id TEXT NOT NULL,
	other_id  TEXT NOT NULL,
	ref       TEXT NOT NULL,
	mode      TEXT NOT NULL,
	side      TEXT NOT NULL,
	place     TEXT NOT NULL,
	at        BIGINT NOT NULL,
	outcome   TEXT NOT NULL,
	PRIMARY KEY (player_id, other_id, ref)
);
CREATE INDEX encounters_player_at ON encounters (player_id, at);
CREATE INDEX encounters_other ON encounters (other_id);
CREATE INDEX encounters_at ON encounters (at);
CREATE TABLE encounter_lists (
	player_id TEXT NOT NULL,
	kind      TEXT NOT NULL,
	other_id  TEXT NOT NULL,
	weight    BIGINT NOT NULL,
	at        BIGINT NOT NULL,
	PRIMARY KEY (player_id, kind, other_id)
);
`

// EncounterChunk bounds the rows of one insert (8 values a row: far below
// both databases' limits on parameters).
const EncounterChunk = 500

// InsertEncounters is the insert of n encounters; EncounterArgs gives its
// values.
func InsertEncounters(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO encounters (player_id, other_id, ref, mode, side, place, at, outcome) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		k := i * 8
		fmt.Fprintf(&b, "($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d)", k+1, k+2, k+3, k+4, k+5, k+6, k+7, k+8)
	}
	b.WriteString(` ON CONFLICT (player_id, other_id, ref) DO NOTHING`)
	return b.String()
}

// EncounterArgs are the values of InsertEncounters(len(es)).
func EncounterArgs(es []cupid.Encounter) []any {
	args := make([]any, 0, 8*len(es))
	for _, e := range es {
		args = append(args, e.Player, e.Other, e.Ref, e.Mode, e.Side, e.Place, e.At.UnixNano(), e.Outcome)
	}
	return args
}

// SelectEncounters reads a player's encounters since a time, newest first:
// $1 the player, $2 the time, $3 the limit. Equal times come in a fixed
// order so pages and tests agree.
const SelectEncounters = `SELECT player_id, other_id, ref, mode, side, place, at, outcome FROM encounters
WHERE player_id = $1 AND at >= $2 ORDER BY at DESC, other_id, ref LIMIT $3`

// ScanEncounter reads a row of SelectEncounters.
func ScanEncounter(scan func(...any) error) (cupid.Encounter, error) {
	var e cupid.Encounter
	var at int64
	if err := scan(&e.Player, &e.Other, &e.Ref, &e.Mode, &e.Side, &e.Place, &at, &e.Outcome); err != nil {
		return e, err
	}
	e.At = time.Unix(0, at).UTC()
	return e, nil
}

// PutListEntry writes an entry over the one of the same (player, kind,
// other): $1..$5 are ListEntryArgs.
const PutListEntry = `INSERT INTO encounter_lists (player_id, kind, other_id, weight, at) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (player_id, kind, other_id) DO UPDATE SET weight = excluded.weight, at = excluded.at`

// ListEntryArgs are the values of PutListEntry.
func ListEntryArgs(e cupid.ListEntry) []any {
	return []any{e.Player, e.Kind, e.Other, int64(math.Round(e.Weight * 1000)), e.At.UnixNano()}
}

// DeleteListEntry deletes the entry ($1 player, $2 kind, $3 other).
const DeleteListEntry = `DELETE FROM encounter_lists WHERE player_id = $1 AND kind = $2 AND other_id = $3`

// MaxListPlayers bounds the players of one SelectListEntries.
const MaxListPlayers = 1000

// SelectListEntries reads the entries of n players' lists (1 ≤ n ≤
// MaxListPlayers); its values are the players.
func SelectListEntries(n int) string {
	var in strings.Builder
	for i := range n {
		if i > 0 {
			in.WriteString(", ")
		}
		fmt.Fprintf(&in, "$%d", i+1)
	}
	return `SELECT player_id, kind, other_id, weight, at FROM encounter_lists WHERE player_id IN (` + in.String() + `) ORDER BY player_id, kind, other_id`
}

// ScanListEntry reads a row of SelectListEntries.
func ScanListEntry(scan func(...any) error) (cupid.ListEntry, error) {
	var e cupid.ListEntry
	var at, milli int64
	if err := scan(&e.Player, &e.Kind, &e.Other, &milli, &at); err != nil {
		return e, err
	}
	e.Weight = float64(milli) / 1000
	e.At = time.Unix(0, at).UTC()
	return e, nil
}

// EraseEncounters are the statements of EraseEncounters, each with the
// player as $1, run in one transaction: his encounters both ways and his
// own lists (not the entries of others naming him; see
// cupid.EncounterStore).
var EraseEncounters = []string{
	`DELETE FROM encounters WHERE player_id = $1`,
	`DELETE FROM encounters WHERE other_id = $1`,
	`DELETE FROM encounter_lists WHERE player_id = $1`,
}
