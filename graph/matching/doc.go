// Package matching finds maximum cardinality matchings in general
// (non-bipartite) graphs with Edmonds' blossom algorithm.
//
// Cupid's speed-dating rounds (package pairing) need the largest possible
// set of disjoint pairs among the people in a lobby, where a pair is allowed
// when neither person remembers meeting the other. That graph is dense: it
// is the complement of a sparse "has met" graph. The package therefore works
// on any Graph — an explicit adjacency list (Sparse), the complement of a
// sparse list of missing pairs (Complement), or a caller's own type — and
// never materialises the dense edge set.
//
// Maximum builds a good greedy matching first (lowest degree first) and then
// searches augmenting paths only from the vertices the greedy pass left
// free, so on dense graphs almost all of the work is the greedy pass.
//
// Among all maximum matchings, Maximum can prefer covering vertices of
// higher priority. The sets of vertices covered by some matching are the
// independent sets of a matroid (the matching matroid), so covering vertices
// greedily in priority order is exact: the covered set of the result is
// lexicographically best by priority among the covered sets of all maximum
// matchings. Ties are broken with a caller-supplied seeded *rand.Rand, so
// results vary between calls yet replay exactly.
//
// Verify checks a matching and proves it maximum with a Tutte–Berge
// certificate, independently of how the matching was found.
//
// The package does no I/O, starts no goroutines and is deterministic for a
// given graph, options and random source.
package matching
