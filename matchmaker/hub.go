package matchmaker

import (
	"sync"

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

	hist    map[string][]cupid.Event
	order   []string // ticket ids in the order their histories began, a ring
	next    int      // where the next history's id goes in order
	histCap int
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
		hist:    make(map[string][]cupid.Event),
		order:   make([]string, histCap),
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
	if evs, ok := h.hist[ticketID]; ok {
		known = true
		for _, ev := range evs {
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

// publish records the events in the histories and hands them to the
// watchers. A ticket's created event must be published before any other
// event of it, or the hub keeps no history for it.
func (h *hub) publish(evs ...cupid.Event) {
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
		if old := h.order[h.next]; old != "" {
			delete(h.hist, old)
		}
		h.order[h.next] = ev.TicketID
		h.next = (h.next + 1) % h.histCap
		h.hist[ev.TicketID] = []cupid.Event{ev}
		return
	}
	if evs, ok := h.hist[ev.TicketID]; ok {
		h.hist[ev.TicketID] = append(evs, ev)
	}
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
