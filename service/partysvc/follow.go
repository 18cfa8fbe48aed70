package partysvc

import (
	"context"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// follow starts, when the party has a ticket and nobody follows it yet, a
// goroutine that watches the ticket through the ticket service (the same
// watch a member's client has) and turns its events into the party's:
// matched, assigned, requeued, cancelled. It resumes after the last ticket
// event the party stored, so a restart or a dropped watch loses nothing.
// s.mu is held.
func (s *Service) follow(epoch context.Context, e *entry) {
	id := e.p.TicketID
	if id == "" || e.following == id {
		return
	}
	e.following = id
	partyID := e.p.ID
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			after, ok := s.followed(partyID, id)
			if !ok {
				return
			}
			err := s.tickets.WatchAssignment(epoch, id, after, func(ev cupid.Event) error {
				return s.ticketEvent(epoch, partyID, ev)
			})
			if err == nil || epoch.Err() != nil {
				// The watch ends at the ticket's last event for the
				// party (assigned, cancelled, expired).
				s.unfollow(partyID, id)
				return
			}
			if code := cupid.ErrorCode(err); code == cupid.CodeNotFound {
				s.log.Warn("a party's ticket is gone; the party stops following it", "party", partyID, "ticket", id, "err", err)
				// Unless the party could not store that: it would wait
				// on a ticket nobody follows. The next watch tries again.
				if err = s.ticketEvent(epoch, partyID, cupid.Event{Seq: 1 << 62, TicketID: id, Kind: cupid.EventCancelled, At: s.now(), Reason: "the ticket was not found"}); err == nil {
					s.unfollow(partyID, id)
					return
				}
			}
			s.log.Info("watching a party's ticket failed; watching again", "party", partyID, "ticket", id, "err", err)
			t := time.NewTimer(s.retry)
			select {
			case <-t.C:
			case <-epoch.Done():
				t.Stop()
				return
			}
		}
	}()
}

// followed returns where the follower of ticket resumes, and whether the
// party still has that ticket.
func (s *Service) followed(partyID, ticket string) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.parties[partyID]
	if e == nil || e.p.TicketID != ticket {
		return 0, false
	}
	return e.p.TicketSeq, true
}

func (s *Service) unfollow(partyID, ticket string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.parties[partyID]; e != nil && e.following == ticket {
		e.following = ""
	}
}

// ticketEvent applies one of the ticket's events to its party. A store
// failure leaves the party as it was and ends the follower's watch with
// the error: its next watch (after the stored TicketSeq) brings the event
// again. Carrying on would lose it for good when it is the watch's last
// (assigned, cancelled) and skip it otherwise (matched).
func (s *Service) ticketEvent(epoch context.Context, partyID string, ev cupid.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.parties[partyID]
	if e == nil {
		return nil
	}
	r := e.p.TicketEvent(ev)
	if len(r.Events) == 0 {
		return nil
	}
	if err := s.apply(epoch, e, r); err != nil {
		s.log.Warn("a party could not record its ticket's event", "party", partyID, "event", ev.Kind, "err", err)
		return err
	}
	return nil
}

// sweep expires invites as they fall due, so that inviter and invitee hear
// it even when nobody touches the party. Every call expires due invites on
// its own as well (get), which is what a test with its own clock relies on.
func (s *Service) sweep(epoch context.Context) {
	defer s.wg.Done()
	for {
		next := s.expireDue(epoch)
		var wait <-chan time.Time
		var t *time.Timer
		if !next.IsZero() {
			t = time.NewTimer(max(next.Sub(s.now()), 10*time.Millisecond))
			wait = t.C
		}
		select {
		case <-wait:
		case <-s.wake:
		case <-epoch.Done():
		}
		if t != nil {
			t.Stop()
		}
		if epoch.Err() != nil {
			return
		}
	}
}

// expireDue expires what is due and returns the next expiry.
func (s *Service) expireDue(epoch context.Context) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var next time.Time
	for _, e := range s.parties {
		if len(e.p.Invites) == 0 {
			continue
		}
		if r := e.p.Expire(now); len(r.Events) > 0 {
			_ = s.apply(epoch, e, r)
		}
		if t := e.p.NextExpiry(); !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next
}
