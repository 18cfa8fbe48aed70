package ticketsvc

import (
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// hub fans ticket events out to the watchers of each ticket. Publishing never
// blocks on a slow watcher: each subscription has a buffer, and a watcher
// that lets it fill is dropped (its stream ends and the client reconnects
// with the last sequence number it saw, losing nothing because events are
// stored before they are published).
//
// The hub also remembers the whole history of the most recent tickets, so
// that a watcher connecting soon after its ticket was created — the usual
// case: create, then watch — replays from memory instead of the store.
// A history starts with the ticket's created event; a ticket the hub saw no
// created event for (made before a restart, or forgotten since) is replayed
// from the store.
type hub struct {
	mu   sync.Mutex
	subs map[string]map[*subscription]struct{}

	// The histories are a ring of slots, oldest overwritten first, found
	// by ticket id. A slot keeps the created event in two numbers and only
	// the later events as Events: most tickets a busy server holds are
	// waiting, with nothing but their created event, and this keeps their
	// history at some 60 bytes instead of 150.
	hist    map[string]int32 // ticket id → slot
	ring    []histSlot
	next    int // the slot the next history takes
	histCap int
	// keys interns the queue keys the histories point to (setKeys); it is
	// emptied when it holds maxInternedKeys, as slots keep their own.
	keys map[cupid.QueueKey]*cupid.QueueKey

	// shared is set when several nodes share the store: every event then
	// reaches watchers from the database's notifications, in commit order,
	// and the service's own publishing is silent, so that a ticket's events
	// reach its watchers in one order whichever node wrote them.
	shared bool
	// own holds, when shared, the events this node's intake and pools
	// wrote, until their notifications come back (own.go).
	own *ownEvents
}

// histSlot is one ticket's history.
type histSlot struct {
	id    string
	seq   int64 // the created event's sequence number
	at    int64 // and its time, in Unix nanoseconds
	later []cupid.Event
	// key is the ticket's queue key when this node created it (setKeys),
	// else nil: with it, a watcher of a ticket still waiting learns its
	// wait estimate without reading the ticket from the store.
	key *cupid.QueueKey
}

// events rebuilds the slot's history.
func (s *histSlot) events() []cupid.Event {
	out := make([]cupid.Event, 0, 1+len(s.later))
	out = append(out, cupid.Event{Seq: s.seq, TicketID: s.id, Kind: cupid.EventCreated, At: time.Unix(0, s.at).UTC()})
	return append(out, s.later...)
}

type subscription struct {
	ticketID string
	ch       chan cupid.Event
	dropped  bool
}

// historyTickets bounds the histories the hub keeps: with a ticket's few
// events and its match shared with the other players, some tens of
// megabytes at most.
const historyTickets = 1 << 16

func newHub(histCap int) *hub {
	return &hub{
		subs:    map[string]map[*subscription]struct{}{},
		hist:    make(map[string]int32),
		keys:    map[cupid.QueueKey]*cupid.QueueKey{},
		ring:    make([]histSlot, histCap),
		histCap: histCap,
	}
}

// subscribeBuffer is the number of events a watcher may lag behind. A ticket
// has at most a handful of events, so this is plenty.
const subscribeBuffer = 16

// subscribe starts a subscription to a ticket's events. When the hub holds
// the ticket's whole history it also returns, taken under the same lock, the
// events after afterSeq, and known is true; every later event then reaches
// the subscription.
func (h *hub) subscribe(ticketID string, afterSeq int64) (sub *subscription, past []cupid.Event, known bool) {
	s := &subscription{ticketID: ticketID, ch: make(chan cupid.Event, subscribeBuffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if i, ok := h.hist[ticketID]; ok {
		known = true
		for _, ev := range h.ring[i].events() {
			if ev.Seq > afterSeq {
				past = append(past, ev)
			}
		}
	}
	m := h.subs[ticketID]
	if m == nil {
		m = map[*subscription]struct{}{}
		h.subs[ticketID] = m
	}
	m[s] = struct{}{}
	return s, past, known
}

func (h *hub) unsubscribe(s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if m := h.subs[s.ticketID]; m != nil {
		if _, ok := m[s]; ok {
			delete(m, s)
			if !s.dropped {
				close(s.ch)
			}
		}
		if len(m) == 0 {
			delete(h.subs, s.ticketID)
		}
	}
}

// Publish records the events in the histories and hands them to the
// watchers. A ticket's created event must be published before any other
// event of it, or the hub keeps no history for it.
func (h *hub) Publish(evs ...cupid.Event) {
	if !h.shared {
		h.deliver(evs...)
		return
	}
	// Watchers hear the database's notifications (cluster.go), but for a
	// ticket's created event: nothing comes before it, so telling it at
	// once cannot put its watchers' events out of order, and a client that
	// watches right after creating then replays from memory instead of
	// reading the store. The notification brings it again; it is dropped.
	for i := range evs {
		if evs[i].Kind == cupid.EventCreated {
			h.deliver(evs[i])
		}
	}
}

// rememberOwn keeps, on a shared store, events this node wrote whose
// effects on its pools it has made itself, so that their notifications are
// served from memory (own.go). keep says which of evs those are.
func (h *hub) rememberOwn(evs []cupid.Event, keep func(cupid.Event) bool) {
	if h.own == nil {
		return
	}
	mine := make([]cupid.Event, 0, len(evs))
	for _, ev := range evs {
		if keep(ev) {
			mine = append(mine, ev)
		}
	}
	h.own.remember(mine)
}

// deliver is publish's work: what the database's notifications feed when
// the store is shared.
func (h *hub) deliver(evs ...cupid.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ev := range evs {
		h.record(ev)
		for s := range h.subs[ev.TicketID] {
			select {
			case s.ch <- ev:
			default:
				s.dropped = true
				close(s.ch)
				delete(h.subs[ev.TicketID], s)
			}
		}
	}
}

func (h *hub) record(ev cupid.Event) {
	if h.histCap == 0 {
		return
	}
	if ev.Kind == cupid.EventCreated {
		if _, ok := h.hist[ev.TicketID]; ok {
			return // heard twice (a resync after a lost notification)
		}
		slot := &h.ring[h.next]
		if slot.id != "" {
			delete(h.hist, slot.id)
		}
		*slot = histSlot{id: ev.TicketID, seq: ev.Seq, at: ev.At.UnixNano()}
		h.hist[ev.TicketID] = int32(h.next)
		h.next = (h.next + 1) % h.histCap
		return
	}
	if i, ok := h.hist[ev.TicketID]; ok {
		slot := &h.ring[i]
		if ev.Seq <= slot.seq || (len(slot.later) > 0 && ev.Seq <= slot.later[len(slot.later)-1].Seq) {
			return // heard twice (a resync after a lost notification)
		}
		slot.later = append(slot.later, ev)
	}
}

// maxInternedKeys bounds the hub's table of queue keys.
const maxInternedKeys = 4096

// setKeys gives the histories of new tickets their queue keys. A watcher
// that comes in between reads the ticket from the store instead.
func (h *hub) setKeys(ts []*cupid.Ticket) {
	if h.histCap == 0 || len(ts) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range ts {
		i, ok := h.hist[t.ID]
		if !ok {
			continue
		}
		k := h.keys[t.Key]
		if k == nil {
			if len(h.keys) >= maxInternedKeys {
				clear(h.keys)
			}
			k = new(cupid.QueueKey)
			*k = t.Key
			h.keys[t.Key] = k
		}
		h.ring[i].key = k
	}
}

// waiting returns the queue key and creation time of a ticket this node
// created whose last event is its created event, seq: a ticket waiting
// since it was created, as far as the hub has heard.
func (h *hub) waiting(ticketID string, seq int64) (cupid.QueueKey, time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	i, ok := h.hist[ticketID]
	if !ok {
		return cupid.QueueKey{}, time.Time{}, false
	}
	slot := &h.ring[i]
	if slot.key == nil || slot.seq != seq || len(slot.later) > 0 {
		return cupid.QueueKey{}, time.Time{}, false
	}
	return *slot.key, time.Unix(0, slot.at).UTC(), true
}

// last returns the latest event of a ticket whose history the hub holds.
func (h *hub) last(ticketID string) (cupid.Event, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	i, ok := h.hist[ticketID]
	if !ok {
		return cupid.Event{}, false
	}
	evs := h.ring[i].events()
	return evs[len(evs)-1], true
}

// watched lists the tickets that have watchers.
func (h *hub) watched() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return cupid.SortedKeys(h.subs)
}

func (h *hub) watchers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.subs {
		n += len(m)
	}
	return n
}
