package ratingsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/rating"
)

// plan is everything one result changes, ready for SaveResult.
type plan struct {
	outcome Outcome
	rows    []cupid.RatingRow
	history []cupid.RatingEntry
	raised  map[string]int
}

// unit is one side of a rated game: a team, or a player in a free-for-all.
type unit struct {
	team    int
	players []string
	place   int
}

// recentKept is how many recent games a player's state must keep for the
// fair-play checks: the smurf window, or a losing streak and the games it
// eases, whichever is longer (with rating.FairPlay's defaults: 20). The
// state is rewritten at every game, so it keeps no more.
func recentKept(f rating.FairPlay) int {
	window, streak, games := f.SmurfWindow, f.StreakLength, f.StreakGames
	if window <= 0 {
		window = 20
	}
	if streak <= 0 {
		streak = 5
	}
	if games <= 0 {
		games = 3
	}
	return max(window, streak+games)
}

// apply works out what a normalised report does, reading the players'
// current state; it writes nothing.
func (s *Service) apply(ctx context.Context, r *Rating, m *cupid.Match, rep Report, now time.Time) (*plan, error) {
	// Each team's players: those who finished, then those who left its
	// session; a leaver without a place of his own places last.
	players := make([][]string, len(m.Teams))
	for ti, t := range m.Teams {
		players[ti] = slices.Clone(t.PlayerIDs)
	}
	for _, l := range sessionLeavers(m) {
		players[l.Team] = append(players[l.Team], l.PlayerID)
	}
	lastPlace := 0
	for _, p := range rep.PlayerPlaces {
		lastPlace = max(lastPlace, p+1)
	}
	var units []unit
	for ti, ps := range players {
		if rep.PlayerPlaces == nil {
			if len(ps) > 0 {
				units = append(units, unit{team: ti, players: ps, place: rep.TeamPlaces[ti]})
			}
			continue
		}
		for _, p := range ps {
			place, ok := rep.PlayerPlaces[p]
			if !ok {
				place = lastPlace
			}
			units = append(units, unit{team: ti, players: []string{p}, place: place})
		}
	}
	if len(units) < 2 {
		return nil, cupid.Invalid("team_places", "match %s has fewer than two sides with players to rate", m.ID)
	}
	var ids []string
	for _, u := range units {
		ids = append(ids, u.players...)
	}
	state, err := s.load(ctx, r, ids, now)
	if err != nil {
		return nil, err
	}
	leaver := map[string]bool{}
	for _, p := range rep.Leavers {
		leaver[p] = true
	}
	// Each unit's score: its share of wins against every other unit.
	score := make([]float64, len(units))
	for i, u := range units {
		for j, v := range units {
			switch {
			case i == j:
			case u.place < v.place:
				score[i]++
			case u.place == v.place:
				score[i] += 0.5
			}
		}
		score[i] /= float64(len(units) - 1)
	}
	worst := 0
	for _, u := range units {
		worst = max(worst, u.place)
	}
	before := map[string]PlayerRating{}
	for id, p := range state {
		before[id] = *p
	}
	expected, err := s.rate(r, units, state, leaver, worst+1, now)
	if err != nil {
		return nil, err
	}

	pl := &plan{raised: map[string]int{}, outcome: Outcome{MatchID: m.ID, Rating: r.Name, At: now}}
	fp := r.FairPlay
	days, err := s.leagueDays(ctx, r, before, now)
	if err != nil {
		return nil, err
	}
	lows, err := s.lowPriorities(ctx, ids)
	if err != nil {
		return nil, err
	}
	day := now.Format(time.DateOnly)
	for ui, u := range units {
		for _, id := range u.players {
			p, b := state[id], before[id]
			sc := score[ui]
			if leaver[id] {
				sc = 0
				p.Leaves++
			}
			p.Games++
			switch {
			case sc > 0.5:
				p.Wins++
			case sc < 0.5:
				p.Losses++
			default:
				p.Draws++
			}
			first := p.Day != day
			if first {
				p.Day, p.LossesToday = day, 0
			}
			ld := days[leagueDayKey(r.Name, b.League, day)]
			if first {
				ld.Players++
			}
			if sc < 0.5 {
				ld.Losses++
				p.LossesToday++
			}
			p.Recent = append(p.Recent, rating.Outcome{Expected: expected[id], Score: sc})
			if n, keep := len(p.Recent), recentKept(fp); n > keep {
				p.Recent = slices.Clone(p.Recent[n-keep:])
			}
			avg := float64(ld.Losses) / float64(max(ld.Players, 1))
			was := p.Flags
			p.Flags = fp.Check(p.Recent, p.LossesToday, avg)
			if p.Flags.Tanking && !was.Tanking {
				pl.raised["tanking"]++
			}
			if p.Flags.Smurf && !was.Smurf {
				pl.raised["smurf"]++
			}
			if p.Flags.Ease > 0 && was.Ease == 0 {
				pl.raised["losing-streak"]++
			}
			p.Value = p.conservative(r.K)
			if len(r.League.Divisions) > 0 {
				p.Division = r.League.Place(p.Division, p.Value)
				p.League = r.League.Divisions[p.Division].Name
			}
			p.UpdatedAt = now
			ch := PlayerChange{
				Player: id, Team: u.team, Place: u.place, Score: sc, Expected: expected[id], Leaver: leaver[id],
				Before: b.Value, After: p.Value, Pending: len(p.Pending), Skill: p.Skill, Glicko: p.Glicko,
				LeagueBefore: b.League, LeagueAfter: p.League, DivisionBefore: b.Division, DivisionAfter: p.Division, Flags: p.Flags,
			}
			pl.outcome.Players = append(pl.outcome.Players, ch)
			body, err := json.Marshal(p)
			if err != nil {
				return nil, err
			}
			pl.rows = append(pl.rows, cupid.RatingRow{Kind: kindPlayer, ID: playerKey(r.Name, id), Body: body, Guard: true, Prev: b.read})
			hb, err := json.Marshal(ch)
			if err != nil {
				return nil, err
			}
			pl.history = append(pl.history, cupid.RatingEntry{Rating: r.Name, Player: id, MatchID: m.ID, At: now, Body: hb})
		}
	}
	for _, k := range cupid.SortedKeys(days) {
		b, _ := json.Marshal(days[k])
		pl.rows = append(pl.rows, cupid.RatingRow{Kind: kindLeagueDay, ID: k, Body: b, Guard: true, Prev: days[k].read})
	}
	// Low priority: every game counts down a mark by games; a leaver may
	// earn one.
	for _, id := range ids {
		lp := lows[id]
		var prev []byte
		if lp != nil {
			prev = lp.read
		}
		changed := false
		if lp != nil && lp.Games > 0 {
			lp.Games--
			changed = true
		}
		if leaver[id] && r.LeaverLowPriorityGames > 0 {
			if lp == nil || !lp.Active(now) {
				lp = &LowPriority{Player: id}
			}
			lp.Games += r.LeaverLowPriorityGames
			lp.Reason = fmt.Sprintf("left match %s", m.ID)
			lp.SetAt = now
			changed = true
		}
		if !changed {
			continue
		}
		row := cupid.RatingRow{Kind: kindLowPriority, ID: id, Guard: true, Prev: prev}
		if lp.Active(now) {
			row.Body, _ = json.Marshal(lp)
		}
		pl.rows = append(pl.rows, row)
	}
	return pl, nil
}

