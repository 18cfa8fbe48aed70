package rating

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// Side is one side of a played game as the rating systems read it: a team,
// or one player of a free-for-all. Place orders the sides (lower is better,
// equal places tie); Left marks, per player of the side, who left the game
// before its end.
type Side struct {
	Place int
	Left  []bool
}

func (s Side) hasLeaver() bool { return slices.Contains(s.Left, true) }

// PlacesFor returns the places a game is rated by for one player of
// sides[side] (left: he is one of its leavers). One rule serves every
// model, so Glicko-2 and the Weng-Lin models agree on who won:
//
//   - A leaver sees his side placed last, below every other side: leaving
//     is a loss, whatever his side did without him.
//   - Anyone else sees every other side that had a leaver placed below the
//     sides that had none, those keeping their order: beating a side that
//     lost a player counts, and a side that won without its leaver does
//     not make its opponents lose a game its leaver forfeited.
//   - A leaver's teammates who stayed keep their side's reported place:
//     they played the game out.
//
// In a one-against-one game whose reported winner left, the leaver loses
// and his opponent wins.
func PlacesFor(sides []Side, side int, left bool) []int {
	worst := 0
	for _, s := range sides {
		worst = max(worst, s.Place)
	}
	out := make([]int, len(sides))
	for k, s := range sides {
		out[k] = s.Place
		switch {
		case k == side && left:
			out[k] = 2*(worst+1) + 1
		case k != side && !left && s.hasLeaver():
			out[k] += worst + 1
		}
	}
	return out
}

// Score is what sides[side] scored under places: its share of the other
// sides it placed above, a tie counting half (1 a win against everyone, 0
// a loss to everyone).
func Score(places []int, side int) float64 {
	if len(places) < 2 {
		return 0.5
	}
	var s float64
	for k, p := range places {
		switch {
		case k == side:
		case places[side] < p:
			s++
		case places[side] == p:
			s += 0.5
		}
	}
	return s / float64(len(places)-1)
}

// Rated is what a game did to one player: the score he is rated by (from
// his PlacesFor) and the score his rating expected of him against that
// opposition.
type Rated struct {
	Score, Expected float64
}

// checkSides reports sides that do not fit the teams.
func checkSides(n int, sides []Side, size func(int) int) error {
	if n < 2 {
		return errors.New("teams: a game needs at least two sides")
	}
	if len(sides) != n {
		return fmt.Errorf("sides: %d sides for %d teams", len(sides), n)
	}
	for i, s := range sides {
		if len(s.Left) != size(i) {
			return fmt.Errorf("sides[%d].left: %d marks for %d players", i, len(s.Left), size(i))
		}
	}
	return nil
}

// RateSides rates every player of a game: each by the places PlacesFor
// gives him (one Rate per distinct view of the game), with his score and
// his side's expected score. The ratings come back in the teams' shape.
func (w WengLin) RateSides(teams [][]Skill, sides []Side) ([][]Skill, [][]Rated, error) {
	if err := checkSides(len(teams), sides, func(i int) int { return len(teams[i]) }); err != nil {
		return nil, nil, err
	}
	exp := w.Expected(teams)
	views := map[string][][]Skill{} // by the places, the game rated that way
	out := make([][]Skill, len(teams))
	rated := make([][]Rated, len(teams))
	for i, tm := range teams {
		out[i] = make([]Skill, len(tm))
		rated[i] = make([]Rated, len(tm))
		for j := range tm {
			places := PlacesFor(sides, i, sides[i].Left[j])
			key := placesKey(places)
			all, ok := views[key]
			if !ok {
				var err error
				if all, err = w.Rate(teams, places); err != nil {
					return nil, nil, err
				}
				views[key] = all
			}
			out[i][j] = all[i][j]
			rated[i][j] = Rated{Score: Score(places, i), Expected: exp[i]}
		}
	}
	return out, rated, nil
}

func placesKey(places []int) string {
	b := make([]byte, 0, 4*len(places))
	for _, p := range places {
		b = strconv.AppendInt(b, int64(p), 10)
		b = append(b, ',')
	}
	return string(b)
}

// GlickoGames turns a game of teams into each player's Glicko-2 games:
// one against every other side, which stands in as one composite opponent
// (Composite), scored by the places PlacesFor gives him; with his
// expected score, the mean over those games. A player's games are rated at
// once (Glicko2Config.Period) or kept for his rating period.
func GlickoGames(teams [][]Glicko2, sides []Side) ([][][]Game, [][]Rated, error) {
	if err := checkSides(len(teams), sides, func(i int) int { return len(teams[i]) }); err != nil {
		return nil, nil, err
	}
	composite := make([]Glicko2, len(teams))
	for i, tm := range teams {
		if len(tm) == 0 {
			return nil, nil, fmt.Errorf("teams[%d]: a team needs at least one player", i)
		}
		composite[i] = Composite(tm)
	}
	games := make([][][]Game, len(teams))
	rated := make([][]Rated, len(teams))
	for i, tm := range teams {
		games[i] = make([][]Game, len(tm))
		rated[i] = make([]Rated, len(tm))
		for j, p := range tm {
			places := PlacesFor(sides, i, sides[i].Left[j])
			var exp float64
			for k := range teams {
				if k == i {
					continue
				}
				games[i][j] = append(games[i][j], Game{Opponent: composite[k], Score: Score([]int{places[i], places[k]}, 0)})
				exp += p.Expected(composite[k])
			}
			rated[i][j] = Rated{Score: Score(places, i), Expected: exp / float64(len(teams)-1)}
		}
	}
	return games, rated, nil
}

// RateSides rates every player of a game at once (a rating period of this
// one game), as GlickoGames scores it.
func (c Glicko2Config) RateSides(teams [][]Glicko2, sides []Side) ([][]Glicko2, [][]Rated, error) {
	games, rated, err := GlickoGames(teams, sides)
	if err != nil {
		return nil, nil, err
	}
	out := make([][]Glicko2, len(teams))
	for i, tm := range teams {
		out[i] = make([]Glicko2, len(tm))
		for j, p := range tm {
			if out[i][j], err = c.Period(p, games[i][j]); err != nil {
				return nil, nil, fmt.Errorf("teams[%d][%d]: %w", i, j, err)
			}
		}
	}
	return out, rated, nil
}
