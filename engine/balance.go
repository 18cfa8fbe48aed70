package engine

import (
	"math"
	"slices"
	"sort"
)

// Team balancing puts the parties of a match on teams. Parties are never
// split. Among the assignments that give every team its target size and
// satisfy the ruleset's team-level rules (roles, team aggregates, clans…),
// it looks for the one with the smallest imbalance:
//
//	imbalance = Σ over balancing attributes a of
//	            (max over teams of avg_a − min over teams of avg_a)
//
// where avg_a is the team's average of the player values of a, each value
// multiplied by the rule's weight and divided by its max (AccelByte's
// normalisation; the reference when no max is given). A gap of a full max on
// one attribute therefore weighs 1.
//
// Team sizes come first: the most even size split the parties allow is used,
// and a less even one only when no assignment of the even one satisfies the
// rules.
//
// For teams of up to Options.ExactTeamSize players (12 by default) the
// search is exact. Two teams: a depth-first branch and bound over parties
// (largest first, symmetric empty teams skipped) for up to ten parties, a
// meet in the middle beyond (mitm) — 5v5 takes microseconds, 12v12 of solos
// a millisecond or two. Three or more teams: the same branch and bound,
// exact when it finishes within manyTeamsNodeBudget, else the best found.
// Beyond that size a heuristic runs: greedy
// placement (largest parties first, each onto the currently weakest team
// with room), then local search with 1-for-1 swaps of equal-sized parties and
// 1-for-2 swaps of a party against two whose sizes add up to it, taking the
// best improving move until none is left. balance_test.go bounds its gap to
// the exact answer on random inputs.

// bparty is one party as balancing sees it.
type bparty struct {
	size int
	// vals holds, per balancing attribute, the sum of the party's player
	// values, already weighted and normalised.
	vals []float64
}

// balanceResult is an assignment of parties to teams. Its slices belong to
// the balancer that produced it and are valid until its next call.
type balanceResult struct {
	team  []int // team index of each party, in input order
	sizes []int // players per team
	obj   float64
	exact bool // proven optimal (for the size split used)
	ok    bool
}

// mitmFrom is the party count above which two-team balancing uses the
// meet-in-the-middle search instead of branch and bound.
const mitmFrom = 10

// exactNodeBudget bounds one exact search of two teams; it is far above what
// 5v5 needs (larger two-team matches go to mitm) and only guards against
// pathological inputs.
const exactNodeBudget = 4 << 20

// manyTeamsNodeBudget bounds the search with three or more teams, where the
// bound is weaker and near-ties abound (four teams of five solos can take
// millions of nodes to prove): past it the best assignment found is used —
// never worse than the heuristic, which seeds the search — and the result is
// marked as not proven optimal. About ten milliseconds.
const manyTeamsNodeBudget = 1 << 18

// balancer holds the buffers of team balancing, reused from match to match
// so that balancing allocates nothing in the steady state.
type balancer struct {
	splitBuf []int
	splits   [][]int
	idx      []int
	mag      []float64
	// exact search
	ps   []bparty
	perm []int
	cnt  []int
	sum  []float64
	rem  []float64
	// remSigned[i*nattr+a]: Σ vals of parties i.. in search order.
	remSigned []float64
	cur       []int
	out       []int
	bestAt    []int
	order     []int
	// meet in the middle
	subSize []int
	subSum  []float64
	bySize  [][]int32
	// heuristic
	hteam []int
	hcnt  []int
	hsum  []float64
	// exact search state
	sizes  []int
	nattr  int
	best   float64
	accept func([]int) bool
	teamOK func(team []int, t int) bool
	nodes  int
	budget int
	cut    bool
	// tie ranks assignments whose imbalance ties the best found;
	// bestTie is the best's rank (-1: none yet).
	tie     tieBreak
	bestTie int
	// named: the teams are named (named.go), so no two are
	// interchangeable.
	named bool
}

// tieBreak ranks complete assignments (team[k] is party k's team) whose
// imbalance ties, within eps, the best found: the higher score wins, so
// among equally even splits the one giving more players their first-choice
// role is formed (teams.go). max is the highest score there is: once it is
// reached no tie can win, and the search prunes as without a tie-break.
type tieBreak struct {
	score func(team []int) int
	max   int
}

