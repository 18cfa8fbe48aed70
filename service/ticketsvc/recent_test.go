package ticketsvc

import "testing"

func TestRecentPairsForgetsOldestFirst(t *testing.T) {
	r := newRecentPairs(3)
	r.addMatch([][]string{{"a"}, {"b", "c"}}) // a-b, a-c
	r.add("d", "e")
	if !r.met("b", "a") || !r.met("a", "c") || !r.met("e", "d") {
		t.Fatal("recorded pairs not found (either order)")
	}
	if r.met("b", "c") {
		t.Fatal("teammates b and c recorded as opponents")
	}
	r.add("f", "g") // evicts a-b, the oldest
	if r.met("a", "b") {
		t.Fatal("the oldest pair was not forgotten")
	}
	if !r.met("a", "c") || !r.met("f", "g") || len(r.set) != 3 {
		t.Fatalf("after eviction: set %v", r.set)
	}
	r.add("c", "a") // already known: no eviction
	if !r.met("d", "e") {
		t.Fatal("re-adding a known pair evicted another")
	}
}
