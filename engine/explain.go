package engine

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Explanation answers a player's "why am I still waiting?": which rules keep
// the other waiting tickets out of this ticket's match, how many each
// removes, the nearest example of each, and when the next relaxation comes
// and what it lets in. It is computed on demand, with the ticket as anchor at
// its current flex level, exactly as the anchor loop judges it.
type Explanation struct {
	TicketID string `json:"ticket_id"`
	// At is the time the explanation holds for.
	At   time.Time     `json:"at"`
	Wait time.Duration `json:"wait"`
	// Level is the ticket's flex level: relaxation steps passed.
	Level int `json:"level"`
	// Considered counts the other waiting tickets examined (the nearest
	// ExplainLimit on the primary attribute in a large pool).
	Considered int `json:"considered"`
	// Compatible counts those that pass every rule judged between two
	// tickets.
	Compatible int `json:"compatible"`
	// PlayersAvailable counts the players of this ticket and of the
	// compatible ones; PlayersNeeded is a full match at this level and
	// PlayersMinimum the smallest match the flexed alliance allows.
	PlayersAvailable int `json:"players_available"`
	PlayersNeeded    int `json:"players_needed"`
	PlayersMinimum   int `json:"players_minimum"`
	// Self is set when the ticket itself cannot anchor a match yet (its
	// party is larger than a team at this level, it reaches no region
	// within its latency range, a gate refuses a player).
	Self string `json:"self,omitempty"`
	// Blocks lists the rules that removed candidates, most removals first.
	Blocks []Block `json:"blocks,omitempty"`
	// Summary is one sentence for the player.
	Summary string `json:"summary"`
	// NextRelaxation is when this ticket's rules next relax (zero: never)
	// and NextAdds how many more candidates that lets in; Relaxes says what
	// changes.
	NextRelaxation time.Time `json:"next_relaxation,omitzero"`
	NextAdds       int       `json:"next_adds"`
	// NextForms is the size of the match the next relaxation lets start
	// when too few players are available for one now: a flexing alliance
	// (smaller teams or fewer of them) can form a match without letting
	// anyone more in. 0 when it does not.
	NextForms int      `json:"next_forms,omitempty"`
	Relaxes   []string `json:"relaxes,omitempty"`
	// FirstAdmit is the first relaxation that lets at least one more
	// candidate in or a match start, when the next one does not (zero:
	// none in sight); FirstAdmitForms is, like NextForms, the size of the
	// match it lets start.
	FirstAdmit      time.Time `json:"first_admit,omitzero"`
	FirstAdmitAdds  int       `json:"first_admit_adds,omitempty"`
	FirstAdmitForms int       `json:"first_admit_forms,omitempty"`
	// SelfClears is when what Self describes stops holding (zero: not in
	// sight, or nothing to clear).
	SelfClears time.Time `json:"self_clears,omitzero"`
	// Offers are the relaxations the ticket itself may accept to be
	// matched sooner, best first (offers.go).
	Offers []Offer `json:"offers,omitempty"`
}

// Block is one rule's share of the exclusions.
type Block struct {
	// Rule names the rule as the ruleset does ("matching_rule[0] mmr").
	Rule string `json:"rule"`
	// Removed counts the candidates this rule was the first to refuse.
	Removed int `json:"removed"`
	// Nearest describes the closest refused candidate, e.g.
	// "mmr distance 340 > 200 allowed".
	Nearest string `json:"nearest"`
}

// ExplainLimit bounds how many waiting tickets one Explain examines, so the
// answer stays cheap in a pool of millions.
const ExplainLimit = 20000

// explainLookahead bounds how many future relaxations Explain examines to
// find the first that admits someone.
const explainLookahead = 32

