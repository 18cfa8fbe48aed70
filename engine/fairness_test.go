package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

// Fairness: the oldest waiting ticket anchors and is compared with the others
// from the next oldest on (Pragma's matchmaking design), so a ticket that
// could be matched is never left waiting while a younger one takes its place.

// TestOlderCandidatePreferred: A can take B (older) or C1 (younger, nearer);
// only one can join, so B must.
func TestOlderCandidatePreferred(t *testing.T) {
	p := newPool(t, flexDuel)
	ticket("A", 0).num("mmr", 1000).add(t, p)  // waited 20 s: 400 allowed
	ticket("B", 12).num("mmr", 1300).add(t, p) // waited 8 s: 100 allowed
	ticket("C1", 19).num("mmr", 1000).add(t, p)
	ticket("C2", 19.5).num("mmr", 1000).add(t, p)
	got := matchIDs(p.Step(at(20)))
	slices.Sort(got)
	if want := []string{"A|B", "C1|C2"}; !slices.Equal(got, want) {
		t.Fatalf("matches %v, want %v", got, want)
	}
}

// TestOldTicketNotStarvedByArrivals: B can only be matched by an older, more
// relaxed anchor. Each second one old ticket A_i relaxes far enough to reach
// B, and two tickets arrive that A_i reaches too and likes better by skill: X
// (which B also accepts) and Y (which B never reaches). Preferring the
// nearest would hand every A_i an arrival and leave B waiting pass after
// pass, and for good once the A_i are gone.
func TestOldTicketNotStarvedByArrivals(t *testing.T) {
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}],
		"flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 200}],
		"match_options": {"options": [{"name": "map", "type": "any"}]}}`)
	all := []string{"x"}
	for i := 1; i <= 8; i++ {
		all = append(all, fmt.Sprintf("m%d", i))
	}
	for i := 1; i <= 8; i++ {
		// A_i reaches 200 (and B) at t = i; the A_i share no map.
		ticket(fmt.Sprintf("A%d", i), float64(i-10)).num("mmr", 1150).opt("map", fmt.Sprintf("m%d", i)).add(t, p)
	}
	ticket("B", -1).num("mmr", 1300).opt("map", all...).add(t, p)
	p.Step(at(0))
	matchedAt := -1
	for i := 1; i <= 12; i++ {
		if i <= 8 {
			ticket(fmt.Sprintf("X%d", i), float64(i)).num("mmr", 1200).opt("map", all...).add(t, p)
			ticket(fmt.Sprintf("Y%d", i), float64(i)).num("mmr", 1050).opt("map", fmt.Sprintf("m%d", i)).add(t, p)
		}
		for _, pr := range p.Step(at(float64(i))) {
			for _, tk := range pr.Tickets() {
				if tk.ID == "B" && matchedAt < 0 {
					matchedAt = i
				}
			}
		}
	}
	if matchedAt != 1 {
		t.Fatalf("B matched at t=%d s, want 1 (the first pass in which an anchor could take it); still waiting: %v", matchedAt, ids(p.Tickets()))
	}
}

// passedOver finds a waiting ticket B and a match formed in this Step that
// B could have joined in place of a younger member of the same party size,
// judged by the oracle at the match anchor's level.
func passedOver(o oracle, props []Proposal, waiting []*cupid.Ticket, now time.Time) string {
	for _, b := range waiting {
		for _, pr := range props {
			var anchor *cupid.Ticket
			for _, tk := range pr.Tickets() {
				if tk.ID == pr.AnchorID {
					anchor = tk
				}
			}
			for k, c := range pr.Tickets() {
				if c == anchor || len(c.Players) != len(b.Players) || !b.CreatedAt.Before(c.CreatedAt) {
					continue
				}
				set := slices.Clone(pr.Tickets())
				set[k] = b
				if o.validWith(anchor, set, now) {
					return fmt.Sprintf("%s (created %v) waits while younger %s (created %v) is in match %s anchored by %s",
						b.ID, b.CreatedAt.Sub(t0), c.ID, c.CreatedAt.Sub(t0), ids(pr.Tickets()), anchor.ID)
				}
			}
		}
	}
	return ""
}

// TestRestartBatchPrefersOlderTickets: tickets reloaded in one batch with
// their original, varied creation times; after the pass no waiting ticket
// could have taken a younger one's place.
func TestRestartBatchPrefersOlderTickets(t *testing.T) {
	rules := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 60}],
		"flexing_rule": [{"duration": 20, "attribute": "mmr", "criteria": "distance", "reference": 150},
			{"duration": 60, "attribute": "mmr", "criteria": "distance", "reference": 300}]}`
	c := load(t, rules)
	o := oracle{c}
	bad := 0
	for seed := range 40 {
		rng := rand.New(rand.NewPCG(uint64(seed), 5))
		p, _ := New(testKey, c, Options{})
		now := at(600)
		for i := range 60 {
			// Waited between 0 and 90 s, skills spread wide, so some
			// tickets are left over.
			ticket(fmt.Sprintf("t%02d", i), 510+rng.Float64()*90).num("mmr", 1500+rng.NormFloat64()*500).add(t, p)
		}
		props := p.Step(now)
		for _, pr := range props {
			checkProposalOracle(t, o, pr, now)
		}
		if why := passedOver(o, props, p.Tickets(), now); why != "" {
			t.Errorf("seed %d: %s", seed, why)
			bad++
		}
	}
	if bad > 0 {
		t.Logf("%d of 40 batches passed an older ticket over", bad)
	}
}

