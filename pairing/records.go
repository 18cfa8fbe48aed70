package pairing

import (
	"fmt"
	"slices"
	"time"

	"github.com/cupid-match/cupid"
)

// Records by hand.
//
// The VRChat world marks a pair as matched by an arbitrary external rule,
// not only by its own rounds; an organiser does the same with
// RecordMeeting (both records, as a round does) and brings in a history
// kept elsewhere with ImportHistory (directed entries, as the records are).
// A person may also take one entry out of their own record, where the
// world could only clear all of it.

// MetEdge is one entry of one person's record: From's record says From has
// met To.
type MetEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// RecordMeeting marks a and b as having met, in both records, as if a
// round had paired them. People the event does not know yet are added as
// having left (their record waits for them to join), within maxKnown
// people known to the event.
func (e *Event) RecordMeeting(now time.Time, a, b string, maxKnown int) ([]Notification, error) {
	e.begin(now)
	if err := keyIn("a", a); err != nil {
		return e.failed(err)
	}
	if err := keyIn("b", b); err != nil {
		return e.failed(err)
	}
	if a == b {
		return e.failed(cupid.Invalid("b", "must differ from a, both are %q", a))
	}
	return e.importEdges([]MetEdge{{From: a, To: b}, {From: b, To: a}}, maxKnown)
}

// ImportHistory adds the entries to the records (each From's own record),
// at most MaxImport at once. People the event does not know yet are added
// as having left, within maxKnown people known to the event. Every entry
// is checked before any is applied: one bad entry changes nothing.
func (e *Event) ImportHistory(now time.Time, entries []MetEdge, maxKnown int) ([]Notification, error) {
	e.begin(now)
	if len(entries) == 0 {
		return e.failed(cupid.Invalid("entries", "required: at least one entry"))
	}
	if len(entries) > MaxImport {
		return e.failed(cupid.Errorf(cupid.CodeTooLarge, "entries", "at most %d entries in one import, got %d", MaxImport, len(entries)))
	}
	for i, ed := range entries {
		if err := keyIn(fmt.Sprintf("entries[%d].from", i), ed.From); err != nil {
			return e.failed(err)
		}
		if err := keyIn(fmt.Sprintf("entries[%d].to", i), ed.To); err != nil {
			return e.failed(err)
		}
		if ed.From == ed.To {
			return e.failed(cupid.Invalid(fmt.Sprintf("entries[%d].to", i), "a person cannot have met themselves (%q)", ed.To))
		}
	}
	return e.importEdges(entries, maxKnown)
}

// importEdges applies checked entries, adding unknown people as gone.
func (e *Event) importEdges(entries []MetEdge, maxKnown int) ([]Notification, error) {
	limit := min(maxKnown, MaxPeople)
	if limit <= 0 {
		limit = MaxPeople
	}
	fresh := map[string]bool{}
	for _, ed := range entries {
		for _, k := range []string{ed.From, ed.To} {
			if _, ok := e.people[k]; !ok {
				fresh[k] = true
			}
		}
	}
	if len(e.people)+len(fresh) > limit {
		return e.failed(cupid.Errorf(cupid.CodeTooLarge, "entries", "the event knows %d people and the import names %d more; at most %d", len(e.people), len(fresh), limit))
	}
	for _, k := range cupid.SortedKeys(fresh) {
		e.newPerson(k, StateGone)
	}
	for _, ed := range entries {
		e.people[ed.From].met[ed.To] = e.people[ed.To].id
	}
	return e.finish(), nil
}

// keyIn checks a key given in the named field.
func keyIn(field, key string) error {
	if err := checkKey(key); err != nil {
		return cupid.Invalid(field, "%s", err.(*cupid.Error).Message)
	}
	return nil
}

