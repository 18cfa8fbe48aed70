package pairing

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var t0 = time.Date(2025, 6, 1, 20, 0, 0, 0, time.UTC)

func keyOf(i int) string { return fmt.Sprintf("p%03d", i) }

// driver runs an event on a virtual clock: it calls Advance at every
// deadline, like the server's timer would.
type driver struct {
	t   testing.TB
	e   *Event
	now time.Time
}

func newDriver(t testing.TB, cfg Config, seed uint64) *driver {
	e, err := New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	return &driver{t: t, e: e, now: t0}
}

func (d *driver) must(_ []Notification, err error) {
	d.t.Helper()
	if err != nil {
		d.t.Fatal(err)
	}
}

// join brings people in and into the lobby.
func (d *driver) join(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		d.must(d.e.Join(d.now, k))
		d.must(d.e.EnterLobby(d.now, k))
	}
}

// step jumps to the next deadline and advances; false when nothing is due.
func (d *driver) step() bool {
	at, ok := d.e.NextDeadline()
	if !ok {
		return false
	}
	d.now = at
	d.e.Advance(d.now)
	return true
}

// untilRoundStarts steps until a round is running (or nothing is due).
func (d *driver) untilRoundStarts() bool {
	for d.step() {
		if d.e.phase == PhaseRound {
			return true
		}
	}
	return false
}

// allMet reports whether every two of keys have met by either record.
func (d *driver) allMet(keys []string) bool {
	for i, a := range keys {
		for _, b := range keys[i+1:] {
			if !d.e.metEither(a, b) {
				return false
			}
		}
	}
	return true
}

func steadyConfig(n int) Config {
	return Config{Rooms: n, Round: 5 * time.Minute, Countdown: 30 * time.Second, MinLobby: 2}
}

// roundsSteady runs a steady group of n people that all arrive at once and
// returns the number of rounds until everyone has met everyone.
func roundsSteady(t testing.TB, n int, seed uint64, unplanned bool) int {
	d := newDriver(t, steadyConfig(n), seed)
	d.e.unplanned = unplanned
	keys := make([]string, n)
	for i := range keys {
		keys[i] = keyOf(i)
	}
	d.join(keys...)
	for d.e.round < 3*n && !d.allMet(keys) {
		if !d.untilRoundStarts() {
			break
		}
	}
	return d.e.round
}

// roundsTrickle runs a group that fills up over the first rounds: a quarter
// of n at first, then another quarter before each of the next three rounds.
// It returns the rounds until everyone has met everyone, and the lower
// bound: the last arrivals need n-1 rounds from their first.
func roundsTrickle(t testing.TB, n int, seed uint64, unplanned bool) (rounds, bound int) {
	d := newDriver(t, steadyConfig(n), seed)
	d.e.unplanned = unplanned
	keys := make([]string, n)
	for i := range keys {
		keys[i] = keyOf(i)
	}
	q := n / 4
	d.join(keys[:q]...)
	arrived := q
	for d.e.round < 3*n && !d.allMet(keys) {
		if arrived < n && d.e.phase != PhaseRound {
			next := min(n, arrived+q)
			if next+q > n {
				next = n
			}
			d.join(keys[arrived:next]...)
			arrived = next
			if arrived == n {
				bound = d.e.round + n - 1
			}
		}
		if !d.untilRoundStarts() {
			break
		}
		// Run the round to its end, so that late arrivals come between
		// rounds as in a real event.
		d.step()
	}
	return d.e.round, bound
}

func TestRoundRobinSteadyGroup(t *testing.T) {
	// A steady group follows the circle method: n-1 rounds for even n, n
	// for odd n (one person sits out each round), the least possible.
	cases := []struct{ n, want int }{
		{2, 1}, {4, 3}, {7, 7}, {8, 7}, {9, 9}, {20, 19}, {21, 21},
	}
	for _, c := range cases {
		for seed := range uint64(3) {
			if got := roundsSteady(t, c.n, seed, false); got != c.want {
				t.Errorf("n=%d seed %d: everyone met everyone after %d rounds, want %d", c.n, seed, got, c.want)
			}
		}
	}
}

