package pairing

import (
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
)

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
