package pairing

import (
	"slices"
	"time"

	"github.com/cupid-match/cupid/graph/matching"
)

// lobbyGraph is the graph of allowed pairs among the people in the lobby:
// everyone the mode's group rule allows, except pairs that either side
// remembers meeting or either side's never or barred list names. It is stored as the
// complement of those (sparse) missing pairs, never as the dense edge list.
type lobbyGraph struct {
	keys    []string       // lobby members, sorted; vertex i is keys[i]
	index   map[string]int // key -> vertex
	people  []*person      // people[i] is keys[i]
	missing []matching.Edge
	// groups numbers each vertex's group in a grouped event (nil in an
	// open one); cross says whether pairs are across groups or within.
	groups []int
	cross  bool
	g      matching.Graph
	// capped are the lobby members the exposure cap holds back this
	// round (sorted; not vertices), and free the earliest time one of
	// them may be seated again (zero if none can within the event).
	capped []string
	free   time.Time
}

func (e *Event) lobbyGraph() lobbyGraph {
	var capped []string
	var free time.Time
	keys := e.inState(StateLobby)
	if e.cfg.MaxDates > 0 {
		keys = slices.DeleteFunc(keys, func(k string) bool {
			out, at := e.cfg.capped(e.people[k].cap, e.now)
			if out {
				capped = append(capped, k)
				if !at.IsZero() && (free.IsZero() || at.Before(free)) {
					free = at
				}
			}
			return out
		})
	}
	index := make(map[string]int, len(keys))
	for i, k := range keys {
		index[k] = i
	}
	// Sized up front: the records of a 10,000-person lobby hold some
	// 350,000 entries, and growing the slice by doubling cost a third of
	// the round.
	// vertexOf gives each lobby member's vertex by id (-1 for the others),
	// so that a record's entry (an id) gives the vertex without a lookup.
	people := make([]*person, len(keys))
	vertexOf := e.vertexOf[:0]
	for range e.byID {
		vertexOf = append(vertexOf, -1)
	}
	e.vertexOf = vertexOf
	size := 0
	for i, k := range keys {
		p := e.people[k]
		people[i] = p
		vertexOf[p.id] = int32(i)
		size += len(p.met) + len(p.never) + len(p.barred)
	}
	missing := slices.Grow(e.edges[:0], size)
	for i, p := range people {
		for _, id := range p.met {
			if j := vertexOf[id]; j >= 0 {
				missing = append(missing, matching.Edge{U: i, V: int(j)})
			}
		}
		for other := range p.never {
			if j, ok := index[other]; ok {
				missing = append(missing, matching.Edge{U: i, V: j})
			}
		}
		for other := range p.barred {
			if j, ok := index[other]; ok {
				missing = append(missing, matching.Edge{U: i, V: j})
			}
		}
	}
	e.edges = missing[:0]
	lg := lobbyGraph{keys: keys, index: index, missing: missing, people: people, capped: capped, free: free}
	if mode := e.cfg.mode(); mode.grouped() {
		names := map[string]int{}
		lg.groups = make([]int, len(keys))
		for i, k := range keys {
			g := e.people[k].group
			n, ok := names[g]
			if !ok {
				n = len(names)
				names[g] = n
			}
			lg.groups[i] = n
		}
		lg.cross = mode != ModeWithinGroup
	}
	lg.g = lg.build(len(keys), lg.groups, missing)
	return lg
}

// build makes the graph on n vertices with these groups (nil: open) and
// missing pairs.
func (lg *lobbyGraph) build(n int, groups []int, missing []matching.Edge) matching.Graph {
	if groups == nil {
		return matching.NewComplement(n, missing)
	}
	return matching.NewGrouped(groups, lg.cross, missing)
}

// induced returns the graph induced by the first size vertices of order,
// numbered by their place in it (rank[v] is v's place).
func (lg *lobbyGraph) induced(order, rank []int, size int) matching.Graph {
	var missing []matching.Edge
	for _, ed := range lg.missing {
		if a, b := rank[ed.U], rank[ed.V]; a < size && b < size {
			missing = append(missing, matching.Edge{U: a, V: b})
		}
	}
	var groups []int
	if lg.groups != nil {
		groups = make([]int, size)
		for r, v := range order[:size] {
			groups[r] = lg.groups[v]
		}
	}
	return lg.build(size, groups, missing)
}

