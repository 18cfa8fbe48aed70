package pairing

import (
	"slices"

	"github.com/cupid-match/cupid/graph/matching"
)

// Planning ahead.
//
// Choosing each round's pairs on their own can paint a group into a corner:
// after many rounds the pairs still unmet may not split into full rounds,
// and people sit out although they have not met everyone. The classic fix
// is a round-robin schedule. With the circle method, N seats (N even) are
// paired in N-1 turns so that every two seats meet exactly once: in turn r,
// seat N-1 meets seat r and seats r+k and r-k (mod N-1) meet for k = 1 …
// N/2-1. A steady group that follows it meets everyone in N-1 rounds, the
// least possible.
//
// The event keeps such a seating (plan.seats) and the next turn. Each round
// the turn's seat pairs are handed to the matching as its starting point;
// the matching keeps them where it can and completes them to a maximum
// matching, so the plan guides but never costs a pair, and people who sat
// out still come first.
//
// History does not always fit a schedule: people arrive after the first
// rounds, take breaks, leave. When a planned pair cannot meet because they
// already have, the plan is "broken" and is no longer followed until the
// seating changes; rounds are then chosen adaptively, by the matching's
// priorities alone (who sat out, then who has the most people left to meet
// in the lobby — the person who bounds how many rounds the group still
// needs). Measured on groups that fill up over the first rounds and on
// groups whose members take random breaks (roundrobin_test.go), following
// a patched plan did slightly worse than switching to the adaptive rule,
// and either stays within a fraction of a round of the lower bound on
// average; a steady group that keeps its plan needs exactly N-1 rounds,
// where the adaptive rule alone needs about one more at 80 people.
//
// When people arrive, they take empty seats (the seating grows if needed,
// and is compacted when many seats stand empty). Their history then rarely
// fits the schedule: pairs that have already met are due to meet again. A
// pair due at turn t that cannot meet breaks the plan at t, so after
// seating newcomers the seating is improved by local search, to keep the
// plan whole for as long as it can: swap two seats when that lowers the
// sum, over pairs who have met, of (N-1 - turns until they are due)².
// For a group whose first rounds were smaller (people trickling in) this
// pushes the early meetings towards the end of the new schedule.

// plan is a round-robin seating and the next turn to use.
type plan struct {
	seats []string // occupant of each seat, "" when empty; even length
	turn  int      // 0 <= turn < len(seats)-1
	// broken is set the first time a planned pair could not meet (they
	// had met before); the plan is then not followed until the seating
	// changes.
	broken bool
}

// searchSeats bounds the seatings the local search runs on; beyond it the
// search would cost more than a round should, and such crowds do not get
// through a whole round robin anyway.
const searchSeats = 512

// searchWork bounds the conflict terms the local search adds up, so that a
// lobby whose members have all met many others (every pair a conflict
// somewhere) still gets its round in well under a millisecond. The schedule
// measurements of roundrobin_test.go came out the same with 10,000 terms as
// with 100,000, at a third of the time per round for 80 people.
const searchWork = 10_000

// circleTurn returns the turn of the circle method on n seats in which
// seats s and t meet.
func circleTurn(n, s, t int) int {
	m := n - 1
	switch {
	case s == m:
		return t
	case t == m:
		return s
	}
	// s+t ≡ 2r (mod m), and n/2 is the inverse of 2 modulo the odd m.
	return (s + t) * (n / 2) % m
}

// vacate frees the seat of someone who left the event.
func (p *plan) vacate(key string) {
	if i := slices.Index(p.seats, key); i >= 0 {
		p.seats[i] = ""
	}
}

// next moves the plan on by one turn.
func (p *plan) next() {
	if n := len(p.seats); n >= 2 {
		p.turn = (p.turn + 1) % (n - 1)
	}
}

// prepare seats the lobby members who have no seat, improves the seating
// when it changed, and returns this turn's planned pairs as lobby vertices,
// or nil once the plan is broken.
func (p *plan) prepare(e *Event, lg lobbyGraph) []matching.Edge {
	seated := make(map[string]bool, len(p.seats))
	empty := 0
	for _, k := range p.seats {
		if k == "" {
			empty++
		} else {
			seated[k] = true
		}
	}
	var newcomers []string
	for _, k := range lg.keys {
		if !seated[k] {
			newcomers = append(newcomers, k)
		}
	}
	changed := len(newcomers) > 0
	if need := len(newcomers) - empty; need > 0 {
		p.seats = append(p.seats, make([]string, need+need%2)...)
		p.turn = 0 // a new size is a new schedule
	}
	if len(newcomers) > 0 {
		var free []int
		for i, k := range p.seats {
			if k == "" {
				free = append(free, i)
			}
		}
		e.rng.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
		for i, k := range newcomers {
			p.seats[free[i]] = k
		}
	}
	// Compact a seating that has become mostly holes: an empty seat leaves
	// its partner of the turn without a planned pair.
	empty = 0
	for _, k := range p.seats {
		if k == "" {
			empty++
		}
	}
	if empty >= 2 && empty*4 > len(p.seats) {
		p.seats = slices.DeleteFunc(p.seats, func(k string) bool { return k == "" })
		if len(p.seats)%2 == 1 {
			p.seats = append(p.seats, "")
		}
		p.turn = 0
		changed = true
	}
	if changed {
		p.broken = false
	}
	if changed && len(p.seats) <= searchSeats {
		p.improve(e, 20*len(p.seats))
	}

	var start []matching.Edge
	n := len(p.seats)
	if n < 2 {
		return nil
	}
	add := func(s, t int) {
		i, ok1 := lg.index[p.seats[s]]
		j, ok2 := lg.index[p.seats[t]]
		if ok1 && ok2 {
			if !lg.g.Adjacent(i, j) {
				p.broken = true
			}
			start = append(start, matching.Edge{U: i, V: j})
		}
	}
	m := n - 1
	add(m, p.turn)
	for k := 1; k < n/2; k++ {
		add((p.turn+k)%m, (p.turn-k+m)%m)
	}
	if p.broken {
		return nil
	}
	return start
}

