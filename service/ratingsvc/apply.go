package ratingsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/rating"
)

// unit is one side of a rated game: a team, or a player in a free-for-all.
type unit struct {
	team    int
	players []string
	place   int
}

// gameSides turns a normalised report into the game's sides: each team's
// players (those who finished, then those who left its session), or each
// player on his own when the report places players; a leaver without a
// place of his own places last. Leavers are marked as rating reads them.
func gameSides(m *cupid.Match, rep Report) ([]unit, []rating.Side, error) {
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
		return nil, nil, cupid.Invalid("team_places", "match %s has fewer than two sides with players to rate", m.ID)
	}
	sides := make([]rating.Side, len(units))
	for i, u := range units {
		sides[i] = rating.Side{Place: u.place, Left: make([]bool, len(u.players))}
		for j, p := range u.players {
			sides[i].Left[j] = slices.Contains(rep.Leavers, p)
		}
	}
	return units, sides, nil
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

// state is what a batch of results reads and changes: the players'
// ratings, the divisions' days and the low-priority marks, each with the
// body it was read with (the guard of its rewrite). Results change it in
// memory one after the other, so the second result of a player in a batch
// starts from the first one's outcome; rows gives what to write.
type state struct {
	players map[string]*PlayerRating // by playerKey
	days    map[string]*leagueDay    // by leagueDayKey
	lows    map[string]*lowMark      // by player
	dirty   map[string]bool          // kind + "\x00" + id of every row changed
}

// lowMark is a player's low-priority mark as a batch holds it: nil when
// he has none.
type lowMark struct {
	lp   *LowPriority
	read []byte
}

func (st *state) touch(kind, id string) { st.dirty[kind+"\x00"+id] = true }

// applied is what one result did.
type applied struct {
	outcome Outcome
	history []cupid.RatingEntry
	raised  map[string]int
}

// apply works out what a normalised report's sides do under rating r,
// changing st in memory; it reads and writes nothing else, and changes st
// only when it succeeds.
func (r *Rating) apply(st *state, matchID string, units []unit, sides []rating.Side, now time.Time) (*applied, error) {
	before := map[string]PlayerRating{}
	for _, u := range units {
		for _, id := range u.players {
			before[id] = *st.players[playerKey(r.Name, id)]
		}
	}
	rated, err := r.rate(st, units, sides)
	if err != nil {
		return nil, err
	}
	a := &applied{raised: map[string]int{}, outcome: Outcome{MatchID: matchID, Rating: r.Name, At: now}}
	day := now.Format(time.DateOnly)
	var ids []string
	for ui, u := range units {
		for j, id := range u.players {
			ids = append(ids, id)
			p, b := st.players[playerKey(r.Name, id)], before[id]
			ld := st.days[leagueDayKey(r.Name, b.League, day)]
			if r.record(p, rated[ui][j], sides[ui].Left[j], ld, day, a.raised) {
				st.touch(kindLeagueDay, leagueDayKey(r.Name, b.League, day))
			}
			p.UpdatedAt = now
			st.touch(kindPlayer, playerKey(r.Name, id))
			ch := PlayerChange{
				Player: id, Team: u.team, Place: u.place, Score: rated[ui][j].Score, Expected: rated[ui][j].Expected, Leaver: sides[ui].Left[j],
				Before: b.Value, After: p.Value, Pending: len(p.Pending), Skill: p.Skill, Glicko: p.Glicko,
				LeagueBefore: b.League, LeagueAfter: p.League, DivisionBefore: b.Division, DivisionAfter: p.Division, Flags: p.Flags,
			}
			a.outcome.Players = append(a.outcome.Players, ch)
			// The body is the change as JSON, encoded with the batch's
			// (encode).
			a.history = append(a.history, cupid.RatingEntry{Rating: r.Name, Player: id, MatchID: matchID, At: now})
		}
	}
	leavers := map[string]bool{}
	for i, s := range sides {
		for j, left := range s.Left {
			leavers[units[i].players[j]] = left
		}
	}
	r.countLowPriority(st, ids, leavers, matchID, now)
	return a, nil
}

