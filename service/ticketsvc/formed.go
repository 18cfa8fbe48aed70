package ticketsvc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/lifecycle"
)

// Matches formed by people rather than by a pool: a lobby's host starts his
// custom game and its teams are the lobby's. They take the same hand-off as
// a pool's matches — the queue's match log, AssignMatch, sessions, leavers,
// ticket watchers — so allocators and game servers need nothing new.
//
// Each player gets a ticket of his own, stored waiting but held out of
// every pool until it expires (HeldUntil), then the match is committed
// through the store's CommitMatches, where lifecycle.PlanCommit applies the
// same rules as to a pool's match: only waiting tickets, no player in
// another live match, the players' other live tickets cancelled. These are
// two transactions; the tickets' request ids and the match's id come from
// the caller, so a caller that retries after a crash between them gets the
// same tickets back and finishes the same match (or finds it committed).

// FormedMatch is a match whose teams were chosen by people.
type FormedMatch struct {
	// ID is the match's id, chosen by the caller so that a retry finds it.
	ID    string
	Queue string
	// Teams are the players of each team.
	Teams [][]cupid.Player
	// Seats are the seats of each team (the session's size); the team's
	// size when zero.
	Seats []int
	// RequestID makes the tickets' request ids (one per player): the same
	// RequestID again returns the tickets stored the first time.
	RequestID string
}

// FormedQuality is the quality of a formed match: its teams are what its
// players chose, which no ruleset scores, so it is 1 with one part,
// "chosen", that says so.
var FormedQuality = cupid.Quality{Score: 1, Parts: cupid.QualityParts{{Name: "chosen", Score: 1}}}

// CommitFormed stores a formed match and its players' tickets and tells
// the queue's match watchers, as a pool's commit does. A player in another
// live match refuses the whole match (conflict, naming him and that match)
// and the tickets made for it are cancelled with that reason; a match
// already committed under f.ID is returned as it is.
func (s *Service) CommitFormed(ctx context.Context, f FormedMatch) (*cupid.MatchRecord, error) {
	q := s.queue(f.Queue)
	if q == nil {
		return nil, cupid.NotFound("queue", "no queue %q; configured queues: %s", f.Queue, strings.Join(s.Queues(), ", "))
	}
	if f.ID == "" || f.RequestID == "" {
		return nil, cupid.Invalid("id", "a formed match needs its id and request id")
	}
	if rec, err := s.store.MatchRecord(ctx, f.ID); err == nil {
		return rec, nil // committed by an earlier try
	} else if cupid.ErrorCode(err) != cupid.CodeNotFound {
		return nil, storeerr.Domain(s.log, err)
	}
	now := s.now().UTC()
	var nts []cupid.NewTicket
	for ti, team := range f.Teams {
		if len(team) == 0 {
			return nil, cupid.Invalid(fmt.Sprintf("teams[%d]", ti), "a team needs a player")
		}
		for pi, p := range team {
			t := &cupid.Ticket{
				ID: newID(), Key: cupid.QueueKey{Queue: f.Queue}, Players: []cupid.Player{p},
				RequestID: formedRequestID(f.RequestID, p.ID), CreatedAt: now, UpdatedAt: now,
				ExpiresAt: now.Add(q.ttl), State: cupid.StateWaiting,
			}
			if s.ticketHook != nil {
				if err := s.ticketHook.PrepareTicket(ctx, t); err != nil {
					return nil, storeerr.Domain(s.log, err)
				}
				t.Key.Queue = f.Queue
			}
			// Never a pool's: it is this match's or nobody's.
			t.HeldUntil = t.ExpiresAt
			if err := t.Validate(); err != nil {
				return nil, cupid.Within(fmt.Sprintf("teams[%d][%d]", ti, pi), err)
			}
			nts = append(nts, cupid.NewTicket{Ticket: t, Replace: true})
		}
	}
	wctx := context.WithoutCancel(ctx) // once begun, the store's outcome decides
	cctx, cancel := context.WithTimeout(wctx, 30*time.Second)
	created, events, err := s.store.CreateTickets(cctx, nts)
	cancel()
	if err != nil {
		s.ready.failed()
		return nil, storeerr.Domain(s.log, err)
	}
	s.hub.Publish(events...)
	tickets := make([]*cupid.Ticket, len(created))
	for i, c := range created {
		if c.Err != nil {
			return nil, c.Err
		}
		tickets[i] = c.Ticket
		if !c.Existed {
			s.metrics.tickets.WithLabelValues(f.Queue, string(cupid.StateWaiting)).Inc()
		}
		for _, old := range c.Replaced {
			s.metrics.tickets.WithLabelValues(old.Key.Queue, string(cupid.StateCancelled)).Inc()
		}
		s.ended(nil, c.Replaced...)
	}
	m := &cupid.Match{ID: f.ID, Key: cupid.QueueKey{Queue: f.Queue}, Quality: FormedQuality, CreatedAt: now}
	i := 0
	for ti, team := range f.Teams {
		var tm cupid.Team
		for range team {
			tm.TicketIDs = append(tm.TicketIDs, tickets[i].ID)
			tm.PlayerIDs = append(tm.PlayerIDs, tickets[i].Players[0].ID)
			i++
		}
		m.Teams = append(m.Teams, tm)
		seats := len(team)
		if ti < len(f.Seats) && f.Seats[ti] > seats {
			seats = f.Seats[ti]
		}
		m.Seats = append(m.Seats, seats)
	}
	fence, _ := s.fenceOf(f.Queue) // none when another node runs the queue: the store's rules hold either way
	cctx, cancel = context.WithTimeout(wctx, 30*time.Second)
	results, events, err := s.store.CommitMatches(cctx, fence, []*cupid.Match{m})
	cancel()
	if err != nil {
		s.checkFenced(f.Queue, err)
		s.ready.failed()
		return nil, storeerr.Domain(s.log, err)
	}
	res := results[0]
	if !res.OK {
		why := formedRefusal(f.ID, res)
		s.cancelFormed(wctx, tickets, why.Message)
		return nil, why
	}
	s.ended(nil, tickets...) // out of any pool that reloaded them after a crash
	s.ended(nil, res.Cancelled...)
	for _, t := range res.Cancelled {
		s.metrics.tickets.WithLabelValues(t.Key.Queue, string(cupid.StateCancelled)).Inc()
	}
	s.metrics.tickets.WithLabelValues(f.Queue, string(cupid.StateMatched)).Add(float64(len(tickets)))
	s.metrics.matches.WithLabelValues(f.Queue).Inc()
	s.metrics.quality.WithLabelValues(f.Queue).Observe(m.Quality.Score)
	s.hub.Publish(events...)
	s.handoff.MatchesFormed(results)
	return &cupid.MatchRecord{Match: m, State: cupid.MatchFormed, UpdatedAt: now}, nil
}

