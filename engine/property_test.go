package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Property tests: random ticket streams (seeded) through random rulesets,
// with every proposal re-checked by an oracle that reads the compiled
// ruleset directly (not the engine's tables).

// propRules are ruleset templates; %d slots take random numbers.
var propRules = []string{
	// Duel with mmr flexing.
	`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
	  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": %d, "max": 3000}],
	  "flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 400}]}`,
	// Teams of up to 3 with parties, flexing down to 2, maps, regions.
	`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 3, "player_max_number": 3},
	  "alliance_flexing_rule": [{"duration": 20, "player_min_number": 2}],
	  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": %d, "max": 3000, "is_for_balancing": true}],
	  "flexing_rule": [{"duration": 15, "attribute": "mmr", "criteria": "distance", "reference": 600}],
	  "match_options": {"options": [{"name": "map", "type": "any"}]},
	  "region_latency_initial_range_ms": 40, "region_expansion_range_ms": 40, "region_expansion_rate_ms": 5000,
	  "region_latency_max_ms": 160}`,
	// Teams of 4 with roles, spread, and a team rule.
	`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 4, "player_max_number": 4},
	  "matching_rule": [{"attribute": "mmr", "criteria": "spread", "reference": %d, "max": 3000}],
	  "flexing_rule": [{"duration": 30, "attribute": "mmr", "criteria": "spread", "reference": 1500}],
	  "roles": {"quotas": [{"name": "tank", "min": 1, "max": 1}, {"name": "dps", "max": 3}]},
	  "team_rule": [{"attribute": "mmr", "aggregate": "avg", "max_difference": 150, "flexing": [{"duration": 40, "value": 3000}]}]}`,
	// Free for all of 3 to 6, comparison gate and cross-play.
	`{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 6},
	  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": %d}],
	  "comparison_rule": [{"attribute": "level", "operator": ">=", "value": 5, "flexing": [{"duration": 25, "value": 1}]}],
	  "cross_play": {}}`,
}

func randomTicket(rng *rand.Rand, id string, at time.Time, maxParty int) *cupid.Ticket {
	size := 1
	if maxParty > 1 && rng.IntN(3) == 0 {
		size = 1 + rng.IntN(maxParty)
	}
	base := 1500 + rng.NormFloat64()*300
	t := &cupid.Ticket{ID: id, Key: testKey, CreatedAt: at, State: cupid.StateWaiting,
		Attributes: cupid.NewAttributes(map[string]cupid.Value{"map": cupid.Strings([]string{"a", "b", "c"}[:1+rng.IntN(3)]...)})}
	platforms := []string{"pc", "ps5", "xbox"}
	plat := platforms[rng.IntN(3)]
	accept := []string{plat}
	if rng.IntN(2) == 0 {
		accept = platforms
	}
	for k := 0; k < size; k++ {
		role := []string{"tank", "dps", "dps"}[rng.IntN(3)]
		t.Players = append(t.Players, cupid.Player{ID: fmt.Sprintf("%s.%d", id, k), Attributes: cupid.NewAttributes(map[string]cupid.Value{
			"mmr":              cupid.Number(base + rng.NormFloat64()*50),
			"level":            cupid.Number(float64(1 + rng.IntN(10))),
			"role":             cupid.String(role),
			"current_platform": cupid.String(plat),
			"cross_platform":   cupid.Strings(accept...),
		})})
	}
	t.Latencies = map[string]int32{"eu": int32(10 + rng.IntN(150)), "us": int32(10 + rng.IntN(150))}
	return t
}

func TestPropertyRandomStreams(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	for seed := 0; seed < seeds; seed++ {
		for ri, tmpl := range propRules {
			t.Run(fmt.Sprintf("rules%d/seed%d", ri, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(seed), uint64(ri)))
				src := fmt.Sprintf(tmpl, 50+rng.IntN(200))
				c := load(t, src)
				p, err := New(testKey, c, Options{})
				if err != nil {
					t.Fatal(err)
				}
				propertyRun(t, rng, p, c)
			})
		}
	}
}

