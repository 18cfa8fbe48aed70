package ticketsvc

import (
	"context"

	cupid "github.com/cupid-match/cupid"
)

// A ticket's watchers: Watch and WatchAssignment follow one ticket's
// events (service.go's watch does the work, hub.go keeps the live ones).

// ticketEvents reads a ticket's stored events, giving each assigned event
// its assignment when the store's event does not carry it (the ticket
// event log keeps the match id, the match keeps the assignment).
func (s *Service) ticketEvents(ctx context.Context, id string, afterSeq int64) ([]cupid.Event, error) {
	evs, err := s.store.Events(ctx, id, afterSeq)
	if err != nil {
		return nil, err
	}
	for i := range evs {
		if evs[i].Kind == cupid.EventAssigned && evs[i].Assignment == nil && evs[i].Match != nil {
			r, err := s.store.MatchRecord(ctx, evs[i].Match.ID)
			if err != nil {
				return nil, err
			}
			evs[i].Assignment = r.Assignment
		}
	}
	return evs, nil
}

// Watch follows a ticket until it is matched, cancelled or expired (or, for
// a watcher that reconnects after the match, until the next of assigned,
// cancelled, expired): the stream of players who do not wait for a server.
func (s *Service) Watch(ctx context.Context, id string, afterSeq int64, send func(cupid.Event) error) error {
	return s.watch(ctx, id, afterSeq, func(ev cupid.Event) bool { return ev.Kind.Final() }, send)
}

// WatchAssignment follows a ticket past its match until the match is
// assigned a server (or the ticket is cancelled or expires); a released
// match's requeued ticket is followed on into its next match. It is the
// stream of players whose game hands matches to servers.
func (s *Service) WatchAssignment(ctx context.Context, id string, afterSeq int64, send func(cupid.Event) error) error {
	return s.watch(ctx, id, afterSeq, func(ev cupid.Event) bool {
		return ev.Kind == cupid.EventAssigned || ev.Kind == cupid.EventCancelled || ev.Kind == cupid.EventExpired
	}, send)
}