// priorities ranks lobby members for the matching: first by rounds sat out
// in a row (fairness: who waited longest is paired first), then by how many
// people in the lobby they have yet to meet. The second key serves the
// round-robin goal: the person with the most people left to meet bounds how
// many more rounds the group needs, so leaving them out costs a round.
func (e *Event) priorities(lg lobbyGraph) []int {
	n := len(lg.keys)
	prio := make([]int, n)
	for i, p := range lg.people {
		prio[i] = p.satOut*(n+1) + lg.g.Degree(i)
	}
	return prio
}

// startRound computes the round when the countdown ends and seats the
// pairs (and the trio, if any).
func (e *Event) startRound() {
	lg := e.lobbyGraph()
	groups, free := e.choosePairs(lg)
	e.seq++
	rec := RoundRecord{Seq: e.seq, At: e.now}

	if len(groups) == 0 {
		// Nobody can be paired: wait for something to change rather than
		// counting down again for nothing.
		e.phase = PhaseIdle
		e.deadline = time.Time{}
		e.stale = true
		e.capWake = lg.free
		for i, k := range lg.keys {
			lg.people[i].satOut++
			e.notify(Notification{Participant: k, Kind: KindSatOut})
		}
		e.sitOutCapped(lg, 0)
		rec.SatOut = slices.Concat(lg.keys, lg.capped)
		slices.Sort(rec.SatOut)
		e.record(rec)
		return
	}

	e.round++
	rec.Round = e.round
	e.phase = PhaseRound
	e.roundStart = e.now
	e.deadline = e.now.Add(e.cfg.Round)
	e.plan.next()
	e.out = slices.Grow(e.out, len(lg.keys)+2)
	e.notify(Notification{Kind: KindRoundStarted, Round: e.round, Deadline: e.deadline})
	rooms := e.assignRooms(lg, groups, free)
	rec.Rooms = make([]RoomPair, 0, len(groups))
	for i, members := range groups {
		room := rooms[i]
		slices.Sort(members) // vertices are in key order: rooms list their people so
		pr := pair{A: lg.keys[members[0]], B: lg.keys[members[1]], round: e.round}
		if len(members) == 3 {
			pr.C = lg.keys[members[2]]
		}
		e.rooms[room-1] = pr
		rec.Rooms = append(rec.Rooms, RoomPair{Room: room, A: pr.A, B: pr.B, C: pr.C})
		for j, v := range members {
			k, p := lg.keys[v], lg.people[v]
			var others [2]string
			n := 0
			for l, w := range members {
				if l != j {
					o := lg.keys[w]
					others[n] = o
					n++
					p.met[o] = lg.people[w].id
					if !slices.Contains(p.dated, o) {
						p.dated = append(p.dated, o)
					}
				}
			}
			p.state = StateRoom
			p.room, p.partner, p.third = room, others[0], others[1]
			p.satOut = 0
			p.cap = e.cfg.dated(p.cap, e.now)
			p.extend = false
			e.lobby--
			e.notify(Notification{Participant: k, Kind: KindPaired, Partner: others[0], Third: others[1], Room: room, Round: e.round, Deadline: e.deadline})
		}
	}
	for i, k := range lg.keys {
		if p := lg.people[i]; p.state == StateLobby {
			p.satOut++
			e.notify(Notification{Participant: k, Kind: KindSatOut, Round: e.round, Deadline: e.deadline})
			rec.SatOut = append(rec.SatOut, k)
		}
	}
	e.sitOutCapped(lg, e.round)
	rec.SatOut = append(rec.SatOut, lg.capped...)
	slices.Sort(rec.SatOut)
	slices.SortFunc(rec.Rooms, func(a, b RoomPair) int { return a.Room - b.Room })
	e.record(rec)
}