// Explain tells why a waiting ticket has no match yet; false when it is not
// in the pool.
func (p *Pool) Explain(id string, now time.Time) (Explanation, bool) {
	a, ok := p.lookupID(id)
	if !ok {
		return Explanation{}, false
	}
	p.flush()
	p.sortOrder()
	ea := &p.entries[a]
	wait := p.waitOf(ea, now)
	lv := p.r.level(wait)
	env := &p.r.envs[lv]
	x := Explanation{
		TicketID: id, At: now, Wait: wait, Level: lv,
		PlayersNeeded:  env.capacity(),
		PlayersMinimum: env.minTeams * env.minPlayers,
	}
	others := p.explainSet(a)
	x.Considered = len(others)
	tally := p.tally(a, env, now, others)
	x.Compatible = tally.compatible
	x.PlayersAvailable = int(ea.size) + tally.players
	x.Self = p.selfText(a, env)
	for k, b := range tally.blocks {
		x.Blocks = append(x.Blocks, Block{Rule: p.ruleName(k), Removed: b.count, Nearest: b.nearest})
	}
	sort.SliceStable(x.Blocks, func(i, j int) bool {
		if x.Blocks[i].Removed != x.Blocks[j].Removed {
			return x.Blocks[i].Removed > x.Blocks[j].Removed
		}
		return x.Blocks[i].Rule < x.Blocks[j].Rule
	})

	// Look ahead: the next relaxation, the first that admits someone or
	// lets a match start, and the first that lets the ticket itself
	// anchor.
	created := time.Unix(0, ea.created).In(now.Location())
	w := wait
	admitted := false
	tooFew := x.PlayersAvailable < x.PlayersMinimum
	// nextTeams is the team layout of the next relaxation, for the
	// summary, when that relaxation forms a match by flexing the alliance.
	nextTeams := ""
	for step := 0; step < explainLookahead; step++ {
		next, ok := p.r.nextStep(w)
		if !ok {
			break
		}
		at := created.Add(next)
		nenv := &p.r.envs[p.r.level(next)]
		selfOK := x.Self == "" || p.selfOK(ea, a, nenv, p.anchorMask(ea, nenv)).kind == rOK
		if x.Self != "" && x.SelfClears.IsZero() && selfOK {
			x.SelfClears = at
		}
		if !admitted {
			later := p.tally(a, nenv, at, others)
			adds := later.compatible - tally.compatible
			// A relaxation may form the match without letting anyone
			// more in: the alliance flexes to smaller or fewer teams
			// and the players already available are enough.
			forms := 0
			if avail := int(ea.size) + later.players; tooFew && selfOK && avail >= nenv.minTeams*nenv.minPlayers {
				forms = min(avail, nenv.capacity())
			}
			if step == 0 {
				x.NextRelaxation, x.NextAdds, x.NextForms = at, adds, forms
				x.Relaxes = p.relaxes(env, nenv)
				if forms > 0 && allianceChanged(env, nenv) {
					nextTeams = fmt.Sprintf("%d-%d of %d-%d players", nenv.minTeams, nenv.maxTeams, nenv.minPlayers, nenv.maxPlayers)
				}
			}
			if adds > 0 || forms > 0 {
				if step > 0 {
					x.FirstAdmit, x.FirstAdmitAdds, x.FirstAdmitForms = at, adds, forms
				}
				admitted = true
			}
		}
		if admitted && (x.Self == "" || !x.SelfClears.IsZero()) {
			break
		}
		w = next
	}
	x.Summary = p.summary(&x, nextTeams)
	x.Offers = p.offers(a, env, now, others, tally)
	return x, true
}

// explainSet picks the tickets Explain examines: all of them in a small pool,
// else the nearest ExplainLimit on the primary attribute (or the oldest).
func (p *Pool) explainSet(a int32) []int32 {
	var out []int32
	if len(p.r.dist) == 0 || p.live <= ExplainLimit {
		for _, s := range p.order {
			if s != a && p.entries[s].alive {
				out = append(out, s)
				if len(out) >= ExplainLimit {
					break
				}
			}
		}
		return out
	}
	key := p.entries[a].key
	down, up := p.idx.around(key, a)
	dk, ds, dok := down.next()
	uk, us, uok := up.next()
	for (dok || uok) && len(out) < ExplainLimit {
		var s int32
		if dok && (!uok || key-dk <= uk-key) {
			s = ds
			dk, ds, dok = down.next()
		} else {
			s = us
			uk, us, uok = up.next()
		}
		if s >= 0 && p.entries[s].alive {
			out = append(out, s)
		}
	}
	return out
}

type blockTally struct {
	count   int
	nearest string
	dist    float64
}

