package ticketsvc

// recentPairs remembers which players recently faced each other in a pool,
// so the engine's quality score can prefer fresh opponents (the War
// Robots article's "variety"). It is bounded: the oldest pairs are forgotten first. Only the
// pool's goroutine touches it.
type recentPairs struct {
	max   int
	set   map[pairKey]struct{}
	order []pairKey // ring buffer of insertion order
	next  int
}

type pairKey struct{ a, b string }

func newRecentPairs(max int) *recentPairs {
	return &recentPairs{max: max, set: make(map[pairKey]struct{})}
}

func key(a, b string) pairKey {
	if b < a {
		a, b = b, a
	}
	return pairKey{a, b}
}

// met reports whether a and b faced each other recently.
func (r *recentPairs) met(a, b string) bool {
	_, ok := r.set[key(a, b)]
	return ok
}

// add records that a and b faced each other, forgetting the oldest pair
// when full.
func (r *recentPairs) add(a, b string) {
	k := key(a, b)
	if _, ok := r.set[k]; ok {
		return
	}
	if len(r.order) < r.max {
		r.order = append(r.order, k)
	} else {
		delete(r.set, r.order[r.next])
		r.order[r.next] = k
		r.next = (r.next + 1) % r.max
	}
	r.set[k] = struct{}{}
}

// addMatch records every pair of players on different teams.
func (r *recentPairs) addMatch(teams [][]string) {
	for i := range teams {
		for j := i + 1; j < len(teams); j++ {
			for _, a := range teams[i] {
				for _, b := range teams[j] {
					r.add(a, b)
				}
			}
		}
	}
}
