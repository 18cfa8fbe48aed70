package ratingsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// PlayerView is what the server knows of a player: his state under every
// configured rating (a new player's start where he has not played) and
// his low-priority mark, if one holds.
type PlayerView struct {
	Player      string
	Ratings     []PlayerRating
	LowPriority *LowPriority
}

// GetPlayerRatings returns a player's ratings, in configuration order.
func (s *Service) GetPlayerRatings(ctx context.Context, player string) (*PlayerView, error) {
	if player == "" {
		return nil, cupid.Invalid("player_id", "required")
	}
	now := s.now().UTC()
	v := &PlayerView{Player: player}
	for _, name := range s.names {
		st, err := s.load(ctx, s.ratings[name], []string{player}, now)
		if err != nil {
			return nil, err
		}
		v.Ratings = append(v.Ratings, *st[player])
	}
	lows, err := s.lowPriorities(ctx, []string{player})
	if err != nil {
		return nil, err
	}
	if lp := lows[player]; lp.Active(now) {
		v.LowPriority = lp
	}
	return v, nil
}

// HistoryEntry is one line of a player's rating history.
type HistoryEntry struct {
	Seq     int64
	MatchID string
	At      time.Time
	Change  PlayerChange
}

// History lists a player's history under a rating, newest first, before
// the sequence number beforeSeq (0: from the newest), at most limit lines
// (50 when zero, 500 at most).
func (s *Service) History(ctx context.Context, ratingName, player string, beforeSeq int64, limit int) ([]HistoryEntry, error) {
	switch {
	case player == "":
		return nil, cupid.Invalid("player_id", "required")
	case s.ratings[ratingName] == nil:
		return nil, cupid.NotFound("rating", "no rating %q; configured: %v", ratingName, s.names)
	case beforeSeq < 0:
		return nil, cupid.Invalid("before_seq", "must not be negative")
	case limit < 0 || limit > 500:
		return nil, cupid.Invalid("limit", "between 0 (the default, 50) and 500, got %d", limit)
	case limit == 0:
		limit = 50
	}
	es, err := s.store.RatingHistory(ctx, ratingName, player, beforeSeq, limit)
	if err != nil {
		return nil, s.storeError(err)
	}
	out := make([]HistoryEntry, len(es))
	for i, e := range es {
		out[i] = HistoryEntry{Seq: e.Seq, MatchID: e.MatchID, At: e.At}
		if err := decodeChange(e.Body, player, &out[i].Change); err != nil {
			return nil, fmt.Errorf("ratingsvc: decode history %d: %w", e.Seq, err)
		}
	}
	return out, nil
}

// MaxLowPriorityGames bounds a low-priority mark by games.
const MaxLowPriorityGames = 10000

// SetLowPriority marks a player low priority for a time (for > 0), a
// number of rated games (games > 0) or both, whichever ends first. It
// replaces an earlier mark.
func (s *Service) SetLowPriority(ctx context.Context, player string, forTime time.Duration, games int, reason string) (*LowPriority, error) {
	switch {
	case player == "":
		return nil, cupid.Invalid("player_id", "required")
	case forTime < 0:
		return nil, cupid.Invalid("duration", "must not be negative")
	case games < 0 || games > MaxLowPriorityGames:
		return nil, cupid.Invalid("games", "between 0 and %d, got %d", MaxLowPriorityGames, games)
	case forTime == 0 && games == 0:
		return nil, cupid.Invalid("duration", "give a duration, a number of games or both")
	case len(reason) > 1000:
		return nil, cupid.Invalid("reason", "at most 1000 bytes")
	}
	now := s.now().UTC()
	lp := &LowPriority{Player: player, Games: games, Reason: reason, SetAt: now}
	if forTime > 0 {
		lp.Until = now.Add(forTime)
	}
	body, err := json.Marshal(lp)
	if err != nil {
		return nil, err
	}
	if err := s.store.PutRatingRows(ctx, []cupid.RatingRow{{Kind: kindLowPriority, ID: player, Body: body}}); err != nil {
		return nil, s.storeError(err)
	}
	return lp, nil
}

// ClearLowPriority takes a player's low-priority mark away; a player
// without one is not an error.
func (s *Service) ClearLowPriority(ctx context.Context, player string) error {
	if player == "" {
		return cupid.Invalid("player_id", "required")
	}
	return s.storeError(s.store.PutRatingRows(ctx, []cupid.RatingRow{{Kind: kindLowPriority, ID: player}}))
}

// PrepareTicket is the ticket service's intake step (ticketsvc.Intake).
// In a queue tied to a rating it refuses a skill (or division) the client
// sent, fills both from each player's stored rating, and routes the ticket
// to a pool of its own when a player is marked low priority or flagged
// and the configuration says to.
func (s *Service) PrepareTicket(ctx context.Context, t *cupid.Ticket) error {
	q, ok := s.queues[t.Key.Queue]
	if !ok {
		return nil
	}
	r := s.ratings[q.Rating]
	for i, p := range t.Players {
		for _, a := range []string{q.Attribute, q.DivisionAttribute} {
			if _, sent := p.Attributes.Get(a); a != "" && sent {
				return cupid.Invalid(fmt.Sprintf("players[%d].attributes.%s", i, a),
					"queue %q takes the skill from the server's rating %q; do not send %s", t.Key.Queue, r.Name, a)
			}
		}
	}
	now := s.now().UTC()
	ids := t.PlayerIDs()
	st, err := s.load(ctx, r, ids, now)
	if err != nil {
		return err
	}
	flagged := false
	for i := range t.Players {
		p := st[t.Players[i].ID]
		attrs := append(cupid.Attributes(nil), t.Players[i].Attributes...)
		attrs.Set(q.Attribute, cupid.Number(p.Matchmaking(r.Flagged)))
		if q.DivisionAttribute != "" {
			attrs.Set(q.DivisionAttribute, cupid.Number(float64(p.Division)))
		}
		t.Players[i].Attributes = attrs
		flagged = flagged || p.Flags.Tanking || p.Flags.Smurf
	}
	route := ""
	if flagged && r.Flagged.Route {
		route = FlaggedSuffix
	}
	if q.LowPriority == "pool" || q.LowPriority == "wait" {
		lows, err := s.lowPriorities(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if !lows[id].Active(now) {
				continue
			}
			if q.LowPriority == "pool" {
				route = LowPrioritySuffix
			} else {
				// Held back in the same pool: matched later, with the
				// age it has (see ticketsvc's held.go).
				t.HeldUntil = now.Add(q.LowPriorityWait)
				s.metrics.lowPriority.WithLabelValues(t.Key.Queue, "held").Inc()
			}
			break
		}
	}
	if route == "" {
		return nil
	}
	if t.Key.Custom == "" {
		t.Key.Custom = route
	} else {
		t.Key.Custom += "/" + route
	}
	if len(t.Key.Custom) > cupid.MaxIDLength {
		return cupid.Invalid("custom_key", "too long to route the ticket to the %s pool (at most %d bytes with the suffix)", route, cupid.MaxIDLength)
	}
	s.metrics.lowPriority.WithLabelValues(t.Key.Queue, route).Inc()
	return nil
}

// Matchmaking is the skill p's tickets carry now under his rating's
// settings (see PlayerRating.Matchmaking).
func (s *Service) Matchmaking(p *PlayerRating) float64 {
	r := s.ratings[p.Rating]
	if r == nil {
		return p.Value
	}
	return p.Matchmaking(r.Flagged)
}