// balanceTies is balance with a tie-break among the exact searches' equally
// even assignments (up to exactLimit players a team; the heuristic beyond
// keeps its first answer).
func (b *balancer) balanceTies(parties []bparty, nattr, teams, lo, hi, exactLimit int, teamOK func(team []int, t int) bool, accept func(team []int) bool, tie tieBreak) balanceResult {
	b.tie = tie
	defer func() { b.tie = tieBreak{} }()
	return b.balance(parties, nattr, teams, lo, hi, exactLimit, teamOK, accept)
}

// tieOpen reports whether an assignment tying the best could still win.
func (b *balancer) tieOpen() bool {
	return b.tie.score != nil && b.bestTie < b.tie.max
}

// tieScore is the tie-break's score of a complete assignment (0 without
// one).
func (b *balancer) tieScore(team []int) int {
	if b.tie.score == nil {
		return 0
	}
	return b.tie.score(team)
}

// balance assigns parties to teams of sizes within [lo, hi] players.
// teamOK, when not nil, vets one complete team (team[k] is party k's team,
// -1 when not placed yet) as soon as it is full, so the search prunes early;
// accept, when not nil, vets a complete assignment.
func (b *balancer) balance(parties []bparty, nattr, teams, lo, hi, exactLimit int, teamOK func(team []int, t int) bool, accept func(team []int) bool) balanceResult {
	b.teamOK = teamOK
	defer func() { b.teamOK = nil }()
	n := 0
	for _, p := range parties {
		n += p.size
	}
	// One party per team, each exactly a team's size (1v1, premade
	// against premade): the only freedom is which team is which.
	if len(parties) == teams && lo == hi {
		trivial := true
		for _, p := range parties {
			trivial = trivial && p.size == hi
		}
		if trivial {
			b.hteam = b.hteam[:0]
			b.hcnt = b.hcnt[:0]
			for i := range parties {
				b.hteam = append(b.hteam, i)
				b.hcnt = append(b.hcnt, hi)
			}
			if !b.allOK(b.hteam, teams, accept) {
				return balanceResult{}
			}
			b.hsum = grow(b.hsum, teams*nattr)
			for i, p := range parties {
				copy(b.hsum[i*nattr:(i+1)*nattr], p.vals)
			}
			return balanceResult{team: b.hteam, sizes: b.hcnt, obj: imbalance(b.hsum, b.hcnt, nattr), exact: true, ok: true}
		}
	}
	for _, sizes := range b.sizeSplits(n, teams, lo, hi) {
		var res balanceResult
		switch {
		case sizes[0] <= exactLimit && teams == 2 && len(parties) > mitmFrom:
			res = b.mitm(parties, nattr, sizes, accept)
		case sizes[0] <= exactLimit && teams == 2:
			res = b.exact(parties, nattr, sizes, accept, exactNodeBudget)
		case sizes[0] <= exactLimit:
			res = b.exact(parties, nattr, sizes, accept, manyTeamsNodeBudget)
		default:
			res = b.heuristic(parties, nattr, sizes)
			if res.ok && !b.allOK(res.team, len(sizes), accept) {
				res = b.exact(parties, nattr, sizes, accept, exactNodeBudget/4)
				res.exact = false
			}
		}
		if res.ok {
			return res
		}
	}
	return balanceResult{}
}

