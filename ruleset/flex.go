package ruleset

import (
	"math"
	"sort"
	"time"
)

// maxFlexSeconds bounds every flexing duration: a rule that relaxes after
// more than a day is a mistake, and the bound keeps durations far from
// overflow.
const maxFlexSeconds = 24 * 60 * 60

// Step is one point of a Schedule: from wait After onwards, the value is
// Value (until the next step).
type Step struct {
	After time.Duration
	Value float64
}

// Schedule is a number that changes with a ticket's wait: the value of the
// last step whose After is at or below the wait. A compiled schedule always
// starts with a step at 0 and has strictly increasing After values, so the
// engine can ask for the value at any wait and for the next change.
type Schedule []Step

// constant is a schedule that never changes.
func constant(v float64) Schedule { return Schedule{{Value: v}} }

// At returns the value in force after waiting wait.
func (s Schedule) At(wait time.Duration) float64 {
	// Schedules are short (a handful of steps), so a linear scan from the
	// end is as fast as a binary search and simpler.
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].After <= wait {
			return s[i].Value
		}
	}
	if len(s) == 0 {
		return 0
	}
	return s[0].Value
}

// Next returns the first wait strictly after wait at which the value
// changes, and false if it never changes again.
func (s Schedule) Next(wait time.Duration) (time.Duration, bool) {
	if len(s) == 0 {
		return 0, false
	}
	// The first step is the starting value, not a change.
	for _, st := range s[1:] {
		if st.After > wait {
			return st.After, true
		}
	}
	return 0, false
}

// Final is the value once every step has passed: the most relaxed the rule
// gets.
func (s Schedule) Final() float64 {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1].Value
}

// seconds turns a ruleset's whole-second duration into a time.Duration.
func seconds(s int) time.Duration { return time.Duration(s) * time.Second }

// flexSchedule builds a schedule from a base value and {duration, value}
// steps. Validation has already made durations increase; the sort is only a
// guard so that a Schedule is well-formed even for an unvalidated input.
func flexSchedule(base float64, steps []Flex) Schedule {
	s := Schedule{{Value: base}}
	for _, f := range steps {
		s = append(s, Step{After: seconds(f.Duration), Value: f.Value})
	}
	return normalise(s)
}

// normalise sorts steps by time, keeps the last of steps at the same time and
// drops steps that change nothing, so Next never reports a change that is
// not one.
func normalise(s Schedule) Schedule {
	sort.SliceStable(s, func(i, j int) bool { return s[i].After < s[j].After })
	out := s[:0]
	for _, st := range s {
		if st.After < 0 {
			st.After = 0
		}
		if n := len(out); n > 0 && out[n-1].After == st.After {
			out[n-1] = st
			continue
		}
		if n := len(out); n > 0 && sameValue(out[n-1].Value, st.Value) {
			continue
		}
		out = append(out, st)
	}
	return out
}

func sameValue(a, b float64) bool {
	return a == b || (math.IsInf(a, 1) && math.IsInf(b, 1)) || (math.IsInf(a, -1) && math.IsInf(b, -1))
}

// AllianceStep is the team layout in force from wait After onwards.
type AllianceStep struct {
	After time.Duration
	Alliance
}

// allianceSchedule resolves alliance_flexing_rule: each step starts from the
// one before it and overrides the numbers it sets.
func allianceSchedule(rs *Ruleset) []AllianceStep {
	steps := []AllianceStep{{Alliance: rs.Alliance}}
	flex := append([]AllianceFlex(nil), rs.AllianceFlexingRule...)
	sort.SliceStable(flex, func(i, j int) bool { return flex[i].Duration < flex[j].Duration })
	for _, f := range flex {
		a := steps[len(steps)-1].Alliance
		if f.MinNumber != 0 {
			a.MinNumber = f.MinNumber
		}
		if f.MaxNumber != 0 {
			a.MaxNumber = f.MaxNumber
		}
		if f.PlayerMinNumber != 0 {
			a.PlayerMinNumber = f.PlayerMinNumber
		}
		if f.PlayerMaxNumber != 0 {
			a.PlayerMaxNumber = f.PlayerMaxNumber
		}
		at := seconds(f.Duration)
		if last := &steps[len(steps)-1]; last.After == at {
			last.Alliance = a
			continue
		}
		if a == steps[len(steps)-1].Alliance {
			continue
		}
		steps = append(steps, AllianceStep{After: at, Alliance: a})
	}
	return steps
}

// minDistanceSchedule resolves the min_distance of one matching rule and of
// the flexing steps that name it; nil when the rule has none.
func minDistanceSchedule(m MatchingRule, flex []FlexingRule) Schedule {
	if m.MinDistance == nil {
		return nil
	}
	s := Schedule{{Value: *m.MinDistance}}
	for _, f := range flex {
		if f.Attribute == m.Attribute && f.Criteria == m.Criteria && f.MinDistance != nil {
			s = append(s, Step{After: seconds(f.Duration), Value: *f.MinDistance})
		}
	}
	return normalise(s)
}

// referenceSchedule resolves flexing_rule for one matching rule: the steps
// that name its attribute and criteria, in time order.
func referenceSchedule(m MatchingRule, flex []FlexingRule) Schedule {
	s := Schedule{{Value: m.Reference}}
	for _, f := range flex {
		if f.Attribute == m.Attribute && f.Criteria == m.Criteria {
			s = append(s, Step{After: seconds(f.Duration), Value: f.Reference})
		}
	}
	return normalise(s)
}
