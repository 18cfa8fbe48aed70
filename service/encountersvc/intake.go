package encountersvc

import (
	"context"
	"fmt"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
)

// PrepareTicket is the ticket service's intake step (ticketsvc.Intake) for
// the queues the service fills: it refuses the lists when a client sent
// them (they are the server's), and fills each player's "blocked" (his
// block list), "avoided" (his avoid list) and, when the queue asks,
// "met" (the opponents he met in this queue within its MetWithin, most
// recent first, at most cupid.MaxListItems) from the store. A ruleset
// turns them into rules (see BlockedAttribute). It costs one read of the
// lists for the ticket and one read of the history per player.
func (s *Service) PrepareTicket(ctx context.Context, t *cupid.Ticket) error {
	q, ok := s.queues[t.Key.Queue]
	if !ok {
		return nil
	}
	for i, p := range t.Players {
		for _, a := range []string{BlockedAttribute, AvoidedAttribute, MetAttribute} {
			if _, sent := p.Attributes.Get(a); sent {
				return cupid.Invalid(fmt.Sprintf("players[%d].attributes.%s", i, a),
					"queue %q fills %s from the player's lists and history; do not send it", t.Key.Queue, a)
			}
		}
	}
	ids := t.PlayerIDs()
	entries, err := s.Entries(ctx, ids)
	if err != nil {
		return err
	}
	now := s.now()
	for i := range t.Players {
		p := t.Players[i].ID
		attrs := append(cupid.Attributes(nil), t.Players[i].Attributes...)
		attrs.Set(BlockedAttribute, cupid.Strings(encounter.Blocked(encounter.Own(entries, p, encounter.KindBlock), p)...))
		attrs.Set(AvoidedAttribute, cupid.Strings(encounter.Avoided(entries, p)...))
		if q.MetWithin > 0 {
			h, err := s.store.Encounters(ctx, p, now.Add(-q.MetWithin), s.window.Recent)
			if err != nil {
				return s.storeError("read", err)
			}
			attrs.Set(MetAttribute, cupid.Strings(encounter.MetInQueue(h, q.Name, q.MetWithin, now)...))
		}
		t.Players[i].Attributes = attrs
	}
	s.metrics.filled.WithLabelValues(q.Name).Inc()
	return nil
}
