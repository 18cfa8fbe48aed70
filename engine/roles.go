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
