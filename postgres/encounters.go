package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/columns"
)

var _ cupid.EncounterStore = (*Store)(nil)

// The encounters' SQL is shared with SQLite: see internal/columns. They
// take no fence: rows are append-only and unique by meeting, so two nodes
// writing the same meeting store it once and overwrite nothing.

// AddEncounters inserts encounters in one transaction; a meeting stored
// already is kept as it is.
func (s *Store) AddEncounters(ctx context.Context, es []cupid.Encounter) error {
	for _, e := range es {
		if !storable(e.Player) || !storable(e.Other) || !storable(e.Ref) || !storable(e.Place) || !storable(e.Outcome) {
			return cupid.Invalid("encounters", "ids must be UTF-8 without NUL bytes: PostgreSQL cannot store them")
		}
	}
	if len(es) == 0 {
		return nil
	}
	return encWrap("insert encounters", pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return columns.InChunks(es, columns.EncounterChunk, func(part []cupid.Encounter) error {
			_, err := tx.Exec(ctx, columns.InsertEncounters(len(part)), columns.EncounterArgs(part)...)
			return err
		})
	}))
}

// Encounters reads a player's encounters since a time, newest first.
func (s *Store) Encounters(ctx context.Context, player string, since time.Time, limit int) ([]cupid.Encounter, error) {
	if !storable(player) {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, columns.SelectEncounters, player, since.UnixNano(), limit)
	if err != nil {
		return nil, encWrap("read encounters", err)
	}
	defer rows.Close()
	out, err := columns.Collect(rows, columns.ScanEncounter)
	if err != nil {
		return nil, encWrap("read encounters", err)
	}
	return out, nil
}

// PutListEntry writes a block or avoid entry.
func (s *Store) PutListEntry(ctx context.Context, e cupid.ListEntry) error {
	if !storable(e.Player) || !storable(e.Other) || !storable(e.Kind) {
		return cupid.Invalid("other_id", "must be UTF-8 without NUL bytes: PostgreSQL cannot store it")
	}
	_, err := s.pool.Exec(ctx, columns.PutListEntry, columns.ListEntryArgs(e)...)
	return encWrap("put list entry", err)
}

// DeleteListEntry deletes a block or avoid entry.
func (s *Store) DeleteListEntry(ctx context.Context, player, kind, other string) error {
	if !storable(player) || !storable(kind) || !storable(other) {
		return nil
	}
	_, err := s.pool.Exec(ctx, columns.DeleteListEntry, player, kind, other)
	return encWrap("delete list entry", err)
}

// ListEntries reads the entries of players' lists.
func (s *Store) ListEntries(ctx context.Context, players []string) ([]cupid.ListEntry, error) {
	var ok []string
	for _, p := range players {
		if storable(p) {
			ok = append(ok, p)
		}
	}
	var out []cupid.ListEntry
	err := columns.InChunks(ok, columns.MaxListPlayers, func(part []string) error {
		args := make([]any, len(part))
		for i, p := range part {
			args[i] = p
		}
		rows, err := s.pool.Query(ctx, columns.SelectListEntries(len(part)), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		es, err := columns.Collect(rows, columns.ScanListEntry)
		out = append(out, es...)
		return err
	})
	if err != nil {
		return nil, encWrap("read list entries", err)
	}
	return out, nil
}

// EraseEncounters deletes a player's history and lists in one transaction.
func (s *Store) EraseEncounters(ctx context.Context, player string) error {
	if !storable(player) {
		return nil
	}
	return encWrap("erase encounters", pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, q := range columns.EraseEncounters {
			if _, err := tx.Exec(ctx, q, player); err != nil {
				return err
			}
		}
		return nil
	}))
}

// encWrap is wrap for a call that may have succeeded.
func encWrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return wrap(what, err)
}
