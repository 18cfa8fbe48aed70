package partysvc

import (
	"context"
	"slices"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/party"
)

// maxWatchers bounds the watches of one party: its members and invitees
// watch it, a few connections each at most.
const maxWatchers = 256

// watcher is one open watch of a party; its channel is closed when it is
// dropped (it fell behind, or the parties stopped on this node).
type watcher struct {
	player string
	ch     chan party.Event
	closed bool
}

// send hands events to the watcher without ever blocking; s.mu is held.
func (w *watcher) send(evs []party.Event) {
	for _, ev := range evs {
		if w.closed {
			return
		}
		select {
		case w.ch <- ev:
		default:
			w.drop()
		}
	}
}

// drop ends the watch; s.mu is held.
func (w *watcher) drop() {
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
}

// ends reports whether ev is the last event player hears of the party: it
// ended, or he is no longer in it.
func ends(ev party.Event, player string) bool {
	switch ev.Kind {
	case party.EventDisbanded:
		return true
	case party.EventLeft, party.EventRemoved, party.EventDeclined, party.EventInviteExpired:
		return player != "" && ev.Player == player
	}
	return false
}

// Watch sends the party's events after afterSeq, then live ones, until the
// party ends, player leaves it (or his invite ends), or ctx ends. A watch
// that falls behind, or whose node stops running the parties, ends with
// unavailable and resumes with the last sequence number it saw. The party
// keeps its latest events (64); a watcher that resumes from further back
// gets those and reads the party's state with Get. player "" is a trusted
// caller (a server key).
func (s *Service) Watch(ctx context.Context, id, player string, afterSeq int64, send func(party.Event) error) error {
	if afterSeq < 0 {
		return cupid.Invalid("after_seq", "must not be negative")
	}
	s.mu.Lock()
	if _, err := s.live(ctx); err != nil {
		s.mu.Unlock()
		return err
	}
	e, err := s.get(ctx, id)
	if err == nil {
		err = mayRead(e.p, player)
	}
	if err == nil && len(e.subs) >= maxWatchers {
		err = cupid.Errorf(cupid.CodeExhausted, "party_id", "party %s has %d watches open, the most it may", id, maxWatchers)
	}
	if err != nil {
		s.mu.Unlock()
		return err
	}
	w := &watcher{player: player, ch: make(chan party.Event, watchBuffer)}
	e.subs[w] = struct{}{}
	var past []party.Event
	for _, ev := range e.events {
		if ev.Seq > afterSeq {
			past = append(past, ev)
		}
	}
	s.metrics.watchers.Inc()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(e.subs, w)
		s.mu.Unlock()
		s.metrics.watchers.Dec()
	}()

	last := afterSeq
	for _, ev := range past {
		if err := send(ev); err != nil {
			return err
		}
		last = ev.Seq
		if ends(ev, player) {
			return nil
		}
	}
	for {
		select {
		case ev, ok := <-w.ch:
			if !ok {
				return cupid.Errorf(cupid.CodeUnavailable, "", "the watch fell behind or the parties moved; reconnect with after_seq=%d", last)
			}
			if ev.Seq <= last {
				continue
			}
			if err := send(ev); err != nil {
				return err
			}
			last = ev.Seq
			if ends(ev, player) {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// List returns up to limit parties after the party id after, in id order,
// for the operator (the dashboard).
func (s *Service) List(after string, limit int) []*party.Party {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.parties))
	for id := range s.parties {
		if id > after {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if limit > 0 && len(ids) > limit {
		ids = ids[:limit]
	}
	out := make([]*party.Party, len(ids))
	for i, id := range ids {
		out[i] = s.parties[id].p
	}
	return out
}
