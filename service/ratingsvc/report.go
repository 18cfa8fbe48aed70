package ratingsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/rating"
)

// Report is a match's result as the game's backend tells it. Give the
// places one way: TeamPlaces (one per team of the match, in its order),
// PlayerPlaces (every player of the match: a free-for-all, each player
// rated on his own), or scores alone (TeamScores, or PlayerScores for a
// free-for-all), from which places follow, higher scores first. Lower
// places are better; equal places tie. Scores given with places are kept
// with the result but do not change the rating. Leavers are players who
// left before the end: each is rated as if his side had placed last,
// counts a leave, and may be marked low priority.
type Report struct {
	MatchID      string             `json:"match_id"`
	TeamPlaces   []int              `json:"team_places,omitempty"`
	PlayerPlaces map[string]int     `json:"player_places,omitempty"`
	TeamScores   []float64          `json:"team_scores,omitempty"`
	PlayerScores map[string]float64 `json:"player_scores,omitempty"`
	Leavers      []string           `json:"leavers,omitempty"`
}

// Outcome is what a result did: every player's change, in the match's
// order (team by team).
type Outcome struct {
	MatchID string         `json:"match_id"`
	Rating  string         `json:"rating"`
	At      time.Time      `json:"at"`
	Players []PlayerChange `json:"players"`
}

// PlayerChange is what one result did to one player; it is also the
// player's history line.
type PlayerChange struct {
	Player   string  `json:"player"`
	Team     int     `json:"team"`
	Place    int     `json:"place"`
	Score    float64 `json:"score"`
	Expected float64 `json:"expected"`
	Leaver   bool    `json:"leaver,omitempty"`
	// Before and After are the conservative values; with Glicko-2 rating
	// periods After stays Before until the period ends (Pending counts
	// the games waiting for it).
	Before  float64 `json:"before"`
	After   float64 `json:"after"`
	Pending int     `json:"pending,omitempty"`
	// Skill or Glicko is the new rating.
	Skill          *rating.Skill   `json:"skill,omitempty"`
	Glicko         *rating.Glicko2 `json:"glicko,omitempty"`
	LeagueBefore   string          `json:"league_before,omitempty"`
	LeagueAfter    string          `json:"league_after,omitempty"`
	DivisionBefore int             `json:"division_before"`
	DivisionAfter  int             `json:"division_after"`
	Flags          rating.Flags    `json:"flags"`
}

// storedResult is a result's body in the store: the report as given
// (normalised) and its outcome.
type storedResult struct {
	Report  Report  `json:"report"`
	Outcome Outcome `json:"outcome"`
}