func propertyRun(t *testing.T, rng *rand.Rand, p *Pool, c *ruleset.Compiled) {
	maxParty := c.AllianceAt(0).PlayerMaxNumber
	matched := map[string]bool{}
	waiting := map[string]*cupid.Ticket{}
	now := t0
	n := 0
	for round := 0; round < 400; round++ {
		// Arrivals, a cancellation now and then, or just time passing
		// until the engine's next wake-up.
		switch r := rng.IntN(10); {
		case r < 6:
			now = now.Add(time.Duration(rng.IntN(1500)) * time.Millisecond)
			tk := randomTicket(rng, fmt.Sprintf("t%d", n), now.Add(-time.Duration(rng.IntN(3000))*time.Millisecond), maxParty)
			n++
			if err := p.Check(tk); err != nil {
				continue
			}
			if err := p.Add(tk); err != nil {
				t.Fatal(err)
			}
			waiting[tk.ID] = tk
		case r < 7 && len(waiting) > 0:
			ids := make([]string, 0, len(waiting))
			for id := range waiting {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			id := ids[rng.IntN(len(ids))]
			if !p.Remove(id) {
				t.Fatalf("remove %s: not waiting", id)
			}
			delete(waiting, id)
		default:
			if w, ok := p.NextWake(now); ok {
				if w.Before(now) {
					t.Fatalf("NextWake %v before now %v", w, now)
				}
				now = w
			} else {
				now = now.Add(5 * time.Second)
			}
		}
		props := p.Step(now)
		for i, pr := range props {
			checkProposal(t, c, pr, now, waiting)
			// Now and then the server fails to commit and returns
			// the tickets; otherwise they are matched for good.
			if rng.IntN(8) == 0 {
				p.Return(pr.Tickets())
				continue
			}
			for _, tk := range pr.Tickets() {
				if matched[tk.ID] {
					t.Fatalf("ticket %s matched twice", tk.ID)
				}
				matched[tk.ID] = true
				delete(waiting, tk.ID)
			}
			_ = i
		}
		if p.Len() != len(waiting) {
			t.Fatalf("pool holds %d tickets, %d expected", p.Len(), len(waiting))
		}
		for id := range waiting {
			if _, ok := p.lookupID(id); !ok {
				t.Fatalf("%s should be waiting", id)
			}
		}
	}
	if len(matched) == 0 {
		t.Fatal("no match at all: the stream or the rules are broken")
	}
	t.Logf("%d tickets, %d matched, %d waiting", n, len(matched), len(waiting))
}

// checkProposal re-checks every hard rule of a proposal at the anchor's flex
// level, reading the compiled ruleset directly.
func checkProposal(t *testing.T, c *ruleset.Compiled, pr Proposal, now time.Time, waiting map[string]*cupid.Ticket) {
	t.Helper()
	byID := map[string]*cupid.Ticket{}
	for _, tk := range pr.Tickets() {
		if waiting[tk.ID] == nil {
			t.Fatalf("proposal holds %s, which was not waiting", tk.ID)
		}
		byID[tk.ID] = tk
	}
	anchor := byID[pr.AnchorID]
	if anchor == nil {
		t.Fatalf("anchor %s not in the match", pr.AnchorID)
	}
	aw := anchor.Wait(now)
	al := c.AllianceAt(aw)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("match %v at anchor wait %v: %s", matchIDs([]Proposal{pr}), aw, fmt.Sprintf(format, args...))
	}
	// Alliance and parties.
	teams := pr.Match().Teams
	if len(teams) < al.MinNumber || len(teams) > al.MaxNumber {
		fail("%d teams, alliance %d-%d", len(teams), al.MinNumber, al.MaxNumber)
	}
	seen := map[string]bool{}
	for _, tm := range teams {
		players := 0
		for _, id := range tm.TicketIDs {
			tk := byID[id]
			if tk == nil || seen[id] {
				fail("ticket %s missing or on two teams", id)
			}
			seen[id] = true
			for _, pl := range tk.Players {
				if !slices.Contains(tm.PlayerIDs, pl.ID) {
					fail("party %s split: %s not on its team", id, pl.ID)
				}
			}
			players += len(tk.Players)
		}
		if players != len(tm.PlayerIDs) || players < al.PlayerMinNumber || players > al.PlayerMaxNumber {
			fail("team of %d players, alliance %d-%d", players, al.PlayerMinNumber, al.PlayerMaxNumber)
		}
	}
	if len(seen) != len(pr.Tickets()) {
		fail("teams hold %d tickets, proposal %d", len(seen), len(pr.Tickets()))
	}
	avg := func(tk *cupid.Ticket, attr string) float64 {
		s := 0.0
		for _, pl := range tk.Players {
			s += attrOf(pl.Attributes, attr).Number
		}
		return s / float64(len(tk.Players))
	}
	// Distance and spread.
	for i, m := range c.Matching {
		ref := c.ReferenceAt(i, aw)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, tk := range pr.Tickets() {
			v := avg(tk, m.Attribute)
			lo, hi = min(lo, v), max(hi, v)
			if d := math.Abs(v - avg(anchor, m.Attribute)); d > ref+1e-9 {
				fail("%s distance %v > %v", m.Attribute, d, ref)
			}
		}
		if m.Criteria == ruleset.CriteriaSpread && hi-lo > ref+1e-9 {
			fail("%s spread %v > %v", m.Attribute, hi-lo, ref)
		}
	}
	// Options (any: one value shared by all).
	for _, o := range c.Options {
		if o.Type != ruleset.OptionAny {
			continue
		}
		common := []string{"a", "b", "c"}
		for _, tk := range pr.Tickets() {
			common = intersectStrings(common, attrOf(tk.Attributes, o.Name).Strings)
		}
		if len(common) == 0 {
			fail("option %s: no value shared by all", o.Name)
		}
	}
	// Region: every ticket reaches it within its own range (bidirectional)
	// or the anchor's.
	if c.Latency.Enabled {
		if pr.Region == "" {
			fail("no region")
		}
		for _, tk := range pr.Tickets() {
			w := tk.Wait(now)
			if !c.Latency.Bidirectional(aw) {
				w = aw
			}
			ms, ok := tk.Latencies[pr.Region]
			if !ok || int(ms) > c.LatencyRangeAt(w) {
				fail("%s: latency %d to %s above range %d", tk.ID, ms, pr.Region, c.LatencyRangeAt(w))
			}
		}
	}
	// Roles: quotas per team.
	if c.Roles != nil {
		for _, tm := range teams {
			count := map[string]int{}
			for _, pid := range tm.PlayerIDs {
				count[pr.Roles[pid]]++
			}
			for _, q := range c.Roles.Quotas {
				if count[q.Name] < int(q.Min.At(aw)) || (q.Max >= 0 && count[q.Name] > q.Max) {
					fail("role %s: %d on a team", q.Name, count[q.Name])
				}
			}
		}
		for id, tk := range byID {
			for _, pl := range tk.Players {
				if pr.Roles[pl.ID] != attrOf(pl.Attributes, "role").String {
					fail("%s plays %q, wants %q", id, pr.Roles[pl.ID], attrOf(pl.Attributes, "role").String)
				}
			}
		}
	}
	// Team rule: average difference.
	for i, tr := range c.Teams {
		hiAvg, loAvg := math.Inf(-1), math.Inf(1)
		for _, tm := range teams {
			s, n := 0.0, 0
			for _, id := range tm.TicketIDs {
				for _, pl := range byID[id].Players {
					s += attrOf(pl.Attributes, tr.Attribute).Number
					n++
				}
			}
			hiAvg, loAvg = max(hiAvg, s/float64(n)), min(loAvg, s/float64(n))
		}
		if hiAvg-loAvg > c.Teams[i].MaxDifference.At(aw)+1e-9 {
			fail("team %s difference %v", tr.Attribute, hiAvg-loAvg)
		}
	}
	// Gates and cross-play.
	for _, cmp := range c.Comparisons {
		if cmp.Threshold == nil {
			continue
		}
		for _, tk := range pr.Tickets() {
			for _, pl := range tk.Players {
				if !cmp.Holds(attrOf(pl.Attributes, cmp.Attribute).Number, aw) {
					fail("%s fails %s %s", pl.ID, cmp.Attribute, cmp.Operator)
				}
			}
		}
	}
	if c.CrossPlay != nil {
		for _, a := range pr.Tickets() {
			for _, b := range pr.Tickets() {
				for _, pa := range a.Players {
					for _, pb := range b.Players {
						if !slices.Contains(attrOf(pb.Attributes, "cross_platform").Strings, attrOf(pa.Attributes, "current_platform").String) {
							fail("%s's platform not accepted by %s", pa.ID, pb.ID)
						}
					}
				}
			}
		}
	}
	q := pr.Quality
	if q.Score < 0 || q.Score > 1 || math.IsNaN(q.Score) {
		fail("quality %v", q.Score)
	}
	for _, part := range q.Parts {
		if v := part.Score; v < 0 || v > 1 || math.IsNaN(v) {
			fail("quality part %s = %v", part.Name, v)
		}
	}
	// The engine's allocation-free combine must agree with the ruleset's.
	if want := c.Quality.Combine(q.Parts.Map()); q.Score != want {
		fail("score %v, ruleset.Quality.Combine says %v", q.Score, want)
	}
}

