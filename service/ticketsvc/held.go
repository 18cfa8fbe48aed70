package ticketsvc

import (
	"container/heap"
	"fmt"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
)

// Tickets held back. A ticket may carry HeldUntil (the ratings service sets
// it for a low-priority player in a queue that makes them wait): the pool
// keeps it live — it expires, can be cancelled, is reloaded after a restart
// with its hold — but out of the engine until then, so it matches later
// than it would have. Its age is untouched: relaxation and wait statistics
// still count from CreatedAt, which clients read.

// heldItem is a ticket waiting to be let into the engine; why says why
// when it is not its own HeldUntil (a player in a live match).
type heldItem struct {
	until int64 // Unix nanoseconds
	t     *cupid.Ticket
	why   string
}

// heldHeap orders held tickets by the end of their hold.
type heldHeap []heldItem

func (h heldHeap) Len() int           { return len(h) }
func (h heldHeap) Less(i, j int) bool { return h[i].until < h[j].until }
func (h heldHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *heldHeap) Push(x any)        { *h = append(*h, x.(heldItem)) }
func (h *heldHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}

// holdBack keeps a new ticket out of the engine until its hold ends.
func (p *pool) holdBack(t *cupid.Ticket) {
	p.out[t.ID] = liveOf(t)
	heap.Push(&p.heldBack, heldItem{until: t.HeldUntil.UnixNano(), t: t})
}

// busyRecheck is how long a ticket whose player is in another live match
// stays out of the engine before it is tried again: the store decides
// whether that match still holds him, at the next commit that names him.
const busyRecheck = 2 * time.Second

// holdBusy keeps out of the engine, for busyRecheck, the tickets of a
// refused match whose players are in another live match (a player is in
// one at most), and gives the others back.
func (p *pool) holdBusy(ts []*cupid.Ticket, busy []cupid.Busy, now time.Time) {
	why := map[string]string{}
	for _, b := range busy {
		if _, ok := why[b.Ticket]; !ok {
			why[b.Ticket] = fmt.Sprintf("Held back: player %s is in match %s, which is live (a player is in one live match at most); it is matched once that match is released or its session ends.", b.Player, b.Match)
		}
	}
	var back []*cupid.Ticket
	for _, t := range ts {
		if w, ok := why[t.ID]; ok {
			p.out[t.ID] = liveOf(t)
			heap.Push(&p.heldBack, heldItem{until: now.Add(busyRecheck).UnixNano(), t: t, why: w})
			continue
		}
		back = append(back, t)
	}
	p.giveBack(back, nil, now)
}

// releaseHeld lets the tickets whose hold has ended into the engine, those
// still live and not being ended.
func (p *pool) releaseHeld(now time.Time) {
	for len(p.heldBack) > 0 && p.heldBack[0].until <= now.UnixNano() {
		it := heap.Pop(&p.heldBack).(heldItem)
		id := it.t.ID
		if _, ok := p.out[id]; !ok || slices.ContainsFunc(p.pending, func(e pendingEnd) bool { return e.id == id }) {
			continue // ended meanwhile, or its end is being retried
		}
		delete(p.out, id)
		if err := p.eng.Add(it.t); err != nil {
			p.out[id] = liveOf(it.t)
			p.end(id, cupid.StateCancelled, fmt.Sprintf("the queue's ruleset cannot match it: %v", err), now)
		}
	}
}

// explainHeld says why a held ticket waits, nil if id is not held.
func (p *pool) explainHeld(id string) *engine.Explanation {
	for _, it := range p.heldBack {
		if it.t.ID == id {
			now := p.now()
			if it.why != "" {
				return &engine.Explanation{TicketID: id, At: now, Wait: it.t.Wait(now), Summary: it.why}
			}
			return &engine.Explanation{TicketID: id, At: now, Wait: it.t.Wait(now),
				Summary: fmt.Sprintf("Held back until %s (low priority): it is not matched before then.", it.t.HeldUntil.UTC().Format(time.RFC3339))}
		}
	}
	return nil
}
