package pairing

import (
	"errors"
	"time"
	"unicode/utf8"

	"github.com/cupid-match/cupid"
)

// Limits on inputs, so that no request can make an event unboundedly large.
const (
	// MaxRooms bounds Config.Rooms; 50,000 rooms seat 100,000 people.
	MaxRooms = 50_000
	// MaxPeople bounds the people an event knows, present or departed (a
	// departed person's record is kept for their return).
	MaxPeople = 100_000
	// MaxKeyBytes bounds a participant key; display names are short.
	MaxKeyBytes = 128
	// MaxRound bounds Config.Round.
	MaxRound = 24 * time.Hour
	// MaxCountdown bounds Config.Countdown.
	MaxCountdown = time.Hour
	// MaxGroupBytes bounds a participant's group or side name.
	MaxGroupBytes = 64
	// MaxNever bounds one person's "never pair me with" list: it is
	// private and grows only by that person's own calls, but every entry
	// costs memory and store space.
	MaxNever = 100
	// MaxImport bounds the entries of one ImportHistory call.
	MaxImport = 10_000
	// MaxBarred bounds one person's barred list (SetBarred): the server's
	// block list (at most 1,000) and the people met in earlier events of
	// the series fit in it.
	MaxBarred = 5_000
	// MaxSeriesBytes bounds Config.Series.
	MaxSeriesBytes = 64
	// MaxDatesCap bounds Config.MaxDates: with a window, each person keeps
	// the start of that many dates, and the event's snapshot is rewritten
	// at every call.
	MaxDatesCap = 100
	// MaxDatesWindow bounds Config.DatesWindow: a day is longer than any
	// event; beyond it the cap counts the whole event anyway.
	MaxDatesWindow = 24 * time.Hour
)

// Mode says who may be paired with whom, beyond the met records.
type Mode string

// The modes of an event.
const (
	// ModeOpen pairs anyone with anyone (the VRChat world's rule).
	ModeOpen Mode = "open"
	// ModeTwoSided is classic speed dating: every participant is on one
	// of the two Sides, pairs are only across sides, and people of the
	// first side keep their room from round to round while the second
	// side moves.
	ModeTwoSided Mode = "two_sided"
	// ModeWithinGroup pairs only people of the same group.
	ModeWithinGroup Mode = "within_group"
	// ModeCrossGroup pairs only people of different groups.
	ModeCrossGroup Mode = "cross_group"
)

// grouped reports whether participants need a group in this mode.
func (m Mode) grouped() bool { return m == ModeTwoSided || m == ModeWithinGroup || m == ModeCrossGroup }

// Config is what an organiser chooses when creating an event.
type Config struct {
	// Rooms is the number of private rooms (at least 1). Rooms are numbered
	// from 1.
	Rooms int `json:"rooms"`
	// Round is how long a pair stays in its room.
	Round time.Duration `json:"round"`
	// Countdown is the wait between enough people being in the lobby and the
	// round being computed, so that stragglers can join in. Zero computes the
	// round at once.
	Countdown time.Duration `json:"countdown"`
	// MinLobby is how many people must be in the lobby to start a countdown
	// (at least 2).
	MinLobby int `json:"min_lobby"`

	// Mode restricts pairs by group; empty means ModeOpen. It is fixed
	// when the event is created.
	Mode Mode `json:"mode,omitempty"`
	// Sides names the two sides of a two-sided event (the first stays in
	// its rooms, the second moves); empty in other modes.
	Sides []string `json:"sides,omitempty"`
	// Trios seats one leftover person with a pair, as a trio of three who
	// have never met, instead of sitting them out (at most one trio a
	// round).
	Trios bool `json:"trios,omitempty"`
	// MinDate is the least time a date lasts: a participant cannot leave
	// a date for the lobby, nor the organiser end the round, before it
	// has lasted this long (leaving the event stays possible, as a crash
	// must). Zero means no minimum; at most Round.
	MinDate time.Duration `json:"min_date,omitempty"`
	// Extension is how much longer a date lasts when both partners ask
	// for more time (once a date); zero turns extensions off.
	Extension time.Duration `json:"extension,omitempty"`
	// RevealAt is when mutual "would meet again" answers are revealed;
	// zero means when the organiser calls Reveal.
	RevealAt time.Time `json:"reveal_at,omitzero"`
	// Series names the series of events this one belongs to (a weekly
	// speed-dating night): nobody is paired with someone they met in an
	// earlier event of the series. The event itself only stores the
	// name; the server reads the earlier meetings from the encounter
	// history and hands them in with SetBarred. Empty: a standalone
	// event.
	Series string `json:"series,omitempty"`
	// MaxDates caps how often one person is seated, so that whoever the
	// rounds keep choosing (the short side of an uneven two-sided event,
	// someone everybody else has yet to meet) is not on dates round after
	// round: a person who has had MaxDates dates within the last
	// DatesWindow sits the round out, and with no window, for the rest of
	// the event. Zero: no cap. A trio counts as a date for all three; an
	// extended date counts once.
	MaxDates int `json:"max_dates,omitempty"`
	// DatesWindow is the window MaxDates counts in (at most a day); zero
	// counts the whole event. Only with MaxDates.
	DatesWindow time.Duration `json:"dates_window,omitempty"`
}

