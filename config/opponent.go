package config

import (
	"errors"
	"fmt"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// OpponentFinder configures one async opponent finder (seed 001): its name,
// how its players are kept, and the finder itself. The finder's settings
// (opponent.Config: cache size, MMR buckets, strategies, attributes,
// quality, thresholds, fake opponents, scan, sizing) sit inline beside the
// name, so a finder reads as one flat YAML mapping:
//
//	opponents:
//	  - name: arena
//	    player_cache_size: 100000
//	    min_mmr: 0
//	    max_mmr: 3000
//	    mmr_bucket_count: 30
//	    scan: {enabled: true, tick: 1s}
type OpponentFinder struct {
	// Name identifies the finder in API calls, metrics and the store.
	Name string `yaml:"name"`
	// Seed feeds the finder's random choices; 0 derives one from the
	// name, so a finder's choices replay across restarts.
	Seed uint64 `yaml:"seed"`
	// StorePlayers writes every player update to the player table, so the
	// scan can refill the cache after a restart. On when absent; turn it
	// off for entries that only make sense while the server runs (the
	// seed's update-only mode).
	StorePlayers *bool `yaml:"store_players"`
	// PlayerTable names the table the finder stores and scans; the finder's
	// name when empty. Several instances of one finder share a table, each
	// with its own cache, as the seed scales by adding instances.
	PlayerTable string `yaml:"player_table"`
	// Finder is the finder's own configuration, inline.
	Finder opponent.Config `yaml:",inline"`
}

// Stores reports whether the finder writes its players to the store.
func (o *OpponentFinder) Stores() bool { return o.StorePlayers == nil || *o.StorePlayers }

// Table is the player table the finder stores and scans.
func (o *OpponentFinder) Table() string {
	if o.PlayerTable == "" {
		return o.Name
	}
	return o.PlayerTable
}

// maxFinderName bounds finder and table names: they appear in store kinds
// and metric labels.
const maxFinderName = 64

// checkName accepts letters, digits, '_' and '-', which are safe in store
// kinds, metric labels and URLs alike.
func checkName(field, name string) error {
	if name == "" {
		return cupid.Invalid(field, "is required")
	}
	if len(name) > maxFinderName {
		return cupid.Invalid(field, "longer than %d bytes", maxFinderName)
	}
	for _, r := range name {
		ok := r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return cupid.Invalid(field, "%q may hold only letters, digits, '_' and '-'", name)
		}
	}
	return nil
}

func (c *Config) checkOpponents() error { return c.CheckOpponents() }

// CheckOpponents validates every finder: unique names, the finder's own
// configuration (its expressions compiled), instances of one player table
// agreeing on whether it is stored and on multiple entries per player, and a
// scanning finder storing its table.
// Errors name the field, as "opponents[1].player_cache_size". The opponent
// service calls it too, for configurations not read from a file.
func (c *Config) CheckOpponents() error {
	seen := map[string]bool{}
	tables := map[string]int{} // player table → index of the first finder using it
	for i := range c.Opponents {
		o := &c.Opponents[i]
		field := fmt.Sprintf("opponents[%d]", i)
		if err := checkName(field+".name", o.Name); err != nil {
			return err
		}
		if seen[o.Name] {
			return cupid.Invalid(field+".name", "finder %q is defined twice", o.Name)
		}
		seen[o.Name] = true
		if o.PlayerTable != "" {
			if err := checkName(field+".player_table", o.PlayerTable); err != nil {
				return err
			}
		}
		if err := o.Finder.Validate(); err != nil {
			return prefixField(field, err)
		}
		if first, ok := tables[o.Table()]; !ok {
			tables[o.Table()] = i
		} else {
			// Instances share updates, so they must treat them alike.
			f := &c.Opponents[first]
			switch {
			case f.Stores() != o.Stores():
				return cupid.Invalid(field+".store_players", "must agree with finder %q, which shares player table %q", f.Name, o.Table())
			case f.Finder.AllowMultipleEntriesPerPlayer != o.Finder.AllowMultipleEntriesPerPlayer:
				return cupid.Invalid(field+".allow_multiple_entries_per_player", "must agree with finder %q, which shares player table %q", f.Name, o.Table())
			}
		}
		if o.Finder.Scan.Enabled && !o.Stores() {
			return cupid.Invalid(field+".scan.enabled", "the scan reads the player table, which is kept only with store_players on")
		}
	}
	return nil
}

// prefixField puts the finder's position in front of an error's field.
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
