package ticketsvc

import (
	"cmp"
	"slices"
	"sync"

	cupid "github.com/cupid-match/cupid"
)

// ownEvents remembers, on a shared store, the ticket events this node wrote
// itself in bulk — the intake's and its pools' commits — until the
// database's notification of them comes back. Changed then takes them from
// here instead of reading them back with their tickets and matches, and
// leaves the pools alone for them: this node's intake and pools did what
// those events ask when they wrote them. Under bulk intake nearly every
// notification a node hears is of its own writes, and reading and decoding
// them again was about a sixth of its CPU.
//
// Only a shortcut: an event forgotten here (the memory is a ring of
// ownEventsMax sequence numbers, oldest overwritten first) is read from the
// store as any other node's, which is always correct, and an event whose
// notification never comes (lost notifications end in a resync) is
// overwritten in its turn.
type ownEvents struct {
	mu   sync.Mutex
	evs  map[int64]cupid.Event
	ring []int64 // sequence numbers in the order remembered; 0 is empty
	next int
}

// ownEventsMax bounds the events remembered: notifications come back within
// milliseconds, so this covers seconds of the fastest intake.
const ownEventsMax = 1 << 16

func newOwnEvents(max int) *ownEvents {
	return &ownEvents{evs: make(map[int64]cupid.Event), ring: make([]int64, max)}
}

// remember keeps evs until their notification takes them.
func (o *ownEvents) remember(evs []cupid.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, ev := range evs {
		if old := o.ring[o.next]; old != 0 {
			delete(o.evs, old)
		}
		o.ring[o.next] = ev.Seq
		o.next = (o.next + 1) % len(o.ring)
		o.evs[ev.Seq] = ev
	}
}

// take splits a notification's sequence numbers into the events this node
// remembers writing, which it forgets now, and the rest, to be read.
func (o *ownEvents) take(seqs []int64) (own []cupid.Event, rest []int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, seq := range seqs {
		if ev, ok := o.evs[seq]; ok {
			own = append(own, ev)
			delete(o.evs, seq)
			continue
		}
		rest = append(rest, seq)
	}
	return own, rest
}

// takeOwn is ownEvents.take, with every sequence number left to read when
// the store is not shared.
func (h *hub) takeOwn(seqs []int64) (own []cupid.Event, rest []int64) {
	if h.own == nil {
		return nil, seqs
	}
	return h.own.take(seqs)
}

// bySeq merges a notification's own events with those read from the store,
// in the order of their sequence numbers: the order the watchers hear.
func bySeq(own []cupid.Event, read []cupid.TicketChange) []cupid.Event {
	evs := slices.Grow(own, len(read))
	for _, c := range read {
		evs = append(evs, c.Event)
	}
	slices.SortFunc(evs, func(a, b cupid.Event) int { return cmp.Compare(a.Seq, b.Seq) })
	return evs
}