// mode returns the event's mode, ModeOpen when unset.
func (c Config) mode() Mode {
	if c.Mode == "" {
		return ModeOpen
	}
	return c.Mode
}

// Validate reports the first unacceptable setting as a *cupid.Error naming
// its field ("rooms", "round", "countdown", "min_lobby").
func (c Config) Validate() error {
	switch {
	case c.Rooms < 1 || c.Rooms > MaxRooms:
		return cupid.Invalid("rooms", "must be between 1 and %d, got %d", MaxRooms, c.Rooms)
	case c.Round <= 0 || c.Round > MaxRound:
		return cupid.Invalid("round", "must be more than 0 and at most %v, got %v", MaxRound, c.Round)
	case c.Countdown < 0 || c.Countdown > MaxCountdown:
		return cupid.Invalid("countdown", "must be between 0 and %v, got %v", MaxCountdown, c.Countdown)
	case c.MinLobby < 2 || c.MinLobby > MaxPeople:
		return cupid.Invalid("min_lobby", "must be between 2 and %d, got %d", MaxPeople, c.MinLobby)
	case c.MinDate < 0 || c.MinDate > c.Round:
		return cupid.Invalid("min_date", "must be between 0 and the round's length %v, got %v", c.Round, c.MinDate)
	case c.Extension < 0 || c.Extension > MaxRound:
		return cupid.Invalid("extension", "must be between 0 and %v, got %v", MaxRound, c.Extension)
	case c.MaxDates < 0 || c.MaxDates > MaxDatesCap:
		return cupid.Invalid("max_dates", "must be between 0 (no cap) and %d, got %d", MaxDatesCap, c.MaxDates)
	case c.DatesWindow < 0 || c.DatesWindow > MaxDatesWindow:
		return cupid.Invalid("dates_window_seconds", "must be between 0 (the whole event) and %v, got %v", MaxDatesWindow, c.DatesWindow)
	case c.DatesWindow > 0 && c.MaxDates == 0:
		return cupid.Invalid("dates_window_seconds", "is the window of max_dates, which is not set")
	}
	if c.Series != "" {
		if len(c.Series) > MaxSeriesBytes {
			return cupid.Invalid("series", "must be at most %d bytes, got %d", MaxSeriesBytes, len(c.Series))
		}
		if err := checkKey(c.Series); err != nil {
			return cupid.Invalid("series", "%s", err.(*cupid.Error).Message)
		}
	}
	switch c.Mode {
	case "", ModeOpen, ModeWithinGroup, ModeCrossGroup:
		if len(c.Sides) > 0 {
			return cupid.Invalid("sides", "only a two_sided event has sides")
		}
	case ModeTwoSided:
		if c.Trios {
			return cupid.Invalid("trios", "a two_sided event pairs only across its two sides, so three people can never all meet")
		}
		if len(c.Sides) != 2 || c.Sides[0] == c.Sides[1] {
			return cupid.Invalid("sides", "a two_sided event needs two different side names, got %d", len(c.Sides))
		}
		for _, s := range c.Sides {
			if err := checkGroup(s); err != nil {
				return cupid.Invalid("sides", "%q: %s", s, err.(*cupid.Error).Message)
			}
		}
	default:
		return cupid.Invalid("mode", "must be open, two_sided, within_group or cross_group, got %q", c.Mode)
	}
	return nil
}

// checkGroup validates a group or side name: like a key, but shorter.
func checkGroup(g string) error {
	if len(g) > MaxGroupBytes {
		return cupid.Invalid("group", "must be at most %d bytes, got %d", MaxGroupBytes, len(g))
	}
	if err := checkKey(g); err != nil {
		var ce *cupid.Error
		errors.As(err, &ce)
		return cupid.Invalid("group", "%s", ce.Message)
	}
	return nil
}

// checkKey validates a participant key: non-empty, valid UTF-8, at most
// MaxKeyBytes, no control characters (it is shown to people and logged).
func checkKey(key string) error {
	if key == "" {
		return cupid.Invalid("participant", "must not be empty")
	}
	if len(key) > MaxKeyBytes {
		return cupid.Invalid("participant", "must be at most %d bytes, got %d", MaxKeyBytes, len(key))
	}
	if !utf8.ValidString(key) {
		return cupid.Invalid("participant", "must be valid UTF-8")
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return cupid.Invalid("participant", "must not contain control characters")
		}
	}
	return nil
}

// CheckKey reports whether key is acceptable as a participant key, as a
// *cupid.Error on the field "participant"; a server uses it to check a key
// before watching for it.
func CheckKey(key string) error { return checkKey(key) }
