package cupid

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits on a ticket's size. They keep one request from costing the server
// more than a small, predictable amount of memory and time.
const (
	MaxPlayersPerTicket = 100
	MaxAttributes       = 64
	MaxListItems        = 64
	MaxRegions          = 64
	MaxIDLength         = 128
	MaxStringLength     = 256
	MaxLatencyMs        = 60_000
)

// Validate checks what no ruleset can make valid, naming the field at
// fault: sizes, lengths, UTF-8, finite numbers, no player twice. It is the
// one ruleset-independent gate of a ticket; the engine's Check does the rest
// (party size against the team size, attributes a rule needs).
func (t *Ticket) Validate() error {
	if err := checkString("queue", t.Key.Queue, MaxIDLength, true); err != nil {
		return err
	}
	if err := checkString("request_id", t.RequestID, MaxIDLength, false); err != nil {
		return err
	}
	if err := checkString("version", t.Key.Version, MaxIDLength, false); err != nil {
		return err
	}
	if err := checkString("custom_key", t.Key.Custom, MaxIDLength, false); err != nil {
		return err
	}
	if len(t.Players) == 0 {
		return Invalid("players", "a ticket needs at least one player")
	}
	if len(t.Players) > MaxPlayersPerTicket {
		return Invalid("players", "at most %d players per ticket, got %d", MaxPlayersPerTicket, len(t.Players))
	}
	seen := make(map[string]int, len(t.Players))
	for i, p := range t.Players {
		f := fmt.Sprintf("players[%d]", i)
		if err := checkString(f+".id", p.ID, MaxIDLength, true); err != nil {
			return err
		}
		if j, dup := seen[p.ID]; dup {
			return Invalid(f+".id", "player %q is already players[%d]", p.ID, j)
		}
		seen[p.ID] = i
		if err := checkAttributes(f+".attributes", p.Attributes); err != nil {
			return err
		}
	}
	if err := checkAttributes("attributes", t.Attributes); err != nil {
		return err
	}
	if len(t.Latencies) > MaxRegions {
		return Invalid("latencies", "at most %d regions, got %d", MaxRegions, len(t.Latencies))
	}
	for _, region := range SortedKeys(t.Latencies) {
		f := "latencies." + region
		if err := checkString("latencies", region, MaxIDLength, true); err != nil {
			return Invalid("latencies", "region names must be 1 to %d characters", MaxIDLength)
		}
		if ms := t.Latencies[region]; ms < 0 || ms > MaxLatencyMs {
			return Invalid(f, "must be between 0 and %d ms, got %d", MaxLatencyMs, ms)
		}
	}
	return nil
}

func checkAttributes(field string, attrs Attributes) error {
	if len(attrs) > MaxAttributes {
		return Invalid(field, "at most %d attributes, got %d", MaxAttributes, len(attrs))
	}
	// Attributes are sorted by name, so the first bad one is reported as
	// when the names of a map were sorted.
	for i, a := range attrs {
		name, v := a.Name, a.Value
		if i > 0 && attrs[i-1].Name >= name {
			// Only a Go caller that built the slice by hand gets here:
			// the API and JSON decoding sort and refuse duplicates.
			return Invalid(field+"."+name, "out of order or given twice: build attributes with NewAttributes")
		}
		f := field + "." + name
		if name == "" || len(name) > MaxIDLength || !utf8.ValidString(name) {
			return Invalid(field, "attribute names must be 1 to %d characters of UTF-8", MaxIDLength)
		}
		switch v.Kind {
		case KindNumber:
			if !Finite(v.Number) {
				return Invalid(f, "must be a finite number, got %v", v.Number)
			}
		case KindString:
			if err := checkString(f, v.String, MaxStringLength, false); err != nil {
				return err
			}
		case KindStrings:
			if len(v.Strings) > MaxListItems {
				return Invalid(f, "at most %d items, got %d", MaxListItems, len(v.Strings))
			}
			for i, s := range v.Strings {
				if err := checkString(fmt.Sprintf("%s[%d]", f, i), s, MaxStringLength, false); err != nil {
					return err
				}
			}
		case KindBool:
		case KindNumbers:
			if err := checkNumbers(f, v.Map); err != nil {
				return err
			}
		default:
			return Invalid(f, "must be a number, a boolean, a string, a list of strings or a map of numbers")
		}
	}
	return nil
}

// checkNumbers checks a map of numbers as a list is checked: at most
// MaxListItems keys, each a string a list could hold, each value finite. The
// field of a bad entry is the path a rule reads it by (skills.sword).
func checkNumbers(field string, m map[string]float64) error {
	if len(m) > MaxListItems {
		return Invalid(field, "at most %d keys, got %d", MaxListItems, len(m))
	}
	for _, k := range SortedKeys(m) {
		if k == "" {
			return Invalid(field, "map keys must not be empty")
		}
		if err := checkString(field+"."+k, k, MaxStringLength, true); err != nil {
			return err
		}
		if !Finite(m[k]) {
			return Invalid(field+"."+k, "must be a finite number, got %v", m[k])
		}
	}
	return nil
}

func checkString(field, s string, max int, required bool) error {
	switch {
	case required && s == "":
		return Invalid(field, "required")
	case len(s) > max:
		return Invalid(field, "at most %d bytes, got %d", max, len(s))
	case !utf8.ValidString(s):
		return Invalid(field, "must be valid UTF-8")
	case strings.IndexByte(s, 0) >= 0:
		// PostgreSQL cannot store a NUL in text, and no name needs one:
		// refuse it here so that every store agrees.
		return Invalid(field, "must not contain a NUL character")
	}
	return nil
}

// SameRequest reports whether o asks for what t asked for: the same queue
// key, players with the same attributes in the same order, the same
// ticket attributes and latencies. A retry under a request id must be the
// same request; anything else reusing the id is a client bug to refuse.
func (t *Ticket) SameRequest(o *Ticket) bool {
	if t.Key != o.Key || len(t.Players) != len(o.Players) || !sameAttributes(t.Attributes, o.Attributes) ||
		!maps.Equal(t.Latencies, o.Latencies) {
		return false
	}
	for i := range t.Players {
		if t.Players[i].ID != o.Players[i].ID || !sameAttributes(t.Players[i].Attributes, o.Players[i].Attributes) {
			return false
		}
	}
	return true
}

func sameAttributes(a, b Attributes) bool {
	return slices.EqualFunc(a, b, func(x, y Attribute) bool {
		return x.Name == y.Name && x.Value.Kind == y.Value.Kind && x.Value.Number == y.Value.Number &&
			x.Value.String == y.Value.String && x.Value.Bool == y.Value.Bool && slices.Equal(x.Value.Strings, y.Value.Strings) &&
			maps.Equal(x.Value.Map, y.Value.Map)
	})
}

// ListLimit checks the limit of a listing of tickets or matches: 100 when
// unset, 1,000 at most, so that no call reads or answers without bound.
func ListLimit(n int) (int, error) {
	switch {
	case n < 0:
		return 0, Invalid("limit", "must not be negative")
	case n == 0:
		return 100, nil
	case n > 1000:
		return 0, Invalid("limit", "at most 1000, got %d", n)
	}
	return n, nil
}
