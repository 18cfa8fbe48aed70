package memstore

import (
	"cmp"
	"context"
	"maps"
	"slices"

	cupid "github.com/cupid-match/cupid"
)

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
	e.Match = r.Match.Clone()
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
	c.Match = r.Match.Clone()
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