// rate moves every player's rating by the rating package's rule for the
// model (rating.PlacesFor decides what a leaver's game looks like to each
// player), at once or into his Glicko-2 rating period, and returns each
// player's score and expected score, unit by unit. It changes st only when
// it succeeds.
func (r *Rating) rate(st *state, units []unit, sides []rating.Side) ([][]rating.Rated, error) {
	players := make([][]*PlayerRating, len(units))
	for i, u := range units {
		for _, id := range u.players {
			players[i] = append(players[i], st.players[playerKey(r.Name, id)])
		}
	}
	if r.Model == Glicko2 {
		return r.rateGlicko(players, sides)
	}
	teams := make([][]rating.Skill, len(players))
	for i := range players {
		for _, p := range players[i] {
			teams[i] = append(teams[i], *p.Skill)
		}
	}
	out, rated, err := r.wengLin().RateSides(teams, sides)
	if err != nil {
		return nil, fmt.Errorf("ratingsvc: %w", err)
	}
	for i := range players {
		for j, p := range players[i] {
			p.Skill = &out[i][j]
		}
	}
	return rated, nil
}

// rateGlicko rates each player's games against the other sides at once,
// or adds them to his rating period.
func (r *Rating) rateGlicko(players [][]*PlayerRating, sides []rating.Side) ([][]rating.Rated, error) {
	teams := make([][]rating.Glicko2, len(players))
	for i := range players {
		for _, p := range players[i] {
			teams[i] = append(teams[i], *p.Glicko)
		}
	}
	if r.Period > 0 {
		games, rated, err := rating.GlickoGames(teams, sides)
		if err != nil {
			return nil, fmt.Errorf("ratingsvc: %w", err)
		}
		for i := range players {
			for j, p := range players[i] {
				p.Pending = append(p.Pending, games[i][j]...)
			}
		}
		return rated, nil
	}
	out, rated, err := r.glicko().RateSides(teams, sides)
	if err != nil {
		return nil, fmt.Errorf("ratingsvc: %w", err)
	}
	for i := range players {
		for j, p := range players[i] {
			p.Glicko = &out[i][j]
		}
	}
	return rated, nil
}

// record counts one rated game in a player's state and his division's
// day, runs the fair-play checks and places him in his league; raised
// counts the flags it raises. It reports whether the day's counts changed
// (his first game of the day, or a loss).
func (r *Rating) record(p *PlayerRating, g rating.Rated, left bool, ld *leagueDay, day string, raised map[string]int) (dayChanged bool) {
	if left {
		p.Leaves++
	}
	p.Games++
	switch {
	case g.Score > 0.5:
		p.Wins++
	case g.Score < 0.5:
		p.Losses++
	default:
		p.Draws++
	}
	if p.Day != day {
		p.Day, p.LossesToday = day, 0
		ld.Players++
		dayChanged = true
	}
	if g.Score < 0.5 {
		ld.Losses++
		p.LossesToday++
		dayChanged = true
	}
	p.Recent = append(p.Recent, rating.Outcome{Expected: g.Expected, Score: g.Score})
	if n, keep := len(p.Recent), recentKept(r.FairPlay); n > keep {
		p.Recent = slices.Clone(p.Recent[n-keep:])
	}
	was := p.Flags
	p.Flags = r.FairPlay.Check(p.Recent, p.LossesToday, float64(ld.Losses)/float64(max(ld.Players, 1)))
	if p.Flags.Tanking && !was.Tanking {
		raised["tanking"]++
	}
	if p.Flags.Smurf && !was.Smurf {
		raised["smurf"]++
	}
	if p.Flags.Ease > 0 && was.Ease == 0 {
		raised["losing-streak"]++
	}
	p.Value = p.conservative(r.K)
	if len(r.League.Divisions) > 0 {
		p.Division = r.League.Place(p.Division, p.Value)
		p.League = r.League.Divisions[p.Division].Name
	}
	return dayChanged
}

// countLowPriority counts a game down on every player's mark by games,
// and marks a leaver when the rating says to.
func (r *Rating) countLowPriority(st *state, ids []string, leaver map[string]bool, matchID string, now time.Time) {
	for _, id := range ids {
		m := st.lows[id]
		lp := m.lp
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
			lp.Reason = fmt.Sprintf("left match %s", matchID)
			lp.SetAt = now
			changed = true
		}
		if changed {
			m.lp = lp
			st.touch(kindLowPriority, id)
		}
	}
}

