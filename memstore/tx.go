package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"

	cupid "github.com/cupid-match/cupid"
)

// The lifecycle steps (package lifecycle) run through Update, one call
// under the store's lock: reads return copies, Write records its changes
// with their inverses, and an error from the step undoes them all. op is
// the fault operation, so tests fail or hold a step by its name
// ("AssignMatch", "ReleaseMatch", "AnswerMatch", "ChangeSession",
// "CommitBackfills", "FinishTicket"). The fence is not checked: this store
// is never shared by several nodes.

// Update runs fn as one all-or-nothing call.
func (s *Store) Update(ctx context.Context, op string, _ cupid.Fence, fn func(cupid.Tx) error) (err error) {
	if err := s.begin(ctx, op); err != nil {
		return err
	}
	defer func() { s.end(err) }()
	return fn(memTx{s})
}

type memTx struct{ s *Store }

func (t memTx) Match(id string) (*cupid.MatchRecord, error) {
	r, ok := t.s.hand[id]
	if !ok {
		return nil, cupid.MatchNotFound(id)
	}
	return cloneRecord(r), nil
}

func (t memTx) Tickets(ids []string) ([]*cupid.Ticket, error) {
	var out []*cupid.Ticket
	for _, id := range slices.Sorted(slices.Values(ids)) {
		if tk, ok := t.s.tickets[id]; ok && (len(out) == 0 || out[len(out)-1].ID != id) {
			out = append(out, cloneTicket(tk))
		}
	}
	return out, nil
}

func (t memTx) LiveTickets(players []string) ([]cupid.LiveTicket, error) {
	var out []cupid.LiveTicket
	for _, p := range slices.Compact(slices.Sorted(slices.Values(players))) {
		for _, q := range slices.Sorted(maps.Keys(t.s.live[p])) {
			out = append(out, cupid.LiveTicket{Player: p, Queue: q, Ticket: t.s.live[p][q]})
		}
	}
	return out, nil
}

func (t memTx) Answers(matchID string) ([]cupid.Answer, error) { return t.s.answersOf(matchID), nil }

func (t memTx) InMatches(players []string) ([]cupid.InMatch, error) {
	var out []cupid.InMatch
	for _, p := range slices.Compact(slices.Sorted(slices.Values(players))) {
		for _, m := range slices.Sorted(maps.Keys(t.s.byPlayer[p])) {
			out = append(out, cupid.InMatch{Player: p, Match: m})
		}
	}
	return out, nil
}

// indexMatch sets a match's entries in the index of players in live
// matches: its players now while live, none otherwise.
func (s *Store) indexMatch(m *cupid.Match, live bool) {
	set := func(players []string, on bool) {
		for _, p := range players {
			if on {
				if s.byPlayer[p] == nil {
					s.byPlayer[p] = map[string]bool{}
				}
				s.byPlayer[p][m.ID] = true
			} else if delete(s.byPlayer[p], m.ID); len(s.byPlayer[p]) == 0 {
				delete(s.byPlayer, p)
			}
		}
		if on {
			s.inMatch[m.ID] = players
		} else {
			delete(s.inMatch, m.ID)
		}
	}
	old := s.inMatch[m.ID]
	set(old, false)
	var now []string
	if live {
		now = cupid.MatchPlayerIDs(m)
		set(now, true)
	}
	s.undo = append(s.undo, func() {
		set(now, false)
		if old != nil {
			set(old, true)
		}
	})
}

func (t memTx) Write(w *cupid.Writes) error {
	s := t.s
	for _, tw := range w.Tickets {
		c := cloneTicket(tw.Ticket)
		s.putTicket(c)
		switch {
		case tw.From == cupid.StateWaiting && c.State != cupid.StateWaiting:
			for _, p := range c.Players {
				if s.live[p.ID][c.Key.Queue] == c.ID {
					s.setLive(p.ID, c.Key.Queue, "")
				}
			}
		case tw.From != cupid.StateWaiting && c.State == cupid.StateWaiting:
			for _, p := range c.Players {
				if other, ok := s.live[p.ID][c.Key.Queue]; ok {
					return fmt.Errorf("memstore: player %s already has live ticket %s in queue %s", p.ID, other, c.Key.Queue)
				}
				s.setLive(p.ID, c.Key.Queue, c.ID)
			}
		}
	}
	if w.Match != nil {
		r := cloneRecord(w.Match)
		r.Answers = nil
		s.setHand(r)
		s.replaceMatch(r.Match)
		s.indexMatch(r.Match, cupid.LiveMatch(r.State))
	}
	if w.Answer != nil {
		s.addAnswer(w.Answer.MatchID, w.Answer.Answer)
	}
	for i, e := range w.Events {
		e.Match, e.Assignment = e.Match.Clone(), cloneAssignment(e.Assignment)
		w.Events[i].Seq = s.addEvent(e).Seq
	}
	for _, e := range w.MatchEvents {
		c := *e
		c.Match, c.Assignment = nil, nil
		c.TicketIDs, c.PlayerIDs = slices.Clone(e.TicketIDs), slices.Clone(e.PlayerIDs)
		e.Seq = s.logMatch(c).Seq
	}
	return nil
}