// TestNoTicketPassedOver runs the brute-force families: after every Step, no
// waiting ticket could have replaced a younger member of a match formed in
// that Step.
func TestNoTicketPassedOver(t *testing.T) {
	seeds := 30
	if testing.Short() {
		seeds = 8
	}
	for _, f := range oracleFamilies {
		for seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed%d", f.name, seed), func(t *testing.T) {
				oracleRun(t, f, seed, func(o oracle, p *Pool, props []Proposal, waiting []*cupid.Ticket, now time.Time) {
					if why := passedOver(o, props, waiting, now); why != "" {
						t.Errorf("after Step at %v: %s", now.Sub(t0), why)
					}
				})
			})
		}
	}
}

// TestStepIsDeterministic: the same tickets added in the same order give the
// same proposals, whatever the maps inside the tickets (latencies) iterate
// like, and whichever pool replays them.
func TestStepIsDeterministic(t *testing.T) {
	for fi, f := range oracleFamilies {
		run := func() []string {
			rng := rand.New(rand.NewPCG(9, uint64(fi)))
			c := load(t, fmt.Sprintf(f.rules, 120))
			p, _ := New(testKey, c, Options{})
			var out []string
			now := t0.Add(time.Minute)
			for round := range 30 {
				for k := range 8 {
					tk := oracleTicket(rng, fmt.Sprintf("r%02dk%d", round, k), now.Add(-time.Duration(rng.IntN(30_000))*time.Millisecond), f.party)
					// Regions by the dozen, so that Go's map order
					// differs between runs.
					for r := range 12 {
						tk.Latencies[fmt.Sprintf("r%02d", r)] = int32(20 + rng.IntN(100))
					}
					if p.Check(tk) == nil {
						_ = p.Add(tk)
					}
				}
				now = now.Add(time.Duration(rng.IntN(5000)) * time.Millisecond)
				for _, pr := range p.Step(now) {
					out = append(out, fmt.Sprintf("%s@%s:%s:%.6f", ids(pr.Tickets()), pr.Region, pr.AnchorID, pr.Quality.Score))
				}
			}
			return out
		}
		first := run()
		for range 5 {
			if again := run(); !slices.Equal(first, again) {
				t.Fatalf("%s: two runs differ:\n%v\n%v", f.name, first, again)
			}
		}
	}
}

// TestPassedOverTicketNotTriedThisStep: B is not tried in this Step (nothing
// new in its window), but the anchor that is could take it instead of a
// younger arrival.
func TestPassedOverTicketNotTriedThisStep(t *testing.T) {
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}],
		"flexing_rule": [{"duration": 20, "attribute": "mmr", "criteria": "distance", "reference": 200}]}`)
	ticket("A", 0).num("mmr", 1000).add(t, p)
	ticket("B", 12).num("mmr", 1190).add(t, p)
	if got := p.Step(at(12)); len(got) != 0 {
		t.Fatalf("190 apart, 100 allowed: %v", matchIDs(got))
	}
	// At 20 s A reaches 200 and two tickets arrive near it, out of B's
	// reach: only A is tried among the old ones.
	ticket("C1", 20).num("mmr", 990).add(t, p)
	ticket("C2", 20).num("mmr", 990).add(t, p)
	got := matchIDs(p.Step(at(20)))
	slices.Sort(got)
	if want := []string{"A|B", "C1|C2"}; !slices.Equal(got, want) {
		t.Fatalf("matches %v, want %v", got, want)
	}
}

// TestUnstaffablePartyIsPassedBy: a party whose two players only tank can
// never play under "one tank a team"; the others match without it.
func TestUnstaffablePartyIsPassedBy(t *testing.T) {
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
		"roles": {"quotas": [{"name": "tank", "min": 1, "max": 1}, {"name": "dps", "min": 1, "max": 1}]}}`)
	// Check refuses the party at create; were it in the pool (a ruleset
	// replaced under it), the Step must still pass it by.
	tanks := ticket("tanks", 0).party(2).str("role", "tank")
	if err := p.Add(tanks.t); err == nil {
		t.Fatal("Add took a party that could never be staffed")
	}
	p.insert(tanks.t)
	ticket("t1", 1).str("role", "tank").add(t, p)
	ticket("d1", 2).str("role", "dps").add(t, p)
	ticket("t2", 3).str("role", "tank").add(t, p)
	ticket("d2", 4).str("role", "dps").add(t, p)
	got := matchIDs(p.Step(at(5)))
	if len(got) != 1 || strings.Contains(got[0], "tanks") || p.Len() != 1 {
		t.Fatalf("matches %v, %d waiting", got, p.Len())
	}
}
