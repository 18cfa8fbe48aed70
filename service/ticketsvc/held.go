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

// heldItem is a ticket waiting to be let into the engine.
type heldItem struct {
	until int64 // Unix nanoseconds
	t     *cupid.Ticket
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
			now := p.s.now()
			return &engine.Explanation{TicketID: id, At: now, Wait: it.t.Wait(now),
				Summary: fmt.Sprintf("Held back until %s (low priority): it is not matched before then.", it.t.HeldUntil.UTC().Format(time.RFC3339))}
		}
	}
	return nil
}
