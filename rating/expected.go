package rating

import "math"

// Expected is each team's expected score against the others of a game
// (1 a sure win, 0.5 an even game, 0 a sure loss), the mean of its
// pairwise chances of placing above each other team under the logistic
// comparison the Bradley-Terry model uses. The fair-play checks compare it
// with what a player actually scored to find the one who keeps beating his
// rating. Teams must be valid (as Rate checks); one team alone expects 0.5.
func (w WengLin) Expected(teams [][]Skill) []float64 {
	w = w.withDefaults()
	mu := make([]float64, len(teams))
	sq := make([]float64, len(teams))
	for i, tm := range teams {
		for _, s := range tm {
			mu[i] += s.Mu
			sq[i] += s.Sigma*s.Sigma + w.Tau*w.Tau
		}
	}
	out := make([]float64, len(teams))
	for i := range teams {
		if len(teams) == 1 {
			out[i] = 0.5
			continue
		}
		for q := range teams {
			if q == i {
				continue
			}
			c := math.Sqrt(sq[i] + sq[q] + 2*w.Beta*w.Beta)
			out[i] += 1 / (1 + math.Exp((mu[q]-mu[i])/c))
		}
		out[i] /= float64(len(teams) - 1)
	}
	return out
}

// Expected is the score Glicko-2 expects of g against opp (Glickman's
// E(μ, μj, φj)).
func (g Glicko2) Expected(opp Glicko2) float64 {
	mu := (g.R - 1500) / glickoScale
	muJ := (opp.R - 1500) / glickoScale
	phiJ := opp.RD / glickoScale
	gJ := 1 / math.Sqrt(1+3*phiJ*phiJ/(math.Pi*math.Pi))
	return 1 / (1 + math.Exp(-gJ*(mu-muJ)))
}

// Composite stands a team in for one Glicko-2 opponent: the mean rating,
// the root mean square deviation and the mean volatility of its players
// (the "composite opponent" way of rating team games with a one-to-one
// system). An empty team gives a new player's rating.
func Composite(team []Glicko2) Glicko2 {
	if len(team) == 0 {
		return NewGlicko2()
	}
	var c Glicko2
	for _, p := range team {
		c.R += p.R
		c.RD += p.RD * p.RD
		c.Sigma += p.Sigma
	}
	n := float64(len(team))
	return Glicko2{R: c.R / n, RD: math.Sqrt(c.RD / n), Sigma: c.Sigma / n}
}
