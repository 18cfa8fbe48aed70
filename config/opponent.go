package config

import (
	"errors"
	"fmt"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// OpponentFinder configures one async opponent finder (after Metaplay's
// async matchmaker): its name, how its players are kept, and the finder
// itself. The finder's settings (opponent.Config: cache size, MMR buckets,
// strategies, attributes, quality, thresholds, fake opponents, scan,
// sizing) sit inline beside the name, so a finder reads as one flat YAML
// mapping:
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
	// update-only mode of Metaplay's matchmaker).
	StorePlayers *bool `yaml:"store_players"`
	// PlayerTable names the table the finder stores and scans; the finder's
	// name when empty. Several instances of one finder share a table, each
	// with its own cache, as Metaplay's matchmaker scales by adding
	// instances.
	PlayerTable string `yaml:"player_table"`
	// PlayersMayUpdate lets a game client with a player token update his
	// own model (UpdatePlayer as himself); off by default, when only
	// server keys with the opponents scope may.
	PlayersMayUpdate bool `yaml:"players_may_update"`
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

// checkOpponents validates every finder at load: unique names, the
// finder's own configuration (its expressions compiled), instances of one
// player table agreeing on whether it is stored and on multiple entries per
// player, and a scanning finder storing its table. Problems, reported to
// doc, name the field, as "opponents[1].player_cache_size". The opponent
// service checks the values it is given again, in its own terms.
func (c *Config) checkOpponents(doc *document) {
	seen := map[string]bool{}
	tables := map[string]int{} // player table → index of the first finder using it
	for i := range c.Opponents {
		o := &c.Opponents[i]
		field := fmt.Sprintf("opponents[%d]", i)
		nameOK := true
		if err := opponent.CheckName(field+".name", o.Name); err != nil {
			doc.report(err)
			nameOK = false
		} else if seen[o.Name] {
			doc.report(cupid.Invalid(field+".name", "finder %q is defined twice", o.Name))
		}
		seen[o.Name] = true
		if o.PlayerTable != "" {
			if err := opponent.CheckName(field+".player_table", o.PlayerTable); err != nil {
				doc.report(err)
				nameOK = false
			}
		}
		// The finder's own check stops at its first problem, and one about
		// a value the structural check refused would only repeat it.
		if doc.known(field) {
			if err := o.Finder.Validate(); err != nil {
				doc.report(prefixField(field, err))
			}
		}
		if nameOK && doc.known(field+".name") && doc.known(field+".player_table") {
			if first, ok := tables[o.Table()]; !ok {
				tables[o.Table()] = i
			} else {
				// Instances share updates, so they must treat them alike.
				f := &c.Opponents[first]
				ff := fmt.Sprintf("opponents[%d]", first)
				if f.Stores() != o.Stores() && doc.known(ff+".store_players") && doc.known(field+".store_players") {
					doc.report(cupid.Invalid(field+".store_players", "must agree with finder %q, which shares player table %q", f.Name, o.Table()))
				}
				if f.Finder.AllowMultipleEntriesPerPlayer != o.Finder.AllowMultipleEntriesPerPlayer &&
					doc.known(ff+".allow_multiple_entries_per_player") && doc.known(field+".allow_multiple_entries_per_player") {
					doc.report(cupid.Invalid(field+".allow_multiple_entries_per_player", "must agree with finder %q, which shares player table %q", f.Name, o.Table()))
				}
			}
		}
		if o.Finder.Reservations.Enabled && nameOK && doc.known(field+".reservations") {
			for j := range c.Opponents {
				if p := &c.Opponents[j]; j != i && p.Table() == o.Table() {
					doc.report(cupid.Invalid(field+".reservations.enabled", "finder %q shares player table %q with finder %q; a finder that takes reservations needs a player table of its own, so that a reservation holds across every query that could offer the defender",
						o.Name, o.Table(), p.Name))
					break
				}
			}
		}
		if o.Finder.Scan.Enabled && !o.Stores() && doc.known(field+".store_players") {
			doc.report(cupid.Invalid(field+".scan.enabled", "the scan reads the player table, which is kept only with store_players on"))
		}
	}
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
