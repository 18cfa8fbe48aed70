package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestIDTableMatchesMap drives the id table and a Go map with the same
// random sets and deletes, over small tables so runs wrap around.
func TestIDTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	entries := make([]entry, 4000)
	for i := range entries {
		entries[i].id = fmt.Sprintf("id%d", rng.IntN(600))
	}
	tab := newIDTable(0)
	ref := map[string]int32{}
	for step := 0; step < 200000; step++ {
		s := int32(rng.IntN(len(entries)))
		id := entries[s].id
		if rng.IntN(3) == 0 {
			tab.deleteIf(id, s, entries)
			if cur, ok := ref[id]; ok && cur == s {
				delete(ref, id)
			}
		} else {
			tab.set(id, s, entries)
			ref[id] = s
		}
		if tab.n != len(ref) {
			t.Fatalf("step %d: %d ids, want %d", step, tab.n, len(ref))
		}
		probe := entries[rng.IntN(len(entries))].id
		got, ok := tab.get(probe, entries)
		want, wok := ref[probe]
		if ok != wok || got != want {
			t.Fatalf("step %d: get(%q) = %d, %v; want %d, %v", step, probe, got, ok, want, wok)
		}
	}
}
