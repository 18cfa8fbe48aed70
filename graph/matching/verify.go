package matching

import "fmt"

// Verify checks that m is a matching of g and that it is maximum, and says
// what is wrong if not. It exists so that callers and tests can trust a
// result without trusting the code that produced it.
//
// Maximality is proved with a Tutte–Berge certificate: a vertex set A such
// that the number of odd components of g−A, minus |A|, equals the number of
// vertices m leaves free. No matching can leave fewer vertices free than
// that, so m is maximum. A is found with one blossom search grown from all
// free vertices at once (its odd vertices, by the Gallai–Edmonds theorem),
// but the certificate is then checked by plain component counting, so a bug
// in the search could only make Verify fail, never pass wrongly.
//
// It costs O(n + number of edges); on a dense implicit graph that is
// quadratic in n.
func Verify(g Graph, m Matching) error {
	n := g.Order()
	if len(m) != n {
		return fmt.Errorf("matching has %d entries for %d vertices", len(m), n)
	}
	free := 0
	for v, w := range m {
		switch {
		case w == Unmatched:
			free++
		case w < 0 || w >= n:
			return fmt.Errorf("vertex %d matched to %d, outside the graph", v, w)
		case w == v:
			return fmt.Errorf("vertex %d matched to itself", v)
		case m[w] != v:
			return fmt.Errorf("vertex %d matched to %d, but %d matched to %d", v, w, w, m[w])
		case !g.Adjacent(v, w):
			return fmt.Errorf("vertices %d and %d matched but not adjacent", v, w)
		}
	}

	s := newSearch(g)
	for v, w := range m {
		s.mate[v] = int32(w)
	}
	for v := range n {
		if s.mate[v] == none {
			s.makeEven(int32(v), true)
		}
	}
	if s.grow() != exhausted {
		return fmt.Errorf("not maximum: an augmenting path joins two of the %d free vertices", free)
	}
	inA := make([]bool, n)
	sizeA := 0
	for v := range n {
		if s.label[v] == odd {
			inA[v] = true
			sizeA++
		}
	}
	oddComponents := 0
	seen := make([]bool, n)
	var stack []int
	for r := range n {
		if inA[r] || seen[r] {
			continue
		}
		size := 0
		seen[r] = true
		stack = append(stack[:0], r)
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			size++
			for w := range g.Neighbors(u) {
				if !inA[w] && !seen[w] {
					seen[w] = true
					stack = append(stack, w)
				}
			}
		}
		if size%2 == 1 {
			oddComponents++
		}
	}
	if oddComponents-sizeA != free {
		return fmt.Errorf("no certificate of maximality: %d free vertices, barrier of %d leaves %d odd components",
			free, sizeA, oddComponents)
	}
	return nil
}