// improve tries budget seat swaps at most (and at most searchWork conflict
// terms), keeping those that move the meetings of pairs who have already
// met later in the schedule (see the comment at the top of the file).
func (p *plan) improve(e *Event, budget int) {
	n := len(p.seats)
	if n < 4 {
		return
	}
	m := n - 1
	// Seated people as small integers, with their conflicts: the seated
	// people either record says they met.
	id := make(map[string]int32, n)
	var keys []string
	seatOf := []int{}
	occ := make([]int32, n)
	for s, k := range p.seats {
		occ[s] = -1
		if k != "" {
			id[k] = int32(len(keys))
			keys = append(keys, k)
			seatOf = append(seatOf, s)
			occ[s] = int32(len(keys) - 1)
		}
	}
	var edges []matching.Edge
	for i, k := range keys {
		for other := range e.people[k].met {
			if j, ok := id[other]; ok {
				edges = append(edges, matching.Edge{U: i, V: int(j)})
			}
		}
	}
	// NewSparse merges the pairs both records hold into one.
	g := matching.NewSparse(len(keys), edges)
	conf := make([][]int32, len(keys))
	flat := make([]int32, 0, 2*len(edges))
	var busy []int32 // people with a conflict: the ones worth moving
	for i := range keys {
		from := len(flat)
		for j := range g.Neighbors(i) {
			flat = append(flat, int32(j))
		}
		conf[i] = flat[from:len(flat):len(flat)]
		if len(conf[i]) > 0 {
			busy = append(busy, int32(i))
		}
	}
	if len(busy) == 0 {
		return
	}
	// A conflict between seats s and t costs (m - due)², due being how
	// many turns from now the circle seats them together: the sooner, the
	// dearer. The turn of two seats off the hub depends only on s+t mod m
	// (see circleTurn), so two tables of n entries stand for the n×n
	// matrix: byPos for seats off the hub, hub for a seat against the hub.
	byPos := make([]int32, m)
	hub := make([]int32, n)
	for r := range m {
		due := (circleTurn(n, r, 0) - p.turn + m) % m
		byPos[r] = int32((m - due) * (m - due))
	}
	for t := range m {
		due := (t - p.turn + m) % m
		hub[t] = int32((m - due) * (m - due))
	}
	weight := func(s, t int) int32 {
		switch {
		case s == m:
			return hub[t]
		case t == m:
			return hub[s]
		case s+t >= m:
			return byPos[s+t-m]
		}
		return byPos[s+t]
	}
	// cost is what person a at seat s pays for its conflicts, leaving out
	// skip (whose term does not change when a and skip swap).
	cost := func(a int32, s int, skip int32) int64 {
		var c int64
		for _, q := range conf[a] {
			if q != skip {
				c += int64(weight(s, seatOf[q]))
			}
		}
		return c
	}
	rng := e.rng
	work := 0 // conflict terms summed: bounds the time on crowded histories
	for it := 0; it < budget && work < searchWork; it++ {
		a := busy[rng.IntN(len(busy))]
		s1 := seatOf[a]
		s2 := rng.IntN(n)
		if s2 == s1 {
			continue
		}
		b := occ[s2]
		work += 2 * len(conf[a])
		if b >= 0 {
			work += 2 * len(conf[b])
		}
		before := cost(a, s1, b)
		after := cost(a, s2, b)
		if b >= 0 {
			before += cost(b, s2, a)
			after += cost(b, s1, a)
		}
		if after < before {
			occ[s1], occ[s2] = b, a
			seatOf[a] = s2
			if b >= 0 {
				seatOf[b] = s1
			}
		}
	}
	for s := range p.seats {
		if occ[s] < 0 {
			p.seats[s] = ""
		} else {
			p.seats[s] = keys[occ[s]]
		}
	}
}