// TestRelaxationNeverTightens checks, for every template, that each
// envelope is at least as loose as the one before, and that a frozen pool
// seen from one anchor at later and later times only gains candidates.
func TestRelaxationNeverTightens(t *testing.T) {
	for ri, tmpl := range propRules {
		rng := rand.New(rand.NewPCG(99, uint64(ri)))
		c := load(t, fmt.Sprintf(tmpl, 100))
		p, err := New(testKey, c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := p.r
		for lv := 1; lv < len(r.envs); lv++ {
			a, b := &r.envs[lv-1], &r.envs[lv]
			if b.minTeams > a.minTeams || b.minPlayers > a.minPlayers || b.maxTeams < a.maxTeams || b.maxPlayers < a.maxPlayers ||
				b.latRange < a.latRange || (b.bidir && !a.bidir) {
				t.Fatalf("rules%d: level %d tighter than %d", ri, lv, lv-1)
			}
			for i := range a.ref {
				if b.ref[i] < a.ref[i] {
					t.Fatalf("rules%d: reference shrinks at level %d", ri, lv)
				}
			}
		}
		var ids []string
		for i := 0; i < 200; i++ {
			tk := randomTicket(rng, fmt.Sprintf("r%d", i), t0.Add(time.Duration(rng.IntN(60000))*time.Millisecond), c.AllianceAt(0).PlayerMaxNumber)
			if p.Check(tk) == nil {
				_ = p.Add(tk)
				ids = append(ids, tk.ID)
			}
		}
		p.flush()
		p.sortOrder()
		for _, id := range ids[:20] {
			a, _ := p.lookupID(id)
			others := p.explainSet(a)
			prev := -1
			for sec := 60; sec <= 200; sec += 5 {
				now := t0.Add(time.Duration(sec) * time.Second)
				env := &r.envs[r.level(p.waitOf(&p.entries[a], now))]
				got := p.tally(a, env, now, others).compatible
				if got < prev {
					t.Fatalf("rules%d, %s: %d candidates at %ds, %d before", ri, id, got, sec, prev)
				}
				prev = got
			}
		}
	}
}