// sitOutCapped tells the lobby members the cap held back that they sit
// the round out. Their sit-out counts as anyone's, so they come first
// once the cap lets them back.
func (e *Event) sitOutCapped(lg lobbyGraph, round int) {
	for _, k := range lg.capped {
		e.people[k].satOut++
		n := Notification{Participant: k, Kind: KindSatOut, Round: round, Capped: true}
		if round > 0 {
			n.Deadline = e.deadline
		}
		e.notify(n)
	}
}

// assignRooms gives each group of the round a free room, in order. In a
// two-sided event a person of the staying side keeps the room of their
// first date whenever it is free, as at a real event where one side stays
// at its tables.
func (e *Event) assignRooms(lg lobbyGraph, groups [][]int, free []int) []int {
	rooms := make([]int, len(groups))
	if e.cfg.mode() != ModeTwoSided {
		copy(rooms, free)
		return rooms
	}
	stayer := func(members []int) *person {
		for _, v := range members {
			if p := lg.people[v]; p.group == e.cfg.Sides[0] {
				return p
			}
		}
		return nil // not reached: every pair is across the sides
	}
	open := make(map[int]bool, len(free))
	for _, r := range free {
		open[r] = true
	}
	// Homes are exclusive: a room that is a present stayer's home goes to
	// a newcomer only when no other room is free.
	claimed := map[int]bool{}
	for _, p := range e.people {
		if p.home != 0 && p.state != StateGone {
			claimed[p.home] = true
		}
	}
	for i, members := range groups {
		if p := stayer(members); p != nil && p.home != 0 && open[p.home] {
			rooms[i] = p.home
			delete(open, p.home)
		}
	}
	for _, unclaimedOnly := range []bool{true, false} {
		next := 0
		for i, members := range groups {
			if rooms[i] != 0 {
				continue
			}
			for next < len(free) && (!open[free[next]] || unclaimedOnly && claimed[free[next]]) {
				next++
			}
			if next == len(free) {
				break
			}
			rooms[i] = free[next]
			delete(open, free[next])
			if p := stayer(members); p != nil && p.home == 0 && !claimed[rooms[i]] {
				p.home = rooms[i]
				claimed[rooms[i]] = true
			}
		}
	}
	return rooms
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
	prefix := func(size int) matching.Graph { return lg.induced(order, rank, size) }
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
// the plan (in an open event), cut down fairly to the rooms there are,
// and with trios on, one leftover person added to a pair when the three
// have never met. The groups (two or three keys each) are in random order,
// so that rooms are handed out by chance.
func (e *Event) choosePairs(lg lobbyGraph) (groups [][]int, free []int) {
	var start []matching.Edge
	if !e.unplanned && e.cfg.mode() == ModeOpen {
		start = e.plan.prepare(e, lg)
	}
	prio := e.priorities(lg)
	m := matching.Maximum(lg.g, matching.Options{Start: start, Priority: prio, Rand: e.rng})
	pairs := m.Pairs()
	// Rounds are synchronous, so normally every room is free; an extended
	// date may still hold one.
	for i, pr := range e.rooms {
		if pr.A == "" {
			free = append(free, i+1)
		}
	}
	short := len(pairs) > len(free)
	if short {
		pairs = e.fewerRooms(lg, start, prio, len(free))
		m = make(matching.Matching, len(lg.keys))
		for v := range m {
			m[v] = matching.Unmatched
		}
		for _, ed := range pairs {
			m[ed.U], m[ed.V] = ed.V, ed.U
		}
	}
	third := -1
	if e.cfg.Trios && len(pairs) > 0 {
		if r, ok := matching.Trio(lg.g, m, matching.TrioOptions{Priority: prio, Rand: e.rng, QuickOnly: short}); ok {
			pairs = r.Matching.Pairs()
			third = r.X
			for i, ed := range pairs {
				if ed.U == min(r.A, r.B) && ed.V == max(r.A, r.B) {
					pairs[0], pairs[i] = pairs[i], pairs[0]
				}
			}
		}
	}
	groups = make([][]int, len(pairs))
	for i, ed := range pairs {
		groups[i] = []int{ed.U, ed.V}
		if i == 0 && third >= 0 {
			groups[i] = append(groups[i], third)
		}
	}
	e.rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	return groups, free
}
