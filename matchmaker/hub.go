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
type hub struct {
	mu   sync.Mutex
	subs map[string]map[*subscription]struct{}
}

type subscription struct {
	ticketID string
	ch       chan cupid.Event
	dropped  bool
}

func newHub() *hub { return &hub{subs: map[string]map[*subscription]struct{}{}} }

// subscribeBuffer is the number of events a watcher may lag behind. A ticket
// has at most a handful of events, so this is plenty.
const subscribeBuffer = 16

func (h *hub) subscribe(ticketID string) *subscription {
	s := &subscription{ticketID: ticketID, ch: make(chan cupid.Event, subscribeBuffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.subs[ticketID]
	if m == nil {
		m = map[*subscription]struct{}{}
		h.subs[ticketID] = m
	}
	m[s] = struct{}{}
	return s
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

func (h *hub) publish(evs ...cupid.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ev := range evs {
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

func (h *hub) watchers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.subs {
		n += len(m)
	}
	return n
}
