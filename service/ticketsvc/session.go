package ticketsvc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/lifecycle"
)

// Game sessions and backfill. A committed match is a session (see the root
// package's session.go): with the ruleset's auto_backfill, a match formed
// with seats to spare is open to backfill at once; a backend may open or
// close backfill by hand, report players who left and end the session.
//
// The store holds the truth. A pool holds open in its engine the sessions
// of its queue key that are open to backfill, so that Step fills them
// before it forms new matches; it learns of changes from its own commits
// and from the service, which, after each change the store accepted, sends
// the pool the session as stored with the sequence number of the change's
// match event. A pool ignores a session older than the one it holds, so a
// change and a backfill commit racing each other leave it with the newer.
// A restart gives the open sessions back to their pools before the waiting
// tickets, so backfill comes first then too.

// openSession is what a pool keeps of a session it holds open to backfill,
// whether it sits in the engine or is out with a backfill proposal.
type openSession struct {
	seq     int64 // the match event this reflects
	rec     *cupid.MatchRecord
	players map[string]cupid.Player
	opened  time.Time
	// held are waiting tickets of players already in the session, which
	// the engine proposed for it: they are kept out of the engine (in the
	// pool's out, so they still expire) while the session is open, or the
	// engine would propose them again and again instead of anyone else.
	held []*cupid.Ticket
}

// seatsOf is how many players each of n teams may hold: the ruleset's
// largest player_max_number at any flex level, as the engine counts it.
func seatsOf(q *queue, n int) []int {
	most := 0
	for _, a := range q.rules.Alliance {
		most = max(most, a.PlayerMaxNumber)
	}
	seats := make([]int, n)
	for i := range seats {
		seats[i] = most
	}
	return seats
}

// sessionize gives a match about to be committed its seats and, under
// auto_backfill, opens it to backfill when a seat is free.
func (p *pool) sessionize(m *cupid.Match) {
	m.Seats = seatsOf(p.q, len(m.Teams))
	m.Backfill = p.q.rules.AutoBackfill && !m.Full()
}

// engineSession builds what the engine needs of a session.
func (p *pool) engineSession(os *openSession) engine.Session {
	m := os.rec.Match
	s := engine.Session{ID: m.ID, Region: m.Region, Roles: m.Roles, OptionsOnly: p.q.rules.OptionsForBackfill, Opened: os.opened}
	if m.BackfillOptions != nil {
		s.MatchOptions = make(map[string]any, len(m.BackfillOptions))
		for name, vals := range m.BackfillOptions {
			s.MatchOptions[name] = vals
		}
	}
	for i, t := range m.Teams {
		st := engine.SessionTeam{Free: max(0, m.Seats[i]-len(t.PlayerIDs))}
		for _, id := range t.PlayerIDs {
			if pl, ok := os.players[id]; ok {
				st.Players = append(st.Players, pl)
			}
		}
		s.Teams = append(s.Teams, st)
	}
	return s
}

// setSession takes the session as stored after the change whose match
// event is seq: open to backfill, the pool holds it open; otherwise it
// lets it go. An older state than the one held is ignored.
func (p *pool) setSession(rec *cupid.MatchRecord, seq int64, players map[string]cupid.Player, opened time.Time) {
	id := rec.Match.ID
	if p.sessions == nil {
		p.sessions = map[string]*openSession{}
	}
	old := p.sessions[id]
	if old != nil && (old.seq > seq || (seq > 0 && old.seq == seq)) {
		return // older, or the same change heard twice (its own commit, then the match log)
	}
	if p.closedAt[id] > seq {
		return
	}
	if !rec.Live() || !rec.Match.Backfill {
		p.closeSession(id, seq)
		return
	}
	os := &openSession{seq: seq, rec: rec, players: players, opened: opened}
	var free []*cupid.Ticket
	if old != nil {
		os.opened = old.opened
		for id, pl := range old.players {
			if _, ok := os.players[id]; !ok {
				os.players[id] = pl
			}
		}
		for _, t := range old.held {
			if inSession(rec.Match, t) {
				os.held = append(os.held, t)
			} else {
				free = append(free, t) // its player left the session
			}
		}
	}
	if err := p.eng.OpenSession(p.engineSession(os)); err != nil {
		p.log.Error("the pool cannot hold a session open to backfill", "pool", p.key.String(), "match", id, "err", err)
		p.eng.CloseSession(id)
		delete(p.sessions, id)
		p.noteSessions()
		p.unhold(append(free, os.held...))
		return
	}
	p.sessions[id] = os
	p.noteSessions()
	p.unhold(free)
}

