package engine

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

const flexDuel = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
	"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}],
	"flexing_rule": [
		{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 200},
		{"duration": 20, "attribute": "mmr", "criteria": "distance", "reference": 400}]}`

func TestNextWake(t *testing.T) {
	p := newPool(t, flexDuel)
	if _, ok := p.NextWake(at(0)); ok {
		t.Fatal("empty pool should not wake")
	}
	ticket("a", 0).num("mmr", 1000).add(t, p)
	if _, ok := p.NextWake(at(0)); ok {
		t.Fatal("one player can never make a duel: no wake")
	}
	ticket("b", 3).num("mmr", 1300).add(t, p)
	if w, ok := p.NextWake(at(3)); !ok || !w.Equal(at(3)) {
		t.Fatalf("unstepped arrivals: wake now, got %v %v", w, ok)
	}
	if props := p.Step(at(3)); len(props) != 0 {
		t.Fatal("300 apart: no match yet")
	}
	// a reaches 10 s first; b at 13 s.
	w, ok := p.NextWake(at(3))
	if !ok || !w.Equal(at(10)) {
		t.Fatalf("wake %v, want 10 s", w)
	}
	if props := p.Step(at(10)); len(props) != 0 {
		t.Fatal("200 allowed at 10 s: still no match")
	}
	if w, _ = p.NextWake(at(10)); !w.Equal(at(13)) {
		t.Fatalf("wake %v, want 13 s (b's first step)", w)
	}
	p.Step(at(13))
	if w, _ = p.NextWake(at(13)); !w.Equal(at(20)) {
		t.Fatalf("wake %v, want 20 s", w)
	}
	if props := p.Step(at(20)); len(props) != 1 {
		t.Fatal("400 allowed at 20 s: match")
	}
	if _, ok := p.NextWake(at(20)); ok {
		t.Fatal("empty again")
	}
}

func TestStepIsIncremental(t *testing.T) {
	p := newPool(t, flexDuel)
	for i, v := range []float64{1000, 1500, 2000, 2500} {
		ticket(string(rune('a'+i)), 0).num("mmr", v).add(t, p)
	}
	p.Step(at(1))
	tries := p.Stats().AnchorTries
	if tries != 4 {
		t.Fatalf("first pass tried %d anchors, want 4", tries)
	}
	// Nothing new, no relaxation passed: nothing to try.
	p.Step(at(2))
	if got := p.Stats().AnchorTries; got != tries {
		t.Fatalf("idle step tried %d anchors", got-tries)
	}
	// A newcomer near c wakes only tickets whose window holds it.
	ticket("e", 2).num("mmr", 2050).add(t, p)
	props := p.Step(at(3))
	if got := matchIDs(props); len(got) != 1 || got[0] != "c|e" {
		t.Fatalf("matches %v", got)
	}
	if got := p.Stats().AnchorTries - tries; got > 2 {
		t.Fatalf("arrival woke %d anchors, want at most 2 (c and e)", got)
	}
}

func TestNewcomerCompletesOldAnchor(t *testing.T) {
	// a has waited 20 s (400 allowed); b is new (100 allowed) and 300
	// away: b's own window misses a, but a's holds b.
	p := newPool(t, flexDuel)
	ticket("a", 0).num("mmr", 1000).add(t, p)
	p.Step(at(0))
	p.Step(at(20))
	ticket("b", 25).num("mmr", 1300).add(t, p)
	if got := matchIDs(p.Step(at(25))); len(got) != 1 || got[0] != "a|b" {
		t.Fatalf("matches %v", got)
	}
}

func TestRestartKeepsRelaxation(t *testing.T) {
	// Tickets reloaded after a restart carry their CreatedAt: at once
	// they are judged at the level they had earned.
	p := newPool(t, flexDuel)
	ticket("a", 0).num("mmr", 1000).add(t, p)
	ticket("b", 0).num("mmr", 1350).add(t, p)
	if got := matchIDs(p.Step(at(30))); len(got) != 1 {
		t.Fatalf("reloaded tickets should match at level 2: %v", got)
	}
}

func TestReturnAndRemove(t *testing.T) {
	p := newPool(t, flexDuel)
	a := ticket("a", 0).num("mmr", 1000).add(t, p)
	b := ticket("b", 1).num("mmr", 1000).add(t, p)
	props := p.Step(at(2))
	if len(props) != 1 || p.Len() != 0 {
		t.Fatal("expected a match")
	}
	p.Return(props[0].Tickets())
	if p.Len() != 2 || p.Stats().Returned != 2 {
		t.Fatalf("after return: %d waiting", p.Len())
	}
	if !p.Remove("a") || p.Remove("a") || p.Len() != 1 {
		t.Fatal("remove")
	}
	if got := p.Step(at(3)); len(got) != 0 {
		t.Fatal("b alone")
	}
	p.Return([]*cupid.Ticket{a, b}) // b is already waiting: skipped
	if p.Len() != 2 {
		t.Fatalf("len %d", p.Len())
	}
	if got := p.Step(at(4)); len(got) != 1 || got[0].Match().Teams[0].TicketIDs[0] != "a" {
		t.Fatalf("returned tickets keep their age, a anchors: %v", matchIDs(got))
	}
}

func TestAddRefusesDuplicatesAndWrongKey(t *testing.T) {
	p := newPool(t, flexDuel)
	ticket("a", 0).num("mmr", 1000).add(t, p)
	err := p.Add(ticket("a", 0).num("mmr", 1000).t)
	if ce, ok := asCupidError(err); !ok || ce.Code != cupid.CodeConflict {
		t.Fatalf("duplicate: %v", err)
	}
	other := ticket("z", 0).num("mmr", 1).t
	other.Key = cupid.QueueKey{Queue: "other"}
	if err := p.Add(other); err == nil || !strings.Contains(err.Error(), "key") {
		t.Fatalf("wrong key: %v", err)
	}
	// A pool checks tickets of every version of its queue (the server
	// keeps one per queue for Check), but client_version must agree with
	// the ticket's own key.
	v12 := ticket("v", 0).num("mmr", 1).opt("client_version", "1.2").t
	v12.Key = cupid.QueueKey{Queue: "q", Version: "1.2"}
	if err := p.Check(v12); err != nil {
		t.Fatalf("check across versions: %v", err)
	}
	if err := p.Add(v12); err == nil || !strings.Contains(err.Error(), "key") {
		t.Fatalf("add to the wrong version's pool: %v", err)
	}
	v12.Attributes.Set("client_version", cupid.String("1.1"))
	if err := p.Check(v12); err == nil || !strings.Contains(err.Error(), "client_version") {
		t.Fatalf("client_version: %v", err)
	}
}

func TestSetRuleset(t *testing.T) {
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}]}`)
	ticket("a", 0).num("mmr", 1000).add(t, p)
	ticket("b", 1).num("mmr", 1500).add(t, p)
	ticket("c", 2).party(2).num("mmr", 3000).add(t, p)
	if got := p.Step(at(3)); len(got) != 0 {
		t.Fatalf("nothing is close enough yet: %v", matchIDs(got))
	}
	// The new ruleset allows 1000 at once and only solos; c no longer
	// fits and comes back with the reason.
	evicted, err := p.SetRuleset(load(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(evicted) != 1 || evicted[0].Ticket.ID != "c" || !strings.Contains(evicted[0].Err.Error(), "party of 2") {
		t.Fatalf("evicted %+v", evicted)
	}
	if got := matchIDs(p.Step(at(4))); len(got) != 1 || got[0] != "a|b" {
		t.Fatalf("after the change: %v", got)
	}
}

func TestExplain(t *testing.T) {
	rules := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 200}],
		"flexing_rule": [{"duration": 30, "attribute": "mmr", "criteria": "distance", "reference": 400}],
		"match_options": {"options": [{"name": "mode", "type": "all"}]}}`
	p := newPool(t, rules)
	ticket("me", 0).num("mmr", 1500).opt("mode", "ranked").add(t, p)
	ticket("near", 1).num("mmr", 1600).opt("mode", "ranked").add(t, p)
	ticket("far", 2).num("mmr", 1840).opt("mode", "ranked").add(t, p)
	ticket("casual", 3).num("mmr", 1500).opt("mode", "casual").add(t, p)
	p.Step(at(5))
	x, ok := p.Explain("me", at(5))
	if !ok {
		t.Fatal("not found")
	}
	if x.Compatible != 1 || x.PlayersAvailable != 2 || x.PlayersNeeded != 4 {
		t.Fatalf("%+v", x)
	}
	if !strings.HasPrefix(x.Summary, "only 2 of 4 players available") {
		t.Errorf("summary %q", x.Summary)
	}
	want := map[string]string{
		"matching_rule[0] mmr":          "mmr distance 340 > 200 allowed",
		"match_options.options[0] mode": "mode: different choice",
	}
	for _, b := range x.Blocks {
		if want[b.Rule] != b.Nearest || b.Removed != 1 {
			t.Errorf("block %+v", b)
		}
	}
	if !x.NextRelaxation.Equal(at(30)) || x.NextAdds != 1 || len(x.Relaxes) != 1 || x.Relaxes[0] != "mmr distance 200 → 400" {
		t.Errorf("next relaxation %v adds %d: %v", x.NextRelaxation, x.NextAdds, x.Relaxes)
	}
	if !strings.Contains(x.Summary, "in 25s the rules relax and let 1 more in") {
		t.Errorf("summary %q", x.Summary)
	}
	if _, ok := p.Explain("nobody", at(5)); ok {
		t.Fatal("unknown ticket explained")
	}
}

func TestExplainLatencyAndSelf(t *testing.T) {
	rules := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"region_latency_initial_range_ms": 80, "region_expansion_range_ms": 40, "region_expansion_rate_ms": 10000,
		"region_latency_max_ms": 200}`
	p := newPool(t, rules)
	ticket("me", 0).lat("eu-west", 60, "us-east", 150).add(t, p)
	ticket("other", 0).lat("eu-west", 130).add(t, p)
	p.Step(at(1))
	x, _ := p.Explain("me", at(1))
	if len(x.Blocks) != 1 || x.Blocks[0].Nearest != "latency 130 ms > 80 ms range in eu-west" {
		t.Fatalf("%+v", x.Blocks)
	}
	if !x.NextRelaxation.Equal(at(10)) || x.NextAdds != 0 || !x.FirstAdmit.Equal(at(20)) {
		t.Fatalf("next %v (+%d), first admit %v", x.NextRelaxation, x.NextAdds, x.FirstAdmit)
	}
	q := newPool(t, rules)
	ticket("slow", 0).lat("eu-west", 150).add(t, q)
	x, _ = q.Explain("slow", at(0))
	if !strings.Contains(x.Self, "no region within the 80 ms latency range yet (best: eu-west 150 ms)") {
		t.Fatalf("self %q", x.Self)
	}
}

