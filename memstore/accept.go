package memstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// The ready check's answers and the release of a match ticket by ticket;
// see the root package's accept.go.

func init() {
	ops["AnswerMatch"] = true
	ops["MatchAnswers"] = true
}

// ReleaseMatchWith ends a formed or pending match, each ticket as r says.
// It fails as ReleaseMatch does (the fault operation "ReleaseMatch").
func (s *Store) ReleaseMatchWith(ctx context.Context, id string, r cupid.Release, now time.Time) (out *cupid.Released, err error) {
	if err := s.begin(ctx, "ReleaseMatch"); err != nil {
		return nil, err
	}
	defer func() { s.end(err) }()
	rec, ok := s.hand[id]
	if !ok {
		return nil, cupid.MatchNotFound(id)
	}
	if rec.State != cupid.MatchFormed && rec.State != cupid.MatchPending {
		return nil, cupid.MatchNotFormed(id, rec.State)
	}
	return s.release(rec, r, now.UTC()), nil
}

// release ends a match inside a call: the match is released (logged
// unless it was pending, which backends never heard of) and each ticket
// requeued or cancelled as r says.
func (s *Store) release(rec *cupid.MatchRecord, r cupid.Release, now time.Time) *cupid.Released {
	id := rec.Match.ID
	pending := rec.State == cupid.MatchPending
	n := &cupid.MatchRecord{Match: rec.Match, State: cupid.MatchReleased, UpdatedAt: now, Reason: r.Reason}
	s.setHand(n)
	out := &cupid.Released{}
	if !pending {
		out.Event = s.logMatch(cupid.MatchEvent{MatchID: id, Queue: rec.Match.Key.Queue, Kind: cupid.MatchEventReleased, At: now})
	}
	for _, tid := range rec.Match.TicketIDs() {
		t := *s.tickets[tid]
		t.UpdatedAt = now
		declined := r.Declined(t.Players)
		requeue, why := r.Requeue, r.Reason
		if declined {
			requeue, why = r.RequeueLast, r.DeclinerReason
		}
		if p := rec.Match.LeaverOf(t.Players); p != "" {
			requeue, why = false, cupid.LeftReason(p, id)
		}
		if requeue {
			for _, p := range t.Players {
				if other, ok := s.live[p.ID][t.Key.Queue]; ok {
					requeue, why = false, cupid.RequeueTakenReason(p.ID, other, t.Key.Queue)
					break
				}
			}
		}
		if requeue {
			t.State, t.MatchID, t.Reason = cupid.StateWaiting, "", ""
			if declined {
				t.CreatedAt = now // the penalty: to the back of the queue
			}
			s.putTicket(&t)
			for _, p := range t.Players {
				s.setLive(p.ID, t.Key.Queue, t.ID)
			}
			out.Events = append(out.Events, s.addEvent(cupid.Event{TicketID: tid, Kind: cupid.EventRequeued, At: now, Reason: why}))
			out.Requeued = append(out.Requeued, cloneTicket(&t))
			continue
		}
		t.State, t.Reason, t.MatchID = cupid.StateCancelled, why, ""
		s.putTicket(&t)
		out.Events = append(out.Events, s.addEvent(cupid.Event{TicketID: tid, Kind: cupid.EventCancelled, At: now, Reason: why}))
		out.Cancelled = append(out.Cancelled, cloneTicket(&t))
	}
	out.Match = cloneRecord(n)
	return out
}

// AnswerMatch records a player's answer to a pending match with what it
// causes, all or nothing.
func (s *Store) AnswerMatch(ctx context.Context, id, player string, accept bool, decline cupid.Release, now time.Time) (out *cupid.Answered, err error) {
	if err := s.begin(ctx, "AnswerMatch"); err != nil {
		return nil, err
	}
	defer func() { s.end(err) }()
	rec, ok := s.hand[id]
	if !ok {
		return nil, cupid.MatchNotFound(id)
	}
	if !slices.Contains(cupid.MatchPlayerIDs(rec.Match), player) {
		return nil, cupid.PlayerNotInMatch(id, player)
	}
	for _, a := range s.answers[id] {
		if a.PlayerID == player {
			if a.Accept != accept {
				return nil, cupid.AnswerChanged(id, player, a.Accept)
			}
			return &cupid.Answered{Match: s.recordWithAnswers(id), Repeated: true}, nil
		}
	}
	if rec.State != cupid.MatchPending {
		return nil, cupid.MatchNotPending(id, rec.State)
	}
	now = now.UTC()
	s.addAnswer(id, cupid.Answer{PlayerID: player, Accept: accept, At: now})
	out = &cupid.Answered{}
	switch {
	case !accept:
		out.Released = s.release(rec, decline, now)
	case cupid.AllAccepted(rec.Match, s.answers[id]):
		s.setHand(&cupid.MatchRecord{Match: rec.Match, State: cupid.MatchFormed, UpdatedAt: now})
		ev := s.logMatch(cupid.MatchEvent{MatchID: id, Queue: rec.Match.Key.Queue, Kind: cupid.MatchEventFormed, At: now})
		out.Formed = &ev
		for _, tid := range rec.Match.TicketIDs() {
			e := s.addEvent(cupid.Event{TicketID: tid, Kind: cupid.EventMatched, At: now, Match: rec.Match})
			e.Match = cloneMatch(e.Match)
			out.Events = append(out.Events, e)
		}
	}
	out.Match = s.recordWithAnswers(id)
	return out, nil
}

func (s *Store) addAnswer(id string, a cupid.Answer) {
	if s.answers == nil {
		s.answers = map[string][]cupid.Answer{}
	}
	s.answers[id] = append(s.answers[id], a)
	s.undo = append(s.undo, func() {
		s.answers[id] = s.answers[id][:len(s.answers[id])-1]
	})
}

func (s *Store) recordWithAnswers(id string) *cupid.MatchRecord {
	r := cloneRecord(s.hand[id])
	r.Answers = s.answersOf(id)
	return r
}

// MatchAnswers lists a match's answers by time, then player id.
func (s *Store) MatchAnswers(ctx context.Context, id string) ([]cupid.Answer, error) {
	if err := s.begin(ctx, "MatchAnswers"); err != nil {
		return nil, err
	}
	defer s.end(nil)
	if _, ok := s.hand[id]; !ok {
		return nil, cupid.MatchNotFound(id)
	}
	return s.answersOf(id), nil
}

// answersOf lists a match's answers by time, then player id, as the SQL
// stores do.
func (s *Store) answersOf(id string) []cupid.Answer {
	out := slices.Clone(s.answers[id])
	slices.SortStableFunc(out, func(a, b cupid.Answer) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.PlayerID, b.PlayerID))
	})
	return out
}
