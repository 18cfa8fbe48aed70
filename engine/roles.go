package engine

// Roles (a Cupid extension, read from the reserved key "role"): every team
// must hold between min and max players of each role, min relaxing with the
// anchor's wait. A player lists the roles it accepts, first choice first.
//
// Whether a team can be staffed is a bipartite matching between players and
// role slots: role r offers max_r slots (the team size when unbounded), the
// first min_r of them required. A matching that covers every player and
// every required slot exists exactly when (1) augmenting from each required
// slot succeeds and then (2) augmenting from each still unmatched player
// succeeds: augmenting paths never unmatch a vertex, so phase 2 keeps what
// phase 1 covered, and the final matching is maximum.
//
// That answers whether a team can be staffed, which balancing asks often.
// The roles of a formed match then go through improve, which exchanges
// roles until no exchange gives one more player their first choice: the
// augmenting order above prefers first choices but cannot guarantee the
// most of them.

// roleSolver holds the buffers of one team's assignment.
type roleSolver struct {
	slotRole []int
	required []bool
	matchP   []int // slot of each player, -1
	matchS   []int // player of each slot, -1
	seenP    []bool
	seenS    []bool
	masks    []uint64
	pref     []int8
}

// assign finds a role for each player (masks[i]: acceptable roles, pref[i]:
// first choice) under per-role mins and maxs (-1: unbounded). On success
// out[i] is player i's role.
func (rs *roleSolver) assign(masks []uint64, pref []int8, mins, maxs []int, out []int) bool {
	n := len(masks)
	rs.masks, rs.pref = masks, pref
	rs.slotRole, rs.required = rs.slotRole[:0], rs.required[:0]
	for r := range mins {
		count := maxs[r]
		if count < 0 || count > n {
			count = n
		}
		if mins[r] > count {
			return false
		}
		for k := 0; k < count; k++ {
			rs.slotRole = append(rs.slotRole, r)
			rs.required = append(rs.required, k < mins[r])
		}
	}
	m := len(rs.slotRole)
	rs.matchP = fill(rs.matchP, n, -1)
	rs.matchS = fill(rs.matchS, m, -1)
	for s := 0; s < m; s++ {
		if !rs.required[s] {
			continue
		}
		rs.seenP = fillBool(rs.seenP, n)
		if !rs.fromSlot(s) {
			return false
		}
	}
	for pl := 0; pl < n; pl++ {
		if rs.matchP[pl] >= 0 {
			continue
		}
		rs.seenS = fillBool(rs.seenS, m)
		if !rs.fromPlayer(pl) {
			return false
		}
	}
	for pl := 0; pl < n; pl++ {
		out[pl] = rs.slotRole[rs.matchP[pl]]
	}
	return true
}

// fromSlot looks for an augmenting path from an unmatched slot, preferring
// players whose first choice is the slot's role.
func (rs *roleSolver) fromSlot(s int) bool {
	r := rs.slotRole[s]
	for pass := 0; pass < 2; pass++ {
		for pl := range rs.masks {
			if rs.seenP[pl] || rs.masks[pl]&(1<<r) == 0 || (pass == 0) != (int(rs.pref[pl]) == r) {
				continue
			}
			rs.seenP[pl] = true
			if prev := rs.matchP[pl]; prev < 0 || rs.fromSlot(prev) {
				rs.matchP[pl], rs.matchS[s] = s, pl
				return true
			}
		}
	}
	return false
}

// fromPlayer looks for an augmenting path from an unmatched player,
// trying its first-choice role first.
func (rs *roleSolver) fromPlayer(pl int) bool {
	for pass := 0; pass < 2; pass++ {
		for s, r := range rs.slotRole {
			if rs.seenS[s] || rs.masks[pl]&(1<<r) == 0 || (pass == 0) != (int(rs.pref[pl]) == r) {
				continue
			}
			rs.seenS[s] = true
			if other := rs.matchS[s]; other < 0 || rs.fromPlayer(other) {
				rs.matchP[pl], rs.matchS[s] = s, pl
				return true
			}
		}
	}
	return false
}

