package matching

import (
	"math/rand/v2"
	"slices"
)

// greedy extends the matching in mate to a maximal one. Vertices are taken
// in increasing order of degree (random among equal degrees), because a
// vertex with few neighbours is the one most likely to be stranded if left
// for later; each takes, among a few free neighbours, the one of lowest
// degree for the same reason.
//
// Finding a free neighbour is done one of two ways. In a sparse graph the
// vertex lists its neighbours. In a dense graph listing thousands of
// neighbours per vertex would cost O(n²), so instead it probes the list of
// still-free vertices, starting at a random place, with Adjacent: when
// most pairs are edges the first probes succeed. Probing is capped at the
// vertex's degree, after which it falls back to listing neighbours, so the
// cost per vertex is O(degree) at worst.
func greedy(g Graph, mate []int32, rng *rand.Rand) {
	n := len(mate)
	deg := make([]int32, n)
	order := make([]int32, 0, n)
	for v := range n {
		deg[v] = int32(g.Degree(v))
		if mate[v] == none && deg[v] > 0 {
			order = append(order, int32(v))
		}
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	slices.SortStableFunc(order, func(a, b int32) int { return int(deg[a]) - int(deg[b]) })

	// freeList holds the vertices still free, pos their places in it, so a
	// vertex can be removed in O(1) by swapping with the last one.
	freeList := slices.Clone(order)
	pos := make([]int32, n)
	for i, v := range freeList {
		pos[v] = int32(i)
	}
	remove := func(v int32) {
		i := pos[v]
		last := freeList[len(freeList)-1]
		freeList[i] = last
		pos[last] = i
		freeList = freeList[:len(freeList)-1]
	}

	const wantCandidates = 4 // free neighbours compared by degree in a dense graph
	// best and ties describe the partner chosen so far for the current
	// vertex; consider is made once, outside the loop, so as not to
	// allocate a closure per vertex.
	var best int32
	var ties int
	consider := func(v int32) {
		switch {
		case best == none || deg[v] < deg[best]:
			best, ties = v, 1
		case deg[v] == deg[best]:
			// Reservoir choice among equal degrees.
			ties++
			if rng.IntN(ties) == 0 {
				best = v
			}
		}
	}
	for _, u := range order {
		if mate[u] != none {
			continue
		}
		best, ties = none, 0
		d := int(deg[u])
		if int64(d)*int64(d) > 8*int64(n) {
			// Dense: probe free vertices with Adjacent.
			k := len(freeList)
			found, probed := 0, 0
			if k > 1 {
				at := rng.IntN(k)
				for ; probed < k && probed <= d && found < wantCandidates; probed++ {
					v := freeList[(at+probed)%k]
					if v != u && g.Adjacent(int(u), int(v)) {
						consider(v)
						found++
					}
				}
			}
			if found == 0 && probed < k {
				// Probing gave up before seeing every free vertex.
				for vi := range g.Neighbors(int(u)) {
					if v := int32(vi); mate[v] == none {
						consider(v)
					}
				}
			}
		} else {
			for vi := range g.Neighbors(int(u)) {
				if v := int32(vi); mate[v] == none {
					consider(v)
				}
			}
		}
		if best == none {
			remove(u)
			continue
		}
		mate[u], mate[best] = best, u
		remove(u)
		remove(best)
	}
}