// inSession reports whether one of a ticket's players is in the session.
func inSession(m *cupid.Match, t *cupid.Ticket) bool {
	for _, team := range m.Teams {
		for _, pl := range t.Players {
			if slices.Contains(team.PlayerIDs, pl.ID) {
				return true
			}
		}
	}
	return false
}

// hold keeps a proposed ticket whose player is in the session out of the
// engine while the session is open.
func (p *pool) hold(os *openSession, t *cupid.Ticket) {
	p.out[t.ID] = liveOf(t)
	os.held = append(os.held, t)
}

// unhold gives held tickets back to the engine with their age, those that
// are still live and not being ended.
func (p *pool) unhold(ts []*cupid.Ticket) {
	var back []*cupid.Ticket
	for _, t := range ts {
		if _, ok := p.out[t.ID]; !ok || slices.ContainsFunc(p.pending, func(e pendingEnd) bool { return e.id == t.ID }) {
			continue // ended meanwhile, or its end is being retried
		}
		delete(p.out, t.ID)
		back = append(back, t)
	}
	now := p.now().UTC()
	for _, ev := range p.eng.Return(back) {
		p.out[ev.Ticket.ID] = liveOf(ev.Ticket)
		p.end(ev.Ticket.ID, cupid.StateCancelled, fmt.Sprintf("the queue's ruleset cannot match it: %v", ev.Err), now)
	}
}

// closeSession stops backfill into a session; seq, when above zero, is the
// match event that closed it, so an older open arriving later is ignored.
func (p *pool) closeSession(id string, seq int64) {
	p.eng.CloseSession(id)
	if os := p.sessions[id]; os != nil {
		p.unhold(os.held)
	}
	delete(p.sessions, id)
	p.noteSessions()
	if seq > 0 {
		if p.closedAt == nil {
			p.closedAt = map[string]int64{}
		}
		p.closedAt[id] = seq
		if len(p.closedAt) > 4096 {
			clear(p.closedAt) // old news: a session closed this long ago is not reopened by a stale state
		}
	}
}

// playersOf maps the players of tickets to their data, each with the
// ticket-wide attributes (match options) it does not carry itself, as the
// engine compares a session's players.
func playersOf(ts []*cupid.Ticket) map[string]cupid.Player {
	out := map[string]cupid.Player{}
	for _, t := range ts {
		for _, pl := range engine.SessionPlayers(t) {
			out[pl.ID] = pl
		}
	}
	return out
}

// formedSession opens a just-committed match to backfill when the store
// says it is.
func (p *pool) formedSession(m *cupid.Match, pr *engine.Proposal, ev cupid.MatchEvent) {
	if !m.Backfill || ev.Kind != cupid.MatchEventFormed {
		return // a match waiting for its ready check is a session once formed
	}
	rec := &cupid.MatchRecord{Match: m, State: cupid.MatchFormed, UpdatedAt: m.CreatedAt}
	p.setSession(rec, ev.Seq, playersOf(pr.Tickets()), m.CreatedAt)
}