// roundsBreaks runs a steady group in which, after each round, every person
// takes a one-round break with probability 1/20. It returns the rounds
// until everyone has met everyone, and a lower bound: a person who was away
// for b rounds before everyone had met needs n-1+b rounds.
func roundsBreaks(t testing.TB, n int, seed uint64, unplanned bool) (rounds, bound int) {
	d := newDriver(t, steadyConfig(n), seed)
	d.e.unplanned = unplanned
	rng := rand.New(rand.NewPCG(seed, 77))
	keys := make([]string, n)
	for i := range keys {
		keys[i] = keyOf(i)
	}
	d.join(keys...)
	away := map[string]int{}
	for d.e.round < 3*n && !d.allMet(keys) {
		if !d.untilRoundStarts() {
			break
		}
		d.step() // the round ends
		for _, k := range keys {
			switch p := d.e.people[k]; {
			case p.state == StateAway:
				d.must(d.e.EnterLobby(d.now, k))
			case rng.IntN(20) == 0 && !d.allMet(keys):
				d.must(d.e.LeaveLobby(d.now, k))
				away[k]++
			}
		}
	}
	for _, b := range away {
		bound = max(bound, b)
	}
	return d.e.round, n - 1 + bound
}

func TestRoundRobinReport(t *testing.T) {
	sizes := []int{8, 20, 80}
	if testing.Short() {
		sizes = []int{8, 20}
	}
	for _, n := range sizes {
		got := roundsSteady(t, n, 1, false)
		if got != n-1 {
			t.Errorf("steady n=%d: %d rounds, want %d", n, got, n-1)
		}
		r, bound := roundsTrickle(t, n, 1, false)
		r0, _ := roundsTrickle(t, n, 1, true)
		br, bb := roundsBreaks(t, n, 1, false)
		br0, _ := roundsBreaks(t, n, 1, true)
		t.Logf("n=%d  steady: %d rounds (ideal %d; without the plan %d)  trickle-in: %d (bound %d; without %d)  breaks: %d (bound %d; without %d)",
			n, got, n-1, roundsSteady(t, n, 1, true), r, bound, r0, br, bb, br0)
	}
}

// BenchmarkRoundRobin reports, as metrics averaged over 10 seeds, the
// rounds each scenario needs until everyone has met everyone, with the plan
// and without it (adaptive rule only), against the lower bound. Run with
// -benchtime 1x: the metrics are what matter, not the time.
func BenchmarkRoundRobin(b *testing.B) {
	const seeds = 10
	for _, n := range []int{8, 20, 80} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				var m [9]int
				for seed := range uint64(seeds) {
					m[0] += roundsSteady(b, n, seed, false)
					m[1] += roundsSteady(b, n, seed, true)
					r, bound := roundsTrickle(b, n, seed, false)
					r0, _ := roundsTrickle(b, n, seed, true)
					m[2], m[3], m[4] = m[2]+r, m[3]+r0, m[4]+bound
					br, bb := roundsBreaks(b, n, seed, false)
					br0, _ := roundsBreaks(b, n, seed, true)
					m[5], m[6], m[7] = m[5]+br, m[6]+br0, m[7]+bb
				}
				names := []string{"steady", "steady-noplan", "trickle", "trickle-noplan", "trickle-bound", "breaks", "breaks-noplan", "breaks-bound"}
				for i, name := range names {
					b.ReportMetric(float64(m[i])/seeds, name)
				}
			}
		})
	}
}

// TestNewcomerTakesVacatedSeat: when someone leaves a steady group and a
// newcomer arrives, the newcomer takes the empty seat and the group keeps
// its plan: everyone who stayed has met everyone else who stayed by the end
// of the cycle, and the plan was never broken.
func TestNewcomerTakesVacatedSeat(t *testing.T) {
	for seed := range uint64(10) {
		d := newDriver(t, steadyConfig(8), seed)
		keys := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
		d.join(keys...)
		for range 3 {
			d.untilRoundStarts()
			d.step()
		}
		d.must(d.e.Leave(d.now, "h"))
		d.join("z")
		for d.e.round < 7 {
			d.untilRoundStarts()
		}
		if d.e.plan.broken {
			t.Fatalf("seed %d: plan broken", seed)
		}
		if !d.allMet(keys[:7]) {
			t.Fatalf("seed %d: the seven who stayed have not all met after 7 rounds", seed)
		}
	}
}
