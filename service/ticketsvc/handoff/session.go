package handoff

import (
	"context"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/internal/storeerr"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/ruleset"
)

// Game sessions and backfill. A committed match is a session (see the root
// package's session.go): with the ruleset's auto_backfill, a match formed
// with seats to spare is open to backfill at once; a backend may open or
// close backfill by hand, report players who left and end the session.
//
// The store holds the truth. A pool holds open in its engine the sessions
// of its queue key that are open to backfill, so that Step fills them
// before it forms new matches; it learns of changes from its own commits
// and from this package, which, after each change the store accepted, sends
// the pool the session as stored (Pools.SetSession) with the sequence number of the change's
// match event. A pool ignores a session older than the one it holds, so a
// change and a backfill commit racing each other leave it with the newer.
// A restart gives the open sessions back to their pools before the waiting
// tickets, so backfill comes first then too.

// SyncSession tells the pool of a session's queue key what the store now
// holds, after a change made outside the pool (here, or on another node:
// package ticketsvc hears of those from the match log). Reading the
// players' data happens here, off the pool's goroutine.
func (s *Service) SyncSession(ctx context.Context, rec *cupid.MatchRecord, seq int64) {
	key := rec.Match.Key
	if _, ok := s.policy(key.Queue); !ok {
		return
	}
	if _, ok := s.pools.Owned(key.Queue); !ok {
		return // the node that runs the queue reads its sessions when it takes it over
	}
	if !rec.Live() || !rec.Match.Backfill {
		s.pools.SetSession(rec, seq, nil, time.Time{})
		return
	}
	players, err := s.sessionPlayers(ctx, rec.Match)
	if err != nil {
		s.log.Error("reading a session's players failed; it is not backfilled until it changes again or the server restarts", "match", rec.Match.ID, "err", err)
		return
	}
	s.pools.SetSession(rec, seq, players, s.now().UTC())
}

// sessionPlayers reads the data of a session's players from their
// tickets, or, for the players its game server gave attributes of when it
// opened backfill (Match.ServerPlayers), from the match: the engine
// compares newcomers with what the game server says.
func (s *Service) sessionPlayers(ctx context.Context, m *cupid.Match) (map[string]cupid.Player, error) {
	ids := m.TicketIDs()
	ts, err := s.store.Tickets(ctx, cupid.TicketFilter{IDs: ids})
	if err != nil {
		return nil, err
	}
	if len(ts) != len(ids) {
		return nil, fmt.Errorf("handoff: %d of the %d tickets of match %s are not in the store", len(ids)-len(ts), len(ids), m.ID)
	}
	// Each player with the ticket-wide attributes (match options) it does
	// not carry itself, as the engine compares a session's players.
	players := map[string]cupid.Player{}
	for _, t := range ts {
		for _, pl := range engine.SessionPlayers(t) {
			players[pl.ID] = pl
		}
	}
	for _, pl := range m.ServerPlayers {
		players[pl.ID] = pl
	}
	return players, nil
}

// LoadSessions gives the open sessions back to their pools: at start, or,
// on a node sharing the store with others, those of one queue when the
// node starts running it (queue is then its name; "" for every queue).
func (s *Service) LoadSessions(ctx context.Context, queue string) error {
	rs, err := s.store.OpenSessions(ctx)
	if err != nil {
		return fmt.Errorf("handoff: reload open sessions: %w", err)
	}
	n := 0
	for _, rec := range rs {
		if _, ok := s.policy(rec.Match.Key.Queue); !ok || (queue != "" && rec.Match.Key.Queue != queue) {
			continue
		}
		players, err := s.sessionPlayers(ctx, rec.Match)
		if err != nil {
			return fmt.Errorf("handoff: reload session %s: %w", rec.Match.ID, err)
		}
		held, err := s.pools.LoadSession(rec, players)
		if err != nil {
			return err
		}
		if held {
			n++
		}
	}
	if n > 0 {
		s.log.Info("reloaded sessions open to backfill", "sessions", n)
	}
	return nil
}

// changeSession applies a backend's change to a session and tells its pool.
func (s *Service) changeSession(ctx context.Context, id string, c cupid.SessionChange) (*cupid.MatchRecord, error) {
	return s.changeSessionUnder(ctx, cupid.Fence{}, id, c)
}

