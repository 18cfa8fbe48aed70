package lifecycle

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Amendment is what a waiting ticket changes when it accepts an offer
// (engine.Offer): its latency to some regions, or more values it accepts
// for a choice. Everything else — its id, players, creation and expiry —
// stays, so the ticket keeps its age and its place in the relaxation.
type Amendment struct {
	// Latencies are the new latencies by region, in ms; other regions keep
	// theirs.
	Latencies map[string]int32
	// Values are values to add to a choice (a match option: the modes or
	// maps accepted), by attribute name: wherever the ticket holds the
	// attribute (ticket-wide, and each player that has his own), the value
	// joins its list.
	Values map[string]string
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
	if len(a.Latencies) == 0 && len(a.Values) == 0 {
		return cupid.Invalid("latencies", "required: an offer changes at least one region's latency or adds a value")
	}
	for _, name := range cupid.SortedKeys(a.Values) {
		if name == "" || a.Values[name] == "" {
			return cupid.Invalid("values."+name, "must name an attribute and a value")
		}
	}
	for _, region := range cupid.SortedKeys(a.Latencies) {
		if ms := a.Latencies[region]; ms < 0 || region == "" {
			return cupid.Invalid("latencies."+region, "must be a region name with a latency ≥ 0 ms, not %d", ms)
		}
	}
	return nil
}

// addValue adds v to the string or list of strings named name, when there
// is one; false when there is none or it already holds v.
func addValue(attrs *cupid.Attributes, name, v, path string) (bool, error) {
	old, ok := attrs.Get(name)
	if !ok {
		return false, nil
	}
	var list []string
	switch old.Kind {
	case cupid.KindString:
		list = []string{old.String}
	case cupid.KindStrings:
		list = old.Strings
	default:
		return false, cupid.Invalid(path, "is not a string or a list of strings: no value can be added")
	}
	if slices.Contains(list, v) {
		return false, nil
	}
	attrs.Set(name, cupid.Strings(append(slices.Clone(list), v)...))
	return true, nil
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
	if len(a.Latencies) == 0 {
		same = true
	}
	added := false
	if len(a.Values) > 0 {
		c.Attributes = slices.Clone(t.Attributes)
		c.Players = slices.Clone(t.Players)
		for _, name := range cupid.SortedKeys(a.Values) {
			v := a.Values[name]
			ok, err := addValue(&c.Attributes, name, v, "attributes."+name)
			if err != nil {
				return nil, err
			}
			added = added || ok
			for i := range c.Players {
				pl := &c.Players[i]
				if _, has := pl.Attributes.Get(name); !has {
					continue
				}
				pl.Attributes = slices.Clone(pl.Attributes)
				ok, err := addValue(&pl.Attributes, name, v, fmt.Sprintf("players[%d].attributes.%s", i, name))
				if err != nil {
					return nil, err
				}
				added = added || ok
			}
		}
		if !added {
			return nil, cupid.Invalid("values", "ticket %q already accepts these values, or holds none of their choices", id)
		}
	}
	if same && !added {
		return nil, cupid.Invalid("latencies", "ticket %q already has these latencies", id)
	}
	// What no ruleset can make valid stays refused (sizes, lengths).
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c.UpdatedAt = now
	return &cupid.Writes{Tickets: []cupid.TicketWrite{{Ticket: &c, From: cupid.StateWaiting, Reborn: true}}}, nil
}