func TestQualityCriteria(t *testing.T) {
	rules := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 3, "player_max_number": 3},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}]}`
	p := newPool(t, rules)
	ticket("trio", 0).party(3).num("mmr", 1000).add(t, p)
	ticket("duo", 0).party(2).num("mmr", 1000).add(t, p)
	ticket("solo", 0).num("mmr", 1000).add(t, p)
	props := p.Step(at(0))
	if len(props) != 1 {
		t.Fatal("no match")
	}
	q := props[0].Quality
	parts := q.Parts.Map()
	// A 3-stack against a duo and a solo: 2 of 3 players matched by
	// party size.
	if math.Abs(parts["parties"]-2.0/3) > 1e-9 {
		t.Errorf("parties %v", parts["parties"])
	}
	if parts["skill_gap"] != 1 || parts["skill_spread"] != 1 || parts["wait"] != 1 {
		t.Errorf("parts %v", q.Parts)
	}
	// Weighted average of square roots, default weights: parties 1,
	// skill gap 3, skill spread 2, wait 1.
	want := (1*math.Sqrt(2.0/3) + 3 + 2 + 1) / 7
	if math.Abs(q.Score-want) > 1e-9 {
		t.Errorf("score %v, want %v", q.Score, want)
	}

	// Variety, from the server's history.
	met := func(a, b string) bool { return a == "x.p0" && b == "y.p0" || a == "y.p0" && b == "x.p0" }
	vp, _ := New(testKey, load(t, flexDuel), Options{Met: met})
	ticket("x", 0).num("mmr", 1000).add(t, vp)
	ticket("y", 0).num("mmr", 1000).add(t, vp)
	props = vp.Step(at(0))
	if v, ok := props[0].Quality.Parts.Get("variety"); !ok || v != 0 {
		t.Errorf("variety %v %v", v, ok)
	}
}

func TestPartyScore(t *testing.T) {
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 5, "player_max_number": 5}}`)
	add := func(id string, n int) int32 {
		tk := ticket(id, 0).party(n).add(t, p)
		s, _ := p.lookupID(tk.ID)
		return s
	}
	five := add("five", 5)
	var solos []int32
	for _, id := range []string{"s1", "s2", "s3", "s4", "s5"} {
		solos = append(solos, add(id, 1))
	}
	if got := p.partyScore([][]int32{{five}, solos}); math.Abs(got-0.2) > 1e-9 {
		t.Errorf("5-stack vs solos: %v, want 0.2", got)
	}
	if got := p.partyScore([][]int32{solos[:2], solos[2:4]}); got != 1 {
		t.Errorf("solos vs solos: %v", got)
	}
}

func TestOneTicketPerMatchEvenWhenTimeGoesBack(t *testing.T) {
	p := newPool(t, flexDuel)
	ticket("a", 0).num("mmr", 1000).add(t, p)
	p.Step(at(30))
	ticket("b", 0).num("mmr", 1010).add(t, p)
	// A clock that steps back must not break anything.
	if got := p.Step(at(10)); len(got) != 1 {
		t.Fatalf("%v", matchIDs(got))
	}
	if p.Len() != 0 {
		t.Fatal("tickets left")
	}
	_ = time.Second
}
