package lifecycle

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// The pure half of the lifecycle: each function takes the rows a step read
// and returns the rows to write (a *cupid.Writes) with what the caller is
// told, or the contract's error, in which case nothing is written. None of
// them does I/O or reads the clock.

// finish ends a waiting ticket t (nil when the store has none with id) as
// cancelled or expired.
func finish(t *cupid.Ticket, id string, state cupid.TicketState, reason string, now time.Time) (*cupid.Writes, error) {
	switch {
	case state != cupid.StateCancelled && state != cupid.StateExpired:
		return nil, cupid.Invalid("state", "a ticket can only be finished as cancelled or expired, not %q", state)
	case t == nil:
		return nil, cupid.NotFound("id", "no ticket %q", id)
	case t.State != cupid.StateWaiting:
		return nil, cupid.Conflict("id", "ticket %q is already %s", id, t.State)
	}
	kind := cupid.EventCancelled
	if state == cupid.StateExpired {
		kind = cupid.EventExpired
	}
	w := &cupid.Writes{}
	w.Tickets = append(w.Tickets, end(t, state, "", reason, now))
	w.Events = append(w.Events, cupid.Event{TicketID: id, Kind: kind, At: now, Reason: reason})
	return w, nil
}

// end is the write of a ticket moving from its state to state, in match
// matchID (empty for none), with reason, at now.
func end(t *cupid.Ticket, state cupid.TicketState, matchID, reason string, now time.Time) cupid.TicketWrite {
	c := *t
	c.State, c.MatchID, c.Reason, c.UpdatedAt = state, matchID, reason, now
	return cupid.TicketWrite{Ticket: &c, From: t.State}
}

// assign records where a formed match is played: the match becomes
// assigned, the match log says so, and each ticket whose players have not
// all left the session hears "assigned". tickets are the match's tickets;
// they are needed only when someone left (see Match.Gone).
func assign(rec *cupid.MatchRecord, tickets []*cupid.Ticket, a cupid.Assignment) (*cupid.Writes, error) {
	if rec.State != cupid.MatchFormed {
		return nil, MatchNotFormed(rec.Match.ID, rec.State)
	}
	a.At = a.At.UTC()
	n := *rec
	n.State, n.Assignment, n.UpdatedAt = cupid.MatchAssigned, &a, a.At
	w := &cupid.Writes{Match: &n}
	w.MatchEvents = append(w.MatchEvents, &cupid.MatchEvent{MatchID: n.Match.ID, Queue: n.Match.Key.Queue, Kind: cupid.MatchEventAssigned,
		At: a.At, Match: n.Match, Assignment: &a})
	gone := map[string]bool{}
	for _, t := range tickets {
		gone[t.ID] = n.Match.Gone(t.Players)
	}
	for _, tid := range n.Match.TicketIDs() {
		if gone[tid] {
			continue // its players left the session: the assignment is not theirs
		}
		w.Events = append(w.Events, cupid.Event{TicketID: tid, Kind: cupid.EventAssigned, At: a.At, Match: n.Match, Assignment: &a})
	}
	return w, nil
}

