package config

import (
	"errors"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/pairing"
)

// Pairing sets the limits of speed-dating events and the settings an event
// gets when its organiser leaves them out. Every field may be absent from
// the file; check fills in the defaults below.
//
//	pairing:
//	  max_events: 10000
//	  max_participants: 20000
//	  defaults: {round: 5m, countdown: 30s, min_lobby: 2}
type Pairing struct {
	// MaxEvents bounds the events one server runs side by side, so that
	// creating events cannot exhaust its memory.
	MaxEvents int `yaml:"max_events"`
	// MaxParticipants bounds the people one event knows, present or
	// departed: a departed person's record is kept for their return, so it
	// costs memory and store space like a present one.
	MaxParticipants int `yaml:"max_participants"`
	// Defaults are the settings of an event whose organiser leaves them
	// out (zero in the request).
	Defaults PairingDefaults `yaml:"defaults"`
}

// PairingDefaults are the event settings used when a CreateEvent request
// leaves one out. Rooms has no default: how many private rooms a world has
// is something only the organiser knows.
type PairingDefaults struct {
	// Round is how long a pair stays in its room.
	Round Duration `yaml:"round"`
	// Countdown is the wait between enough people being in the lobby and
	// the round being computed, so that stragglers are included.
	Countdown Duration `yaml:"countdown"`
	// MinLobby is how many people must wait in the lobby for a countdown
	// to start.
	MinLobby int `yaml:"min_lobby"`
}

// The defaults of the pairing section.
const (
	// DefaultMaxEvents leaves ten times the 1,000 events side by side the
	// server is measured with.
	DefaultMaxEvents = 10_000
	// DefaultMaxParticipants leaves room for the 10,000-person round the
	// server is measured with, plus as many who came and went.
	DefaultMaxParticipants = 20_000
	// DefaultRound is a usual speed-dating date.
	DefaultRound = 5 * time.Minute
	// DefaultCountdown gives stragglers time to reach the lobby.
	DefaultCountdown = 30 * time.Second
	// DefaultMinLobby is the smallest lobby that can form a pair.
	DefaultMinLobby = 2
)

// check fills in the defaults and refuses limits the pairing package could
// not honour, naming the field.
func (p *Pairing) check() error {
	switch {
	case p.MaxEvents < 0:
		return cupid.Invalid("pairing.max_events", "must not be negative")
	case p.MaxEvents == 0:
		p.MaxEvents = DefaultMaxEvents
	}
	switch {
	case p.MaxParticipants < 0 || p.MaxParticipants > pairing.MaxPeople:
		return cupid.Invalid("pairing.max_participants", "must be between 1 and %d, got %d", pairing.MaxPeople, p.MaxParticipants)
	case p.MaxParticipants == 0:
		p.MaxParticipants = DefaultMaxParticipants
	}
	d := &p.Defaults
	if d.Round == 0 {
		d.Round = Duration(DefaultRound)
	}
	if d.Countdown == 0 {
		d.Countdown = Duration(DefaultCountdown)
	}
	if d.MinLobby == 0 {
		d.MinLobby = DefaultMinLobby
	}
	// The defaults must make a valid event with any room count.
	cfg := pairing.Config{Rooms: 1, Round: time.Duration(d.Round), Countdown: time.Duration(d.Countdown), MinLobby: d.MinLobby}
	if err := cfg.Validate(); err != nil {
		var e *cupid.Error
		if errors.As(err, &e) {
			return cupid.Invalid("pairing.defaults."+e.Field, "%s", e.Message)
		}
		return err
	}
	return nil
}

// WithDefaults returns the section with every absent field filled in, for
// callers that build a Pairing in code rather than load it from a file.
func (p Pairing) WithDefaults() (Pairing, error) {
	err := p.check()
	return p, err
}