func fill(b []int, n, v int) []int {
	b = b[:0]
	for range n {
		b = append(b, v)
	}
	return b
}

func fillBool(b []bool, n int) []bool {
	b = b[:0]
	for range n {
		b = append(b, false)
	}
	return b
}

// assignBest is assign, then improve: a valid assignment that gives as many
// players as possible their first choice. assign alone answers "can this
// team be staffed?", which the balancing search asks many times; this is
// for the match actually formed.
func (rs *roleSolver) assignBest(masks []uint64, pref []int8, mins, maxs []int, out []int) bool {
	if !rs.assign(masks, pref, mins, maxs, out) {
		return false
	}
	rs.improve(masks, pref, mins, maxs, out)
	return true
}

// improve raises the number of first choices of a valid assignment until no
// exchange can raise it further. It is a minimum-cost flow (cost 0 for a
// first choice, 1 otherwise) improved by negative cycles, with the roles as
// nodes: an arc a→b stands for the cheapest move of a player now in role a
// to role b, costing (b is not its first choice) − (a is not its first
// choice). A cycle of moves keeps every role's count; a chain of moves that
// takes one player from a role above its minimum and adds one to a role below
// its maximum closes into a cycle through the extra node nr. An assignment
// is optimal exactly when no cycle costs less than zero, so each cycle found
// and applied gains at least one first choice, and at most n are found.
func (rs *roleSolver) improve(masks []uint64, pref []int8, mins, maxs []int, out []int) {
	nr := len(mins)
	n := len(masks)
	nodes := nr + 1
	count := make([]int, nr)
	for _, r := range out {
		count[r]++
	}
	cost := func(pl, r int) int {
		if int(pref[pl]) == r {
			return 0
		}
		return 1
	}
	const none = 1 << 30
	w := make([]int, nodes*nodes)     // arc costs, none: no arc
	mover := make([]int, nodes*nodes) // the player an arc between roles moves
	dist := make([]int, nodes)
	pred := make([]int, nodes)
	onCycle := make([]bool, nodes)
	for range n {
		for k := range w {
			w[k], mover[k] = none, -1
		}
		for pl, a := range out {
			for b := range nr {
				if b == a || masks[pl]&(1<<b) == 0 {
					continue
				}
				if c := cost(pl, b) - cost(pl, a); c < w[a*nodes+b] {
					w[a*nodes+b], mover[a*nodes+b] = c, pl
				}
			}
		}
		for r := range nr {
			if count[r] > mins[r] {
				w[nr*nodes+r] = 0 // the chain may start by taking a player from r
			}
			if maxs[r] < 0 || count[r] < maxs[r] {
				w[r*nodes+nr] = 0 // and end by adding one to r
			}
		}
		// Bellman-Ford from every node at once; a node still relaxed in
		// the last round lies on, or behind, a negative cycle.
		for v := range dist {
			dist[v], pred[v] = 0, -1
		}
		last := -1
		for range nodes {
			last = -1
			for u := range nodes {
				for v := range nodes {
					if c := w[u*nodes+v]; c != none && dist[u]+c < dist[v] {
						dist[v], pred[v], last = dist[u]+c, u, v
					}
				}
			}
			if last < 0 {
				return
			}
		}
		// Walk back far enough to stand on the cycle, then apply it.
		v := last
		for range nodes {
			v = pred[v]
		}
		for k := range onCycle {
			onCycle[k] = false
		}
		for u := v; !onCycle[u]; u = pred[u] {
			onCycle[u] = true
			a, b := pred[u], u
			if a < nr && b < nr { // arcs through the extra node move nobody
				pl := mover[a*nodes+b]
				out[pl] = b
				count[a]--
				count[b]++
			}
		}
	}
}
