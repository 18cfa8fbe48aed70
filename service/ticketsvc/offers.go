package ticketsvc

import (
	"context"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/lifecycle"
)

// Offer is the engine's offer, as the transport reads it.
type Offer = engine.Offer

// AcceptOffer has a waiting ticket accept one of the offers its "why"
// lists (engine.Offer, by id): the ticket is rewritten as the offer says,
// durably (lifecycle.Amend), and goes back into its pool with its age, so
// it keeps its id, its creation time and its place in the relaxation. The
// whole of it runs in the pool's goroutine, between two steps: the offer is
// judged again at that moment, so one that no longer holds (the candidates
// left, the range grew to the region by itself) is refused rather than
// taken blindly, and no match can take the ticket halfway.
func (s *Service) AcceptOffer(ctx context.Context, id, offerID string) (*cupid.Ticket, *engine.Offer, error) {
	switch {
	case id == "":
		return nil, nil, cupid.Invalid("id", "required")
	case offerID == "":
		return nil, nil, cupid.Invalid("offer_id", "required: an offer's id from the ticket's why.offers")
	}
	t, err := s.store.Ticket(ctx, id)
	if err != nil {
		return nil, nil, storeerr.Domain(s.log, err)
	}
	if t.State != cupid.StateWaiting {
		return nil, nil, cupid.Conflict("id", "ticket %q is %s: only a waiting ticket accepts an offer", id, t.State)
	}
	p := s.existingPool(t.Key)
	if p == nil {
		return nil, nil, cupid.Errorf(cupid.CodeUnavailable, "id", "ticket %q is not in a pool of this node; try again", id)
	}
	type result struct {
		t     *cupid.Ticket
		offer *engine.Offer
		err   error
	}
	ch := make(chan result, 1)
	p.do(func(p *pool) {
		now := p.now().UTC()
		x, ok := p.eng.Explain(id, now)
		if !ok {
			ch <- result{err: cupid.Conflict("id", "ticket %q is not waiting in its pool now (being matched or ended); ask again", id)}
			return
		}
		var offer *engine.Offer
		for i := range x.Offers {
			if x.Offers[i].ID == offerID {
				offer = &x.Offers[i]
			}
		}
		if offer == nil {
			ch <- result{err: cupid.Conflict("offer_id", "ticket %q has no offer %q now (its offers: %s)", id, offerID, offerIDs(x.Offers))}
			return
		}
		var change lifecycle.Amendment
		switch {
		case offer.Region != "":
			change.Latencies = map[string]int32{offer.Region: offer.Latency}
		case offer.Option != "":
			change.Values = map[string]string{offer.Option: offer.Value}
		}
		amended, err := lifecycle.Amend(p.ctx, s.store, p.fence, id, change, now)
		if err != nil {
			p.host.checkFenced(p.key.Queue, err)
			ch <- result{err: storeerr.Domain(s.log, err)}
			return
		}
		// The engine holds the ticket as it was: swap it for the amended
		// one, which keeps CreatedAt and so its age.
		p.eng.Remove(id)
		if err := p.eng.Add(amended); err != nil {
			p.out[id] = liveOf(amended)
			p.end(id, cupid.StateCancelled, "the queue's ruleset cannot match it: "+err.Error(), now)
		}
		ch <- result{t: amended, offer: offer}
	})
	select {
	case r := <-ch:
		return r.t, r.offer, r.err
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case <-p.quit:
		return nil, nil, cupid.Errorf(cupid.CodeUnavailable, "id", "the ticket's pool stopped; try again")
	case <-time.After(30 * time.Second):
		return nil, nil, cupid.Errorf(cupid.CodeUnavailable, "id", "the ticket's pool is busy; try again")
	}
}

func offerIDs(offers []engine.Offer) string {
	if len(offers) == 0 {
		return "none"
	}
	out := ""
	for i, o := range offers {
		if i > 0 {
			out += ", "
		}
		out += o.ID
	}
	return out
}

// offerWaits estimates the wait after accepting each offer: none when a
// match can form at once, else what a new ticket of the queue key waits
// (the ticket joins the candidates of its new region as any newcomer
// does); nil where that history is too thin.
func (s *Service) offerWaits(why *engine.Explanation, key cupid.QueueKey, now time.Time) []*time.Duration {
	if why == nil || len(why.Offers) == 0 {
		return nil
	}
	out := make([]*time.Duration, len(why.Offers))
	for i, o := range why.Offers {
		if o.Forms {
			zero := time.Duration(0)
			out[i] = &zero
			continue
		}
		if e, ok := s.statsRec.Estimate(key, 0, now); ok {
			d := e.Expected
			out[i] = &d
		}
	}
	return out
}
