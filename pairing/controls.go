package pairing

import (
	"slices"
	"time"

	"github.com/cupid-match/cupid"
)

// Organiser controls: a running event's settings can change, a round can be
// started or ended at once, and the whole event paused.

// Pause stops every timer: the countdown or round stays where it is, as do
// extended dates, and no countdown starts, until Resume. People may still
// join, leave and take breaks; a room left empty still frees up. The
// reveal of answers, being set by the clock, is not held back.
func (e *Event) Pause(now time.Time) ([]Notification, error) {
	e.begin(now)
	if e.paused {
		return e.failed(cupid.Conflict("", "the event is already paused"))
	}
	e.paused = true
	e.pausedAt = e.now
	e.tellAll(Notification{Kind: KindPaused, Round: e.round})
	return e.finish(), nil
}

// Resume runs the timers again: every deadline moves on by the time spent
// paused.
func (e *Event) Resume(now time.Time) ([]Notification, error) {
	e.begin(now)
	if !e.paused {
		return e.failed(cupid.Conflict("", "the event is not paused"))
	}
	shift := e.now.Sub(e.pausedAt)
	e.paused = false
	e.pausedAt = time.Time{}
	if e.phase != PhaseIdle {
		e.deadline = e.deadline.Add(shift)
	}
	if !e.roundStart.IsZero() {
		e.roundStart = e.roundStart.Add(shift)
	}
	for i := range e.rooms {
		if !e.rooms[i].until.IsZero() {
			e.rooms[i].until = e.rooms[i].until.Add(shift)
		}
	}
	e.tellAll(Notification{Kind: KindResumed, Round: e.round, Deadline: e.deadline})
	e.changed()
	return e.finish(), nil
}

// tellAll sends n to the organiser and to everyone in the lobby or a room.
func (e *Event) tellAll(n Notification) {
	e.notify(n)
	for _, k := range cupid.SortedKeys(e.people) {
		if s := e.people[k].state; s == StateLobby || s == StateRoom {
			m := n
			m.Participant = k
			e.notify(m)
		}
	}
}

// StartRound computes a round now, without waiting for the countdown (or
// for MinLobby people): the organiser's "start the round". It needs two
// people in the lobby, no round running and the event not paused.
func (e *Event) StartRound(now time.Time) ([]Notification, error) {
	e.begin(now)
	switch {
	case e.paused:
		return e.failed(cupid.Conflict("", "the event is paused; resume it first"))
	case e.phase == PhaseRound:
		return e.failed(cupid.Conflict("", "round %d runs until %s; end it first", e.round, e.deadline.Format(time.RFC3339)))
	case e.lobby < 2:
		return e.failed(cupid.Conflict("", "a round needs at least 2 people in the lobby, there are %d", e.lobby))
	}
	e.stale = false
	e.capWake = time.Time{}
	e.phase = PhaseCountdown
	e.deadline = e.now
	e.advance()
	return e.finish(), nil
}

// EndRound ends the running round now, extended dates included: the
// organiser's "time's up". Dates must have lasted Config.MinDate.
func (e *Event) EndRound(now time.Time) ([]Notification, error) {
	e.begin(now)
	if e.phase != PhaseRound {
		return e.failed(cupid.Conflict("", "no round is running"))
	}
	for i, pr := range e.rooms {
		if pr.A != "" {
			if left := e.minDateLeft(i + 1); left > 0 {
				return e.failed(cupid.Conflict("", "dates last at least %v; the round may end in %v", e.cfg.MinDate, left))
			}
		}
	}
	e.endRound(true)
	return e.finish(), nil
}

// UpdateConfig changes a running event's settings. Rooms, timers, MinLobby,
// Trios, MinDate, Extension and RevealAt may change; the new timers apply
// from the next countdown or round. Mode and Sides are fixed at creation,
// fewer rooms are refused while a room that would go is in use, and
// RevealAt cannot change once the answers are revealed. Errors name the
// setting.
func (e *Event) UpdateConfig(now time.Time, cfg Config) ([]Notification, error) {
	e.begin(now)
	if err := cfg.Validate(); err != nil {
		return e.failed(err)
	}
	switch {
	case cfg.mode() != e.cfg.mode():
		return e.failed(cupid.Conflict("mode", "is fixed when the event is created (%s)", e.cfg.mode()))
	case !slices.Equal(cfg.Sides, e.cfg.Sides):
		return e.failed(cupid.Conflict("sides", "are fixed when the event is created"))
	case e.revealed && !cfg.RevealAt.Equal(e.cfg.RevealAt):
		return e.failed(cupid.Conflict("reveal_at", "the answers were already revealed"))
	}
	for r := cfg.Rooms + 1; r <= len(e.rooms); r++ {
		if e.rooms[r-1].A != "" {
			return e.failed(cupid.Conflict("rooms", "room %d is in use until its date ends", r))
		}
	}
	rooms := make([]pair, cfg.Rooms)
	copy(rooms, e.rooms)
	e.rooms = rooms
	for _, p := range e.people {
		if p.home > cfg.Rooms {
			p.home = 0
		}
	}
	cfg.Mode = e.cfg.Mode
	e.cfg = cfg
	if e.phase == PhaseCountdown && e.lobby < e.cfg.MinLobby {
		e.checkCountdown()
	}
	e.changed()
	return e.finish(), nil
}

// Paused reports whether the event is paused.
func (e *Event) Paused() bool { return e.paused }
