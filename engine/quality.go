package engine

import (
	"math"
	"slices"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Match quality (after the War Robots article on match quality). Every
// proposal carries one score in [0,1] and the per-criterion scores it came
// from. Each criterion scores a match from 0 (bad) to 1 (best):
//
//   - skill_gap: 1 − (max team average − min team average) / reference, per
//     skill attribute (the balancing attributes, or quality.skill_attribute),
//     weighted by the matching rules' weights. The reference is the rule's
//     unflexed allowed distance: teams one whole reference apart score 0.
//     Only for matches of two or more teams.
//   - skill_spread: 1 − (mean over teams of the standard deviation of the
//     players' values inside the team) / reference. Two pros and a novice
//     average out but still make a bad match. Only when a team has two or
//     more players.
//   - parties: parties facing parties of similar size. For two teams, sort
//     each team's party sizes largest first and compare them position by
//     position: the score is Σ min(a_i, b_i) / the larger team's players. Solo
//     against solo scores 1; a 3-stack against 2+1 scores 2/3; a 5-stack
//     against five solos 1/5. With more teams, the worst pair counts.
//   - ping: the players' average of a curve on their latency to the hosting
//     region: 1 up to ping_ok_ms, 0 from ping_bad_ms, a parabola in between
//     that is steep near the good end (ruleset.Quality.PingScore). Only with
//     latency rules.
//   - wait: the players' average of 1 − wait/wait_bad_seconds.
//   - variety: the share of opposing player pairs that have not met
//     recently, when Options.Met is given.
//   - roles: the share of players who got their first-choice role, with role
//     quotas.
//   - each score expression of the ruleset, under its own name.
//
// The match score is the weighted average of the square roots of the
// criteria that apply (ruleset.Quality.Combine): the square root lifts low
// scores, so improving a bad criterion is worth more than polishing a good
// one. Parts holds the criteria before the square root.

// qualityInput is a formed match as the quality score sees it.
type qualityInput struct {
	teams     [][]int32 // slots per team
	region    int       // -1: none
	roleFirst int       // players on their first-choice role
	views     [][]ruleset.TicketView
}

func (p *Pool) quality(in *qualityInput, now time.Time) cupid.Quality {
	q := &p.r.quality
	// Criteria are collected by their place in partOrder, so that the
	// score is summed without looking names up in the map.
	vals := p.sc.partVals[:0]
	for range p.r.partOrder {
		vals = append(vals, math.NaN())
	}
	p.sc.partVals = vals
	set := func(c int, v float64) { vals[p.r.critIndex[c]] = v }
	players := 0
	for _, tm := range in.teams {
		for _, s := range tm {
			players += int(p.entries[s].size)
		}
	}
	multi := len(in.teams) >= 2

	if len(p.r.skill) > 0 && (q.SkillGap > 0 || q.SkillSpread > 0) {
		gap, spread, wsum := 0.0, 0.0, 0.0
		anySpread := false
		for _, di := range p.r.skill {
			d := &p.r.dist[di]
			scale := d.ref0
			if scale <= 0 {
				scale = d.scale
			}
			w := d.weight
			if w <= 0 {
				continue
			}
			hiAvg, loAvg, stdSum := math.Inf(-1), math.Inf(1), 0.0
			for _, tm := range in.teams {
				var sum, sq float64
				n := 0
				for _, s := range tm {
					e := &p.entries[s]
					if e.size == 1 {
						// A solo ticket's average is its player's value.
						v := p.distValue(e, s, di)
						sum += v
						sq += v * v
						n++
						continue
					}
					for i := range e.h.players {
						v := e.h.number(i, d.attr)
						sum += v
						sq += v * v
						n++
					}
				}
				if n == 0 {
					continue
				}
				avg := sum / float64(n)
				hiAvg, loAvg = max(hiAvg, avg), min(loAvg, avg)
				stdSum += math.Sqrt(max(sq/float64(n)-avg*avg, 0))
				if n > 1 {
					anySpread = true
				}
			}
			gap += w * clamp01(1-(hiAvg-loAvg)/scale)
			spread += w * clamp01(1-stdSum/float64(len(in.teams))/scale)
			wsum += w
		}
		if wsum > 0 {
			if multi && q.SkillGap > 0 {
				set(critSkillGap, gap/wsum)
			}
			if anySpread && q.SkillSpread > 0 {
				set(critSkillSpread, spread/wsum)
			}
		}
	}

	if multi && q.Parties > 0 {
		set(critParties, p.partyScore(in.teams))
	}

	if in.region >= 0 && q.Ping > 0 {
		sum := 0.0
		for _, tm := range in.teams {
			for _, s := range tm {
				e := &p.entries[s]
				sum += float64(e.size) * q.PingScore(float64(latencyTo(e.x.lats, uint8(in.region))))
			}
		}
		set(critPing, sum/float64(players))
	}

	if q.Wait > 0 {
		sum := 0.0
		for _, tm := range in.teams {
			for _, s := range tm {
				e := &p.entries[s]
				sum += float64(e.size) * q.WaitScore(p.waitOf(e, now))
			}
		}
		set(critWait, sum/float64(players))
	}

	if multi && p.opts.Met != nil && q.Variety > 0 {
		pairs, met := 0, 0
		for i := range in.teams {
			for j := i + 1; j < len(in.teams); j++ {
				for _, a := range in.teams[i] {
					for _, b := range in.teams[j] {
						for _, pa := range p.entries[a].h.players {
							for _, pb := range p.entries[b].h.players {
								pairs++
								if p.opts.Met(pa.ID, pb.ID) {
									met++
								}
							}
						}
					}
				}
			}
		}
		if pairs > 0 {
			set(critVariety, 1-float64(met)/float64(pairs))
		}
	}

	if p.r.roles != nil && q.Roles > 0 {
		set(critRoles, float64(in.roleFirst)/float64(players))
	}

	if len(p.r.scores) > 0 {
		env := ruleset.NewMatchEnv(in.views)
		for i, sc := range p.r.scores {
			if sc.Weight <= 0 {
				continue
			}
			v, err := sc.Value(env)
			if err != nil {
				v = 0
			}
			vals[p.r.scoreIndex[i]] = v
		}
	}
	n := 0
	for _, v := range vals {
		if !math.IsNaN(v) {
			n++
		}
	}
	// partOrder is sorted, so the parts come out sorted as QualityParts
	// wants them, carved from the slab instead of a map per match.
	parts := p.slab.parts(n)
	for k, v := range vals {
		if !math.IsNaN(v) {
			parts = append(parts, cupid.QualityPart{Name: p.r.partOrder[k], Score: v})
		}
	}
	return cupid.Quality{Score: p.r.combine(vals), Parts: parts}
}

// The built-in quality criteria, as indexes into rules.critIndex.
const (
	critSkillGap = iota
	critSkillSpread
	critParties
	critPing
	critVariety
	critWait
	critRoles
	numCriteria
)

var criterionNames = [numCriteria]string{
	critSkillGap:    ruleset.CriterionSkillGap,
	critSkillSpread: ruleset.CriterionSkillSpread,
	critParties:     ruleset.CriterionParties,
	critPing:        ruleset.CriterionPing,
	critVariety:     ruleset.CriterionVariety,
	critWait:        ruleset.CriterionWait,
	critRoles:       ruleset.CriterionRoles,
}

// partyScore compares the party make-up of every pair of teams and returns
// the worst.
func (p *Pool) partyScore(teams [][]int32) float64 {
	worst := 1.0
	if p.maxSize <= 1 {
		// Solos only: the sorted sizes are all ones, so the common part
		// of two teams is the smaller team, without reading an entry.
		for i := range teams {
			for j := i + 1; j < len(teams); j++ {
				a, b := len(teams[i]), len(teams[j])
				if m := max(a, b); m > 0 {
					worst = min(worst, float64(min(a, b))/float64(m))
				}
			}
		}
		return worst
	}
	var bi, bj [maxTeamParties]int
	for i := range teams {
		for j := i + 1; j < len(teams); j++ {
			a, ta := p.partySizes(teams[i], bi[:0])
			b, tb := p.partySizes(teams[j], bj[:0])
			common := 0
			for k := 0; k < min(len(a), len(b)); k++ {
				common += min(a[k], b[k])
			}
			if m := max(ta, tb); m > 0 {
				worst = min(worst, float64(common)/float64(m))
			}
		}
	}
	return worst
}

// maxTeamParties sizes the stack buffers of partyScore; bigger teams
// allocate.
const maxTeamParties = 32

// partySizes returns a team's party sizes, largest first, and its players.
func (p *Pool) partySizes(team []int32, buf []int) ([]int, int) {
	total := 0
	for _, s := range team {
		sz := int(p.entries[s].size)
		buf = append(buf, sz)
		total += sz
	}
	slices.SortFunc(buf, func(a, b int) int { return b - a })
	return buf, total
}

func clamp01(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return min(max(f, 0), 1)
}

// combine is ruleset.Quality.Combine without its allocation and name
// lookups: vals holds each criterion of partOrder (NaN when it does not
// apply), visited in the same sorted order with the same weights, so the
// arithmetic, and the score, are the same.
func (r *rules) combine(vals []float64) float64 {
	var sum, total float64
	for k, v := range vals {
		w := r.partWeight[k]
		if w <= 0 || math.IsNaN(v) {
			continue
		}
		s := min(max(v, 0), 1)
		if r.quality.Sqrt {
			s = math.Sqrt(s)
		}
		sum += w * s
		total += w
	}
	if total == 0 {
		return 1
	}
	return sum / total
}