type tallyResult struct {
	compatible, players int
	blocks              map[reason]*blockTally
}

// tally judges every other ticket against the anchor at env and time now.
func (p *Pool) tally(a int32, env *envelope, now time.Time, others []int32) tallyResult {
	ea := &p.entries[a]
	aMask := p.anchorMask(ea, env)
	res := tallyResult{blocks: map[reason]*blockTally{}}
	for _, s := range others {
		_, r := p.pairOK(a, s, env, aMask, now)
		if r.kind == rOK {
			res.compatible++
			res.players += int(p.entries[s].size)
			continue
		}
		d := math.Abs(p.entries[s].key - ea.key)
		b := res.blocks[r]
		if b == nil {
			b = &blockTally{dist: math.Inf(1)}
			res.blocks[r] = b
		}
		b.count++
		if d < b.dist {
			b.dist = d
			b.nearest = p.describe(r, a, s, env, aMask, now)
		}
	}
	return res
}

// ruleName names a rule as the ruleset writes it.
func (p *Pool) ruleName(r reason) string {
	switch r.kind {
	case rParty:
		return "alliance.player_max_number"
	case rDist:
		return fmt.Sprintf("matching_rule[%d] %s", r.i, p.r.dist[r.i].attr)
	case rGate, rEqual:
		c := p.r.comps[r.i]
		return fmt.Sprintf("%s %s", c.path, c.attr)
	case rOption:
		o := p.r.options[r.i]
		return fmt.Sprintf("%s %s", o.path, o.name)
	case rCross:
		return "cross_play"
	case rLatency:
		return "region latency"
	case rColl:
		c := p.r.colls[r.i]
		return fmt.Sprintf("%s %s", c.path, c.attr)
	case rFilter:
		return fmt.Sprintf("filter[%d] %s", r.i, p.r.filters[r.i].Name)
	case rQuery:
		return "ticket_query " + p.r.query.attr
	}
	return "?"
}

// describe renders why candidate s was refused, with numbers.
func (p *Pool) describe(r reason, a, s int32, env *envelope, aMask uint64, now time.Time) string {
	ea, es := &p.entries[a], &p.entries[s]
	switch r.kind {
	case rParty:
		return fmt.Sprintf("party of %d > %d players per team", es.size, env.maxPlayers)
	case rDist:
		d := p.r.dist[r.i]
		diff := math.Abs(p.numsOf(s)[r.i] - p.numsOf(a)[r.i])
		if diff < env.minRef[r.i] {
			return fmt.Sprintf("%s distance %s < %s required", d.attr, num(diff), num(env.minRef[r.i]))
		}
		return fmt.Sprintf("%s distance %s > %s allowed", d.attr, num(diff), num(env.ref[r.i]))
	case rGate:
		c := p.r.comps[r.i]
		return fmt.Sprintf("%s must be %s %s", c.attr, c.op, num(env.compNum[r.i]))
	case rEqual:
		return fmt.Sprintf("%s differs", p.r.comps[r.i].attr)
	case rOption:
		o := p.r.options[r.i]
		switch o.kind {
		case optAny:
			return fmt.Sprintf("%s: no value in common", o.name)
		case optUnique:
			return fmt.Sprintf("%s: same value taken", o.name)
		}
		return fmt.Sprintf("%s: different choice", o.name)
	case rCross:
		return "platforms do not accept each other"
	case rLatency:
		return p.latencyText(ea, es, env, aMask, now)
	case rColl:
		c := p.r.colls[r.i]
		return fmt.Sprintf("%s: %d in common, %d needed", c.attr, countCommon(ea.x.colls[r.i], es.x.colls[r.i]), env.collMin[r.i])
	case rFilter:
		return fmt.Sprintf("filter %s refuses the pair", p.r.filters[r.i].Name)
	case rQuery:
		return p.queryText(r, ea, es)
	}
	return ""
}