// ForgetMeeting takes other out of key's own record (other's record of key
// stays, as with ClearRecord).
func (e *Event) ForgetMeeting(now time.Time, key, other string) ([]Notification, error) {
	p, err := e.present(now, key)
	if err != nil {
		return e.failed(err)
	}
	if err := keyIn("other", other); err != nil {
		return e.failed(err)
	}
	if _, ok := p.met[other]; !ok {
		return e.failed(cupid.NotFound("other", "%q is not in %q's record", other, key))
	}
	delete(p.met, other)
	e.changed()
	return e.finish(), nil
}

// SetNever adds other to key's private "never pair me with" list (add) or
// takes them off it. The list holds at most MaxNever keys; other need not
// have joined. Adding a key already listed changes nothing; removing one
// that is not listed is reported as not found, so that a typo is not
// silent.
func (e *Event) SetNever(now time.Time, key, other string, add bool) ([]Notification, error) {
	p, err := e.present(now, key)
	if err != nil {
		return e.failed(err)
	}
	if err := keyIn("other", other); err != nil {
		return e.failed(err)
	}
	if other == key {
		return e.failed(cupid.Invalid("other", "must be someone else than %q", key))
	}
	_, listed := p.never[other]
	switch {
	case add && listed:
		return e.finish(), nil
	case add && len(p.never) >= MaxNever:
		return e.failed(cupid.Errorf(cupid.CodeTooLarge, "other", "%q's never list already holds %d people, the most it may", key, MaxNever))
	case add:
		if p.never == nil {
			p.never = make(map[string]struct{})
		}
		p.never[other] = struct{}{}
	case !listed:
		return e.failed(cupid.NotFound("other", "%q is not on %q's never list", other, key))
	default:
		delete(p.never, other)
		e.changed()
	}
	return e.finish(), nil
}

// NeverList returns key's private never list, sorted (nil when the event
// does not know key).
func (e *Event) NeverList(key string) []string {
	p, ok := e.people[key]
	if !ok || len(p.never) == 0 {
		return nil
	}
	return cupid.SortedKeys(p.never)
}

// Record returns key's own record of whom they have met, sorted.
func (e *Event) Record(key string) []string {
	p, ok := e.people[key]
	if !ok || len(p.met) == 0 {
		return nil
	}
	return cupid.SortedKeys(p.met)
}

// Dated returns everyone key has shared a room with in this event, sorted.
func (e *Event) Dated(key string) []string {
	p, ok := e.people[key]
	if !ok {
		return nil
	}
	out := slices.Clone(p.dated)
	slices.Sort(out)
	return out
}

// SetBarred replaces key's barred list: the people the server says key may
// not be paired with, whatever the records say (his block list, whom he met
// in earlier events of the event's series). The server sets it when key
// joins and enters the lobby, from what it reads elsewhere; the person
// never sees it. At most MaxBarred keys; key itself and repeats are
// ignored, one bad key changes nothing. Taking people off the list may
// allow a pair, so it counts as a change (a stale event counts down again).
func (e *Event) SetBarred(now time.Time, key string, others []string) ([]Notification, error) {
	p, err := e.present(now, key)
	if err != nil {
		return e.failed(err)
	}
	if len(others) > MaxBarred {
		return e.failed(cupid.Errorf(cupid.CodeTooLarge, "barred", "at most %d, got %d", MaxBarred, len(others)))
	}
	next := make(map[string]struct{}, len(others))
	for i, o := range others {
		if err := keyIn(fmt.Sprintf("barred[%d]", i), o); err != nil {
			return e.failed(err)
		}
		if o != key {
			next[o] = struct{}{}
		}
	}
	lifted := false
	for o := range p.barred {
		if _, ok := next[o]; !ok {
			lifted = true
			break
		}
	}
	p.barred = nil
	if len(next) > 0 {
		p.barred = next
	}
	if lifted {
		e.changed()
	}
	return e.finish(), nil
}

// Barred returns key's barred list, sorted (nil when the event does not
// know key or the list is empty).
func (e *Event) Barred(key string) []string {
	p, ok := e.people[key]
	if !ok || len(p.barred) == 0 {
		return nil
	}
	return cupid.SortedKeys(p.barred)
}
