package pairing

import (
	"slices"
	"time"

	"github.com/cupid-match/cupid/graph/matching"
)

// lobbyGraph is the graph of allowed pairs among the people in the lobby:
// everyone except pairs that either side remembers meeting. It is stored as
// the complement of the (sparse) met pairs, never as the dense edge list.
type lobbyGraph struct {
	keys    []string       // lobby members, sorted; vertex i is keys[i]
	index   map[string]int // key -> vertex
	missing []matching.Edge
	g       *matching.Complement
}

func (e *Event) lobbyGraph() lobbyGraph {
	keys := e.inState(StateLobby)
	index := make(map[string]int, len(keys))
	for i, k := range keys {
		index[k] = i
	}
	var missing []matching.Edge
	for i, k := range keys {
		for other := range e.people[k].met {
			if j, ok := index[other]; ok {
				missing = append(missing, matching.Edge{U: i, V: j})
			}
		}
	}
	return lobbyGraph{keys: keys, index: index, missing: missing, g: matching.NewComplement(len(keys), missing)}
}

// priorities ranks lobby members for the matching: first by rounds sat out
// in a row (fairness: who waited longest is paired first), then by how many
// people in the lobby they have yet to meet. The second key serves the
// round-robin goal: the person with the most people left to meet bounds how
// many more rounds the group needs, so leaving them out costs a round.
func (e *Event) priorities(lg lobbyGraph) []int {
	n := len(lg.keys)
	prio := make([]int, n)
	for i, k := range lg.keys {
		prio[i] = e.people[k].satOut*(n+1) + lg.g.Degree(i)
	}
	return prio
}

// startRound computes the round when the countdown ends and seats the
// pairs.
func (e *Event) startRound() {
	lg := e.lobbyGraph()
	pairs, free := e.choosePairs(lg)

	if len(pairs) == 0 {
		// Nobody can be paired: wait for something to change rather than
		// counting down again for nothing.
		e.phase = PhaseIdle
		e.deadline = time.Time{}
		e.stale = true
		for _, k := range lg.keys {
			e.people[k].satOut++
			e.notify(Notification{Participant: k, Kind: KindSatOut})
		}
		return
	}

	e.round++
	e.phase = PhaseRound
	e.deadline = e.now.Add(e.cfg.Round)
	e.plan.next()
	e.notify(Notification{Kind: KindRoundStarted, Round: e.round, Deadline: e.deadline})
	for i, pr := range pairs {
		room := free[i]
		a, b := lg.keys[pr.U], lg.keys[pr.V]
		if a > b {
			a, b = b, a // rooms list the pair in key order
		}
		e.rooms[room-1] = pair{A: a, B: b}
		for _, side := range [2][2]string{{a, b}, {b, a}} {
			p := e.people[side[0]]
			p.met[side[1]] = struct{}{}
			p.state = StateRoom
			p.room, p.partner = room, side[1]
			p.satOut = 0
			e.lobby--
			e.notify(Notification{Participant: side[0], Kind: KindPaired, Partner: side[1], Room: room, Round: e.round, Deadline: e.deadline})
		}
	}
	for _, k := range lg.keys {
		if p := e.people[k]; p.state == StateLobby {
			p.satOut++
			e.notify(Notification{Participant: k, Kind: KindSatOut, Round: e.round, Deadline: e.deadline})
		}
	}
}

// fewerRooms chooses the pairs to seat when there are fewer rooms than the
// maximum number of pairs. Picking rooms pairs out of a maximum matching
// would be unfair: a pair may join someone who sat out with someone who did
// not. Instead it takes the lobby in priority order (longest sat out first,
// chance among equals) and finds the shortest prefix whose members alone
// can form rooms pairs (the pairs a prefix can form only grow as it
// lengthens, so a binary search finds it), then matches that prefix with
// priorities. The pair count is still the most possible: rooms.
func (e *Event) fewerRooms(lg lobbyGraph, start []matching.Edge, prio []int, rooms int) []matching.Edge {
	n := len(lg.keys)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	e.rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	slices.SortStableFunc(order, func(a, b int) int { return prio[b] - prio[a] })
	rank := make([]int, n) // vertex -> place in order
	for r, v := range order {
		rank[v] = r
	}
	// prefix is the lobby graph induced by the first size vertices of
	// order, numbered by rank.
	prefix := func(size int) *matching.Complement {
		var missing []matching.Edge
		for _, ed := range lg.missing {
			if a, b := rank[ed.U], rank[ed.V]; a < size && b < size {
				missing = append(missing, matching.Edge{U: a, V: b})
			}
		}
		return matching.NewComplement(size, missing)
	}
	lo, hi := 2*rooms, n // the answer lies in [lo, hi]; hi is known to work
	for lo < hi {
		mid := (lo + hi) / 2
		if matching.Maximum(prefix(mid), matching.Options{Rand: e.rng}).Size() >= rooms {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	size := lo
	var sub []matching.Edge
	for _, ed := range start {
		if a, b := rank[ed.U], rank[ed.V]; a < size && b < size {
			sub = append(sub, matching.Edge{U: a, V: b})
		}
	}
	m := matching.Maximum(prefix(size), matching.Options{Start: sub, Priority: slicesPick(prio, order[:size]), Rand: e.rng})
	var pairs []matching.Edge
	for _, ed := range m.Pairs() {
		pairs = append(pairs, matching.Edge{U: order[ed.U], V: order[ed.V]})
	}
	return pairs[:min(len(pairs), rooms)]
}

// slicesPick returns s[i] for each i of idx.
func slicesPick(s []int, idx []int) []int {
	out := make([]int, len(idx))
	for k, i := range idx {
		out[k] = s[i]
	}
	return out
}

// choosePairs picks the round's pairs among the lobby and the free rooms
// (in order) they will use: a maximum matching with priorities, guided by
// the plan, cut down fairly to the rooms there are. The pairs are in random
// order, so that rooms are handed out by chance.
func (e *Event) choosePairs(lg lobbyGraph) (pairs []matching.Edge, free []int) {
	var start []matching.Edge
	if !e.unplanned {
		start = e.plan.prepare(e, lg)
	}
	prio := e.priorities(lg)
	m := matching.Maximum(lg.g, matching.Options{Start: start, Priority: prio, Rand: e.rng})
	pairs = m.Pairs()
	// Rounds are synchronous, so normally every room is free.
	for i, pr := range e.rooms {
		if pr.A == "" {
			free = append(free, i+1)
		}
	}
	if len(pairs) > len(free) {
		pairs = e.fewerRooms(lg, start, prio, len(free))
	}
	e.rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	return pairs, free
}
