package config

import (
	"errors"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/pairing"
)

// Pairing sets the limits of speed-dating events and the settings an event
// gets when its organiser leaves them out. Every field may be absent from
// the file; an absent (zero) one takes the pairing service's default
// (pairingsvc.Limits), which docs/pairing.md lists.
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

// check refuses the values the pairing package could not honour, naming
// the field, and reports them to doc. It leaves absent values zero, for
// the service to default.
func (p *Pairing) check(doc *document) {
	if p.MaxEvents < 0 {
		doc.report(cupid.Invalid("pairing.max_events", "must not be negative, got %d", p.MaxEvents))
	}
	if p.MaxParticipants < 0 || p.MaxParticipants > pairing.MaxPeople {
		doc.report(cupid.Invalid("pairing.max_participants", "must be between 1 and %d, got %d", pairing.MaxPeople, p.MaxParticipants))
	}
	if !doc.known("pairing.defaults") {
		return // the pairing package checks them together
	}
	// Each default given must make a valid event with any room count; the
	// others stand at a valid value of their own so that an error can only
	// be about one that was given. Each is tried alone first, so that every
	// bad one is reported, then all together.
	d := p.Defaults
	base := pairing.Config{Rooms: 1, Round: time.Minute, Countdown: 0, MinLobby: 2}
	all, bad := base, false
	for _, set := range []func(*pairing.Config) bool{
		func(c *pairing.Config) bool { c.Round = time.Duration(d.Round); return d.Round != 0 },
		func(c *pairing.Config) bool { c.Countdown = time.Duration(d.Countdown); return d.Countdown != 0 },
		func(c *pairing.Config) bool { c.MinLobby = d.MinLobby; return d.MinLobby != 0 },
	} {
		one := base
		if !set(&one) {
			continue
		}
		set(&all)
		if err := one.Validate(); err != nil {
			p.reportDefault(doc, err)
			bad = true
		}
	}
	if !bad {
		p.reportDefault(doc, all.Validate())
	}
}

// reportDefault reports a problem of the pairing defaults at its setting.
func (p *Pairing) reportDefault(doc *document, err error) {
	var e *cupid.Error
	if errors.As(err, &e) {
		doc.report(cupid.Invalid("pairing.defaults."+e.Field, "%s", e.Message))
		return
	}
	doc.report(err)
}