// release ends a formed or pending match: it is released (logged unless
// it was pending: backends never heard of it) and each of its tickets is
// requeued or cancelled as r says. The rules, in order, for one ticket:
//
//   - a decliner's ticket is requeued as if created now (RequeueLast) or
//     cancelled with DeclinerReason; the others are requeued with their
//     age (Requeue) or cancelled with Reason;
//   - a ticket one of whose players left the session is cancelled: he is
//     gone, and must not be matched again by a match he left;
//   - a ticket to requeue one of whose players took another live ticket in
//     the queue meanwhile is cancelled: a player has one live ticket per
//     queue.
//
// tickets are the match's tickets, live the player index's entries for
// their players.
func release(rec *cupid.MatchRecord, tickets []*cupid.Ticket, live []cupid.LiveTicket, r cupid.Release, now time.Time) (*cupid.Writes, *cupid.Released, error) {
	id := rec.Match.ID
	if rec.State != cupid.MatchFormed && rec.State != cupid.MatchPending {
		return nil, nil, MatchNotFormed(id, rec.State)
	}
	byID := make(map[string]*cupid.Ticket, len(tickets))
	for _, t := range tickets {
		byID[t.ID] = t
	}
	taken := map[[2]string]string{} // queue, player → live ticket
	for _, l := range live {
		taken[[2]string{l.Queue, l.Player}] = l.Ticket
	}
	n := *rec
	n.State, n.Reason, n.UpdatedAt, n.Answers = cupid.MatchReleased, r.Reason, now, nil
	w := &cupid.Writes{Match: &n}
	out := &cupid.Released{Match: &n}
	if rec.State != cupid.MatchPending {
		out.Event = cupid.MatchEvent{MatchID: id, Queue: n.Match.Key.Queue, Kind: cupid.MatchEventReleased, At: now, Match: n.Match, Reason: r.Reason}
		w.MatchEvents = append(w.MatchEvents, &out.Event)
	}
	for _, tid := range n.Match.TicketIDs() {
		t := byID[tid]
		if t == nil || t.State != cupid.StateMatched || t.MatchID != id {
			return nil, nil, fmt.Errorf("lifecycle: release match %s: its ticket %s is not matched in it", id, tid)
		}
		declined := r.Declined(t.Players)
		requeue, why := r.Requeue, r.Reason
		if declined {
			requeue, why = r.RequeueLast, r.DeclinerReason
		}
		if p := n.Match.LeaverOf(t.Players); p != "" {
			requeue, why = false, LeftReason(p, id)
		}
		if requeue {
			for _, p := range t.Players {
				if other, ok := taken[[2]string{t.Key.Queue, p.ID}]; ok {
					requeue, why = false, RequeueTakenReason(p.ID, other, t.Key.Queue)
					break
				}
			}
		}
		if !requeue {
			tw := end(t, cupid.StateCancelled, "", why, now)
			w.Tickets = append(w.Tickets, tw)
			w.Events = append(w.Events, cupid.Event{TicketID: tid, Kind: cupid.EventCancelled, At: now, Reason: why})
			out.Cancelled = append(out.Cancelled, tw.Ticket)
			continue
		}
		tw := end(t, cupid.StateWaiting, "", "", now)
		if declined {
			tw.Ticket.CreatedAt, tw.Reborn = now, true // the penalty: to the back of the queue
		}
		for _, p := range t.Players {
			taken[[2]string{t.Key.Queue, p.ID}] = tid
		}
		w.Tickets = append(w.Tickets, tw)
		w.Events = append(w.Events, cupid.Event{TicketID: tid, Kind: cupid.EventRequeued, At: now, Reason: why})
		out.Requeued = append(out.Requeued, tw.Ticket)
	}
	out.Events = w.Events
	return w, out, nil
}