// rate moves every player's rating and returns each player's expected
// score. A leaver is rated as if his side had placed last (at lastPlace).
func (s *Service) rate(r *Rating, units []unit, state map[string]*PlayerRating, leaver map[string]bool, lastPlace int, now time.Time) (map[string]float64, error) {
	expected := map[string]float64{}
	if r.Model == Glicko2 {
		return expected, s.rateGlicko(r, units, state, leaver, expected, now)
	}
	w := r.wengLin()
	teams := make([][]rating.Skill, len(units))
	ranks := make([]int, len(units))
	for i, u := range units {
		for _, id := range u.players {
			teams[i] = append(teams[i], *state[id].Skill)
		}
		ranks[i] = u.place
	}
	exp := w.Expected(teams)
	out, err := w.Rate(teams, ranks)
	if err != nil {
		return nil, fmt.Errorf("ratingsvc: %w", err)
	}
	for i, u := range units {
		var left []rating.Skill // the leavers' ratings had their side lost
		for j, id := range u.players {
			expected[id] = exp[i]
			if !leaver[id] || u.place == lastPlace {
				continue
			}
			if left == nil {
				lost := slices.Clone(ranks)
				lost[i] = lastPlace
				all, err := w.Rate(teams, lost)
				if err != nil {
					return nil, fmt.Errorf("ratingsvc: %w", err)
				}
				left = all[i]
			}
			out[i][j] = left[j]
		}
		for j, id := range u.players {
			sk := out[i][j]
			state[id].Skill = &sk
		}
	}
	return expected, nil
}

