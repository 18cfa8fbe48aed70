package opponent

import (
	"fmt"

	"github.com/cupid-match/cupid"
)

// Model is a player's matchmaking state, the payload of a state update or of
// one row of a scan: the player and the entries under which attackers may
// find them. No entries means the player is not available.
//
// How ids map: every entry of a player answers to the same PlayerID; a query
// excludes a player by that id, and a Result names it. With one entry per
// player (the default) a new update replaces the player's entry wherever it
// was. With AllowMultipleEntriesPerPlayer each entry lives in the bucket its
// MMR and labels pick, at most one per bucket: an update replaces the
// player's entry in each bucket it names and leaves the others, as the seed
// does, so entries accumulate until replaced, evicted, offered or removed
// with Remove. Result.Model (ask for it with ReturnModel) carries the one
// entry that was chosen, so the game can tell which setup to fight.
type Model struct {
	PlayerID string  `json:"player_id"`
	Entries  []Entry `json:"entries,omitempty"`
}

// Entry is one way to fight a player: a defence MMR and attributes. The
// attributes a strategy reads are its labels and must be present; other
// declared attributes default to zero, "" or an empty list.
type Entry struct {
	MMR        float64                `json:"mmr"`
	Attributes map[string]cupid.Value `json:"attributes,omitempty"`
}

// Single builds the common one-entry model.
func Single(playerID string, mmr float64, attrs map[string]cupid.Value) Model {
	return Model{PlayerID: playerID, Entries: []Entry{{MMR: mmr, Attributes: attrs}}}
}

// checkValue checks one attribute value against its declaration. The field
// is prefix+name, joined only when there is an error to report, so the
// query path validates without allocating.
func checkValue(prefix, name string, want cupid.ValueKind, v cupid.Value) error {
	if v.Kind != want {
		return invalid(prefix+name, "must be a %s", kindName(want))
	}
	switch v.Kind {
	case cupid.KindNumber:
		if !cupid.Finite(v.Number) {
			return invalid(prefix+name, "must be a finite number")
		}
	case cupid.KindString:
		if len(v.String) > maxStringLen {
			return invalid(prefix+name, "longer than %d bytes", maxStringLen)
		}
	case cupid.KindStrings:
		if len(v.Strings) > maxListLen {
			return invalid(prefix+name, "more than %d items", maxListLen)
		}
		for i, s := range v.Strings {
			if len(s) > maxStringLen {
				return invalid(fmt.Sprintf("%s%s[%d]", prefix, name, i), "longer than %d bytes", maxStringLen)
			}
		}
	}
	return nil
}

func kindName(k cupid.ValueKind) string {
	switch k {
	case cupid.KindNumber:
		return TypeNumber
	case cupid.KindString:
		return TypeString
	case cupid.KindStrings:
		return "list of strings"
	}
	return "value"
}

func checkID(field, id string) error {
	if id == "" {
		return invalid(field, "is required")
	}
	if len(id) > maxIDLen {
		return invalid(field, "longer than %d bytes", maxIDLen)
	}
	return nil
}

// checkModel validates a whole model before anything changes.
func (s *schema) checkModel(m *Model) error {
	if err := checkID("player_id", m.PlayerID); err != nil {
		return err
	}
	if len(m.Entries) > s.cfg.MaxEntriesPerPlayer {
		if s.cfg.AllowMultipleEntriesPerPlayer {
			return invalid("entries", "at most %d entries, got %d", s.cfg.MaxEntriesPerPlayer, len(m.Entries))
		}
		return invalid("entries", "one entry per player unless allow_multiple_entries_per_player is set, got %d", len(m.Entries))
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		f := fmt.Sprintf("entries[%d]", i)
		if !cupid.Finite(e.MMR) {
			return invalid(f+".mmr", "must be a finite number, got %v", e.MMR)
		}
		if err := firstBadAttribute(f+".attributes.", e.Attributes, s.attrIndex, s.attrs, "attribute"); err != nil {
			return err
		}
		for si := range s.strategies {
			st := &s.strategies[si]
			a := &s.attrs[st.attr]
			v, ok := e.Attributes[a.name]
			af := f + ".attributes." + a.name
			if !ok {
				return invalid(af, "is required: it is the label of strategy %q", st.name)
			}
			if st.order != nil {
				if _, ok := st.order[v.String]; !ok {
					return invalid(af, "%q is not in the order of strategy %q", v.String, st.name)
				}
			}
		}
	}
	return nil
}

// checkQuery validates a query before anything changes.
func (s *schema) checkQuery(q *Query) error {
	if err := checkID("attacker_id", q.AttackerID); err != nil {
		return err
	}
	if !cupid.Finite(q.MMR) {
		return invalid("mmr", "must be a finite number, got %v", q.MMR)
	}
	if q.Retries < 0 {
		return invalid("retries", "must not be negative, got %d", q.Retries)
	}
	if len(q.Exclude) > s.cfg.MaxExcluded {
		return invalid("exclude", "at most %d ids, got %d", s.cfg.MaxExcluded, len(q.Exclude))
	}
	if err := firstBadAttribute("attributes.", q.Attributes, s.qattrIndex, s.qattrs, "query attribute"); err != nil {
		return err
	}
	for si := range s.strategies {
		st := &s.strategies[si]
		a := &s.qattrs[st.qattr]
		v, ok := q.Attributes[a.name]
		if !ok {
			if st.hard {
				return invalid("attributes."+a.name, "is required: it is the label of hard strategy %q", st.name)
			}
			continue
		}
		if st.order != nil {
			if _, ok := st.order[v.String]; !ok {
				return invalid("attributes."+a.name, "%q is not in the order of strategy %q", v.String, st.name)
			}
		}
	}
	return nil
}

// firstBadAttribute checks a map of attributes against their declarations.
// When several are wrong it reports the one with the smallest name, so the
// error does not depend on Go's map order, and it sorts nothing when all are
// right (the common case, on the query path).
func firstBadAttribute(prefix string, attrs map[string]cupid.Value, index map[string]int, specs []attrSpec, what string) error {
	var badName string
	var bad error
	for name, v := range attrs {
		if bad != nil && name >= badName {
			continue
		}
		var err error
		if i, ok := index[name]; !ok {
			err = invalid(prefix+name, "is not a declared %s", what)
		} else {
			err = checkValue(prefix, name, specs[i].kind, v)
		}
		if err != nil {
			badName, bad = name, err
		}
	}
	return bad
}
