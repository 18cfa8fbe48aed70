package rating

import (
	"errors"
	"fmt"
	"math"
)

// Skill is a player's rating in the Weng-Lin models: Mu the mean of the
// belief about his skill, Sigma its standard deviation.
type Skill struct {
	Mu, Sigma float64
}

// Conservative is Mu less k standard deviations (k = 3 is the usual
// leaderboard "ordinal").
func (s Skill) Conservative(k float64) float64 { return s.Mu - k*s.Sigma }

// Model names a Weng-Lin update rule.
type Model string

const (
	// PlackettLuce treats a result as a ranking drawn one place at a time:
	// one pass over the teams, suited to many teams or players.
	PlackettLuce Model = "plackett-luce"
	// BradleyTerry compares every pair of teams with a logistic model
	// ("Bradley-Terry full pairing").
	BradleyTerry Model = "bradley-terry"
)

// WengLin holds a model and its constants. The zero value is the
// Plackett-Luce model with the usual constants (μ 25, σ 25/3, β 25/6).
type WengLin struct {
	Model Model
	// Mu and Sigma start a new player (defaults 25 and 25/3).
	Mu, Sigma float64
	// Beta is the spread of one game's performance around skill (default
	// Sigma/2).
	Beta float64
	// Kappa keeps every variance positive (default 0.0001).
	Kappa float64
	// Tau is added to every deviation before a game (default 0: none),
	// so that a long-standing rating can still move.
	Tau float64
}

func (w WengLin) withDefaults() WengLin {
	if w.Model == "" {
		w.Model = PlackettLuce
	}
	if w.Mu == 0 {
		w.Mu = 25
	}
	if w.Sigma <= 0 {
		w.Sigma = w.Mu / 3
	}
	if w.Beta <= 0 {
		w.Beta = w.Sigma / 2
	}
	if w.Kappa <= 0 {
		w.Kappa = 0.0001
	}
	return w
}

// New is a new player's skill.
func (w WengLin) New() Skill {
	w = w.withDefaults()
	return Skill{Mu: w.Mu, Sigma: w.Sigma}
}

// team is the sums the models read of a team.
type team struct {
	mu, sigmaSq float64
	rank        int
}

// Rate updates every player of a game's teams. ranks[i] is team i's place
// (0 or 1 first; equal places are ties); nil means the teams are given in
// order of finish. A free-for-all is teams of one. The ratings come back in
// the same shape.
func (w WengLin) Rate(teams [][]Skill, ranks []int) ([][]Skill, error) {
	w = w.withDefaults()
	if len(teams) < 2 {
		return nil, errors.New("teams: a game needs at least two teams")
	}
	if ranks == nil {
		ranks = make([]int, len(teams))
		for i := range ranks {
			ranks[i] = i
		}
	}
	if len(ranks) != len(teams) {
		return nil, fmt.Errorf("ranks: %d ranks for %d teams", len(ranks), len(teams))
	}
	ts := make([]team, len(teams))
	for i, tm := range teams {
		if len(tm) == 0 {
			return nil, fmt.Errorf("teams[%d]: a team needs at least one player", i)
		}
		for j, s := range tm {
			if !finite(s.Mu) || !finite(s.Sigma) || s.Sigma <= 0 {
				return nil, fmt.Errorf("teams[%d][%d]: mu must be finite and sigma a positive number, got %v and %v", i, j, s.Mu, s.Sigma)
			}
			sigma := math.Sqrt(s.Sigma*s.Sigma + w.Tau*w.Tau)
			ts[i].mu += s.Mu
			ts[i].sigmaSq += sigma * sigma
		}
		ts[i].rank = ranks[i]
	}
	var omega, delta []float64
	switch w.Model {
	case PlackettLuce:
		omega, delta = w.plackettLuce(ts)
	case BradleyTerry:
		omega, delta = w.bradleyTerry(ts)
	default:
		return nil, fmt.Errorf("model: %q is not a model (plackett-luce, bradley-terry)", w.Model)
	}
	out := make([][]Skill, len(teams))
	for i, tm := range teams {
		out[i] = make([]Skill, len(tm))
		for j, s := range tm {
			sigmaSq := s.Sigma*s.Sigma + w.Tau*w.Tau
			share := sigmaSq / ts[i].sigmaSq
			out[i][j] = Skill{
				Mu:    s.Mu + share*omega[i],
				Sigma: math.Sqrt(sigmaSq * math.Max(1-share*delta[i], w.Kappa)),
			}
		}
	}
	return out, nil
}

// plackettLuce is Weng and Lin's Algorithm 4: each team's mean moves by
// how much better it placed than the model expected, over the teams it
// beat or tied.
func (w WengLin) plackettLuce(ts []team) (omega, delta []float64) {
	var c float64
	for _, t := range ts {
		c += t.sigmaSq + w.Beta*w.Beta
	}
	c = math.Sqrt(c)
	sumQ := make([]float64, len(ts)) // over the teams placed no better than q
	tied := make([]float64, len(ts)) // teams sharing q's place
	for q, tq := range ts {
		for _, ti := range ts {
			if ti.rank >= tq.rank {
				sumQ[q] += math.Exp(ti.mu / c)
			}
			if ti.rank == tq.rank {
				tied[q]++
			}
		}
	}
	omega, delta = make([]float64, len(ts)), make([]float64, len(ts))
	for i, ti := range ts {
		e := math.Exp(ti.mu / c)
		var om, de float64
		for q, tq := range ts {
			if tq.rank > ti.rank {
				continue
			}
			p := e / sumQ[q]
			if q == i {
				om += (1 - p) / tied[q]
			} else {
				om -= p / tied[q]
			}
			de += p * (1 - p) / tied[q]
		}
		gamma := math.Sqrt(ti.sigmaSq) / c
		omega[i] = ti.sigmaSq / c * om
		delta[i] = gamma * ti.sigmaSq / (c * c) * de
	}
	return omega, delta
}

// bradleyTerry is Weng and Lin's Algorithm 1 (full pairing): every pair of
// teams is a logistic comparison.
func (w WengLin) bradleyTerry(ts []team) (omega, delta []float64) {
	omega, delta = make([]float64, len(ts)), make([]float64, len(ts))
	for i, ti := range ts {
		for q, tq := range ts {
			if q == i {
				continue
			}
			c := math.Sqrt(ti.sigmaSq + tq.sigmaSq + 2*w.Beta*w.Beta)
			p := 1 / (1 + math.Exp((tq.mu-ti.mu)/c))
			var s float64
			switch {
			case tq.rank > ti.rank:
				s = 1
			case tq.rank == ti.rank:
				s = 0.5
			}
			gamma := math.Sqrt(ti.sigmaSq) / c
			omega[i] += ti.sigmaSq / c * (s - p)
			delta[i] += gamma * ti.sigmaSq / (c * c) * p * (1 - p)
		}
	}
	return omega, delta
}