// latencyText explains a region refusal in the candidate's nearest region
// among those the anchor offers: "latency 120 ms > 80 ms range in eu-west-1";
// or, when the anchor offers none of the candidate's regions, why not.
func (p *Pool) latencyText(ea, es *entry, env *envelope, aMask uint64, now time.Time) string {
	r := env.latRange
	if env.bidir {
		r = p.r.latRange(p.waitOf(es, now))
	}
	for _, l := range es.x.lats {
		if aMask&(1<<l.region) != 0 {
			return fmt.Sprintf("latency %d ms > %d ms range in %s", l.ms, r, p.regionNames[l.region])
		}
	}
	if len(es.x.lats) > 0 {
		best := es.x.lats[0]
		name := p.regionNames[best.region]
		if own := latencyTo(ea.x.lats, best.region); own >= 0 {
			return fmt.Sprintf("plays in %s (%d ms), where this ticket's %d ms is beyond its %d ms range", name, best.ms, own, env.latRange)
		}
		return fmt.Sprintf("plays in %s (%d ms), which this ticket cannot reach", name, best.ms)
	}
	return "no region in common"
}

// selfText explains what keeps the ticket itself from anchoring a match.
func (p *Pool) selfText(a int32, env *envelope) string {
	ea := &p.entries[a]
	aMask := p.anchorMask(ea, env)
	switch r := p.selfOK(ea, a, env, aMask); r.kind {
	case rParty:
		return fmt.Sprintf("party of %d is larger than a team (%d players) at this wait", ea.size, env.maxPlayers)
	case rGate:
		c := p.r.comps[r.i]
		return fmt.Sprintf("%s must be %s %s at this wait (%s)", c.attr, c.op, num(env.compNum[r.i]), c.path)
	case rLatency:
		best := "none"
		if len(ea.x.lats) > 0 {
			l := ea.x.lats[0]
			best = fmt.Sprintf("%s %d ms", p.regionNames[l.region], l.ms)
		}
		return fmt.Sprintf("no region within the %d ms latency range yet (best: %s)", env.latRange, best)
	}
	return ""
}

// allianceChanged reports whether the team layout differs between two
// envelopes.
func allianceChanged(from, to *envelope) bool {
	return from.minPlayers != to.minPlayers || from.minTeams != to.minTeams || from.maxPlayers != to.maxPlayers || from.maxTeams != to.maxTeams
}

// relaxes lists what changes between two envelopes.
func (p *Pool) relaxes(from, to *envelope) []string {
	var out []string
	if allianceChanged(from, to) {
		out = append(out, fmt.Sprintf("teams %d-%d of %d-%d players → %d-%d of %d-%d",
			from.minTeams, from.maxTeams, from.minPlayers, from.maxPlayers, to.minTeams, to.maxTeams, to.minPlayers, to.maxPlayers))
	}
	for i, d := range p.r.dist {
		if from.ref[i] != to.ref[i] {
			out = append(out, fmt.Sprintf("%s distance %s → %s", d.attr, num(from.ref[i]), num(to.ref[i])))
		}
		if from.minRef[i] != to.minRef[i] {
			out = append(out, fmt.Sprintf("%s min distance %s → %s", d.attr, num(from.minRef[i]), num(to.minRef[i])))
		}
	}
	if p.r.lat != nil && from.latRange != to.latRange {
		out = append(out, fmt.Sprintf("latency range %d → %d ms", from.latRange, to.latRange))
	}
	if from.bidir != to.bidir {
		out = append(out, "candidates no longer need to have expanded to the region themselves")
	}
	for i, c := range p.r.comps {
		if from.compNum[i] != to.compNum[i] {
			out = append(out, fmt.Sprintf("%s %s %s → %s", c.attr, c.op, num(from.compNum[i]), num(to.compNum[i])))
		}
	}
	for i, c := range p.r.colls {
		if from.collMin[i] != to.collMin[i] {
			out = append(out, fmt.Sprintf("%s in common %d → %d", c.attr, from.collMin[i], to.collMin[i]))
		}
	}
	for i, t := range p.r.teams {
		if from.teamDiff[i] != to.teamDiff[i] {
			out = append(out, fmt.Sprintf("team %s %s difference %s → %s", t.Aggregate, t.Attribute, num(from.teamDiff[i]), num(to.teamDiff[i])))
		}
	}
	for i, t := range p.r.totals {
		if from.totalMin[i] != to.totalMin[i] || from.totalMax[i] != to.totalMax[i] {
			out = append(out, fmt.Sprintf("match %s %s bounds [%s, %s] → [%s, %s]", t.Aggregate, t.Attribute,
				num(from.totalMin[i]), num(from.totalMax[i]), num(to.totalMin[i]), num(to.totalMax[i])))
		}
	}
	for i := range from.roleMin {
		if from.roleMin[i] != to.roleMin[i] {
			out = append(out, fmt.Sprintf("role %s minimum %d → %d", p.r.roles.names[i], from.roleMin[i], to.roleMin[i]))
		}
	}
	for i, f := range p.r.filters {
		if from.filterOn[i] && !to.filterOn[i] {
			out = append(out, fmt.Sprintf("filter %s switches off", f.Name))
		}
	}
	return out
}

