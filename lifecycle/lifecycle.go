// Package lifecycle decides what may happen to a ticket, a match and a
// session, once, for every store. Each step reads the rows it decides on
// through a store's transaction (cupid.Tx), hands them to a pure function
// that returns the rows to write and the events to emit, and has the store
// write them in the same transaction. A store therefore only persists:
// locking, sequence numbers, notifications and the fence are its own, the
// rules are here.
//
// The steps:
//
//	Finish         waiting → cancelled | expired
//	Assign         formed match → assigned; its tickets hear "assigned"
//	Release        formed | pending match → released; tickets requeued or cancelled
//	Answer         a ready-check answer; the last "yes" forms, a "no" releases
//	ChangeSession  a live session's backfill flag, leavers, end
//	Backfill       waiting tickets → matched into a live session
//
// Creating tickets and committing new matches run in the stores' group
// commit, where thousands of rows go in one statement; their rules (one
// live ticket per player and queue, a match only of waiting tickets, a
// matched player's other tickets cancelled) are pinned by the storetest
// contract.
package lifecycle

import (
	"context"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Finish moves a waiting ticket to cancelled or expired, with a reason
// (empty when its owner cancelled it). Unknown ticket: not_found; one no
// longer waiting: conflict.
func Finish(ctx context.Context, st cupid.Updater, f cupid.Fence, id string, state cupid.TicketState, reason string, now time.Time) (*cupid.Ticket, cupid.Event, error) {
	now = now.UTC()
	if _, err := finish(&cupid.Ticket{State: cupid.StateWaiting}, id, state, reason, now); err != nil {
		return nil, cupid.Event{}, err // a caller's mistake, refused before the store is asked
	}
	var w *cupid.Writes
	err := st.Update(ctx, "FinishTicket", f, func(tx cupid.Tx) error {
		ts, err := tx.Tickets([]string{id})
		if err != nil {
			return err
		}
		var t *cupid.Ticket
		if len(ts) == 1 {
			t = ts[0]
		}
		if w, err = finish(t, id, state, reason, now); err != nil {
			return err
		}
		return tx.Write(w)
	})
	if err != nil {
		return nil, cupid.Event{}, err
	}
	return w.Tickets[0].Ticket, w.Events[0], nil
}

// Assign records a formed match's assignment, with its match event and its
// tickets' assigned events. Unknown match: not_found; one no longer formed:
// conflict; an assignment a store must not keep: invalid_argument.
func Assign(ctx context.Context, st cupid.Updater, f cupid.Fence, id string, a cupid.Assignment) (*cupid.MatchRecord, cupid.MatchEvent, []cupid.Event, error) {
	if err := CheckAssignment(a); err != nil {
		return nil, cupid.MatchEvent{}, nil, err
	}
	var w *cupid.Writes
	err := st.Update(ctx, "AssignMatch", f, func(tx cupid.Tx) error {
		rec, err := tx.Match(id)
		if err != nil {
			return err
		}
		var ts []*cupid.Ticket
		if len(rec.Match.Left) > 0 {
			if ts, err = tx.Tickets(rec.Match.TicketIDs()); err != nil {
				return err
			}
		}
		if w, err = assign(rec, ts, a); err != nil {
			return err
		}
		return tx.Write(w)
	})
	if err != nil {
		return nil, cupid.MatchEvent{}, nil, err
	}
	return w.Match, *w.MatchEvents[0], w.Events, nil
}

// Release ends a formed or pending match, each ticket as r says (see
// release for the rules). Unknown match: not_found; a match already
// assigned, released or ended: conflict.
func Release(ctx context.Context, st cupid.Updater, f cupid.Fence, id string, r cupid.Release, now time.Time) (*cupid.Released, error) {
	now = now.UTC()
	var out *cupid.Released
	err := st.Update(ctx, "ReleaseMatch", f, func(tx cupid.Tx) error {
		rec, err := tx.Match(id)
		if err != nil {
			return err
		}
		if rec.State != cupid.MatchFormed && rec.State != cupid.MatchPending {
			return MatchNotFormed(id, rec.State)
		}
		ts, live, err := ticketsAndLive(tx, rec.Match)
		if err != nil {
			return err
		}
		var w *cupid.Writes
		if w, out, err = release(rec, ts, live, r, now); err != nil {
			return err
		}
		return tx.Write(w)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ticketsAndLive reads a match's tickets and its players' entries in the
// player index.
func ticketsAndLive(tx cupid.Tx, m *cupid.Match) ([]*cupid.Ticket, []cupid.LiveTicket, error) {
	ts, err := tx.Tickets(m.TicketIDs())
	if err != nil {
		return nil, nil, err
	}
	var players []string
	for _, t := range ts {
		for _, p := range t.Players {
			players = append(players, p.ID)
		}
	}
	live, err := tx.LiveTickets(players)
	return ts, live, err
}

// Answer records a player's answer to a pending match with what it
// causes: the last acceptance forms the match, a decline releases it as
// decline says. The same answer twice changes nothing (Answered.Repeated);
// errors: unknown match not_found, a player not in it invalid_argument
// (player_id), a match not pending or a changed answer conflict.
func Answer(ctx context.Context, st cupid.Updater, f cupid.Fence, id, player string, accept bool, decline cupid.Release, now time.Time) (*cupid.Answered, error) {
	now = now.UTC()
	var out *cupid.Answered
	err := st.Update(ctx, "AnswerMatch", f, func(tx cupid.Tx) error {
		rec, err := tx.Match(id)
		if err != nil {
			return err
		}
		answers, err := tx.Answers(id)
		if err != nil {
			return err
		}
		var ts []*cupid.Ticket
		var live []cupid.LiveTicket
		if !accept && rec.State == cupid.MatchPending {
			if ts, live, err = ticketsAndLive(tx, rec.Match); err != nil {
				return err
			}
		}
		var w *cupid.Writes
		if w, out, err = answer(rec, answers, ts, live, player, accept, decline, now); err != nil {
			return err
		}
		return tx.Write(w)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ChangeSession applies a backend's change to a live session with its
// match event. Unknown match: not_found; a session over, a leaver not in
// it, backfill already closed: conflict.
func ChangeSession(ctx context.Context, st cupid.Updater, f cupid.Fence, id string, c cupid.SessionChange, now time.Time) (*cupid.MatchRecord, cupid.MatchEvent, error) {
	var w *cupid.Writes
	err := st.Update(ctx, "ChangeSession", f, func(tx cupid.Tx) error {
		rec, err := tx.Match(id)
		if err != nil {
			return err
		}
		if c.Kind == cupid.MatchEventBackfillOpened && c.Teams != nil {
			newcomers, _ := newcomers(rec.Match, c.Teams)
			in, err := tx.InMatches(newcomers)
			if err != nil {
				return err
			}
			if err := elsewhere(rec.Match, c.Teams, in); err != nil {
				return err
			}
		}
		if w, _, err = changeSession(rec, c, now); err != nil {
			return err
		}
		return tx.Write(w)
	})
	if err != nil {
		return nil, cupid.MatchEvent{}, err
	}
	return w.Match, *w.MatchEvents[0], nil
}

// Backfill adds waiting tickets to live sessions, each backfill in a
// transaction of its own (see backfill for the rules). The error is for
// the call as a whole; a backfill refused alone says so in its result.
func Backfill(ctx context.Context, st cupid.Updater, f cupid.Fence, bs []cupid.Backfill) ([]cupid.Backfilled, []cupid.Event, error) {
	out := make([]cupid.Backfilled, len(bs))
	var events []cupid.Event
	for i, b := range bs {
		var w *cupid.Writes
		var res *cupid.Backfilled
		err := st.Update(ctx, "CommitBackfills", f, func(tx cupid.Tx) error {
			ids := b.TicketIDs()
			ts, err := tx.Tickets(ids)
			if err != nil {
				return err
			}
			rec, err := tx.Match(b.MatchID)
			if cupid.ErrorCode(err) == cupid.CodeNotFound {
				rec, err = nil, nil
			}
			if err != nil {
				return err
			}
			var players []string
			for _, t := range ts {
				for _, p := range t.Players {
					players = append(players, p.ID)
				}
			}
			live, err := tx.LiveTickets(players)
			if err != nil {
				return err
			}
			in, err := tx.InMatches(players)
			if err != nil {
				return err
			}
			var busy []cupid.Busy
			for _, t := range ts {
				for _, p := range t.Players {
					for _, x := range in {
						if x.Player == p.ID {
							busy = append(busy, cupid.Busy{Ticket: t.ID, Player: p.ID, Match: x.Match})
						}
					}
				}
			}
			cancel := backfillNeeds(ids, ts, live, b.MatchID)
			var others []*cupid.Ticket
			if len(cancel) > 0 {
				keys := make([]string, 0, len(cancel))
				for id := range cancel {
					keys = append(keys, id)
				}
				slices.Sort(keys)
				if others, err = tx.Tickets(keys); err != nil {
					return err
				}
			}
			w, res = backfill(rec, b, ts, others, cancel, busy)
			return tx.Write(w)
		})
		if err != nil {
			return nil, nil, err
		}
		out[i] = *res
		events = append(events, w.Events...)
	}
	return out, events, nil
}
