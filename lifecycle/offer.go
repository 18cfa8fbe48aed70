package lifecycle

import (
	"context"
	"maps"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Amendment is what a waiting ticket changes when it accepts an offer
// (engine.Offer): its latency to some regions. Everything else — its id,
// players, attributes, creation and expiry — stays, so the ticket keeps its
// age and its place in the relaxation.
type Amendment struct {
	// Latencies are the new latencies by region, in ms; other regions keep
	// theirs.
	Latencies map[string]int32
}

// Amend rewrites a waiting ticket as an accepted offer says. Unknown
// ticket: not_found; one no longer waiting: conflict; an amendment that
// changes nothing or holds a latency a ticket could not have:
// invalid_argument. The ticket's body is written as a requeue with a new
// age writes it (TicketWrite.Reborn), with its CreatedAt unchanged.
func Amend(ctx context.Context, st cupid.Updater, f cupid.Fence, id string, a Amendment, now time.Time) (*cupid.Ticket, error) {
	now = now.UTC()
	if err := checkAmendment(a); err != nil {
		return nil, err
	}
	var w *cupid.Writes
	err := st.Update(ctx, "AmendTicket", f, func(tx cupid.Tx) error {
		ts, err := tx.Tickets([]string{id})
		if err != nil {
			return err
		}
		var t *cupid.Ticket
		if len(ts) == 1 {
			t = ts[0]
		}
		if w, err = amend(t, id, a, now); err != nil {
			return err
		}
		return tx.Write(w)
	})
	if err != nil {
		return nil, err
	}
	return w.Tickets[0].Ticket, nil
}

func checkAmendment(a Amendment) error {
	if len(a.Latencies) == 0 {
		return cupid.Invalid("latencies", "required: an offer changes at least one region's latency")
	}
	for _, region := range cupid.SortedKeys(a.Latencies) {
		if ms := a.Latencies[region]; ms < 0 || region == "" {
			return cupid.Invalid("latencies."+region, "must be a region name with a latency ≥ 0 ms, not %d", ms)
		}
	}
	return nil
}

// amend decides an amendment from the ticket as stored.
func amend(t *cupid.Ticket, id string, a Amendment, now time.Time) (*cupid.Writes, error) {
	switch {
	case t == nil:
		return nil, cupid.NotFound("id", "no ticket %q", id)
	case t.State != cupid.StateWaiting:
		return nil, cupid.Conflict("id", "ticket %q is %s: only a waiting ticket accepts an offer", id, t.State)
	}
	if err := checkAmendment(a); err != nil {
		return nil, err
	}
	c := *t
	c.Latencies = maps.Clone(t.Latencies)
	if c.Latencies == nil {
		c.Latencies = map[string]int32{}
	}
	same := true
	for region, ms := range a.Latencies {
		if old, ok := c.Latencies[region]; !ok || old != ms {
			same = false
		}
		c.Latencies[region] = ms
	}
	if same {
		return nil, cupid.Invalid("latencies", "ticket %q already has these latencies", id)
	}
	c.UpdatedAt = now
	return &cupid.Writes{Tickets: []cupid.TicketWrite{{Ticket: &c, From: cupid.StateWaiting, Reborn: true}}}, nil
}
