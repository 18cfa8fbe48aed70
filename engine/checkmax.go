package engine

import (
	"fmt"
	"math"

	"github.com/cupid-match/cupid"
)

// checkMax refuses a value a matching rule reads that lies beyond the
// rule's max, the attribute's largest value: |value| > max. Such a value
// breaks the normalisation max sets up for balancing and scoring, and a
// client sending mmr 1e300 should hear so at create rather than wait out
// its time to live. Rules without a max accept any finite number.
func checkMax(t *cupid.Ticket, i int, d distRule) error {
	if d.max <= 0 {
		return nil
	}
	v, err := number(t, i, d.attr, d.path)
	if err != nil || math.Abs(v) <= d.max {
		return err
	}
	field := fmt.Sprintf("players[%d].attributes.%s", i, d.attr)
	if v > 0 {
		return cupid.Invalid(field, "%v is above the rule's max %v (%s): max is the attribute's largest value", v, d.max, d.path)
	}
	return cupid.Invalid(field, "%v is below -%v, beyond the rule's max %v (%s): max bounds the attribute's magnitude", v, d.max, d.max, d.path)
}
