package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// oracle judges tickets against a compiled ruleset directly, without the
// engine's tables, for the brute-force property tests (strand_test.go,
// fairness_test.go). It knows the rules those tests use: distance and
// spread, match options, numeric gates, comparisons between tickets,
// cross-play, region latency and fixed alliances (no alliance flexing, no
// team-level rules). As in the engine, a match is judged at the flex level
// of its anchor, and it is valid when some member can anchor it.
type oracle struct{ c *ruleset.Compiled }

// avg is a party's average of a numeric attribute.
func (o oracle) avg(t *cupid.Ticket, attr string) float64 {
	s := 0.0
	for i := range t.Players {
		v, _ := lookup(t.Attributes, &t.Players[i], attr)
		s += v.Number
	}
	return s / float64(len(t.Players))
}

func (o oracle) strs(t *cupid.Ticket, p *cupid.Player, attr string) ([]string, bool) {
	v, ok := lookup(t.Attributes, p, attr)
	if !ok {
		return nil, false
	}
	if v.Kind == cupid.KindString {
		return []string{v.String}, true
	}
	return v.Strings, true
}

// latOK reports whether t accepts region r with a latency range of rng.
func latOK(t *cupid.Ticket, r string, rng, maxMs int) bool {
	ms, ok := t.Latencies[r]
	return ok && int(ms) <= rng && int(ms) <= maxMs
}

// selfOK: the anchor alone at its own wait.
func (o oracle) selfOK(a *cupid.Ticket, now time.Time) bool {
	w := a.Wait(now)
	if len(a.Players) > o.c.AllianceAt(w).PlayerMaxNumber {
		return false
	}
	for _, cmp := range o.c.Comparisons {
		if cmp.Threshold == nil {
			continue
		}
		for _, p := range a.Players {
			v, _ := lookup(a.Attributes, &p, cmp.Attribute)
			if !cmp.Holds(v.Number, w) {
				return false
			}
		}
	}
	return true
}

// accepts reports whether b may join a match anchored by a: every rule
// judged between two tickets, at a's wait.
func (o oracle) accepts(a, b *cupid.Ticket, now time.Time) bool {
	c := o.c
	w := a.Wait(now)
	if len(b.Players) > c.AllianceAt(w).PlayerMaxNumber {
		return false
	}
	for i, m := range c.Matching {
		if math.Abs(o.avg(a, m.Attribute)-o.avg(b, m.Attribute)) > c.ReferenceAt(i, w) {
			return false
		}
	}
	for _, cmp := range c.Comparisons {
		if cmp.Threshold != nil {
			for _, p := range b.Players {
				v, _ := lookup(b.Attributes, &p, cmp.Attribute)
				if !cmp.Holds(v.Number, w) {
					return false
				}
			}
			continue
		}
		va, _ := lookup(a.Attributes, &a.Players[0], cmp.Attribute)
		vb, _ := lookup(b.Attributes, &b.Players[0], cmp.Attribute)
		if cmp.Operator == ruleset.OpEqual && va.String != vb.String {
			return false
		}
	}
	for _, opt := range c.Options {
		sa, oka := o.strs(a, &a.Players[0], opt.Name)
		sb, okb := o.strs(b, &b.Players[0], opt.Name)
		switch opt.Type {
		case ruleset.OptionAll:
			if oka != okb || strings.Join(sortedSet(sa), "\x00") != strings.Join(sortedSet(sb), "\x00") {
				return false
			}
		case ruleset.OptionAny:
			if len(common(sa, sb)) == 0 {
				return false
			}
		case ruleset.OptionUnique:
			if len(common(sa, sb)) > 0 {
				return false
			}
		}
	}
	if cp := c.CrossPlay; cp != nil && !(o.platformOK(a, b, cp) && o.platformOK(b, a, cp)) {
		return false
	}
	if c.Latency.Enabled {
		return o.regions(a, []*cupid.Ticket{b}, now) != nil
	}
	return true
}

// platformOK: every player of x accepts every player of y's platform.
func (o oracle) platformOK(x, y *cupid.Ticket, cp *ruleset.CrossPlayKeys) bool {
	for _, px := range x.Players {
		cur, _ := lookup(x.Attributes, &px, cp.Current)
		acc, ok := o.strs(x, &px, cp.Accepted)
		if !ok {
			acc = []string{cur.String}
		}
		for _, py := range y.Players {
			v, _ := lookup(y.Attributes, &py, cp.Current)
			if !slices.Contains(acc, v.String) {
				return false
			}
		}
	}
	return true
}

