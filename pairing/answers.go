package pairing

import (
	"slices"
	"time"

	"github.com/cupid-match/cupid"
)

// "Would you meet again?"
//
// After a date each person may answer, privately, whether they would meet
// the other again. Answers are never shown to anyone: not to the other
// person, not in the event's views. At the reveal (Config.RevealAt, or
// when the organiser calls Reveal) each pair who both said yes is told, to
// both of them; a yes that was not returned is never told. Answers close
// at the reveal.

// Answer records key's answer about other, whom key must have dated in
// this event. A later answer replaces an earlier one.
func (e *Event) Answer(now time.Time, key, other string, yes bool) ([]Notification, error) {
	p, err := e.present(now, key)
	if err != nil {
		return e.failed(err)
	}
	if err := keyIn("other", other); err != nil {
		return e.failed(err)
	}
	if e.revealed {
		return e.failed(cupid.Conflict("", "the answers were revealed; no more answers are taken"))
	}
	if !slices.Contains(p.dated, other) {
		return e.failed(cupid.Conflict("other", "%q has had no date with %q in this event", key, other))
	}
	if p.answers == nil {
		p.answers = make(map[string]bool)
	}
	p.answers[other] = yes
	return e.finish(), nil
}

// Reveal reveals the mutual answers now (the organiser's call for an event
// without RevealAt, or to reveal early).
func (e *Event) Reveal(now time.Time) ([]Notification, error) {
	e.begin(now)
	if e.revealed {
		return e.failed(cupid.Conflict("", "the answers were already revealed"))
	}
	e.reveal()
	return e.finish(), nil
}

// reveal tells both people of every mutual yes, in key order, and the
// organiser how many there were.
func (e *Event) reveal() {
	e.revealed = true
	count := 0
	for _, a := range cupid.SortedKeys(e.people) {
		for _, b := range e.matches(a) {
			e.notify(Notification{Participant: a, Kind: KindMutualMatch, Partner: b})
			if a < b {
				count++
			}
		}
	}
	e.notify(Notification{Kind: KindRevealed, Seq: count})
}

// matches returns the people a and who both said yes to each other,
// sorted.
func (e *Event) matches(a string) []string {
	var out []string
	for b, yes := range e.people[a].answers {
		if q, ok := e.people[b]; yes && ok && q.answers[a] {
			out = append(out, b)
		}
	}
	slices.Sort(out)
	return out
}

// Matches returns key's mutual matches once they are revealed, and an
// error before: a failed precondition saying when they will be.
func (e *Event) Matches(key string) ([]string, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if _, ok := e.people[key]; !ok {
		return nil, cupid.NotFound("participant", "%q has not joined", key)
	}
	if !e.revealed {
		if e.cfg.RevealAt.IsZero() {
			return nil, cupid.Conflict("", "mutual answers are revealed when the organiser says so")
		}
		return nil, cupid.Conflict("", "mutual answers are revealed at %s", e.cfg.RevealAt.Format(time.RFC3339))
	}
	return e.matches(key), nil
}

// Revealed reports whether the mutual answers have been revealed.
func (e *Event) Revealed() bool { return e.revealed }

// Extend asks for more time in key's current date. When everyone in the
// room has asked, the date ends Config.Extension after the round, and they
// are told; until then nobody is (a one-sided wish stays private). A date
// is extended once at most.
func (e *Event) Extend(now time.Time, key string) ([]Notification, error) {
	p, err := e.present(now, key)
	if err != nil {
		return e.failed(err)
	}
	switch {
	case e.cfg.Extension == 0:
		return e.failed(cupid.Conflict("settings.extension_seconds", "this event does not extend dates: it is 0"))
	case p.state != StateRoom:
		return e.failed(cupid.Conflict("participant", "%q is not on a date", key))
	}
	pr := &e.rooms[p.room-1]
	if !pr.until.IsZero() {
		return e.failed(cupid.Conflict("participant", "the date in room %d was already extended", p.room))
	}
	p.extend = true
	for _, k := range pr.members() {
		if !e.people[k].extend {
			return e.finish(), nil
		}
	}
	pr.until = e.deadline.Add(e.cfg.Extension)
	e.overtime++
	for _, k := range pr.members() {
		q := e.people[k]
		q.extend = false
		e.notify(Notification{Participant: k, Kind: KindDateExtended, Partner: q.partner, Third: q.third, Room: p.room, Round: pr.round, Deadline: pr.until})
	}
	return e.finish(), nil
}
