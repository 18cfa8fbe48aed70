package matchmaker

import (
	"fmt"
	"unicode/utf8"

	cupid "github.com/cupid-match/cupid"
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

// validateTicket checks what no ruleset can make valid; the engine checks
// the rest (party size against the team size, attributes a rule needs).
func validateTicket(t *cupid.Ticket) error {
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
		return cupid.Invalid("players", "a ticket needs at least one player")
	}
	if len(t.Players) > MaxPlayersPerTicket {
		return cupid.Invalid("players", "at most %d players per ticket, got %d", MaxPlayersPerTicket, len(t.Players))
	}
	seen := make(map[string]int, len(t.Players))
	for i, p := range t.Players {
		f := fmt.Sprintf("players[%d]", i)
		if err := checkString(f+".id", p.ID, MaxIDLength, true); err != nil {
			return err
		}
		if j, dup := seen[p.ID]; dup {
			return cupid.Invalid(f+".id", "player %q is already players[%d]", p.ID, j)
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
		return cupid.Invalid("latencies", "at most %d regions, got %d", MaxRegions, len(t.Latencies))
	}
	for _, region := range cupid.SortedKeys(t.Latencies) {
		f := "latencies." + region
		if err := checkString("latencies", region, MaxIDLength, true); err != nil {
			return cupid.Invalid("latencies", "region names must be 1 to %d characters", MaxIDLength)
		}
		if ms := t.Latencies[region]; ms < 0 || ms > MaxLatencyMs {
			return cupid.Invalid(f, "must be between 0 and %d ms, got %d", MaxLatencyMs, ms)
		}
	}
	return nil
}

func checkAttributes(field string, attrs cupid.Attributes) error {
	if len(attrs) > MaxAttributes {
		return cupid.Invalid(field, "at most %d attributes, got %d", MaxAttributes, len(attrs))
	}
	// Attributes are sorted by name, so the first bad one is reported as
	// when the names of a map were sorted.
	for i, a := range attrs {
		name, v := a.Name, a.Value
		if i > 0 && attrs[i-1].Name >= name {
			// Only a Go caller that built the slice by hand gets here:
			// the API and JSON decoding sort and refuse duplicates.
			return cupid.Invalid(field+"."+name, "out of order or given twice: build attributes with cupid.NewAttributes")
		}
		f := field + "." + name
		if name == "" || len(name) > MaxIDLength || !utf8.ValidString(name) {
			return cupid.Invalid(field, "attribute names must be 1 to %d characters of UTF-8", MaxIDLength)
		}
		switch v.Kind {
		case cupid.KindNumber:
			if !cupid.Finite(v.Number) {
				return cupid.Invalid(f, "must be a finite number, got %v", v.Number)
			}
		case cupid.KindString:
			if err := checkString(f, v.String, MaxStringLength, false); err != nil {
				return err
			}
		case cupid.KindStrings:
			if len(v.Strings) > MaxListItems {
				return cupid.Invalid(f, "at most %d items, got %d", MaxListItems, len(v.Strings))
			}
			for i, s := range v.Strings {
				if err := checkString(fmt.Sprintf("%s[%d]", f, i), s, MaxStringLength, false); err != nil {
					return err
				}
			}
		default:
			return cupid.Invalid(f, "must be a number, a string or a list of strings")
		}
	}
	return nil
}

func checkString(field, s string, max int, required bool) error {
	switch {
	case required && s == "":
		return cupid.Invalid(field, "required")
	case len(s) > max:
		return cupid.Invalid(field, "at most %d bytes, got %d", max, len(s))
	case !utf8.ValidString(s):
		return cupid.Invalid(field, "must be valid UTF-8")
	}
	return nil
}