// regions lists the regions a match of anchor a and others could be hosted
// in: within a's range at its wait, and within each other's own range while
// the check is bidirectional (else a's).
func (o oracle) regions(a *cupid.Ticket, others []*cupid.Ticket, now time.Time) []string {
	l := o.c.Latency
	w := a.Wait(now)
	var out []string
	for r := range a.Latencies {
		if !latOK(a, r, l.RangeAt(w), l.MaxMs) {
			continue
		}
		ok := true
		for _, b := range others {
			rng := l.RangeAt(w)
			if l.Bidirectional(w) {
				rng = l.RangeAt(b.Wait(now))
			}
			ok = ok && latOK(b, r, rng, l.MaxMs)
		}
		if ok {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// validWith reports whether the tickets make a full match anchored by a
// (a is one of them).
func (o oracle) validWith(a *cupid.Ticket, set []*cupid.Ticket, now time.Time) bool {
	c := o.c
	w := a.Wait(now)
	al := c.AllianceAt(w)
	sizes := make([]int, 0, len(set))
	others := make([]*cupid.Ticket, 0, len(set))
	for _, t := range set {
		sizes = append(sizes, len(t.Players))
		if t != a {
			others = append(others, t)
		}
	}
	if !o.selfOK(a, now) || !packs(sizes, al.MaxNumber, al.PlayerMaxNumber) {
		return false
	}
	for _, b := range others {
		if !o.accepts(a, b, now) {
			return false
		}
	}
	for i, m := range c.Matching {
		if m.Criteria != ruleset.CriteriaSpread {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, t := range set {
			v := o.avg(t, m.Attribute)
			lo, hi = min(lo, v), max(hi, v)
		}
		if hi-lo > c.ReferenceAt(i, w) {
			return false
		}
	}
	for _, opt := range c.Options {
		if opt.Type == ruleset.OptionAll {
			continue // pairwise with the anchor is transitive
		}
		var shared []string
		for k, t := range set {
			vals, _ := o.strs(t, &t.Players[0], opt.Name)
			switch {
			case opt.Type == ruleset.OptionUnique:
				for _, u := range set[k+1:] {
					vu, _ := o.strs(u, &u.Players[0], opt.Name)
					if len(common(vals, vu)) > 0 {
						return false
					}
				}
			case k == 0:
				shared = vals
			default:
				shared = common(shared, vals)
			}
		}
		if opt.Type == ruleset.OptionAny && len(shared) == 0 {
			return false
		}
	}
	if cp := c.CrossPlay; cp != nil {
		for _, x := range set {
			for _, y := range set {
				if !o.platformOK(x, y, cp) {
					return false
				}
			}
		}
	}
	if c.Latency.Enabled && len(o.regions(a, others, now)) == 0 {
		return false
	}
	return true
}

// valid reports whether some member can anchor the tickets as a full match.
func (o oracle) valid(set []*cupid.Ticket, now time.Time) bool {
	for _, a := range set {
		if o.validWith(a, set, now) {
			return true
		}
	}
	return false
}

// packs reports whether parties of these sizes fill exactly teams teams of
// size players.
func packs(sizes []int, teams, size int) bool {
	total := 0
	for _, s := range sizes {
		total += s
	}
	if total != teams*size {
		return false
	}
	bins := make([]int, teams)
	var place func(i int) bool
	place = func(i int) bool {
		if i == len(sizes) {
			return true
		}
		for t := range bins {
			if bins[t]+sizes[i] <= size {
				bins[t] += sizes[i]
				if place(i + 1) {
					return true
				}
				bins[t] -= sizes[i]
			}
		}
		return false
	}
	return place(0)
}

// anyMatch finds a set of waiting tickets that could make a valid match at
// now, by brute force over subsets whose players fill the alliance.
func (o oracle) anyMatch(waiting []*cupid.Ticket, now time.Time) []*cupid.Ticket {
	al := o.c.AllianceAt(0)
	full := al.MaxNumber * al.PlayerMaxNumber
	var set []*cupid.Ticket
	var found []*cupid.Ticket
	var walk func(i, players int) bool
	walk = func(i, players int) bool {
		if players == full {
			if o.valid(set, now) {
				found = slices.Clone(set)
				return true
			}
			return false
		}
		for j := i; j < len(waiting); j++ {
			if players+len(waiting[j].Players) > full {
				continue
			}
			set = append(set, waiting[j])
			if walk(j+1, players+len(waiting[j].Players)) {
				return true
			}
			set = set[:len(set)-1]
		}
		return false
	}
	walk(0, 0)
	return found
}

func ids(ts []*cupid.Ticket) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.ID)
	}
	return strings.Join(s, "+")
}

// oracleFamily is a ruleset template for the brute-force tests and a maker
// of tickets that exercise it.
type oracleFamily struct {
	name  string
	rules string // %d: a reference drawn per run (or param's number)
	party int    // largest party
	param func(*rand.Rand) int
}

var oracleFamilies = []oracleFamily{
	{name: "duel-distance-mode", rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": %d}],
		"flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 300},
			{"duration": 25, "attribute": "mmr", "criteria": "distance", "reference": 600}],
		"match_options": {"options": [{"name": "mode", "type": "all"}]}}`, party: 1},
	{name: "duel-nodistance-maps-crossplay-gate", rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"match_options": {"options": [{"name": "map", "type": "any"}]},
		"comparison_rule": [{"attribute": "level", "operator": ">=", "value": %d, "flexing": [{"duration": 15, "value": 1}]}],
		"cross_play": {}}`, party: 1, param: func(rng *rand.Rand) int { return 2 + rng.IntN(4) }},
	{name: "duel-latency", rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": %d}],
		"flexing_rule": [{"duration": 20, "attribute": "mmr", "criteria": "distance", "reference": 500}],
		"region_latency_initial_range_ms": 40, "region_expansion_range_ms": 40, "region_expansion_rate_ms": 5000,
		"region_latency_max_ms": 160}`, party: 1},
	{name: "duel-version-side", rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": %d}],
		"flexing_rule": [{"duration": 12, "attribute": "mmr", "criteria": "distance", "reference": 400}],
		"comparison_rule": [{"attribute": "version", "operator": "="}],
		"match_options": {"options": [{"name": "side", "type": "unique"}]}}`, party: 1},
	{name: "2v2-parties-distance-mode", rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": %d}],
		"flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 300},
			{"duration": 30, "attribute": "mmr", "criteria": "distance", "reference": 700}],
		"match_options": {"options": [{"name": "mode", "type": "all"}]}}`, party: 2},
	{name: "2v2-spread-maps", rules: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
		"matching_rule": [{"attribute": "mmr", "criteria": "spread", "reference": %d}],
		"flexing_rule": [{"duration": 15, "attribute": "mmr", "criteria": "spread", "reference": 500}],
		"match_options": {"options": [{"name": "map", "type": "any"}]}}`, party: 1},
}

