package engine

import "testing"

func TestSmoke1v1(t *testing.T) {
	p := newPool(t, `{"alliance":{"min_number":2,"max_number":2,"player_min_number":1,"player_max_number":1},
	"matching_rule":[{"attribute":"mmr","criteria":"distance","reference":100}]}`)
	ticket("a", 0).num("mmr", 1000).add(t, p)
	ticket("b", 1).num("mmr", 1050).add(t, p)
	ticket("c", 2).num("mmr", 1300).add(t, p)
	props := p.Step(at(3))
	t.Logf("%v", matchIDs(props))
	for _, pr := range props {
		t.Logf("%+v", pr.Match.Quality)
	}
	if len(props) != 1 || p.Len() != 1 {
		t.Fatalf("got %v, len %d", matchIDs(props), p.Len())
	}
	x, ok := p.Explain("c", at(3))
	t.Logf("%v %+v", ok, x)
}