func (p *Pool) summary(x *Explanation, nextTeams string) string {
	var b strings.Builder
	in := func(t time.Time) string { return t.Sub(x.At).Round(time.Millisecond).String() }
	switch {
	case x.Self != "":
		b.WriteString(x.Self)
		if !x.SelfClears.IsZero() {
			fmt.Fprintf(&b, " (until %s from now)", in(x.SelfClears))
		}
	case x.PlayersAvailable < x.PlayersMinimum || (x.PlayersMinimum == x.PlayersNeeded && x.PlayersAvailable < x.PlayersNeeded):
		need := x.PlayersMinimum
		fmt.Fprintf(&b, "only %d of %d players available", x.PlayersAvailable, need)
		if len(x.Blocks) > 0 {
			fmt.Fprintf(&b, "; %s keeps out %d (nearest: %s)", x.Blocks[0].Rule, x.Blocks[0].Removed, x.Blocks[0].Nearest)
		}
	default:
		fmt.Fprintf(&b, "%d compatible players, but no split into teams satisfies the team rules yet", x.PlayersAvailable)
		if p.r.roles != nil {
			b.WriteString(" (role quotas)")
		}
	}
	switch {
	case !x.NextRelaxation.IsZero() && x.NextForms > 0 && x.NextAdds == 0 && nextTeams != "":
		fmt.Fprintf(&b, "; in %s the teams relax to %s and a match of %d players can start", in(x.NextRelaxation), nextTeams, x.NextForms)
	case !x.NextRelaxation.IsZero() && x.NextForms > 0 && x.NextAdds == 0:
		fmt.Fprintf(&b, "; in %s the rules relax and a match of %d players can start", in(x.NextRelaxation), x.NextForms)
	case !x.NextRelaxation.IsZero() && x.NextForms > 0:
		fmt.Fprintf(&b, "; in %s the rules relax, let %d more in, and a match of %d players can start", in(x.NextRelaxation), x.NextAdds, x.NextForms)
	case !x.NextRelaxation.IsZero() && x.NextAdds > 0:
		fmt.Fprintf(&b, "; in %s the rules relax and let %d more in", in(x.NextRelaxation), x.NextAdds)
	case !x.FirstAdmit.IsZero() && x.FirstAdmitForms > 0 && x.FirstAdmitAdds == 0:
		fmt.Fprintf(&b, "; in %s the rules relax enough for a match of %d players to start", in(x.FirstAdmit), x.FirstAdmitForms)
	case !x.FirstAdmit.IsZero() && x.FirstAdmitForms > 0:
		fmt.Fprintf(&b, "; in %s the rules relax enough to let %d more in and a match of %d players to start", in(x.FirstAdmit), x.FirstAdmitAdds, x.FirstAdmitForms)
	case !x.FirstAdmit.IsZero():
		fmt.Fprintf(&b, "; in %s the rules relax enough to let %d more in", in(x.FirstAdmit), x.FirstAdmitAdds)
	case !x.NextRelaxation.IsZero():
		fmt.Fprintf(&b, "; the rules relax next in %s (nobody waiting now would fit then either)", in(x.NextRelaxation))
	default:
		b.WriteString("; the rules will not relax further: waiting for new players")
	}
	return b.String()
}

// num formats a number compactly for messages.
func num(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "∞"
	case math.IsInf(f, -1):
		return "-∞"
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.4g", f)
}