// commitBackfills commits the engine's backfill proposals: the tickets join
// their sessions, or go back to the engine. Either way each session is
// opened again as it now is (the engine took it out while its proposal was
// out), unless it is full, closed or over.
func (p *pool) commitBackfills(props []engine.Proposal, now time.Time) {
	props = p.withoutPlayersInSession(props, now)
	if len(props) == 0 {
		return
	}
	bs := make([]cupid.Backfill, len(props))
	for i, pr := range props {
		bs[i] = cupid.Backfill{MatchID: pr.SessionID, Teams: pr.Match().Teams, At: now}
	}
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	results, events, err := lifecycle.Backfill(ctx, p.store, p.fence, bs)
	cancel()
	if err != nil {
		p.host.checkFenced(p.key.Queue, err)
		if !errors.Is(err, context.Canceled) {
			p.log.Error("committing backfills failed; tickets return to the pool", "pool", p.key.String(), "backfills", len(bs), "err", err)
		}
		p.ready.failed()
		for i := range props {
			p.giveBack(props[i].Tickets(), nil, now)
			p.reopen(props[i].SessionID)
		}
		p.retryAt = now.Add(time.Second)
		return
	}
	for i, pr := range props {
		res := results[i]
		switch {
		case res.OK:
			if p.shadow != nil {
				p.shadowLeave(pr.TicketIDs()...)
			}
			for j := range pr.Len() {
				p.metrics.tickets.WithLabelValues(p.key.Queue, string(cupid.StateMatched)).Inc()
				p.metrics.timeToMatch.WithLabelValues(p.key.Queue).Observe(now.Sub(pr.CreatedAt(j)).Seconds())
				p.forget()
			}
			for _, t := range res.Cancelled {
				p.metrics.tickets.WithLabelValues(t.Key.Queue, string(cupid.StateCancelled)).Inc()
			}
			p.host.ended(p, res.Cancelled...)
			p.setSession(res.Match, res.Event.Seq, playersOf(pr.Tickets()), now)
		case len(res.Busy) > 0:
			p.holdBusy(pr.Tickets(), res.Busy, now)
			p.reopen(pr.SessionID)
		case res.Err != nil:
			// The session refused (closed, over, a player already in it):
			// the tickets wait on, and the session stays out of the engine
			// until the service hears of it again.
			p.log.Info("a session refused a backfill", "pool", p.key.String(), "match", pr.SessionID, "err", res.Err)
			p.giveBack(pr.Tickets(), nil, now)
			p.closeSession(pr.SessionID, 0)
		default:
			p.giveBack(pr.Tickets(), res.NotWaiting, now)
			p.reopen(pr.SessionID)
		}
	}
	p.hub.Publish(events...)
	for _, res := range results {
		if res.OK {
			p.handoff.Wake(res.Event.Queue)
		}
	}
}

// withoutPlayersInSession passes over the backfill proposals that would
// put a player into the session he already plays in (he queued again
// without leaving it): the store would refuse them. Such a ticket is held
// out of the engine while the session is open (hold), the proposal's other
// tickets go back, and the session is opened again at once, so that the
// next step offers its seats to someone else.
func (p *pool) withoutPlayersInSession(props []engine.Proposal, now time.Time) []engine.Proposal {
	out := props[:0]
	for _, pr := range props {
		os := p.sessions[pr.SessionID]
		if os == nil {
			out = append(out, pr)
			continue
		}
		var back []*cupid.Ticket
		clash := false
		for _, t := range pr.Tickets() {
			if inSession(os.rec.Match, t) {
				p.hold(os, t)
				clash = true
				continue
			}
			back = append(back, t)
		}
		if !clash {
			out = append(out, pr)
			continue
		}
		p.giveBack(back, nil, now)
		p.reopen(pr.SessionID)
	}
	return out
}

// reopen gives the engine back a session, unchanged, after its proposal was
// not committed.
func (p *pool) reopen(id string) {
	os := p.sessions[id]
	if os == nil {
		return
	}
	if err := p.eng.OpenSession(p.engineSession(os)); err != nil {
		p.log.Error("the pool cannot hold a session open to backfill", "pool", p.key.String(), "match", id, "err", err)
		delete(p.sessions, id)
		p.noteSessions()
	}
}

// splitBackfills separates the backfill proposals of a step from the new
// matches.
func splitBackfills(props []engine.Proposal) (matches, backfills []engine.Proposal) {
	i := slices.IndexFunc(props, func(pr engine.Proposal) bool { return pr.SessionID != "" })
	if i < 0 {
		return props, nil
	}
	for _, pr := range props {
		if pr.SessionID != "" {
			backfills = append(backfills, pr)
		} else {
			matches = append(matches, pr)
		}
	}
	return matches, backfills
}

// noteSessions publishes how many sessions the pool holds open, for readers
// off its goroutine (cluster.go: whether a change to a queue's match log
// can concern a session this node holds).
func (p *pool) noteSessions() { p.heldSessions.Store(int32(len(p.sessions))) }
