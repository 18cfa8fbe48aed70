package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Stranded tickets: one Step must form every match that can be formed, and a
// ticket left waiting that could match later must have a wake-up.

func TestNoDistancePassFormsEveryMatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rules   string
		players int
	}{
		{"1v1", `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`, 2},
		{"2v2", `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2}}`, 4},
		{"1v1-modes", `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
			"match_options": {"options": [{"name": "mode", "type": "all"}]}}`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, tc.rules)
			const n = 30_000
			lonely := 0
			for i := range n {
				b := ticket(fmt.Sprintf("t%05d", i), float64(i)/1000)
				if tc.name == "1v1-modes" {
					mode := "ranked"
					if i%10 == 3 {
						// A mode nobody else plays: never matches.
						mode = fmt.Sprintf("custom-%d", i)
						lonely++
					}
					b.opt("mode", mode)
				}
				b.add(t, p)
			}
			now := at(60)
			props := p.Step(now)
			want := (n - lonely) / tc.players
			if len(props) != want || p.Len() != lonely {
				w, ok := p.NextWake(now)
				t.Fatalf("one pass formed %d matches of %d possible, %d tickets wait (want %d); NextWake %v %v",
					len(props), want, p.Len(), lonely, w.Sub(now), ok)
			}
			seen := map[string]bool{}
			for _, pr := range props {
				for _, tk := range pr.Tickets() {
					if seen[tk.ID] {
						t.Fatalf("%s matched twice", tk.ID)
					}
					seen[tk.ID] = true
				}
			}
		})
	}
}

// TestScanLimitCountsOnlyWaitingTickets: tickets matched earlier in the
// same pass do not use up an anchor's scan budget. Two young tickets sit at
// both ends of a hundred older ones of the same skill (the index orders equal
// skills by slot); the old ones match first, and the young ones must still
// find each other across the hundred matched in between.
func TestScanLimitCountsOnlyWaitingTickets(t *testing.T) {
	c := load(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1000}]}`)
	p, err := New(testKey, c, Options{ScanLimit: 50})
	if err != nil {
		t.Fatal(err)
	}
	ticket("young1", 50).num("mmr", 1000).add(t, p)
	for i := range 100 {
		ticket(fmt.Sprintf("old%03d", i), float64(i)/100).num("mmr", 1000).add(t, p)
	}
	ticket("young2", 50).num("mmr", 1000).add(t, p)
	props := p.Step(at(100))
	if len(props) != 51 || p.Len() != 0 {
		t.Fatalf("%d matches, %s still waiting", len(props), ids(p.Tickets()))
	}
}

// oracleRun drives a pool of the family through random arrivals (some with
// old creation times, as after a restart), cancellations and waits, steps it,
// and calls after with each Step's proposals and the tickets left waiting.
func oracleRun(t *testing.T, f oracleFamily, seed int, after func(o oracle, p *Pool, props []Proposal, waiting []*cupid.Ticket, now time.Time)) {
	rng := rand.New(rand.NewPCG(uint64(seed), 77))
	param := 50 + rng.IntN(200)
	if f.param != nil {
		param = f.param(rng)
	}
	c := load(t, fmt.Sprintf(f.rules, param))
	o := oracle{c}
	p, err := New(testKey, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Minute)
	n := 0
	for round := 0; round < 50; round++ {
		switch r := rng.IntN(10); {
		case r < 5:
			for k := 0; k < 1+rng.IntN(3); k++ {
				created := now.Add(-time.Duration(rng.IntN(40_000)) * time.Millisecond)
				if rng.IntN(3) > 0 {
					created = now
				}
				tk := oracleTicket(rng, fmt.Sprintf("t%03d", n), created, f.party)
				n++
				if p.Check(tk) != nil {
					continue
				}
				if err := p.Add(tk); err != nil {
					t.Fatal(err)
				}
			}
		case r < 6 && p.Len() > 0:
			w := waitingOf(p)
			p.Remove(w[rng.IntN(len(w))].ID)
		default:
			if w, ok := p.NextWake(now); ok && rng.IntN(3) > 0 {
				now = w
			} else {
				now = now.Add(time.Duration(1+rng.IntN(8000)) * time.Millisecond)
			}
		}
		// Keep the brute force small.
		for p.Len() > 12 {
			p.Remove(waitingOf(p)[rng.IntN(p.Len())].ID)
		}
		props := p.Step(now)
		for _, pr := range props {
			checkProposalOracle(t, o, pr, now)
		}
		after(o, p, props, waitingOf(p), now)
		if t.Failed() {
			return
		}
	}
}

// changeTimes lists the moments after now at which some waiting ticket's
// rules relax, per the ruleset itself.
func changeTimes(c *ruleset.Compiled, waiting []*cupid.Ticket, now time.Time, horizon time.Duration) []time.Time {
	var out []time.Time
	for _, tk := range waiting {
		w := tk.Wait(now)
		for {
			next, ok := c.NextChange(w)
			if !ok || next <= w {
				break
			}
			at := tk.CreatedAt.Add(next)
			if at.Sub(now) > horizon {
				break
			}
			out = append(out, at)
			w = next
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return slices.CompactFunc(out, func(a, b time.Time) bool { return a.Equal(b) })
}

// TestStepFormsEveryPossibleMatch: after Step(now) no set of waiting tickets
// could make a valid match at now (brute force), and when one could at a
// later moment, NextWake names that moment or an earlier one.
func TestStepFormsEveryPossibleMatch(t *testing.T) {
	seeds := 30
	if testing.Short() {
		seeds = 8
	}
	for _, f := range oracleFamilies {
		for seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed%d", f.name, seed), func(t *testing.T) {
				oracleRun(t, f, seed, func(o oracle, p *Pool, props []Proposal, waiting []*cupid.Ticket, now time.Time) {
					if m := o.anyMatch(waiting, now); m != nil {
						t.Errorf("after Step at %v, %s could still make a match (waiting: %s)", now.Sub(t0), ids(m), ids(waiting))
						return
					}
					for _, at := range changeTimes(o.c, waiting, now, 2*time.Minute) {
						m := o.anyMatch(waiting, at)
						if m == nil {
							continue
						}
						if w, ok := p.NextWake(now); !ok || w.After(at) {
							t.Errorf("at %v: %s could match at %v, but NextWake says %v %v", now.Sub(t0), ids(m), at.Sub(t0), w.Sub(t0), ok)
						}
						break
					}
				})
			})
		}
	}
}