// answer records player's answer to a pending match with what it causes:
// the last acceptance forms the match (its formed event, and the tickets'
// matched events); a decline releases it as decline says. The same answer
// twice changes nothing; a changed answer is refused. tickets and live are
// read for a decline (see release).
func answer(rec *cupid.MatchRecord, answers []cupid.Answer, tickets []*cupid.Ticket, live []cupid.LiveTicket,
	player string, accept bool, decline cupid.Release, now time.Time) (*cupid.Writes, *cupid.Answered, error) {
	id := rec.Match.ID
	if !slices.Contains(cupid.MatchPlayerIDs(rec.Match), player) {
		return nil, nil, PlayerNotInMatch(id, player)
	}
	for _, a := range answers {
		if a.PlayerID == player {
			if a.Accept != accept {
				return nil, nil, AnswerChanged(id, player, a.Accept)
			}
			n := *rec
			n.Answers = answers
			return &cupid.Writes{}, &cupid.Answered{Match: &n, Repeated: true}, nil
		}
	}
	if rec.State != cupid.MatchPending {
		return nil, nil, MatchNotPending(id, rec.State)
	}
	a := cupid.Answer{PlayerID: player, Accept: accept, At: now}
	answers = append(slices.Clone(answers), a)
	out := &cupid.Answered{}
	w := &cupid.Writes{}
	switch {
	case !accept:
		var err error
		if w, out.Released, err = release(rec, tickets, live, decline, now); err != nil {
			return nil, nil, err
		}
		out.Match = out.Released.Match
	case AllAccepted(rec.Match, answers):
		n := *rec
		n.State, n.UpdatedAt = cupid.MatchFormed, now
		w.Match, out.Match = &n, &n
		out.Formed = &cupid.MatchEvent{MatchID: id, Queue: n.Match.Key.Queue, Kind: cupid.MatchEventFormed, At: now, Match: n.Match}
		w.MatchEvents = append(w.MatchEvents, out.Formed)
		for _, tid := range n.Match.TicketIDs() {
			w.Events = append(w.Events, cupid.Event{TicketID: tid, Kind: cupid.EventMatched, At: now, Match: n.Match})
		}
		out.Events = w.Events
	default:
		n := *rec
		out.Match = &n
	}
	w.Answer = &cupid.MatchAnswer{MatchID: id, Answer: a}
	m := *out.Match
	m.Answers = answers
	out.Match = &m
	return w, out, nil
}

// changeSession applies a backend's change to a live session (see
// lifecycle.ApplySessionChange) with its match event.
func changeSession(rec *cupid.MatchRecord, c cupid.SessionChange, now time.Time) (*cupid.Writes, *cupid.MatchEvent, error) {
	n := *rec
	m := *rec.Match
	n.Match = &m
	if err := ApplySessionChange(&n, c, now); err != nil {
		return nil, nil, err
	}
	ev := &cupid.MatchEvent{MatchID: m.ID, Queue: m.Key.Queue, Kind: c.Kind, At: now.UTC(), Match: n.Match, Assignment: n.Assignment}
	if c.Kind == cupid.MatchEventLeft {
		ev.PlayerIDs = slices.Clone(c.Players)
	}
	return &cupid.Writes{Match: &n, MatchEvents: []*cupid.MatchEvent{ev}}, ev, nil
}

// newcomers lists the players a game server's view of a session brings in
// (those not in it now), with the field each is given at.
func newcomers(m *cupid.Match, teams [][]cupid.Player) ([]string, map[string]string) {
	var ids []string
	field := map[string]string{}
	for i, team := range teams {
		for j, p := range team {
			if _, seen := field[p.ID]; !seen && !m.InTeams(p.ID) {
				ids = append(ids, p.ID)
				field[p.ID] = fmt.Sprintf("teams[%d].players[%d].id", i, j)
			}
		}
	}
	return ids, field
}

// elsewhere refuses a game server's view of a session that brings in a
// player who is in another live match (in, the index of players in live
// matches, read in the step's transaction): a player is in one live match
// at most.
func elsewhere(m *cupid.Match, teams [][]cupid.Player, in []cupid.InMatch) error {
	_, field := newcomers(m, teams)
	for _, e := range in {
		if f, ok := field[e.Player]; ok && e.Match != m.ID {
			return cupid.Conflict(f, "player %s is in match %s, which is live: a player is in one live match at most", e.Player, e.Match)
		}
	}
	return nil
}

// backfillNeeds lists the live tickets a backfill would cancel: the
// newcomers' live tickets in other queues, each with the reason it is
// cancelled for. A ticket shared by several newcomers is named by the
// smallest player id, then queue, so every store gives the same reason.
func backfillNeeds(ids []string, newcomers []*cupid.Ticket, live []cupid.LiveTicket, matchID string) map[string]string {
	type why struct{ player, queue string }
	queueOf := map[string]string{} // player → the newcomer ticket's queue
	for _, t := range newcomers {
		for _, p := range t.Players {
			if q, ok := queueOf[p.ID]; !ok || t.Key.Queue < q {
				queueOf[p.ID] = t.Key.Queue
			}
		}
	}
	others := map[string]why{}
	for _, l := range live {
		if slices.Contains(ids, l.Ticket) {
			continue
		}
		q, ok := queueOf[l.Player]
		if !ok {
			continue
		}
		w, seen := others[l.Ticket]
		if !seen || cmp.Or(cmp.Compare(l.Player, w.player), cmp.Compare(q, w.queue)) < 0 {
			others[l.Ticket] = why{l.Player, q}
		}
	}
	out := make(map[string]string, len(others))
	for id, w := range others {
		out[id] = MatchedElsewhereReason(w.player, w.queue, matchID)
	}
	return out
}

