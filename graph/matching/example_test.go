package matching_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/cupid-match/cupid/graph/matching"
)

// The pairing workload: five people may meet anyone except those they have
// met before; one must sit out. Person 4 sat out last round and has
// priority, so this time someone else does.
func ExampleMaximum() {
	met := []matching.Edge{{U: 0, V: 1}, {U: 2, V: 3}, {U: 0, V: 4}}
	g := matching.NewComplement(5, met)
	m := matching.Maximum(g, matching.Options{
		Priority: []int{0, 0, 0, 0, 1},
		Rand:     rand.New(rand.NewPCG(1, 2)),
	})
	fmt.Println(m.Size(), "pairs; 4 paired:", m[4] != matching.Unmatched)
	fmt.Println(matching.Verify(g, m))
	// Output:
	// 2 pairs; 4 paired: true
	// <nil>
}