// rows are the rows the batch changed, in (kind, id) order, each guarded
// by the body it was read with; a low-priority mark that no longer holds
// is deleted. Players' states are in their binary form (codec.go), or
// JSON with jsonRows, the rest JSON. The bodies are encoded on every core at once.
func (st *state) rows(now time.Time, jsonRows bool) ([]cupid.RatingRow, error) {
	keys := cupid.SortedKeys(st.dirty)
	out := make([]cupid.RatingRow, len(keys))
	errs := make([]error, len(keys))
	inParallel(len(keys), func(i int) {
		kind, id, _ := strings.Cut(keys[i], "\x00")
		var v any
		row := cupid.RatingRow{Kind: kind, ID: id, Guard: true}
		switch kind {
		case kindPlayer:
			p := st.players[id]
			row.Prev = p.read
			if jsonRows {
				row.Body, errs[i] = json.Marshal(p)
			} else {
				row.Body, errs[i] = encodeState(p)
			}
		case kindLeagueDay:
			d := st.days[id]
			row.Prev, v = d.read, d
		case kindLowPriority:
			m := st.lows[id]
			row.Prev = m.read
			if m.lp.Active(now) {
				v = m.lp
			}
		}
		if v != nil {
			row.Body, errs[i] = json.Marshal(v)
		}
		out[i] = row
	})
	return out, errors.Join(errs...)
}

// inParallel calls f for every i in [0, n), in GOMAXPROCS goroutines each
// taking a contiguous part; small n stay on the caller's goroutine.
func inParallel(n int, f func(i int)) {
	parts := min(runtime.GOMAXPROCS(0), n/16)
	if parts <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	for k := range parts {
		lo, hi := k*n/parts, (k+1)*n/parts
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				f(i)
			}
		})
	}
	wg.Wait()
}

// readState reads the rows a batch of results needs in three queries: the
// players' ratings (new players get the model's start; rating periods are
// rolled to now), every division's day of their ratings, their marks.
func (s *Service) readState(ctx context.Context, batch []*request, now time.Time) (*state, error) {
	st := &state{players: map[string]*PlayerRating{}, days: map[string]*leagueDay{}, lows: map[string]*lowMark{}, dirty: map[string]bool{}}
	k := st.keys(batch, now.Format(time.DateOnly))
	rows, err := s.known.read(ctx, s.store, kindPlayer, k.players)
	if err != nil {
		return nil, s.storeError(err)
	}
	decoded := make([]*PlayerRating, len(rows))
	errs := make([]error, len(rows))
	inParallel(len(rows), func(i int) {
		decoded[i] = &PlayerRating{read: rows[i].Body}
		if err := decodeState(rows[i].Body, decoded[i]); err != nil {
			errs[i] = fmt.Errorf("ratingsvc: decode rating %s: %w", rows[i].ID, err)
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i, row := range rows {
		st.players[row.ID] = decoded[i]
	}
	for _, key := range k.players {
		r := k.ratingOf[key]
		if st.players[key] == nil {
			st.players[key] = r.newPlayer(key[len(r.Name)+1:])
		}
		r.roll(st.players[key], now)
	}
	if rows, err = s.known.read(ctx, s.store, kindLeagueDay, k.days); err != nil {
		return nil, s.storeError(err)
	}
	for _, row := range rows {
		if err := json.Unmarshal(row.Body, st.days[row.ID]); err != nil {
			return nil, fmt.Errorf("ratingsvc: decode league day %s: %w", row.ID, err)
		}
		st.days[row.ID].read = row.Body
	}
	lows, err := s.lowPriorities(ctx, k.lows)
	if err != nil {
		return nil, err
	}
	for id, lp := range lows {
		st.lows[id] = &lowMark{lp: lp, read: lp.read}
	}
	return st, nil
}

// batchKeys are the rows a batch reads, each once.
type batchKeys struct {
	players, days, lows []string
	ratingOf            map[string]*Rating // by player key
}

// keys lists the rows a batch reads and makes room in st for the league
// days and marks (which may not exist yet); day is today.
func (st *state) keys(batch []*request, day string) batchKeys {
	k := batchKeys{ratingOf: map[string]*Rating{}}
	for _, q := range batch {
		r := q.rating
		for _, u := range q.units {
			for _, id := range u.players {
				if key := playerKey(r.Name, id); k.ratingOf[key] == nil {
					k.ratingOf[key] = r
					k.players = append(k.players, key)
				}
				if st.lows[id] == nil {
					st.lows[id] = &lowMark{}
					k.lows = append(k.lows, id)
				}
			}
		}
		leagues := []string{""}
		for _, d := range r.League.Divisions {
			leagues = append(leagues, d.Name)
		}
		for _, l := range leagues {
			if key := leagueDayKey(r.Name, l, day); st.days[key] == nil {
				st.days[key] = &leagueDay{}
				k.days = append(k.days, key)
			}
		}
	}
	return k
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
		if err := decodeState(row.Body, p); err != nil {
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

// lowPriorities reads the players' low-priority marks.
func (s *Service) lowPriorities(ctx context.Context, ids []string) (map[string]*LowPriority, error) {
	rows, err := s.known.read(ctx, s.store, kindLowPriority, ids)
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
