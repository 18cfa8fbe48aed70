package memstore

import (
	"context"
	"maps"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// The session calls can be made to fail or held, as the others.
func init() {
	for _, op := range []string{"CommitBackfills", "ChangeSession", "OpenSessions"} {
		ops[op] = true
	}
}

// CommitBackfills adds waiting tickets to live sessions; see cupid.Store.
func (s *Store) CommitBackfills(ctx context.Context, bs []cupid.Backfill) (out []cupid.Backfilled, events []cupid.Event, err error) {
	if err := s.begin(ctx, "CommitBackfills"); err != nil {
		return nil, nil, err
	}
	defer func() { s.end(err) }()
	out = make([]cupid.Backfilled, len(bs))
	for i, b := range bs {
		ids := b.TicketIDs()
		for _, id := range ids {
			if t, ok := s.tickets[id]; !ok || t.State != cupid.StateWaiting {
				out[i].NotWaiting = append(out[i].NotWaiting, id)
			}
		}
		if len(out[i].NotWaiting) > 0 {
			continue
		}
		r, ok := s.hand[b.MatchID]
		if !ok {
			out[i].Err = cupid.MatchNotFound(b.MatchID)
			continue
		}
		n := cloneRecord(r)
		if err := cupid.ApplyBackfill(n, b); err != nil {
			out[i].Err = err
			continue
		}
		at := b.At.UTC()
		s.setHand(n)
		s.replaceMatch(n.Match)
		type why struct{ player, queue string }
		others := map[string]why{}
		var players []string
		for _, id := range ids {
			t := s.tickets[id]
			for _, p := range t.Players {
				players = append(players, p.ID)
				for _, other := range s.live[p.ID] {
					if slices.Contains(ids, other) {
						continue
					}
					w, seen := others[other]
					if !seen || p.ID < w.player || (p.ID == w.player && t.Key.Queue < w.queue) {
						others[other] = why{p.ID, t.Key.Queue}
					}
				}
			}
		}
		for _, id := range ids {
			events = append(events, s.finish(id, cupid.StateMatched, "", b.MatchID, at, n.Match))
			if n.State == cupid.MatchAssigned {
				events = append(events, s.addEvent(cupid.Event{TicketID: id, Kind: cupid.EventAssigned, At: at, Match: n.Match, Assignment: n.Assignment}))
			}
		}
		for _, id := range slices.Sorted(maps.Keys(others)) {
			w := others[id]
			events = append(events, s.finish(id, cupid.StateCancelled, cupid.MatchedElsewhereReason(w.player, w.queue, b.MatchID), "", at, nil))
			out[i].Cancelled = append(out[i].Cancelled, cloneTicket(s.tickets[id]))
		}
		out[i].OK = true
		out[i].Event = s.logMatch(cupid.MatchEvent{MatchID: b.MatchID, Queue: n.Match.Key.Queue, Kind: cupid.MatchEventBackfilled, At: at,
			TicketIDs: ids, PlayerIDs: players})
		out[i].Match = cloneRecord(n)
	}
	for i := range events {
		events[i].Match, events[i].Assignment = cloneMatch(events[i].Match), cloneAssignment(events[i].Assignment)
	}
	return out, events, nil
}

// ChangeSession applies a backend's change to a live session.
func (s *Store) ChangeSession(ctx context.Context, id string, c cupid.SessionChange, now time.Time) (rec *cupid.MatchRecord, mev cupid.MatchEvent, err error) {
	if err := s.begin(ctx, "ChangeSession"); err != nil {
		return nil, cupid.MatchEvent{}, err
	}
	defer func() { s.end(err) }()
	r, ok := s.hand[id]
	if !ok {
		return nil, cupid.MatchEvent{}, cupid.MatchNotFound(id)
	}
	n := cloneRecord(r)
	if err := cupid.ApplySessionChange(n, c, now); err != nil {
		return nil, cupid.MatchEvent{}, err
	}
	s.setHand(n)
	s.replaceMatch(n.Match)
	ev := cupid.MatchEvent{MatchID: id, Queue: n.Match.Key.Queue, Kind: c.Kind, At: now.UTC()}
	if c.Kind == cupid.MatchEventLeft {
		ev.PlayerIDs = slices.Clone(c.Players)
	}
	mev = s.logMatch(ev)
	return cloneRecord(n), mev, nil
}

// OpenSessions lists the live sessions open to backfill, oldest first.
func (s *Store) OpenSessions(ctx context.Context) ([]*cupid.MatchRecord, error) {
	if err := s.begin(ctx, "OpenSessions"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	var out []*cupid.MatchRecord
	for _, r := range s.hand {
		if r.Live() && r.Match.Backfill {
			out = append(out, cloneRecord(r))
		}
	}
	slices.SortFunc(out, func(a, b *cupid.MatchRecord) int {
		if c := a.Match.CreatedAt.Compare(b.Match.CreatedAt); c != 0 {
			return c
		}
		return cmpString(a.Match.ID, b.Match.ID)
	})
	return out, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// replaceMatch stores a session's changed match in place of the old one.
func (s *Store) replaceMatch(m *cupid.Match) {
	old := s.matches[m.ID]
	s.matches[m.ID] = m
	s.undo = append(s.undo, func() { s.matches[m.ID] = old })
}
