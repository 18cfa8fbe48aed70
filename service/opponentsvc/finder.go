package opponentsvc

import (
	"errors"
	"fmt"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// Finder is one async opponent finder the service runs: its name, how its
// players are kept, and the finder itself. The zero value of every field
// but Name and Opponent's required ones is the default written beside it.
type Finder struct {
	// Name identifies the finder in API calls, metrics and the store: 1 to
	// MaxNameBytes letters, digits, '_' and '-', unique among the
	// service's finders. Required.
	Name string
	// Seed feeds the finder's random choices. 0 (the default) derives one
	// from Name, so a finder's choices are the same from one run to the
	// next.
	Seed uint64
	// PlayerTable names the table the finder writes its players to and
	// scans; Name when empty (the default). Finders naming the same table
	// are instances of one finder: an update sent to any of them is
	// written once and reaches every instance's cache. Instances must
	// agree on MemoryOnly and on Opponent.AllowMultipleEntriesPerPlayer,
	// since they take the same updates. Same rules as Name.
	PlayerTable string
	// MemoryOnly keeps players in the cache alone: updates are not written
	// to the player table, so the cache starts empty after a restart, and
	// the finder may not scan. Right for entries that only mean something
	// while the server runs, such as teams recorded after each battle.
	// False (the default) writes every update to the player table before
	// the caller hears "yes".
	MemoryOnly bool
	// Opponent is the finder's own configuration: cache size, MMR buckets,
	// strategies, attributes, quality expressions, thresholds, fake
	// opponents, scan and sizing. Its zero fields take the defaults that
	// opponent.Config documents; PlayerCacheSize, MinMMR, MaxMMR and
	// MmrBucketCount are required.
	Opponent opponent.Config
}

// MaxNameBytes bounds finder and player table names (opponent.MaxNameBytes).
const MaxNameBytes = opponent.MaxNameBytes

// table is the player table the finder stores and scans.
func (f *Finder) table() string {
	if f.PlayerTable == "" {
		return f.Name
	}
	return f.PlayerTable
}

// checkFinders validates every finder before any is built: names, the
// finder's own configuration (its expressions compiled), instances of one
// player table agreeing, a scanning finder keeping its table, and a store
// for every finder that scans. Errors are invalid-argument errors naming
// the field as "finders[1].name" or "finders[0].scan.enabled".
func checkFinders(fs []Finder, haveStore bool) error {
	seen := map[string]bool{}
	tables := map[string]int{} // player table → index of its first finder
	for i := range fs {
		f := &fs[i]
		field := fmt.Sprintf("finders[%d]", i)
		if err := opponent.CheckName(field+".name", f.Name); err != nil {
			return err
		}
		if seen[f.Name] {
			return cupid.Invalid(field+".name", "finder %q is given twice", f.Name)
		}
		seen[f.Name] = true
		if f.PlayerTable != "" {
			if err := opponent.CheckName(field+".player_table", f.PlayerTable); err != nil {
				return err
			}
		}
		if err := f.Opponent.Validate(); err != nil {
			return prefixField(field, err)
		}
		if first, ok := tables[f.table()]; !ok {
			tables[f.table()] = i
		} else {
			o := &fs[first]
			switch {
			case o.MemoryOnly != f.MemoryOnly:
				return cupid.Invalid(field+".memory_only", "must agree with finder %q, which shares player table %q", o.Name, f.table())
			case o.Opponent.AllowMultipleEntriesPerPlayer != f.Opponent.AllowMultipleEntriesPerPlayer:
				return cupid.Invalid(field+".allow_multiple_entries_per_player", "must agree with finder %q, which shares player table %q", o.Name, f.table())
			}
		}
		if f.Opponent.Reservations.Enabled {
			if first := tables[f.table()]; first != i {
				return cupid.Invalid(field+".reservations.enabled", "finder %q shares player table %q with finder %q; a reservation must hold across every query that could offer the defender, so a finder that takes reservations needs a player table of its own",
					f.Name, f.table(), fs[first].Name)
			}
			for j := i + 1; j < len(fs); j++ {
				if fs[j].table() == f.table() {
					return cupid.Invalid(field+".reservations.enabled", "finder %q shares player table %q with finder %q; a reservation must hold across every query that could offer the defender, so a finder that takes reservations needs a player table of its own",
						f.Name, f.table(), fs[j].Name)
				}
			}
		}
		if f.Opponent.Scan.Enabled {
			if f.MemoryOnly {
				return cupid.Invalid(field+".scan.enabled", "the scan reads the player table, which a memory-only finder does not keep")
			}
			if !haveStore {
				return cupid.Invalid(field+".scan.enabled", "the scan reads the player table, and the service has no store")
			}
		}
	}
	return nil
}

// prefixField puts prefix in front of an error's field.
func prefixField(prefix string, err error) error {
	var e *cupid.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	out := *e
	if out.Field == "" {
		out.Field = prefix
	} else {
		out.Field = prefix + "." + out.Field
	}
	return &out
}
