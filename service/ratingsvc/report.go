package ratingsvc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
// (normalised), its digest, and its outcome.
type storedResult struct {
	// Digest identifies the normalised report (digest): a report with the
	// same digest is the same report. Empty in results stored before it
	// was kept; it is then worked out from Report.
	Digest  string  `json:"digest,omitempty"`
	Report  Report  `json:"report"`
	Outcome Outcome `json:"outcome"`
}

// ReportResult rates a played match's players from its result, once. The
// same report again (in any order or encoding: see canonical) returns the
// first outcome (repeated is true); a different one for a match that has a
// result is failed_precondition naming the first field that differs. An
// unknown match is not_found; a match that was not played (not assigned:
// formed, released …) is failed_precondition; a player not in the match is
// invalid_argument naming him.
//
// The checks run in the caller's goroutine, with no lock; the rating and
// the write go through the group commit (commit.go), so reports arriving
// together share one transaction, and the answer comes only once the
// result is durable.
func (s *Service) ReportResult(ctx context.Context, rep Report) (out *Outcome, repeated bool, err error) {
	if rep.MatchID == "" {
		return nil, false, cupid.Invalid("match_id", "required")
	}
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
	dig, reportJSON, err := digestJSON(norm)
	if err != nil {
		return nil, false, err
	}
	if prev, err := s.store.Result(ctx, rep.MatchID); err == nil {
		return s.repeat(prev, norm, dig)
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
	units, sides, err := gameSides(rec.Match, norm)
	if err != nil {
		return nil, false, err
	}
	return s.submit(ctx, &request{rating: s.ratings[q.Rating], match: rec.Match, report: norm, reportJSON: reportJSON, digest: dig, units: units, sides: sides})
}

// repeat answers a report for a match that has a result: the first
// outcome when it is the same report (the same digest), else a refusal
// naming the first field that differs.
func (s *Service) repeat(prev cupid.ResultRecord, norm Report, dig string) (*Outcome, bool, error) {
	var st storedResult
	if err := json.Unmarshal(prev.Body, &st); err != nil {
		return nil, false, fmt.Errorf("ratingsvc: decode the result of %s: %w", prev.MatchID, err)
	}
	if st.Digest == "" {
		st.Digest, _ = digest(canonical(st.Report))
	}
	if st.Digest != dig {
		field, was, now := difference(canonical(st.Report), norm)
		return nil, false, cupid.Conflict(field, "match %s has a different result already (reported at %s): %s was %s, this report says %s",
			prev.MatchID, prev.At.Format(time.RFC3339), field, was, now)
	}
	s.metrics.results.WithLabelValues(st.Outcome.Rating, "repeated").Inc()
	return &st.Outcome, true, nil
}

// digest identifies a normalised report: the SHA-256 of its JSON, which is
// canonical (struct fields in order, map keys sorted, places ranked,
// leavers sorted, no negative zero), so the same report in another order
// or encoding has the same digest.
func digest(norm Report) (string, error) {
	dig, _, err := digestJSON(norm)
	return dig, err
}

// digestJSON is digest with the JSON it hashed, which the stored result
// holds as its report.
func digestJSON(norm Report) (string, []byte, error) {
	b, err := json.Marshal(norm)
	if err != nil {
		return "", nil, fmt.Errorf("ratingsvc: encode a normalised report: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), b, nil
}

// difference names the first field in which two canonical reports differ,
// with both values as JSON.
func difference(a, b Report) (field, was, now string) {
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"team_places", a.TeamPlaces, b.TeamPlaces},
		{"player_places", a.PlayerPlaces, b.PlayerPlaces},
		{"team_scores", a.TeamScores, b.TeamScores},
		{"player_scores", a.PlayerScores, b.PlayerScores},
		{"leavers", a.Leavers, b.Leavers},
	} {
		x, _ := json.Marshal(f.a)
		y, _ := json.Marshal(f.b)
		if !bytes.Equal(x, y) {
			return f.name, string(x), string(y)
		}
	}
	return "match_id", "", ""
}

// canonical gives a checked report the one form its digest reads: places
// as ranks (1 for the best, equal places equal, the next after a tie
// skipping: 1, 2, 2, 4), so [0, 1] and [1, 2] are one result; leavers
// sorted; empty lists absent; negative zero scores zero.
func canonical(rep Report) Report {
	if len(rep.TeamPlaces) > 0 {
		rep.TeamPlaces = ranks(rep.TeamPlaces)
	}
	if len(rep.PlayerPlaces) > 0 {
		keys := cupid.SortedKeys(rep.PlayerPlaces)
		places := make([]int, len(keys))
		for i, k := range keys {
			places[i] = rep.PlayerPlaces[k]
		}
		rep.PlayerPlaces = map[string]int{}
		for i, r := range ranks(places) {
			rep.PlayerPlaces[keys[i]] = r
		}
	}
	rep.TeamScores = slices.Clone(rep.TeamScores)
	for i, v := range rep.TeamScores {
		rep.TeamScores[i] = v + 0 // -0 + 0 is 0
	}
	if len(rep.PlayerScores) > 0 {
		scores := make(map[string]float64, len(rep.PlayerScores))
		for k, v := range rep.PlayerScores {
			scores[k] = v + 0
		}
		rep.PlayerScores = scores
	}
	rep.Leavers = slices.Sorted(slices.Values(rep.Leavers))
	if len(rep.Leavers) == 0 {
		rep.Leavers = nil
	}
	if len(rep.TeamPlaces) == 0 {
		rep.TeamPlaces = nil
	}
	if len(rep.TeamScores) == 0 {
		rep.TeamScores = nil
	}
	if len(rep.PlayerPlaces) == 0 {
		rep.PlayerPlaces = nil
	}
	if len(rep.PlayerScores) == 0 {
		rep.PlayerScores = nil
	}
	return rep
}

// ranks turns places into standard competition ranks: one more than the
// number of places strictly better.
func ranks(places []int) []int {
	out := make([]int, len(places))
	for i, p := range places {
		out[i] = 1
		for _, q := range places {
			if q < p {
				out[i]++
			}
		}
	}
	return out
}

// normalise checks a report against its match and gives it one form:
// places filled in from scores, then canonical.
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
	return canonical(rep), nil
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