// rateGlicko rates each player against every other side as one composite
// opponent, at once or into his rating period.
func (s *Service) rateGlicko(r *Rating, units []unit, state map[string]*PlayerRating, leaver map[string]bool, expected map[string]float64, now time.Time) error {
	composite := make([]rating.Glicko2, len(units))
	for i, u := range units {
		var team []rating.Glicko2
		for _, id := range u.players {
			team = append(team, *state[id].Glicko)
		}
		composite[i] = rating.Composite(team)
	}
	next := map[string]rating.Glicko2{}
	for i, u := range units {
		for _, id := range u.players {
			p := state[id]
			var games []rating.Game
			var exp float64
			for j, v := range units {
				if j == i {
					continue
				}
				sc := 0.0
				switch {
				case leaver[id]:
				case u.place < v.place:
					sc = 1
				case u.place == v.place:
					sc = 0.5
				}
				games = append(games, rating.Game{Opponent: composite[j], Score: sc})
				exp += p.Glicko.Expected(composite[j])
			}
			expected[id] = exp / float64(len(units)-1)
			if r.Period > 0 {
				p.Pending = append(p.Pending, games...)
				continue
			}
			g, err := r.glicko().Period(*p.Glicko, games)
			if err != nil {
				return fmt.Errorf("ratingsvc: %w", err)
			}
			next[id] = g
		}
	}
	for id, g := range next {
		state[id].Glicko = &g
	}
	return nil
}

// roll closes the Glicko-2 rating periods of p that ended by now: each
// rates the games collected in it (none: the deviation grows).
func (r *Rating) roll(p *PlayerRating, now time.Time) {
	if r.Model != Glicko2 || r.Period <= 0 {
		return
	}
	if p.PeriodStart.IsZero() {
		p.PeriodStart = now.Truncate(r.Period)
		return
	}
	for n := 0; !now.Before(p.PeriodStart.Add(r.Period)); n++ {
		if n > 2000 { // the deviation is long at its cap
			p.PeriodStart = now.Truncate(r.Period)
			break
		}
		if g, err := r.glicko().Period(*p.Glicko, p.Pending); err == nil {
			p.Glicko = &g
		}
		p.Pending = nil
		p.PeriodStart = p.PeriodStart.Add(r.Period)
	}
	p.Value = p.conservative(r.K)
}

// load reads the players' states under a rating (new players get the
// model's start), with their rating periods rolled to now.
func (s *Service) load(ctx context.Context, r *Rating, ids []string, now time.Time) (map[string]*PlayerRating, error) {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = playerKey(r.Name, id)
	}
	rows, err := s.store.RatingRows(ctx, kindPlayer, keys)
	if err != nil {
		return nil, s.storeError(err)
	}
	out := map[string]*PlayerRating{}
	for _, row := range rows {
		p := &PlayerRating{read: row.Body}
		if err := json.Unmarshal(row.Body, p); err != nil {
			return nil, fmt.Errorf("ratingsvc: decode rating %s: %w", row.ID, err)
		}
		out[p.Player] = p
	}
	for _, id := range ids {
		if out[id] == nil {
			out[id] = r.newPlayer(id)
		}
		r.roll(out[id], now)
	}
	return out, nil
}

func leagueDayKey(ratingName, league, day string) string {
	if league == "" {
		league = "all"
	}
	return ratingName + "/" + league + "/" + day
}

// leagueDays reads today's counts of the players' divisions.
func (s *Service) leagueDays(ctx context.Context, r *Rating, players map[string]PlayerRating, now time.Time) (map[string]*leagueDay, error) {
	day := now.Format(time.DateOnly)
	out := map[string]*leagueDay{}
	var keys []string
	for _, p := range players {
		k := leagueDayKey(r.Name, p.League, day)
		if out[k] == nil {
			out[k] = &leagueDay{}
			keys = append(keys, k)
		}
	}
	rows, err := s.store.RatingRows(ctx, kindLeagueDay, keys)
	if err != nil {
		return nil, s.storeError(err)
	}
	for _, row := range rows {
		if err := json.Unmarshal(row.Body, out[row.ID]); err != nil {
			return nil, fmt.Errorf("ratingsvc: decode league day %s: %w", row.ID, err)
		}
		out[row.ID].read = row.Body
	}
	return out, nil
}

// lowPriorities reads the players' low-priority marks.
func (s *Service) lowPriorities(ctx context.Context, ids []string) (map[string]*LowPriority, error) {
	rows, err := s.store.RatingRows(ctx, kindLowPriority, ids)
	if err != nil {
		return nil, s.storeError(err)
	}
	out := map[string]*LowPriority{}
	for _, row := range rows {
		lp := &LowPriority{read: row.Body}
		if err := json.Unmarshal(row.Body, lp); err != nil {
			return nil, fmt.Errorf("ratingsvc: decode low priority of %s: %w", row.ID, err)
		}
		out[row.ID] = lp
	}
	return out, nil
}
