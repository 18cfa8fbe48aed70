package pairing

import (
	"slices"
	"time"
)

// The exposure cap (Config.MaxDates, Config.DatesWindow).
//
// Every round is a maximum matching that favours whoever sat out, so in a
// balanced lobby everyone is seated about as often. Not so when the lobby
// is uneven: the short side of a two-sided event (ten tables, twenty
// movers), or the few people whom everybody else has yet to meet, are the
// ones the matching needs, and they are seated round after round while
// the others take turns. The cap is the organiser's answer: nobody has
// more than MaxDates dates within DatesWindow (or in the whole event), and
// a round seats a capped person with nobody; he sits it out, is told why
// (the sat_out notification's Capped), and keeps his turn (a sit-out is
// a sit-out, so he comes first once the window lets him back).
//
// The rule is one pure function of a person's dates and the time, so the
// same calls replay to the same rounds.

// capState is what the cap reads of one person: how many dates he had in
// the event and, when the cap has a window, when the latest began (oldest
// first, at most MaxDates of them).
type capState struct {
	dates  int
	recent []time.Time
}

// capped reports whether a person with these dates may not be seated at
// now under cfg's cap, and, with a window, from when he may be again
// (zero when the cap lasts the whole event, or he is not capped). With a
// window, the person is capped when his MaxDates-th latest date began
// less than DatesWindow before now; he is free once that date leaves the
// window.
func (cfg Config) capped(s capState, now time.Time) (bool, time.Time) {
	if cfg.MaxDates == 0 {
		return false, time.Time{}
	}
	if cfg.DatesWindow == 0 {
		return s.dates >= cfg.MaxDates, time.Time{}
	}
	if len(s.recent) < cfg.MaxDates {
		return false, time.Time{}
	}
	free := s.recent[len(s.recent)-cfg.MaxDates].Add(cfg.DatesWindow)
	if !now.Before(free) {
		return false, time.Time{}
	}
	return true, free
}

// dated counts a date beginning at now, keeping the starts the window
// needs: the latest MaxDates, and none when the cap has no window (the
// count is enough then).
func (cfg Config) dated(s capState, now time.Time) capState {
	s.dates++
	if cfg.MaxDates == 0 || cfg.DatesWindow == 0 {
		s.recent = nil
		return s
	}
	s.recent = append(s.recent, now)
	if over := len(s.recent) - cfg.MaxDates; over > 0 {
		s.recent = slices.Delete(s.recent, 0, over)
	}
	return s
}

// Dates returns how many dates the participant has had in the event and
// false when the event has never known the key.
func (e *Event) Dates(key string) (int, bool) {
	p, ok := e.people[key]
	if !ok {
		return 0, false
	}
	return p.cap.dates, true
}