// backfill adds waiting tickets to a live session: they become matched in
// the session's match, its teams grow (lifecycle.ApplyBackfill), the match log
// says "backfilled", each ticket hears "matched" (and "assigned" when the
// session is), and the newcomers' live tickets in other queues are
// cancelled. A backfill whose tickets are not all waiting, or that the
// session refuses, writes nothing: the result says why. rec is nil when
// the match is unknown; tickets are the newcomers and others the tickets
// named by backfillNeeds' result (cancel), both as read; busy are the
// newcomers whose players are in a live match, which refuse the backfill
// unless that match is the session itself.
func backfill(rec *cupid.MatchRecord, b cupid.Backfill, tickets, others []*cupid.Ticket, cancel map[string]string, busy []cupid.Busy) (*cupid.Writes, *cupid.Backfilled) {
	out := &cupid.Backfilled{}
	ids := b.TicketIDs()
	byID := map[string]*cupid.Ticket{}
	for _, t := range tickets {
		if t.State == cupid.StateWaiting {
			byID[t.ID] = t
		}
	}
	for _, id := range ids {
		if byID[id] == nil {
			out.NotWaiting = append(out.NotWaiting, id)
		}
	}
	if len(out.NotWaiting) > 0 {
		return &cupid.Writes{}, out
	}
	if rec == nil {
		out.Err = cupid.MatchNotFound(b.MatchID)
		return &cupid.Writes{}, out
	}
	for _, x := range busy {
		if x.Match != b.MatchID {
			out.Busy = append(out.Busy, x)
		}
	}
	if len(out.Busy) > 0 {
		return &cupid.Writes{}, out
	}
	n := *rec
	m := *rec.Match
	n.Match = &m
	if err := ApplyBackfill(&n, b); err != nil {
		out.Err = err
		return &cupid.Writes{}, out
	}
	at := b.At.UTC()
	w := &cupid.Writes{Match: &n}
	var players []string
	for _, id := range ids {
		t := byID[id]
		for _, p := range t.Players {
			players = append(players, p.ID)
		}
		w.Tickets = append(w.Tickets, end(t, cupid.StateMatched, m.ID, "", at))
		w.Events = append(w.Events, cupid.Event{TicketID: id, Kind: cupid.EventMatched, At: at, Match: n.Match})
		if n.State == cupid.MatchAssigned {
			w.Events = append(w.Events, cupid.Event{TicketID: id, Kind: cupid.EventAssigned, At: at, Match: n.Match, Assignment: n.Assignment})
		}
	}
	others = slices.Clone(others)
	slices.SortFunc(others, func(a, b *cupid.Ticket) int { return cmp.Compare(a.ID, b.ID) })
	for _, t := range others {
		why, ok := cancel[t.ID]
		if !ok || t.State != cupid.StateWaiting {
			continue
		}
		tw := end(t, cupid.StateCancelled, "", why, at)
		w.Tickets = append(w.Tickets, tw)
		w.Events = append(w.Events, cupid.Event{TicketID: t.ID, Kind: cupid.EventCancelled, At: at, Reason: why})
		out.Cancelled = append(out.Cancelled, tw.Ticket)
	}
	out.Event = cupid.MatchEvent{MatchID: m.ID, Queue: m.Key.Queue, Kind: cupid.MatchEventBackfilled, At: at, Match: n.Match,
		TicketIDs: ids, PlayerIDs: players}
	w.MatchEvents = append(w.MatchEvents, &out.Event)
	out.OK, out.Match = true, &n
	return w, out
}