// changeSessionUnder is changeSession under a fence: the session length's,
// on the node that runs the queue.
func (s *Service) changeSessionUnder(ctx context.Context, f cupid.Fence, id string, c cupid.SessionChange) (*cupid.MatchRecord, error) {
	if id == "" {
		return nil, cupid.Invalid("match_id", "required")
	}
	rec, mev, err := lifecycle.ChangeSession(ctx, s.store, f, id, c, s.now().UTC())
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	s.wakers.wake(mev.Queue)
	s.SyncSession(ctx, rec, mev.Seq)
	return rec, nil
}

// OpenBackfill opens a live session to backfill: waiting tickets of its
// queue key join it, before new matches form, until its seats are full.
// options, when not nil, are the session's match options as the game
// server has them now (option name → values; the ruleset's match_options
// only): newcomers are compared with them rather than with the options the
// session's players carried. A session over, full or without seats is
// refused with failed_precondition.
func (s *Service) OpenBackfill(ctx context.Context, id string, options map[string][]string) (*cupid.MatchRecord, error) {
	return s.OpenBackfillWithTeams(ctx, id, options, nil)
}

// OpenBackfillWithTeams is OpenBackfill with, when teams is not nil, the
// game server's view of the session (AccelByte's backfill ticket): for
// each team, in the match's order, the players in it now, with their
// attributes when the game server has them. They become the session's
// teams (see cupid.SessionChange.Teams): a player Cupid had who is absent
// has left, his seat stays open; a player the game server added takes a
// seat; newcomers are compared with the attributes given. Errors name the
// field and change nothing: teams (count), teams[i].players (over the
// seats), teams[i].players[j].id (twice, or a player in another live
// match), teams[i].players[j].attributes.
func (s *Service) OpenBackfillWithTeams(ctx context.Context, id string, options map[string][]string, teams [][]cupid.Player) (*cupid.MatchRecord, error) {
	if options != nil || teams != nil {
		if id == "" {
			return nil, cupid.Invalid("match_id", "required")
		}
		rec, err := s.GetMatch(ctx, id)
		if err != nil {
			return nil, err
		}
		if options != nil {
			if err := s.checkOptions(rec.Match.Key.Queue, options); err != nil {
				return nil, err
			}
		}
		if teams != nil {
			if err := cupid.CheckTeams(rec.Match, teams); err != nil {
				return nil, err
			}
			if err := s.checkServerPlayers(rec.Match.Key.Queue, teams); err != nil {
				return nil, err
			}
		}
	}
	return s.changeSession(ctx, id, cupid.SessionChange{Kind: cupid.MatchEventBackfillOpened, Options: options, Teams: teams})
}

