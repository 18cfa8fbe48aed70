package rating

import (
	"fmt"
	"math"
)

// League is a ladder of divisions over a rating, after War Robots' leagues:
// a player sits in one division, is promoted when his rating clears the
// next division's floor by Margin and demoted when it falls below his own
// floor by Margin, so that a player on a boundary does not bounce between
// two divisions game after game.
type League struct {
	// Divisions are in ascending order of Min; the first one's Min is
	// ignored (everyone below the second belongs to it).
	Divisions []Division
	// Margin is the hysteresis on both sides of a floor.
	Margin float64
}

// Division is one band of a league.
type Division struct {
	Name string
	Min  float64
}

// Validate reports a league that cannot place anyone: no divisions,
// floors out of order, names missing or repeated, a negative margin, or a
// margin so wide that a division could be skipped on the way up.
func (l League) Validate() error {
	if len(l.Divisions) == 0 {
		return fmt.Errorf("divisions: at least one is required")
	}
	if !(l.Margin >= 0) || math.IsInf(l.Margin, 0) {
		return fmt.Errorf("margin: must be a non-negative number, got %v", l.Margin)
	}
	seen := map[string]bool{}
	for i, d := range l.Divisions {
		if d.Name == "" {
			return fmt.Errorf("divisions[%d].name: required", i)
		}
		if seen[d.Name] {
			return fmt.Errorf("divisions[%d].name: %q is used twice", i, d.Name)
		}
		seen[d.Name] = true
		if i == 0 {
			continue
		}
		if !finite(d.Min) {
			return fmt.Errorf("divisions[%d].min: must be a finite number", i)
		}
		if i > 1 && d.Min <= l.Divisions[i-1].Min {
			return fmt.Errorf("divisions[%d].min: %v must be above the previous division's %v", i, d.Min, l.Divisions[i-1].Min)
		}
		if i > 1 && d.Min-l.Divisions[i-1].Min <= 2*l.Margin {
			return fmt.Errorf("divisions[%d].min: %v is within twice the margin (%v) of the previous floor, so the division between could never hold anyone", i, d.Min, l.Margin)
		}
	}
	return nil
}

// Initial is the division of a player placed for the first time: the
// highest whose floor his rating reaches, without margin.
func (l League) Initial(r float64) int {
	at := 0
	for i := 1; i < len(l.Divisions); i++ {
		if r >= l.Divisions[i].Min {
			at = i
		}
	}
	return at
}

// Place moves a player from division cur after his rating became r:
// up while he clears the next floor by the margin, down while he is below
// his own floor by the margin. A result can move him several divisions
// when his rating moved that far.
func (l League) Place(cur int, r float64) int {
	cur = min(max(cur, 0), len(l.Divisions)-1)
	for cur+1 < len(l.Divisions) && r >= l.Divisions[cur+1].Min+l.Margin {
		cur++
	}
	for cur > 0 && r < l.Divisions[cur].Min-l.Margin {
		cur--
	}
	return cur
}
