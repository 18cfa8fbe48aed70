// Package rating turns match results into skill ratings: Glicko-2 for
// one-against-one games, and the Weng-Lin Bayesian models (the OpenSkill
// family: Plackett-Luce and Bradley-Terry) for teams and free-for-all
// places. It is pure: every function takes the ratings and the results and
// returns new ratings, so a history of results replays to the same numbers.
//
// The server keeps ratings per player and rating name and derives a
// ticket's skill from a conservative estimate (Conservative), so that a
// player with few games is matched as weaker than his mean until the
// uncertainty shrinks.
package rating

import (
	"errors"
	"fmt"
	"math"
)

// Glicko2 is a player's Glicko-2 rating on the familiar scale (1500 for a
// new player): R the rating, RD its deviation, Sigma the volatility (how
// erratic the player's results are).
type Glicko2 struct {
	R, RD, Sigma float64
}

// NewGlicko2 is a new player's rating with Glickman's suggested start.
func NewGlicko2() Glicko2 { return Glicko2{R: 1500, RD: 350, Sigma: 0.06} }

// Game is one result of a rating period: the opponent's rating at the start
// of the period and the score, 1 a win, 0.5 a draw, 0 a loss.
type Game struct {
	Opponent Glicko2
	Score    float64
}

// Glicko2Config holds the system's constants.
type Glicko2Config struct {
	// Tau constrains how fast the volatility changes (0.3 to 1.2; smaller
	// for games with fewer surprises). Default 0.5.
	Tau float64
	// MaxRD caps the deviation, so that a long absence does not make a
	// player's rating meaningless. Default 350.
	MaxRD float64
}

func (c Glicko2Config) withDefaults() Glicko2Config {
	if c.Tau <= 0 {
		c.Tau = 0.5
	}
	if c.MaxRD <= 0 {
		c.MaxRD = 350
	}
	return c
}

// glickoScale converts between the rating scale and Glicko-2's internal one.
const glickoScale = 173.7178

// Validate reports a rating that cannot be used: a non-finite number, a
// deviation or volatility that is not positive.
func (g Glicko2) Validate() error {
	switch {
	case !finite(g.R) || !finite(g.RD) || !finite(g.Sigma):
		return errors.New("rating, deviation and volatility must be finite numbers")
	case g.RD <= 0:
		return fmt.Errorf("deviation must be positive, got %v", g.RD)
	case g.Sigma <= 0:
		return fmt.Errorf("volatility must be positive, got %v", g.Sigma)
	}
	return nil
}

// Period rates a player after one rating period with the given games
// (Glickman, "Example of the Glicko-2 system", steps 2 to 8). With no games
// only the deviation grows, by the volatility. Lichess-style instant
// updates are a period of one game.
func (c Glicko2Config) Period(p Glicko2, games []Game) (Glicko2, error) {
	c = c.withDefaults()
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("player: %w", err)
	}
	for i, g := range games {
		if err := g.Opponent.Validate(); err != nil {
			return p, fmt.Errorf("games[%d].opponent: %w", i, err)
		}
		if !(g.Score >= 0 && g.Score <= 1) {
			return p, fmt.Errorf("games[%d].score: must be between 0 and 1, got %v", i, g.Score)
		}
	}
	mu := (p.R - 1500) / glickoScale
	phi := p.RD / glickoScale
	if len(games) == 0 {
		phi = math.Sqrt(phi*phi + p.Sigma*p.Sigma)
		return Glicko2{R: p.R, RD: math.Min(phi*glickoScale, c.MaxRD), Sigma: p.Sigma}, nil
	}
	// Step 3 and 4: the estimated variance v and improvement delta.
	var vInv, sum float64
	for _, g := range games {
		muJ := (g.Opponent.R - 1500) / glickoScale
		phiJ := g.Opponent.RD / glickoScale
		gJ := 1 / math.Sqrt(1+3*phiJ*phiJ/(math.Pi*math.Pi))
		e := 1 / (1 + math.Exp(-gJ*(mu-muJ)))
		vInv += gJ * gJ * e * (1 - e)
		sum += gJ * (g.Score - e)
	}
	v := 1 / vInv
	delta := v * sum
	// Step 5: the new volatility, by the Illinois algorithm.
	sigma := newVolatility(phi, v, delta, p.Sigma, c.Tau)
	// Steps 6 and 7.
	phiStar := math.Sqrt(phi*phi + sigma*sigma)
	phiNew := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muNew := mu + phiNew*phiNew*sum
	return Glicko2{
		R:     muNew*glickoScale + 1500,
		RD:    math.Min(phiNew*glickoScale, c.MaxRD),
		Sigma: sigma,
	}, nil
}

// newVolatility solves Glickman's step 5 for σ′ with the Illinois variant
// of regula falsi, to a tolerance of 1e-6.
func newVolatility(phi, v, delta, sigma, tau float64) float64 {
	const eps = 1e-6
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(tau*tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*tau) < 0 {
			k++
		}
		B = a - k*tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > eps && i < 100; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}

// Conservative is the rating less k deviations: a value the player's skill
// exceeds with high probability (k = 2: about 97.7 %).
func (g Glicko2) Conservative(k float64) float64 { return g.R - k*g.RD }

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