// checkServerPlayers checks the attributes a game server gives of its
// players as the queue's rules read them when the session is opened in
// the pool (engine.Pool.CheckSessionPlayer, the one owner of that rule):
// stored unchecked, a session the pool refuses would never be filled.
func (s *Service) checkServerPlayers(queue string, teams [][]cupid.Player) error {
	_, check := s.pools.Rules(queue)
	if check == nil {
		return cupid.NotFound("queue", "no queue %q", queue)
	}
	for i, team := range teams {
		for j, p := range team {
			if err := check.CheckSessionPlayer(p, fmt.Sprintf("teams[%d].players[%d]", i, j)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Bounds of a session's match options.
const (
	maxSessionOptions     = 64
	maxSessionOptionVals  = 64
	maxSessionOptionBytes = 256
)

// checkOptions refuses match options the queue's ruleset does not have, or
// values no ticket could carry.
func (s *Service) checkOptions(queue string, options map[string][]string) error {
	rules, _ := s.pools.Rules(queue)
	if rules == nil {
		return cupid.NotFound("queue", "no queue %q", queue)
	}
	if len(options) > maxSessionOptions {
		return cupid.Invalid("match_options", "at most %d options, got %d", maxSessionOptions, len(options))
	}
	for _, name := range cupid.SortedKeys(options) {
		field := "match_options." + name
		if !slices.ContainsFunc(rules.Options, func(o ruleset.MatchOption) bool { return o.Name == name }) {
			return cupid.Invalid(field, "not a match option of queue %s's ruleset", queue)
		}
		vals := options[name]
		if len(vals) == 0 || len(vals) > maxSessionOptionVals {
			return cupid.Invalid(field, "needs 1 to %d values, got %d", maxSessionOptionVals, len(vals))
		}
		for i, v := range vals {
			if v == "" || len(v) > maxSessionOptionBytes || !utf8.ValidString(v) {
				return cupid.Invalid(fmt.Sprintf("%s[%d]", field, i), "must be UTF-8 of 1 to %d bytes", maxSessionOptionBytes)
			}
		}
	}
	return nil
}

// CloseBackfill stops backfill into a session; closing one not open is
// refused with failed_precondition.
func (s *Service) CloseBackfill(ctx context.Context, id string) (*cupid.MatchRecord, error) {
	return s.changeSession(ctx, id, cupid.SessionChange{Kind: cupid.MatchEventBackfillClosed})
}

// ReportLeavers records players who left a live session. Within the
// queue's leaver window, counted from the session's assignment (a session
// not yet assigned is always within it), their seats stay and backfill
// opens to replace them; after it, their seats close. A player not in the
// session is refused with failed_precondition and nobody leaves.
func (s *Service) ReportLeavers(ctx context.Context, id string, players []string) (*cupid.MatchRecord, error) {
	if id == "" {
		return nil, cupid.Invalid("match_id", "required")
	}
	if len(players) == 0 {
		return nil, cupid.Invalid("player_ids", "required: the players who left")
	}
	for i, p := range players {
		if p == "" {
			return nil, cupid.Invalid(fmt.Sprintf("player_ids[%d]", i), "empty")
		}
		if slices.Contains(players[:i], p) {
			return nil, cupid.Invalid(fmt.Sprintf("player_ids[%d]", i), "player %s is named twice", p)
		}
	}
	rec, err := s.GetMatch(ctx, id)
	if err != nil {
		return nil, err
	}
	reopen := false
	if q, ok := s.policy(rec.Match.Key.Queue); ok && q.LeaverWindow > 0 {
		reopen = rec.State == cupid.MatchFormed ||
			(rec.Assignment != nil && s.now().Sub(rec.Assignment.At) <= q.LeaverWindow)
	}
	return s.changeSession(ctx, id, cupid.SessionChange{Kind: cupid.MatchEventLeft, Players: players, Reopen: reopen})
}

// EndSession ends a live session: no more backfill, no more leavers; its
// match is ended. Ending it twice is refused with failed_precondition.
func (s *Service) EndSession(ctx context.Context, id string) (*cupid.MatchRecord, error) {
	return s.changeSession(ctx, id, cupid.SessionChange{Kind: cupid.MatchEventEnded})
}

// endDue ends the queue's live sessions (formed or assigned matches) that
// formed longer than its max_session ago, oldest first, and returns when it
// should look again. A live match holds its players: a player is in one live
// match at most, so a session no backend ends would keep them out of
// matching for ever.
func (s *Service) endDue(ctx context.Context, f cupid.Fence, queue string) time.Time {
	q, ok := s.policy(queue)
	if !ok || q.MaxSession <= 0 {
		return s.now().Add(time.Hour)
	}
	now := s.now()
	next := now.Add(q.MaxSession)
	for _, state := range []cupid.MatchState{cupid.MatchFormed, cupid.MatchAssigned} {
		for {
			rs, err := s.store.Matches(ctx, cupid.MatchFilter{Queue: queue, State: state, Limit: matchPage})
			if err != nil {
				if ctx.Err() == nil {
					s.log.Error("listing live sessions failed; trying again in a second", "queue", queue, "err", err)
				}
				return now.Add(time.Second)
			}
			ended := 0
			for _, r := range rs {
				due := r.Match.CreatedAt.Add(q.MaxSession)
				if due.After(now) {
					if due.Before(next) {
						next = due
					}
					break // oldest first: the rest are later
				}
				_, err := s.changeSessionUnder(ctx, f, r.Match.ID, cupid.SessionChange{Kind: cupid.MatchEventEnded})
				if err != nil && cupid.ErrorCode(err) != cupid.CodeConflict {
					if ctx.Err() == nil {
						s.log.Error("ending a session past max_session failed; trying again in a second", "match", r.Match.ID, "err", err)
					}
					return now.Add(time.Second)
				}
				ended++
			}
			if ended < len(rs) || len(rs) < matchPage {
				break
			}
		}
	}
	return next
}
