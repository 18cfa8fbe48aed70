package matching

// This file holds Edmonds' blossom search: growing alternating trees from
// free vertices, shrinking odd cycles (blossoms) into their base with a
// union-find, and flipping the paths found.
//
// Labels: a vertex reached from a root by an alternating path of even length
// is even (outer); the vertex before it on the tree, reached by an odd path,
// is odd (inner). An edge between two even vertices of the same tree closes
// an odd cycle; every vertex on that cycle can then be reached by an even
// path (going round the other way), so the cycle is shrunk into one even
// blossom whose base is the cycle's vertex nearest the root.
//
// Paths are kept in pred: for an odd vertex, pred is the even vertex that
// reached it; shrinking a blossom re-points pred along the cycle so that,
// from any vertex x that is even, walking "mate, pred, mate, pred, …" from
// mate[x] traces a simple alternating path back to the root. flip walks that
// chain and exchanges matched and unmatched edges along it.

const (
	unlabelled uint8 = iota
	even
	odd
)

const none = int32(-1)

// search holds the matching being improved and the scratch state of one
// alternating-forest search. Scratch state is reset only for the vertices a
// search touched, so a short search in a big graph costs little.
type search struct {
	g       Graph
	mate    []int32
	label   []uint8
	pred    []int32
	base    []int32 // union-find parent; a root of the union-find is a blossom base
	mark    []uint32
	stamp   uint32
	dead    []bool // vertices removed from later searches (see Maximum)
	queue   []int32
	touched []int32

	// want, when set, is asked about every vertex that becomes even other
	// than a root; the search stops once it answers true and records the
	// vertex in hit. The priority pass uses it to find an even alternating
	// path to a vertex it may uncover.
	want func(x int32) bool
	hit  int32
	// work counts the neighbours the searches looked at, for callers that
	// bound their time (Trio).
	work int
}

func newSearch(g Graph) *search {
	n := g.Order()
	s := &search{
		g:     g,
		mate:  make([]int32, n),
		label: make([]uint8, n),
		pred:  make([]int32, n),
		base:  make([]int32, n),
		mark:  make([]uint32, n),
		dead:  make([]bool, n),
		hit:   none,
	}
	for i := range n {
		s.mate[i] = none
		s.pred[i] = none
		s.base[i] = int32(i)
	}
	return s
}

func (s *search) touch(v int32) {
	if s.label[v] == unlabelled {
		s.touched = append(s.touched, v)
	}
}

// reset clears the scratch state left by the last search.
func (s *search) reset() {
	for _, v := range s.touched {
		s.label[v] = unlabelled
		s.pred[v] = none
		s.base[v] = v
	}
	s.touched = s.touched[:0]
	s.queue = s.queue[:0]
	s.hit = none
}

// find returns the base of the blossom holding v, halving paths as it goes.
func (s *search) find(v int32) int32 {
	for s.base[v] != v {
		s.base[v] = s.base[s.base[v]]
		v = s.base[v]
	}
	return v
}

// makeEven labels x even and queues it for scanning; it reports whether the
// want hook asked to stop.
func (s *search) makeEven(x int32, isRoot bool) bool {
	s.touch(x)
	s.label[x] = even
	s.queue = append(s.queue, x)
	if !isRoot && s.want != nil && s.hit == none && s.want(x) {
		s.hit = x
		return true
	}
	return false
}

// ancestor returns the base of the smallest blossom that would contain both
// blossom bases a and b, walking up both tree paths in turn; it returns none
// when a and b lie in different trees (then an augmenting path joins them).
func (s *search) ancestor(a, b int32) int32 {
	s.stamp++
	if s.stamp == 0 { // wrapped: clear old marks so none matches by accident
		clear(s.mark)
		s.stamp = 1
	}
	for a != none || b != none {
		if a != none {
			if s.mark[a] == s.stamp {
				return a
			}
			s.mark[a] = s.stamp
			if m := s.mate[a]; m == none {
				a = none // reached a root
			} else {
				a = s.find(s.pred[m])
			}
		}
		a, b = b, a
	}
	return none
}

// shrink walks from the even vertex x up to the blossom base top, pointing
// pred across the closing edge (towards y) and merging every blossom and odd
// vertex on the way into top. Odd vertices on the way become even.
func (s *search) shrink(x, y, top int32) {
	for s.find(x) != top {
		s.pred[x] = y
		y = s.mate[x]
		if s.label[y] == odd {
			s.makeEven(y, false)
		}
		if s.find(x) == x {
			s.base[x] = top
		}
		if s.find(y) == y {
			s.base[y] = top
		}
		x = s.pred[y]
	}
}

// outcome says how a search ended.
type outcome int

const (
	exhausted outcome = iota // every even vertex scanned; nothing found
	augmented                // an augmenting path was found and flipped
	wanted                   // the want hook accepted a vertex (s.hit)
	crossed                  // two trees met (only with several roots)
)

// grow scans the queued even vertices until it augments, the want hook
// fires, two trees meet, or the forest can grow no more. Dead vertices are
// invisible to it.
func (s *search) grow() outcome {
	for qi := 0; qi < len(s.queue); qi++ {
		u := s.queue[qi]
		result := exhausted
		for wi := range s.g.Neighbors(int(u)) {
			s.work++
			w := int32(wi)
			if s.dead[w] {
				continue
			}
			bu, bw := s.find(u), s.find(w)
			if bu == bw {
				continue
			}
			switch s.label[w] {
			case unlabelled:
				if s.mate[w] == none {
					// A free vertex that is no root: augment through u.
					s.touch(w)
					s.label[w] = odd
					s.pred[w] = u
					s.flip(w)
					s.hit = w
					result = augmented
				} else {
					s.touch(w)
					s.label[w] = odd
					s.pred[w] = u
					if s.makeEven(s.mate[w], false) {
						result = wanted
					}
				}
			case even:
				top := s.ancestor(bu, bw)
				if top == none {
					result = crossed
					break
				}
				s.shrink(u, w, top)
				s.shrink(w, u, top)
				if s.hit != none {
					result = wanted
				}
			}
			if result != exhausted {
				break
			}
		}
		if result != exhausted {
			return result
		}
	}
	return exhausted
}

// flip walks the pred/mate chain from w, which is to be matched to pred[w],
// exchanging matched and unmatched edges up to the root.
func (s *search) flip(w int32) {
	for w != none {
		p := s.pred[w]
		next := s.mate[p]
		s.mate[w] = p
		s.mate[p] = w
		w = next
	}
}

// augmentFrom searches for an augmenting path from the free vertex root and
// flips it if found. When none exists it leaves the search labels in place
// (the caller may read the Hungarian tree) until the next reset.
func (s *search) augmentFrom(root int32) bool {
	s.reset()
	s.makeEven(root, true)
	return s.grow() == augmented
}
