package opponent

import "github.com/cupid-match/cupid"

// MaxNameBytes bounds finder and player table names: they appear in store
// kinds, metric labels and URLs.
const MaxNameBytes = 64

// CheckName accepts a finder or player table name of 1 to MaxNameBytes
// letters, digits, '_' and '-', which are safe in store kinds, metric labels
// and URLs alike; field names it in the error. The configuration loader and
// the opponent service both check names with it.
func CheckName(field, name string) error {
	if name == "" {
		return cupid.Invalid(field, "is required")
	}
	if len(name) > MaxNameBytes {
		return cupid.Invalid(field, "longer than %d bytes", MaxNameBytes)
	}
	for _, r := range name {
		ok := r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return cupid.Invalid(field, "%q may hold only letters, digits, '_' and '-'", name)
		}
	}
	return nil
}
