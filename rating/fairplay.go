package rating

import "fmt"

// FairPlay holds the thresholds of the fair-play checks, after the War
// Robots article: a player who loses far more games a day than his
// league's players do is probably losing on purpose (tanking, to be
// matched against weaker players later), and one who keeps beating what
// his rating predicts is probably a strong player on a new account (a
// smurf). Both are flags for the server to act on (raise the rating, route
// to another pool), never verdicts.
type FairPlay struct {
	// TankingFactor flags a player whose losses today exceed the league's
	// daily average by this factor (default 3), once he has lost at least
	// TankingMinLosses games today (default 10).
	TankingFactor    float64
	TankingMinLosses int
	// SmurfWindow is how many recent games the over-performance check
	// reads (default 20); SmurfExcess flags a player whose actual scores
	// beat the expected ones by this much per game on average over the
	// window (default 0.25, e.g. winning 75 % of games the rating called
	// even).
	SmurfWindow int
	SmurfExcess float64
	// StreakLength is the losing streak that eases the next opponents
	// (default 5); StreakEase is how much lower the player's matchmaking
	// skill is then, in the rating's units (default 0: off), for
	// StreakGames games or until he wins (default 3).
	StreakLength int
	StreakEase   float64
	StreakGames  int
}

func (f FairPlay) withDefaults() FairPlay {
	if f.TankingFactor <= 0 {
		f.TankingFactor = 3
	}
	if f.TankingMinLosses <= 0 {
		f.TankingMinLosses = 10
	}
	if f.SmurfWindow <= 0 {
		f.SmurfWindow = 20
	}
	if f.SmurfExcess <= 0 {
		f.SmurfExcess = 0.25
	}
	if f.StreakLength <= 0 {
		f.StreakLength = 5
	}
	if f.StreakGames <= 0 {
		f.StreakGames = 3
	}
	return f
}

// Outcome is one game of a player as the checks read it: Expected is the
// score his rating predicted against that opposition (0 to 1), Score what
// he got (1 win, 0.5 draw, 0 loss).
type Outcome struct {
	Expected, Score float64
}

// Flags are the fair-play checks' findings about one player.
type Flags struct {
	Tanking bool `json:"tanking,omitempty"`
	Smurf   bool `json:"smurf,omitempty"`
	// Ease is how much to lower the player's matchmaking skill now (a
	// losing streak); 0 for none.
	Ease float64 `json:"ease,omitempty"`
	// Why says in words what raised each flag.
	Why []string `json:"why,omitempty"`
}

// Check reads a player's recent games (oldest first), his losses today and
// his league's average losses per player per day.
func (f FairPlay) Check(recent []Outcome, lossesToday int, leagueDailyLosses float64) Flags {
	f = f.withDefaults()
	var fl Flags
	if lossesToday >= f.TankingMinLosses && float64(lossesToday) > f.TankingFactor*leagueDailyLosses {
		fl.Tanking = true
		fl.Why = append(fl.Why, fmt.Sprintf("lost %d games today, more than %.3g times his league's average of %.3g", lossesToday, f.TankingFactor, leagueDailyLosses))
	}
	if n := len(recent); n >= f.SmurfWindow {
		var excess float64
		for _, o := range recent[n-f.SmurfWindow:] {
			excess += o.Score - o.Expected
		}
		if per := excess / float64(f.SmurfWindow); per >= f.SmurfExcess {
			fl.Smurf = true
			fl.Why = append(fl.Why, fmt.Sprintf("scored %.2f a game above his rating's prediction over his last %d games", per, f.SmurfWindow))
		}
	}
	if f.StreakEase > 0 {
		// Find the last losing streak of StreakLength and count the games
		// played since it reached that length; a win since ends the ease.
		streak, since, easing := 0, 0, false
		for _, o := range recent {
			switch {
			case o.Score == 0:
				streak++
				if streak >= f.StreakLength {
					easing, since = true, 0
					continue
				}
			default:
				streak = 0
				if o.Score == 1 {
					easing = false
				}
			}
			if easing {
				since++
			}
		}
		if easing && since < f.StreakGames {
			fl.Ease = f.StreakEase
			fl.Why = append(fl.Why, fmt.Sprintf("a losing streak of %d or more: easier opponents for %d more games", f.StreakLength, f.StreakGames-since))
		}
	}
	return fl
}