// oracleTicket makes a random ticket for the families above, created at
// created.
func oracleTicket(rng *rand.Rand, id string, created time.Time, maxParty int) *cupid.Ticket {
	size := 1
	if maxParty > 1 && rng.IntN(3) == 0 {
		size = 2
	}
	t := &cupid.Ticket{ID: id, Key: testKey, CreatedAt: created, State: cupid.StateWaiting}
	t.Attributes.Set("mode", cupid.String([]string{"ranked", "casual"}[rng.IntN(2)]))
	maps := []string{"a", "b", "c"}
	rng.Shuffle(len(maps), func(i, j int) { maps[i], maps[j] = maps[j], maps[i] })
	t.Attributes.Set("map", cupid.Strings(maps[:1+rng.IntN(2)]...))
	t.Attributes.Set("version", cupid.String([]string{"1.0", "1.1"}[rng.IntN(2)]))
	t.Attributes.Set("side", cupid.String([]string{"red", "blue"}[rng.IntN(2)]))
	t.Latencies = map[string]int32{"eu": int32(10 + rng.IntN(140)), "us": int32(10 + rng.IntN(140))}
	plats := []string{"pc", "ps5", "xbox"}
	plat := plats[rng.IntN(3)]
	accept := []string{plat}
	if rng.IntN(2) == 0 {
		accept = plats
	}
	base := 1500 + rng.NormFloat64()*350
	for k := 0; k < size; k++ {
		t.Players = append(t.Players, cupid.Player{ID: fmt.Sprintf("%s.%d", id, k), Attributes: cupid.NewAttributes(map[string]cupid.Value{
			"mmr":              cupid.Number(math.Round(base + rng.NormFloat64()*40)),
			"level":            cupid.Number(float64(1 + rng.IntN(6))),
			"current_platform": cupid.String(plat),
			"cross_platform":   cupid.Strings(accept...),
		})})
	}
	return t
}

// waitingOf returns the tickets still waiting, oldest first.
func waitingOf(p *Pool) []*cupid.Ticket { return p.Tickets() }

// checkProposalOracle checks a proposal against the oracle: its anchor can
// anchor it at the anchor's wait.
func checkProposalOracle(t *testing.T, o oracle, pr Proposal, now time.Time) {
	t.Helper()
	var anchor *cupid.Ticket
	tickets := pr.Tickets() // validWith knows the anchor by pointer
	for _, tk := range tickets {
		if tk.ID == pr.AnchorID {
			anchor = tk
		}
	}
	if anchor == nil || !o.validWith(anchor, tickets, now) {
		t.Fatalf("proposal %s (anchor %s) is not a valid match at %v", ids(tickets), pr.AnchorID, now.Sub(t0))
	}
}

// common lists the values two lists share.
func common(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func sortedSet(vals []string) []string {
	out := slices.Clone(vals)
	slices.Sort(out)
	return slices.Compact(out)
}