// formedRequestID is a ticket's request id: short whatever the lengths of
// the caller's id and the player's, and the same for the same pair.
func formedRequestID(requestID, player string) string {
	h := sha256.Sum256([]byte(requestID + "\x00" + player))
	return "formed-" + hex.EncodeToString(h[:12])
}

// formedRefusal says why the store refused a formed match.
func formedRefusal(id string, res cupid.Committed) *cupid.Error {
	if len(res.Busy) > 0 {
		b := res.Busy[0]
		return cupid.Conflict("players", "player %s is in match %s, which is live (a player is in one live match at most); match %s was not formed", b.Player, b.Match, id)
	}
	return cupid.Conflict("players", "the tickets of match %s are no longer waiting (%s); it was not formed", id, strings.Join(res.NotWaiting, ", "))
}

// cancelFormed cancels the tickets made for a refused formed match; one
// that already ended is left as it is.
func (s *Service) cancelFormed(ctx context.Context, ts []*cupid.Ticket, reason string) {
	for _, t := range ts {
		if t.State != cupid.StateWaiting {
			continue
		}
		fence, _ := s.fenceOf(t.Key.Queue)
		ended, ev, err := lifecycle.Finish(ctx, s.store, fence, t.ID, cupid.StateCancelled, reason, s.now())
		if err != nil {
			if cupid.ErrorCode(err) != cupid.CodeConflict {
				s.log.Warn("cancelling a ticket of a refused formed match failed; it expires unmatched", "ticket", t.ID, "err", err)
			}
			continue
		}
		s.metrics.tickets.WithLabelValues(t.Key.Queue, string(cupid.StateCancelled)).Inc()
		s.ended(nil, ended)
		s.hub.Publish(ev)
	}
}