// allOK vets a complete assignment with every per-team check and accept.
func (b *balancer) allOK(team []int, teams int, accept func([]int) bool) bool {
	if b.teamOK != nil {
		for t := 0; t < teams; t++ {
			if !b.teamOK(team, t) {
				return false
			}
		}
	}
	return accept == nil || accept(team)
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// maxSplits bounds how many size splits are tried before giving up.
const maxSplits = 24

// sizeSplits lists the ways to split n players into teams of lo..hi players,
// largest team first, most even first.
func (b *balancer) sizeSplits(n, teams, lo, hi int) [][]int {
	b.splits = b.splits[:0]
	if teams <= 0 || n < teams*lo || n > teams*hi {
		return nil
	}
	if lo == hi {
		b.splitBuf = b.splitBuf[:0]
		for range teams {
			b.splitBuf = append(b.splitBuf, hi)
		}
		return append(b.splits, b.splitBuf)
	}
	var out [][]int
	cur := make([]int, teams)
	var rec func(i, left, cap int)
	rec = func(i, left, cap int) {
		if len(out) >= 4*maxSplits {
			return
		}
		if i == teams {
			if left == 0 {
				out = append(out, append([]int(nil), cur...))
			}
			return
		}
		rest := teams - i - 1
		for s := min(cap, hi, left-rest*lo); s >= lo; s-- {
			if left-s > rest*s { // later teams are no bigger than s
				break
			}
			cur[i] = s
			rec(i+1, left-s, s)
		}
	}
	rec(0, n, hi)
	sort.SliceStable(out, func(i, j int) bool {
		return out[i][0]-out[i][teams-1] < out[j][0]-out[j][teams-1]
	})
	if len(out) > maxSplits {
		out = out[:maxSplits]
	}
	return out
}

// imbalance is the objective for team sums sum[t*nattr+a] and sizes.
func imbalance(sum []float64, sizes []int, nattr int) float64 {
	obj := 0.0
	for a := 0; a < nattr; a++ {
		hiAvg, loAvg := math.Inf(-1), math.Inf(1)
		for t, s := range sizes {
			avg := 0.0
			if s > 0 {
				avg = sum[t*nattr+a] / float64(s)
			}
			hiAvg = max(hiAvg, avg)
			loAvg = min(loAvg, avg)
		}
		obj += hiAvg - loAvg
	}
	return obj
}

// partyOrder sorts party indexes largest first, then strongest first: big
// and extreme parties constrain the most, so placing them first prunes
// earliest.
func (b *balancer) partyOrder(parties []bparty) []int {
	b.idx = b.idx[:0]
	b.mag = grow(b.mag, len(parties))
	for i, p := range parties {
		b.idx = append(b.idx, i)
		for _, v := range p.vals {
			b.mag[i] += math.Abs(v)
		}
	}
	idx, mag := b.idx, b.mag
	slices.SortStableFunc(idx, func(x, y int) int {
		px, py := parties[x].size, parties[y].size
		switch {
		case px != py:
			return py - px
		case mag[x] > mag[y]:
			return -1
		case mag[x] < mag[y]:
			return 1
		}
		return 0
	})
	return idx
}

const eps = 1e-12

// exact finds the assignment of minimum imbalance for fixed team sizes among
// those accept allows.
func (b *balancer) exact(parties []bparty, nattr int, sizes []int, accept func([]int) bool, budget int) balanceResult {
	n, T := len(parties), len(sizes)
	// A heuristic answer, when acceptable, gives the bound a head start.
	h := b.heuristic(parties, nattr, sizes)
	b.bestAt = b.bestAt[:0]
	b.best = math.Inf(1)
	b.bestTie = -1
	if h.ok && b.allOK(h.team, len(sizes), accept) {
		b.best = h.obj
		b.bestAt = append(b.bestAt, h.team...)
		b.bestTie = b.tieScore(h.team)
	}
	b.perm = append(b.perm[:0], b.partyOrder(parties)...)
	b.sizes, b.nattr, b.accept, b.budget, b.nodes, b.cut = sizes, nattr, accept, budget, 0, false
	b.cnt = grow(b.cnt, T)
	b.sum = grow(b.sum, T*nattr)
	b.rem = grow(b.rem, (n+1)*nattr)
	b.remSigned = grow(b.remSigned, (n+1)*nattr)
	b.cur = grow(b.cur, n)
	b.out = grow(b.out, n)
	for k := range b.out {
		b.out[k] = -1
	}
	b.order = grow(b.order, (n+1)*T)
	b.ps = b.ps[:0]
	for _, pi := range b.perm {
		b.ps = append(b.ps, parties[pi])
	}
	for i := n - 1; i >= 0; i-- {
		for a := 0; a < nattr; a++ {
			b.rem[i*nattr+a] = b.rem[(i+1)*nattr+a] + math.Abs(b.ps[i].vals[a])
			b.remSigned[i*nattr+a] = b.remSigned[(i+1)*nattr+a] + b.ps[i].vals[a]
		}
	}
	if b.best > eps || b.tieOpen() {
		b.dfs(0)
	}
	b.accept = nil
	if len(b.bestAt) == 0 {
		return balanceResult{}
	}
	return balanceResult{team: b.bestAt, sizes: sizes, obj: b.best, exact: !b.cut, ok: true}
}

func (b *balancer) dfs(i int) {
	b.nodes++
	if b.nodes > b.budget {
		b.cut = true
		return
	}
	if i == len(b.ps) {
		obj := imbalance(b.sum, b.sizes, b.nattr)
		better := obj < b.best-eps
		if !better && !(b.tieOpen() && obj <= b.best+eps) {
			return
		}
		if b.accept != nil && !b.accept(b.out) {
			return
		}
		s := b.tieScore(b.out)
		if better || s > b.bestTie {
			b.best, b.bestTie = obj, s
			b.bestAt = append(b.bestAt[:0], b.out...)
		}
		return
	}
	if lb := b.bound(i); lb >= b.best-eps && !(b.tieOpen() && lb <= b.best+eps) {
		return
	}
	T := len(b.sizes)
	ord := b.order[i*T : (i+1)*T]
	for t := range ord {
		ord[t] = t
	}
	if b.nattr > 0 {
		// Weakest team first on the first attribute: finds good
		// answers early, which tightens the bound. (Insertion sort: a
		// handful of teams, and no allocation.)
		for x := 1; x < len(ord); x++ {
			for y := x; y > 0; y-- {
				tx, ty := ord[y], ord[y-1]
				if b.sum[tx*b.nattr]*float64(b.sizes[ty]) >= b.sum[ty*b.nattr]*float64(b.sizes[tx]) {
					break
				}
				ord[y], ord[y-1] = ty, tx
			}
		}
	}
	p := &b.ps[i]
	for _, t := range ord {
		if b.cnt[t]+p.size > b.sizes[t] {
			continue
		}
		if b.cnt[t] == 0 && b.emptyTwinBefore(t) {
			continue
		}
		b.cnt[t] += p.size
		for a := 0; a < b.nattr; a++ {
			b.sum[t*b.nattr+a] += p.vals[a]
		}
		b.cur[i] = t
		b.out[b.perm[i]] = t
		if b.cnt[t] != b.sizes[t] || b.teamOK == nil || b.teamOK(b.out, t) {
			b.dfs(i + 1)
		}
		b.out[b.perm[i]] = -1
		b.cnt[t] -= p.size
		for a := 0; a < b.nattr; a++ {
			b.sum[t*b.nattr+a] -= p.vals[a]
		}
		if b.cut || (b.best <= eps && !b.tieOpen()) {
			return
		}
	}
}

// emptyTwinBefore reports whether an empty team of the same target size
// comes before t: empty teams of one size are interchangeable, so only the
// first is tried.
func (b *balancer) emptyTwinBefore(t int) bool {
	if b.named {
		return false
	}
	for u := 0; u < t; u++ {
		if b.cnt[u] == 0 && b.sizes[u] == b.sizes[t] {
			return true
		}
	}
	return false
}

// bound is a lower bound on the imbalance of any completion. Each team's
// final sum lies within the remaining parties' total absolute value of its
// current sum — exactly its current sum once the team is full — and, since
// the teams' averages, weighted by size, average out to the overall average,
// the highest final average is at least that and the lowest at most that.
func (b *balancer) bound(i int) float64 {
	lb := 0.0
	for a := 0; a < b.nattr; a++ {
		A := b.rem[i*b.nattr+a]
		hiLow, loHigh := math.Inf(-1), math.Inf(1)
		total, players := 0.0, 0
		for t, size := range b.sizes {
			sz := float64(size)
			v := b.sum[t*b.nattr+a]
			slack := A
			if b.cnt[t] == size {
				slack = 0
			}
			hiLow = max(hiLow, (v-slack)/sz)
			loHigh = min(loHigh, (v+slack)/sz)
			total += v
			players += size
		}
		mean := (total + b.remSigned[i*b.nattr+a]) / float64(players)
		hiLow, loHigh = max(hiLow, mean), min(loHigh, mean)
		if d := hiLow - loHigh; d > 0 {
			lb += d
		}
	}
	return lb
}

// mitm is the exact search for two teams, by meet in the middle. With two
// teams of s0 and s1 players the imbalance is linear in team 0's sums S:
//
//	Σ_a |S_a/s0 − (Tot_a − S_a)/s1| = c · Σ_a |S_a − τ_a|,
//	c = 1/s0 + 1/s1,  τ_a = Tot_a · s0/(s0+s1)
//
// so the parties are split in two halves, every subset of each half is
// listed with its size and sums, and for each subset x of the first half the
// subsets y of the second with size s0−|x| are searched by their first sum
// around τ_0 − x_0, walking outward until c·|y_0 − (τ_0 − x_0)| alone cannot
// beat the best found. At most 2·2^12 subsets for 24 parties (12 against 12
// solos): a millisecond where branch and bound may take a hundred.
func (b *balancer) mitm(parties []bparty, nattr int, sizes []int, accept func([]int) bool) balanceResult {
	n := len(parties)
	s0, s1 := sizes[0], sizes[1]
	h := n / 2
	nb := n - h
	tot := make([]float64, nattr)
	for _, p := range parties {
		for a := 0; a < nattr; a++ {
			tot[a] += p.vals[a]
		}
	}
	c := 1/float64(s0) + 1/float64(s1)
	tau := make([]float64, nattr)
	for a := range tau {
		tau[a] = tot[a] * float64(s0) / float64(s0+s1)
	}
	// The heuristic's answer, when acceptable, is the bound to beat.
	best := math.Inf(1)
	b.bestAt = b.bestAt[:0]
	b.bestTie = -1
	if hr := b.heuristic(parties, nattr, sizes); hr.ok && b.allOK(hr.team, 2, accept) {
		best = hr.obj
		b.bestAt = append(b.bestAt, hr.team...)
		b.bestTie = b.tieScore(hr.team)
	}
	// Subsets of the second half: size and sums, grouped by size and
	// sorted by the first sum.
	nsub := 1 << nb
	b.subSize = grow(b.subSize, nsub)
	b.subSum = grow(b.subSum, nsub*nattr)
	for m := 1; m < nsub; m++ {
		low := m & -m
		prev := m ^ low
		i := h + bitIndex(low)
		b.subSize[m] = b.subSize[prev] + parties[i].size
		for a := 0; a < nattr; a++ {
			b.subSum[m*nattr+a] = b.subSum[prev*nattr+a] + parties[i].vals[a]
		}
	}
	b.bySize = grow(b.bySize, s0+1)
	for z := range b.bySize {
		b.bySize[z] = b.bySize[z][:0]
	}
	for m := 0; m < nsub; m++ {
		if z := b.subSize[m]; z <= s0 {
			b.bySize[z] = append(b.bySize[z], int32(m))
		}
	}
	if nattr > 0 {
		for z := range b.bySize {
			list := b.bySize[z]
			slices.SortFunc(list, func(x, y int32) int {
				vx, vy := b.subSum[int(x)*nattr], b.subSum[int(y)*nattr]
				switch {
				case vx < vy:
					return -1
				case vx > vy:
					return 1
				}
				return 0
			})
		}
	}
	b.out = grow(b.out, n)
	t := make([]float64, nattr)
	x := make([]float64, nattr)
	// try records the split (ma, mb), of imbalance o, as the best if it
	// is more even than the best, or as even and ranked higher by the
	// tie-break, and the team rules accept it.
	try := func(ma, mb int, o float64) bool {
		better := o < best-eps
		if !better && !(b.tieOpen() && o <= best+eps) {
			return false
		}
		for k := 0; k < n; k++ {
			b.out[k] = 1
		}
		for k := 0; k < h; k++ {
			if ma&(1<<k) != 0 {
				b.out[k] = 0
			}
		}
		for k := 0; k < nb; k++ {
			if mb&(1<<k) != 0 {
				b.out[h+k] = 0
			}
		}
		if !b.allOK(b.out, 2, accept) {
			return false
		}
		s := b.tieScore(b.out)
		if !better && s <= b.bestTie {
			return false
		}
		b.bestAt = append(b.bestAt[:0], b.out...)
		best, b.bestTie = o, s
		return true
	}
	for ma := 0; ma < 1<<h && (best > eps || b.tieOpen()); ma++ {
		k := 0
		clear(x)
		for i := 0; i < h; i++ {
			if ma&(1<<i) != 0 {
				k += parties[i].size
				for a := 0; a < nattr; a++ {
					x[a] += parties[i].vals[a]
				}
			}
		}
		if k > s0 {
			continue
		}
		list := b.bySize[s0-k]
		if nattr == 0 {
			// Nothing to balance: the first acceptable split will do.
			for _, mb := range list {
				if try(ma, int(mb), 0) && !b.tieOpen() {
					break
				}
			}
			continue
		}
		for a := range t {
			t[a] = tau[a] - x[a]
		}
		pos, _ := slices.BinarySearchFunc(list, t[0], func(m int32, v float64) int {
			switch y := b.subSum[int(m)*nattr]; {
			case y < v:
				return -1
			case y > v:
				return 1
			}
			return 0
		})
		for dir := -1; dir <= 1; dir += 2 {
			i := pos
			if dir < 0 {
				i = pos - 1
			}
			for ; i >= 0 && i < len(list); i += dir {
				mb := int(list[i])
				if lb := c * math.Abs(b.subSum[mb*nattr]-t[0]); lb >= best-eps && !(b.tieOpen() && lb <= best+eps) {
					break
				}
				o := 0.0
				for a := 0; a < nattr; a++ {
					o += math.Abs(b.subSum[mb*nattr+a] - t[a])
				}
				try(ma, mb, o*c)
			}
		}
	}
	if len(b.bestAt) == 0 {
		return balanceResult{}
	}
	// Recompute the objective from the assignment, so the result is
	// exactly what imbalance says.
	b.hsum = grow(b.hsum, 2*nattr)
	for k, tm := range b.bestAt {
		for a := 0; a < nattr; a++ {
			b.hsum[tm*nattr+a] += parties[k].vals[a]
		}
	}
	return balanceResult{team: b.bestAt, sizes: sizes, obj: imbalance(b.hsum, sizes, nattr), exact: true, ok: true}
}

func bitIndex(low int) int {
	i := 0
	for low > 1 {
		low >>= 1
		i++
	}
	return i
}

// heuristic is the greedy-plus-local-search assignment used for big teams
// (and as the exact search's first incumbent).
func (b *balancer) heuristic(parties []bparty, nattr int, sizes []int) balanceResult {
	n, T := len(parties), len(sizes)
	b.hteam = grow(b.hteam, n)
	b.hcnt = grow(b.hcnt, T)
	b.hsum = grow(b.hsum, T*nattr)
	team, cnt, sum := b.hteam, b.hcnt, b.hsum
	strength := func(t int) float64 {
		v := 0.0
		for a := 0; a < nattr; a++ {
			v += sum[t*nattr+a]
		}
		return v / float64(sizes[t])
	}
	for _, pi := range b.partyOrder(parties) {
		p := parties[pi]
		best := -1
		for t := 0; t < T; t++ {
			if cnt[t]+p.size > sizes[t] {
				continue
			}
			if best < 0 || strength(t) < strength(best) ||
				(strength(t) == strength(best) && sizes[t]-cnt[t] > sizes[best]-cnt[best]) {
				best = t
			}
		}
		if best < 0 {
			return balanceResult{}
		}
		team[pi] = best
		cnt[best] += p.size
		for a := 0; a < nattr; a++ {
			sum[best*nattr+a] += p.vals[a]
		}
	}
	for t := range cnt {
		if cnt[t] != sizes[t] {
			return balanceResult{}
		}
	}
	obj := imbalance(sum, sizes, nattr)
	if nattr > 0 {
		obj = localSearch(parties, nattr, sizes, team, sum, obj)
	}
	return balanceResult{team: team, sizes: sizes, obj: obj, ok: true}
}

// localSearch improves an assignment by swaps that keep team sizes: a party
// against an equal-sized party of another team, or a party against two
// parties of one other team whose sizes add up to it. It applies the best
// improving swap until none improves by more than eps.
func localSearch(parties []bparty, nattr int, sizes []int, team []int, sum []float64, obj float64) float64 {
	n := len(parties)
	move := func(i, from, to int, sign float64) {
		for a := 0; a < nattr; a++ {
			sum[from*nattr+a] -= sign * parties[i].vals[a]
			sum[to*nattr+a] += sign * parties[i].vals[a]
		}
	}
	// try evaluates moving i to k's team and j (and k when >= 0) to i's.
	try := func(i, j, k int) float64 {
		ti, tj := team[i], team[j]
		move(i, ti, tj, 1)
		move(j, tj, ti, 1)
		if k >= 0 {
			move(k, tj, ti, 1)
		}
		o := imbalance(sum, sizes, nattr)
		move(i, ti, tj, -1)
		move(j, tj, ti, -1)
		if k >= 0 {
			move(k, tj, ti, -1)
		}
		return o
	}
	pairs := n <= 64
	for round := 0; round < 256; round++ {
		bestObj, bi, bj, bk := obj, -1, -1, -1
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if team[i] == team[j] {
					continue
				}
				if j > i && parties[i].size == parties[j].size {
					if o := try(i, j, -1); o < bestObj-eps {
						bestObj, bi, bj, bk = o, i, j, -1
					}
				}
				if !pairs || parties[j].size >= parties[i].size {
					continue
				}
				for k := j + 1; k < n; k++ {
					if team[k] != team[j] || parties[i].size != parties[j].size+parties[k].size {
						continue
					}
					if o := try(i, j, k); o < bestObj-eps {
						bestObj, bi, bj, bk = o, i, j, k
					}
				}
			}
		}
		if bi < 0 {
			break
		}
		ti, tj := team[bi], team[bj]
		move(bi, ti, tj, 1)
		move(bj, tj, ti, 1)
		team[bi], team[bj] = tj, ti
		if bk >= 0 {
			move(bk, tj, ti, 1)
			team[bk] = ti
		}
		obj = bestObj
	}
	return obj
}
