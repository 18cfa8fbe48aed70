package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/columns"
)

var _ cupid.EncounterStore = (*Store)(nil)

// The encounters' SQL is shared with PostgreSQL: see internal/columns.

// AddEncounters inserts encounters in one transaction; a meeting stored
// already is kept as it is.
func (s *Store) AddEncounters(ctx context.Context, es []cupid.Encounter) error {
	if len(es) == 0 {
		return nil
	}
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return columns.InChunks(es, columns.EncounterChunk, func(part []cupid.Encounter) error {
			if _, err := tx.ExecContext(ctx, columns.InsertEncounters(len(part)), columns.EncounterArgs(part)...); err != nil {
				return fmt.Errorf("sqlite: insert encounters: %w", err)
			}
			return nil
		})
	})
}

// Encounters reads a player's encounters since a time, newest first.
func (s *Store) Encounters(ctx context.Context, player string, since time.Time, limit int) ([]cupid.Encounter, error) {
	rows, err := s.r.QueryContext(ctx, columns.SelectEncounters, player, since.UnixNano(), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read encounters: %w", err)
	}
	defer rows.Close()
	out, err := columns.Collect(rows, columns.ScanEncounter)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read encounters: %w", err)
	}
	return out, nil
}

// PutListEntry writes a block or avoid entry.
func (s *Store) PutListEntry(ctx context.Context, e cupid.ListEntry) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, columns.PutListEntry, columns.ListEntryArgs(e)...)
		if err != nil {
			return fmt.Errorf("sqlite: put list entry: %w", err)
		}
		return nil
	})
}

// DeleteListEntry deletes a block or avoid entry.
func (s *Store) DeleteListEntry(ctx context.Context, player, kind, other string) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, columns.DeleteListEntry, player, kind, other); err != nil {
			return fmt.Errorf("sqlite: delete list entry: %w", err)
		}
		return nil
	})
}

// ListEntries reads the entries of players' lists.
func (s *Store) ListEntries(ctx context.Context, players []string) ([]cupid.ListEntry, error) {
	var out []cupid.ListEntry
	err := columns.InChunks(players, columns.MaxListPlayers, func(part []string) error {
		rows, err := s.r.QueryContext(ctx, columns.SelectListEntries(len(part)), anys(part)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		es, err := columns.Collect(rows, columns.ScanListEntry)
		out = append(out, es...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: read list entries: %w", err)
	}
	return out, nil
}

// EraseEncounters deletes a player's history and lists in one transaction.
func (s *Store) EraseEncounters(ctx context.Context, player string) error {
	return s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for _, q := range columns.EraseEncounters {
			if _, err := tx.ExecContext(ctx, q, player); err != nil {
				return fmt.Errorf("sqlite: erase encounters: %w", err)
			}
		}
		return nil
	})
}
