package memstore

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// formed records a just-stored match as formed and logs its event.
func (s *Store) formed(m *cupid.Match) cupid.MatchEvent {
	if !m.AcceptBy.IsZero() {
		// Pending until its players accept; not in the log (accept.go).
		s.setHand(&cupid.MatchRecord{Match: m, State: cupid.MatchPending, UpdatedAt: m.CreatedAt.UTC()})
		return cupid.MatchEvent{}
	}
	s.setHand(&cupid.MatchRecord{Match: m, State: cupid.MatchFormed, UpdatedAt: m.CreatedAt.UTC()})
	return s.logMatch(cupid.MatchEvent{MatchID: m.ID, Queue: m.Key.Queue, Kind: cupid.MatchEventFormed, At: m.CreatedAt.UTC()})
}

func (s *Store) setHand(r *cupid.MatchRecord) {
	old, had := s.hand[r.Match.ID]
	s.hand[r.Match.ID] = r
	s.undo = append(s.undo, func() {
		if had {
			s.hand[r.Match.ID] = old
		} else {
			delete(s.hand, r.Match.ID)
		}
	})
}

func (s *Store) logMatch(e cupid.MatchEvent) cupid.MatchEvent {
	s.mseq++
	e.Seq = s.mseq
	s.mlog = append(s.mlog, e)
	s.undo = append(s.undo, func() {
		s.mseq--
		s.mlog = s.mlog[:len(s.mlog)-1]
	})
	return s.eventOut(e)
}

// eventOut fills a logged event with copies of its match and assignment.
func (s *Store) eventOut(e cupid.MatchEvent) cupid.MatchEvent {
	r := s.hand[e.MatchID]
	e.Match = cloneMatch(r.Match)
	if e.Kind == cupid.MatchEventAssigned {
		e.Assignment = cloneAssignment(r.Assignment)
	}
	if e.Kind == cupid.MatchEventReleased {
		e.Reason = r.Reason
	}
	return e
}

func cloneAssignment(a *cupid.Assignment) *cupid.Assignment {
	if a == nil {
		return nil
	}
	c := *a
	c.Connection = maps.Clone(a.Connection)
	return &c
}

func cloneRecord(r *cupid.MatchRecord) *cupid.MatchRecord {
	c := *r
	c.Match = cloneMatch(r.Match)
	c.Assignment = cloneAssignment(r.Assignment)
	return &c
}

// MatchRecord returns a copy of a match with its hand-off state.
func (s *Store) MatchRecord(ctx context.Context, id string) (*cupid.MatchRecord, error) {
	if err := s.begin(ctx, "MatchRecord"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	r, ok := s.hand[id]
	if !ok {
		return nil, cupid.MatchNotFound(id)
	}
	return cloneRecord(r), nil
}

// Matches lists copies of a queue's matches, oldest first.
func (s *Store) Matches(ctx context.Context, f cupid.MatchFilter) ([]*cupid.MatchRecord, error) {
	if err := s.begin(ctx, "Matches"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	var out []*cupid.MatchRecord
	for _, r := range s.hand {
		if (f.Queue == "" || r.Match.Key.Queue == f.Queue) && (f.State == "" || r.State == f.State) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *cupid.MatchRecord) int {
		return cmp.Or(a.Match.CreatedAt.Compare(b.Match.CreatedAt), cmp.Compare(a.Match.ID, b.Match.ID))
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	for i, r := range out {
		out[i] = cloneRecord(r)
	}
	return out, nil
}

// MatchEvents returns a queue's match events after seq, at most limit.
func (s *Store) MatchEvents(ctx context.Context, queue string, afterSeq int64, limit int) ([]cupid.MatchEvent, error) {
	if err := s.begin(ctx, "MatchEvents"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	i, _ := slices.BinarySearchFunc(s.mlog, afterSeq+1, func(e cupid.MatchEvent, seq int64) int { return cmp.Compare(e.Seq, seq) })
	var out []cupid.MatchEvent
	for _, e := range s.mlog[i:] {
		if limit > 0 && len(out) == limit {
			break
		}
		if e.Queue == queue {
			out = append(out, s.eventOut(e))
		}
	}
	return out, nil
}

// formedMatch returns the record of a match that may still be assigned or
// released, or the contract's error.
func (s *Store) formedMatch(id string) (*cupid.MatchRecord, error) {
	r, ok := s.hand[id]
	if !ok {
		return nil, cupid.MatchNotFound(id)
	}
	if r.State != cupid.MatchFormed {
		return nil, cupid.MatchNotFormed(id, r.State)
	}
	return r, nil
}

// AssignMatch records a formed match's assignment.
func (s *Store) AssignMatch(ctx context.Context, id string, a cupid.Assignment) (rec *cupid.MatchRecord, mev cupid.MatchEvent, evs []cupid.Event, err error) {
	if err := cupid.CheckAssignment(a); err != nil {
		return nil, cupid.MatchEvent{}, nil, err
	}
	if err := s.begin(ctx, "AssignMatch"); err != nil {
		return nil, cupid.MatchEvent{}, nil, err
	}
	defer func() { s.end(err) }()
	r, err := s.formedMatch(id)
	if err != nil {
		return nil, cupid.MatchEvent{}, nil, err
	}
	a.At = a.At.UTC()
	n := &cupid.MatchRecord{Match: r.Match, State: cupid.MatchAssigned, Assignment: cloneAssignment(&a), UpdatedAt: a.At}
	s.setHand(n)
	mev = s.logMatch(cupid.MatchEvent{MatchID: id, Queue: r.Match.Key.Queue, Kind: cupid.MatchEventAssigned, At: a.At})
	for _, tid := range r.Match.TicketIDs() {
		if r.Match.Gone(s.tickets[tid].Players) {
			continue // its players left the session: the assignment is not theirs
		}
		ev := s.addEvent(cupid.Event{TicketID: tid, Kind: cupid.EventAssigned, At: a.At, Match: r.Match, Assignment: n.Assignment})
		ev.Match, ev.Assignment = cloneMatch(ev.Match), cloneAssignment(ev.Assignment)
		evs = append(evs, ev)
	}
	return cloneRecord(n), mev, evs, nil
}

// ReleaseMatch ends a formed match, requeueing or cancelling its tickets
// (release, in accept.go).
func (s *Store) ReleaseMatch(ctx context.Context, id string, requeue bool, reason string, now time.Time) (*cupid.Released, error) {
	return s.ReleaseMatchWith(ctx, id, cupid.Release{Reason: reason, Requeue: requeue}, now)
}
