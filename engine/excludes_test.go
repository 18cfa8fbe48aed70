package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

// TestExcludesAgreesWithTheExpression: the native judgement of a
// block-list rule gives the rule's expression's answer for every pair,
// both ways round, and leaves a value that is not a list to the
// expression.
func TestExcludesAgreesWithTheExpression(t *testing.T) {
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2},
		"collection_rule": [{"attribute": "blocked", "operation": "player_ids", "max_count": 0}]}`)
	f := p.r.filters[0]
	if f.Excludes != "blocked" {
		t.Fatalf("the block-list rule's filter has Excludes %q", f.Excludes)
	}
	mk := func(id string, lists ...cupid.Value) *entry {
		tk := &cupid.Ticket{ID: id}
		for i, l := range lists {
			pl := cupid.Player{ID: fmt.Sprintf("%s%d", id, i)}
			if l.Kind != 0 || l.Strings != nil {
				pl.Attributes = cupid.Attributes{{Name: "blocked", Value: l}}
			}
			tk.Players = append(tk.Players, pl)
		}
		x := &extra{}
		p.summarise(tk, x)
		return &entry{h: hold(tk), x: x}
	}
	none := cupid.Value{}
	cases := []struct {
		name   string
		a, c   *entry
		want   bool
		native bool
	}{
		{"no lists", mk("a", none), mk("c", none), true, true},
		{"empty lists", mk("a", cupid.Strings()), mk("c", cupid.Strings()), true, true},
		{"a blocks c", mk("a", cupid.Strings("x", "c0")), mk("c", none), false, true},
		{"c blocks a", mk("a", none), mk("c", cupid.Strings("a0")), false, true},
		{"a party's second player blocks", mk("a", none, cupid.Strings("c1")), mk("c", none, none), false, true},
		{"blocks someone else", mk("a", cupid.Strings("z")), mk("c", cupid.Strings("y")), true, true},
		{"not a list", mk("a", cupid.String("c0")), mk("c", none), false, false},
	}
	for _, c := range cases {
		got, native := p.excludesPass(0, c.a, c.c)
		if native != c.native || native && got != c.want {
			t.Errorf("%s: excludesPass = %v, native %v; want %v, native %v", c.name, got, native, c.want, c.native)
		}
		// The expression's own answer, both ways.
		if expr := p.pairExpr(f, c.a, c.c, t0); c.native && expr != c.want {
			t.Errorf("%s: the expression says %v, the native judgement %v", c.name, expr, got)
		}
		if both := p.pairFilter(0, c.a, c.c, t0); both != p.pairExpr(f, c.a, c.c, t0) {
			t.Errorf("%s: pairFilter %v with the native path, %v without", c.name, both, !both)
		}
	}

	// A hit is decided on the 64-bit hash alone (excludes.go states the
	// odds of a false block): a's list made to carry c's player's hash
	// blocks c although a lists neither of its ids by name, and the same
	// list without it lets c pass.
	a, c := mk("a", cupid.Strings("x", "y")), mk("c", none)
	if ok, native := p.excludesPass(0, a, c); !ok || !native {
		t.Errorf("x and y listed: excludesPass = %v, native %v; want a pass", ok, native)
	}
	list, _ := exList(a.x.ex, 0, 1)
	list[0] = c.x.ex[2]
	slices.Sort(list)
	if ok, _ := p.excludesPass(0, a, c); ok {
		t.Errorf("c0's hash listed: excludesPass passes")
	}
}

// TestBlockListsMatchAsTheExpressions: pools judging the block lists on
// their summaries (the plain path for solos, the group's checks for
// parties) form the same matches, step after step, as pools judging the
// same rules as expressions, on random tickets (fixed seeds) whose lists
// name nearby players, and a few whose list is a single string, which the
// expression judges.
func TestBlockListsMatchAsTheExpressions(t *testing.T) {
	const native = `, "collection_rule": [
		{"attribute": "blocked", "operation": "player_ids", "max_count": 0},
		{"attribute": "met", "operation": "player_ids", "max_count": 0, "disable_after": 20}]`
	const exprs = `, "filter": [
		{"name": "blocked", "expr": "all(ticket.players, {let l = #[\"blocked\"] ?? []; none(candidate.player_ids, {# in l})})"},
		{"name": "met", "expr": "all(ticket.players, {let l = #[\"met\"] ?? []; none(candidate.player_ids, {# in l})})", "disable_after": 20}]`
	layouts := []struct {
		name     string
		alliance string
		party    int
	}{
		{"1v1", `{"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}`, 1},
		{"2v2 with parties", `{"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2}`, 2},
	}
	for _, l := range layouts {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("%s seed %d", l.name, seed), func(t *testing.T) {
				rules := func(lists string) string {
					return `{"alliance": ` + l.alliance + `,
						"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100, "max": 3000}],
						"flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 300}]` + lists + `}`
				}
				a, b := newPool(t, rules(native)), newPool(t, rules(exprs))
				none := newPool(t, rules("")) // the lists ignored
				differs, refused := false, 0
				if !a.plain && l.party == 1 {
					t.Fatal("the pool with block lists alone is not plain")
				}
				rng := rand.New(rand.NewPCG(seed, 11))
				n := 0
				for step := range 8 {
					now := at(float64(step * 5))
					for range 40 {
						tk := blockListTicket(rng, n, now, l.party)
						n++
						errA, errB := a.Add(tk), b.Add(tk)
						if (errA == nil) != (errB == nil) {
							t.Fatalf("ticket %s: Add %v natively, %v by expression", tk.ID, errA, errB)
						}
						if errA != nil {
							refused++
						} else if err := none.Add(tk); err != nil {
							t.Fatal(err)
						}
					}
					got, want := matchIDs(a.Step(now)), matchIDs(b.Step(now))
					if !slices.Equal(got, want) {
						t.Fatalf("step %d: natively %v\nby expression %v", step, got, want)
					}
					differs = differs || !slices.Equal(got, matchIDs(none.Step(now)))
				}
				if !differs || refused > 0 {
					t.Fatalf("the lists changed a match: %v; tickets refused: %d", differs, refused)
				}
			})
		}
	}
}