// ReportResult rates a played match's players from its result, once. The
// same report again returns the first outcome (repeated is true); a
// different one for a match that has a result is failed_precondition. An
// unknown match is not_found; a match that was not played (not assigned:
// formed, released …) is failed_precondition; a player not in the match is
// invalid_argument naming him.
func (s *Service) ReportResult(ctx context.Context, rep Report) (out *Outcome, repeated bool, err error) {
	if rep.MatchID == "" {
		return nil, false, cupid.Invalid("match_id", "required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, err := s.matches.MatchRecord(ctx, rep.MatchID)
	if err != nil {
		if cupid.ErrorCode(err) == cupid.CodeNotFound {
			return nil, false, cupid.NotFound("match_id", "no match %q", rep.MatchID)
		}
		return nil, false, s.storeError(err)
	}
	norm, err := normalise(rep, rec.Match)
	if err != nil {
		return nil, false, err
	}
	if prev, err := s.store.Result(ctx, rep.MatchID); err == nil {
		return s.repeat(prev, norm)
	} else if cupid.ErrorCode(err) != cupid.CodeNotFound {
		return nil, false, s.storeError(err)
	}
	if !played(rec) {
		return nil, false, cupid.Conflict("match_id", "match %s is %s: a result can be reported only for a match that was played (assigned to a game server)", rep.MatchID, rec.State)
	}
	q, ok := s.queues[rec.Match.Key.Queue]
	if !ok {
		return nil, false, cupid.Conflict("match_id", "match %s is of queue %q, which has no rating", rep.MatchID, rec.Match.Key.Queue)
	}
	r := s.ratings[q.Rating]
	var plan *plan
	for attempt := 1; ; attempt++ {
		now := s.now().UTC()
		if plan, err = s.apply(ctx, r, rec.Match, norm, now); err != nil {
			return nil, false, err
		}
		var body []byte
		if body, err = json.Marshal(storedResult{Report: norm, Outcome: plan.outcome}); err != nil {
			return nil, false, err
		}
		err = s.store.SaveResult(ctx, cupid.ResultRecord{MatchID: rep.MatchID, At: now, Body: body}, plan.rows, plan.history)
		// Another server changed a row this result read: work it out
		// again from the new rows.
		if rowsChanged(err) && attempt < maxAttempts {
			s.metrics.retries.WithLabelValues(r.Name).Inc()
			continue
		}
		break
	}
	if cupid.ErrorCode(err) == cupid.CodeConflict && !rowsChanged(err) {
		// Another server stored one first.
		prev, rerr := s.store.Result(ctx, rep.MatchID)
		if rerr != nil {
			return nil, false, s.storeError(rerr)
		}
		return s.repeat(prev, norm)
	}
	if rowsChanged(err) {
		return nil, false, cupid.Errorf(cupid.CodeUnavailable, "", "the players' ratings kept changing under this result; try again")
	}
	if err != nil {
		return nil, false, s.storeError(err)
	}
	s.metrics.results.WithLabelValues(r.Name, "rated").Inc()
	s.metrics.updates.WithLabelValues(r.Name).Add(float64(len(plan.outcome.Players)))
	for flag, n := range plan.raised {
		s.metrics.flags.WithLabelValues(r.Name, flag).Add(float64(n))
	}
	return &plan.outcome, false, nil
}

// repeat answers a report for a match that has a result.
func (s *Service) repeat(prev cupid.ResultRecord, norm Report) (*Outcome, bool, error) {
	var st storedResult
	if err := json.Unmarshal(prev.Body, &st); err != nil {
		return nil, false, fmt.Errorf("ratingsvc: decode the result of %s: %w", prev.MatchID, err)
	}
	a, _ := json.Marshal(st.Report)
	b, _ := json.Marshal(norm)
	if !bytes.Equal(a, b) {
		return nil, false, cupid.Conflict("match_id", "match %s has a different result already (reported at %s)", prev.MatchID, prev.At.Format(time.RFC3339))
	}
	s.metrics.results.WithLabelValues(st.Outcome.Rating, "repeated").Inc()
	return &st.Outcome, true, nil
}

// normalise checks a report against its match and gives it one form:
// places filled in from scores, leavers sorted.
func normalise(rep Report, m *cupid.Match) (Report, error) {
	in := map[string]bool{}
	var all []string
	for _, t := range m.Teams {
		for _, p := range t.PlayerIDs {
			in[p] = true
			all = append(all, p)
		}
	}
	// Players who left the session (the backend reported them while it
	// ran) are in the match too, and leavers whether the report names
	// them or not.
	for _, l := range sessionLeavers(m) {
		in[l.PlayerID] = true
		if !slices.Contains(rep.Leavers, l.PlayerID) {
			rep.Leavers = append(rep.Leavers, l.PlayerID)
		}
	}
	notIn := func(field, p string) error {
		return cupid.Invalid(field, "player %q is not in match %s", p, m.ID)
	}
	for _, p := range cupid.SortedKeys(rep.PlayerPlaces) {
		if !in[p] {
			return rep, notIn("player_places."+p, p)
		}
		if rep.PlayerPlaces[p] < 0 {
			return rep, cupid.Invalid("player_places."+p, "must not be negative")
		}
	}
	for _, p := range cupid.SortedKeys(rep.PlayerScores) {
		if !in[p] {
			return rep, notIn("player_scores."+p, p)
		}
		if !cupid.Finite(rep.PlayerScores[p]) {
			return rep, cupid.Invalid("player_scores."+p, "must be a finite number")
		}
	}
	seen := map[string]bool{}
	for i, p := range rep.Leavers {
		if !in[p] {
			return rep, notIn(fmt.Sprintf("leavers[%d]", i), p)
		}
		if seen[p] {
			return rep, cupid.Invalid(fmt.Sprintf("leavers[%d]", i), "player %q is named twice", p)
		}
		seen[p] = true
	}
	rep.Leavers = slices.Sorted(slices.Values(rep.Leavers))
	if len(rep.Leavers) == 0 {
		rep.Leavers = nil
	}
	for i, v := range rep.TeamScores {
		if !cupid.Finite(v) {
			return rep, cupid.Invalid(fmt.Sprintf("team_scores[%d]", i), "must be a finite number")
		}
	}
	if len(rep.TeamScores) > 0 && len(rep.TeamScores) != len(m.Teams) {
		return rep, cupid.Invalid("team_scores", "%d scores for the %d teams of match %s", len(rep.TeamScores), len(m.Teams), m.ID)
	}
	byPlayer := len(rep.PlayerPlaces) > 0 || (len(rep.TeamPlaces) == 0 && len(rep.TeamScores) == 0 && len(rep.PlayerScores) > 0)
	switch {
	case len(rep.TeamPlaces) > 0 && len(rep.PlayerPlaces) > 0:
		return rep, cupid.Invalid("player_places", "give team_places or player_places, not both")
	case byPlayer:
		if len(rep.PlayerPlaces) == 0 {
			if len(rep.PlayerScores) != len(all) {
				return rep, cupid.Invalid("player_scores", "a score for each of the match's %d players is required to place them", len(all))
			}
			rep.PlayerPlaces = placesFromScores(all, func(p string) float64 { return rep.PlayerScores[p] })
		}
		for _, p := range all {
			if _, ok := rep.PlayerPlaces[p]; !ok {
				return rep, cupid.Invalid("player_places."+p, "required: player %q of match %s has no place", p, m.ID)
			}
		}
		if len(all) < 2 {
			return rep, cupid.Invalid("player_places", "a free-for-all needs at least two players")
		}
	default:
		if len(rep.TeamPlaces) == 0 {
			if len(rep.TeamScores) == 0 {
				return rep, cupid.Invalid("team_places", "required: give team_places, player_places or scores to place the match's sides")
			}
			idx := make([]string, len(m.Teams))
			for i := range idx {
				idx[i] = fmt.Sprint(i)
			}
			pl := placesFromScores(idx, func(k string) float64 {
				var i int
				fmt.Sscan(k, &i)
				return rep.TeamScores[i]
			})
			rep.TeamPlaces = make([]int, len(m.Teams))
			for i := range idx {
				rep.TeamPlaces[i] = pl[idx[i]]
			}
		}
		if len(rep.TeamPlaces) != len(m.Teams) {
			return rep, cupid.Invalid("team_places", "%d places for the %d teams of match %s", len(rep.TeamPlaces), len(m.Teams), m.ID)
		}
		for i, p := range rep.TeamPlaces {
			if p < 0 {
				return rep, cupid.Invalid(fmt.Sprintf("team_places[%d]", i), "must not be negative")
			}
		}
		if len(m.Teams) < 2 {
			return rep, cupid.Invalid("team_places", "match %s has one team: give player_places to rate its players against each other", m.ID)
		}
	}
	return rep, nil
}

// placesFromScores ranks keys by score, highest first, from 1; equal
// scores share a place.
func placesFromScores(keys []string, score func(string) float64) map[string]int {
	sorted := slices.Clone(keys)
	sort.SliceStable(sorted, func(i, j int) bool { return score(sorted[i]) > score(sorted[j]) })
	out := map[string]int{}
	for i, k := range sorted {
		if i > 0 && score(k) == score(sorted[i-1]) {
			out[k] = out[sorted[i-1]]
			continue
		}
		out[k] = i + 1
	}
	return out
}

// sessionLeavers are the players who left the match's session and are not
// back in it, once each.
func sessionLeavers(m *cupid.Match) []cupid.Leaver {
	on := map[string]bool{}
	for _, t := range m.Teams {
		for _, p := range t.PlayerIDs {
			on[p] = true
		}
	}
	var out []cupid.Leaver
	for _, l := range m.Left {
		if on[l.PlayerID] || l.Team < 0 || l.Team >= len(m.Teams) {
			continue
		}
		on[l.PlayerID] = true
		out = append(out, l)
	}
	return out
}

// played reports whether a match's game ran: it was assigned a server,
// and is still assigned or its session has ended since.
func played(r *cupid.MatchRecord) bool {
	return r.State == cupid.MatchAssigned || (r.State == cupid.MatchEnded && r.Assignment != nil)
}

// maxAttempts bounds how often a result is worked out again because
// another server changed its rows meanwhile.
const maxAttempts = 10

// rowsChanged reports the store's conflict of a guarded row.
func rowsChanged(err error) bool {
	var e *cupid.Error
	return errors.As(err, &e) && e.Code == cupid.CodeConflict && e.Field == "rating_rows"
}
