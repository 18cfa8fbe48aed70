package pairingsvc

import (
	"errors"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/pairing"
)

// Limits bound what the service runs and give the settings an event gets
// when its organiser leaves them out. Every field may be zero: it then
// takes the default written beside it.
type Limits struct {
	// MaxEvents bounds the events the service runs side by side, so that
	// creating events cannot exhaust the server's memory. Default
	// DefaultMaxEvents.
	MaxEvents int
	// MaxParticipants bounds the people one event knows, present or gone:
	// a gone person's record is kept for their return, so it costs memory
	// and store space like a present one. Default DefaultMaxParticipants;
	// at most pairing.MaxPeople.
	MaxParticipants int
	// Defaults are the settings of an event whose organiser leaves them
	// out (zero in the request).
	Defaults Defaults
}

// Defaults are the event settings used when a CreateEvent request leaves
// one out. Rooms has no default: how many private rooms a world has is
// something only the organiser knows.
type Defaults struct {
	// Round is how long a pair stays in its room. Default DefaultRound;
	// at most pairing.MaxRound.
	Round time.Duration
	// Countdown is the wait between enough people being in the lobby and
	// the round being computed, so that stragglers are included. Default
	// DefaultCountdown; at most pairing.MaxCountdown.
	Countdown time.Duration
	// MinLobby is how many people must wait in the lobby for a countdown
	// to start. Default DefaultMinLobby; at least 2.
	MinLobby int
}

// The defaults of Limits.
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

// WithDefaults returns the limits with every zero field set to its default,
// or an invalid-argument error naming the first field the pairing package
// could not honour ("max_events", "defaults.round" …).
func (l Limits) WithDefaults() (Limits, error) {
	switch {
	case l.MaxEvents < 0:
		return l, cupid.Invalid("max_events", "must not be negative, got %d", l.MaxEvents)
	case l.MaxEvents == 0:
		l.MaxEvents = DefaultMaxEvents
	}
	switch {
	case l.MaxParticipants < 0 || l.MaxParticipants > pairing.MaxPeople:
		return l, cupid.Invalid("max_participants", "must be between 1 and %d, got %d", pairing.MaxPeople, l.MaxParticipants)
	case l.MaxParticipants == 0:
		l.MaxParticipants = DefaultMaxParticipants
	}
	d := &l.Defaults
	if d.Round == 0 {
		d.Round = DefaultRound
	}
	if d.Countdown == 0 {
		d.Countdown = DefaultCountdown
	}
	if d.MinLobby == 0 {
		d.MinLobby = DefaultMinLobby
	}
	// The defaults must make a valid event with any room count.
	cfg := pairing.Config{Rooms: 1, Round: d.Round, Countdown: d.Countdown, MinLobby: d.MinLobby}
	if err := cfg.Validate(); err != nil {
		var e *cupid.Error
		if errors.As(err, &e) {
			return l, cupid.Invalid("defaults."+e.Field, "%s", e.Message)
		}
		return l, err
	}
	return l, nil
}