// blockListTicket is ticket number i: a party of 1 to maxParty players
// (ids "p<i>.<k>") of random skill, each listing under "blocked" and
// "met" players of the 60 tickets around it; one in 25 lists a single
// string instead.
func blockListTicket(rng *rand.Rand, i int, now time.Time, maxParty int) *cupid.Ticket {
	tk := &cupid.Ticket{ID: fmt.Sprintf("t%d", i), Key: testKey, State: cupid.StateWaiting,
		CreatedAt: now.Add(-time.Duration(rng.IntN(30)) * time.Second)}
	other := func() string {
		return fmt.Sprintf("p%d.%d", max(i+rng.IntN(60)-30, 0), rng.IntN(maxParty))
	}
	mmr := 1500 + rng.NormFloat64()*300
	for k := range 1 + rng.IntN(maxParty) {
		attrs := map[string]cupid.Value{"mmr": cupid.Number(mmr + rng.NormFloat64()*30)}
		for _, name := range []string{"blocked", "met"} {
			switch r := rng.IntN(25); {
			case r == 0:
				attrs[name] = cupid.String(other())
			case r < 4:
				// none
			default:
				var ids []string
				for range rng.IntN(12) {
					ids = append(ids, other())
				}
				attrs[name] = cupid.Strings(ids...)
			}
		}
		tk.Players = append(tk.Players, cupid.Player{ID: fmt.Sprintf("p%d.%d", i, k), Attributes: cupid.NewAttributes(attrs)})
	}
	return tk
}

// TestBlockListHoldsAcrossTheIDTablesRebuild: the summaries of waiting
// tickets hold hashes of the id table's seed, so when the table is rebuilt
// (most tickets gone) it keeps that seed; a new seed would let a ticket
// blocked by one that waited through the rebuild be matched with it.
func TestBlockListHoldsAcrossTheIDTablesRebuild(t *testing.T) {
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 10}],
		"collection_rule": [{"attribute": "blocked", "operation": "player_ids", "max_count": 0}]}`)
	ticket("keeper", 0).num("mmr", 0).list("blocked", "late.p0").add(t, p)
	const fillers = 3000
	for i := range fillers {
		ticket(fmt.Sprintf("f%d", i), 1).num("mmr", float64(1000+100*i)).list("blocked").add(t, p)
	}
	for i := range fillers - 100 {
		p.Remove(fmt.Sprintf("f%d", i))
	}
	p.compact()
	ticket("late", 2).num("mmr", 0).list("blocked").add(t, p)
	if got := stepAll(t, p, 10); len(got) != 0 {
		t.Fatalf("the keeper and the player he blocked were matched after the id table was rebuilt: %v", got)
	}
	ticket("other", 3).num("mmr", 5).list("blocked").add(t, p)
	if got := stepAll(t, p, 11); len(got) != 1 {
		t.Fatalf("matches %v, want one (keeper or late with other)", got)
	}
}

// TestHeadsJudgeAsTheSummaries: in a pool of solo tickets the plain path
// judges block lists on the candidate's head (excludes.go), and it gives
// the summaries' answer for every pair of waiting tickets — with both
// rules in force and with "met" flexed off, for tickets whose value is not
// a list, and for tickets in slots freed by others that left (a head is
// rewritten, not merged, when its slot is reused).
func TestHeadsJudgeAsTheSummaries(t *testing.T) {
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}],
		"collection_rule": [
			{"attribute": "blocked", "operation": "player_ids", "max_count": 0},
			{"attribute": "met", "operation": "player_ids", "max_count": 0, "disable_after": 20}]}`)
	rng := rand.New(rand.NewPCG(5, 3))
	const first, left, later = 1200, 1000, 300
	for i := range first {
		if err := p.Add(blockListTicket(rng, i, t0, 1)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range left {
		p.Remove(fmt.Sprintf("t%d", i))
	}
	p.compact()
	reused := 0
	for i := first; i < first+later; i++ {
		tk := blockListTicket(rng, i, t0, 1)
		if err := p.Add(tk); err != nil {
			t.Fatal(err)
		}
		if s, _ := p.lookupID(tk.ID); s < first {
			reused++
		}
	}
	if reused == 0 || len(p.heads) == 0 || p.maxSize != 1 {
		t.Fatalf("slots reused %d, heads %d words, largest party %d", reused, len(p.heads), p.maxSize)
	}
	var live []int32
	for _, s := range p.order {
		if p.entries[s].alive {
			live = append(live, s)
		}
	}
	for _, on := range [][]bool{{true, true}, {true, false}} {
		env := &envelope{filterOn: on}
		blocked := 0
		for _, a := range live {
			for _, c := range live {
				if a == c {
					continue
				}
				got := p.headFilters(a, c, env, t0)
				want := p.pairFilters(&p.entries[a], &p.entries[c], env, t0)
				if got != want {
					t.Fatalf("filters %v, %s and %s: the head says %v, the summaries %v",
						on, p.entries[a].id, p.entries[c].id, got, want)
				}
				if got.kind != rOK {
					blocked++
				}
			}
		}
		if blocked == 0 {
			t.Fatalf("filters %v: no pair blocked", on)
		}
	}
}

// TestHasFindsAsBinarySearch: the search from a hash's expected place
// answers as a binary search does, for lists of uniform hashes (the
// summaries') and for lists it guesses badly on — bunched at one end,
// repeated values, the extremes.
func TestHasFindsAsBinarySearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	uniform := func(n int) []uint64 {
		l := make([]uint64, n)
		for i := range l {
			l[i] = rng.Uint64()
		}
		return l
	}
	tests := []struct {
		name string
		list []uint64
	}{
		{"empty", nil},
		{"one", []uint64{1 << 63}},
		{"extremes", []uint64{0, 0, 1, ^uint64(0) - 1, ^uint64(0)}},
		{"uniform 5", uniform(5)},
		{"uniform 52", uniform(52)},
		{"uniform 64", uniform(64)},
		{"uniform 1000", uniform(1000)},
		{"bunched low", []uint64{1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1 << 62}},
		{"bunched high", []uint64{1 << 10, ^uint64(0) - 300, ^uint64(0) - 200, ^uint64(0) - 100, ^uint64(0) - 50, ^uint64(0) - 7, ^uint64(0) - 3, ^uint64(0) - 1}},
		{"repeated", []uint64{7, 7, 7, 7, 1 << 40, 1 << 40, 1 << 60, 1 << 60, 1 << 60}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := slices.Clone(tt.list)
			slices.Sort(list)
			probes := []uint64{0, 1, ^uint64(0), ^uint64(0) - 1, 1 << 63}
			for _, v := range list {
				probes = append(probes, v, v-1, v+1)
			}
			for range 200 {
				probes = append(probes, rng.Uint64())
			}
			for _, h := range probes {
				_, want := slices.BinarySearch(list, h)
				if got := has(list, h); got != want {
					t.Fatalf("has(%x) = %v, want %v", h, got, want)
				}
			}
		})
	}
}
