package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Role first choices: when players list several roles, first choice first,
// and a split into role slots exists that gives more players their first
// choice, the engine must use it.

const roleTeam = `"roles": {"quotas": [
	{"name": "tank", "min": 1, "max": 1}, {"name": "healer", "min": 1, "max": 1}, {"name": "dps", "max": 3}]}`

// rolesOf renders a match's roles as "player=role" sorted by player.
func rolesOf(m map[string]string) string {
	var out []string
	for pl, r := range m {
		out = append(out, strings.TrimSuffix(pl, ".p0")+"="+r)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func TestRoleFirstChoicesOneTeam(t *testing.T) {
	coop := `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 5, "player_max_number": 5}, ` + roleTeam + `}`
	for _, tc := range []struct {
		name    string
		players []*tb
		want    []string // player=role pairs every best assignment has
	}{
		{
			// The healer main must heal: the tank who also accepts
			// healer is the one who moves, since dps has room.
			name: "the healer main heals",
			players: []*tb{
				ticket("hana", 0).list("role", "healer", "dps"),
				ticket("dave", 1).list("role", "dps"),
				ticket("tom", 2).list("role", "tank", "dps"),
				ticket("tess", 3).list("role", "tank", "healer"),
				ticket("ty", 4).list("role", "tank", "dps"),
			},
			// Three want tank, one gets it. tess takes only tank or
			// healer and hana wants to heal, so tess tanks and tom and
			// ty play dps: hana, dave and tess on their first choice.
			want: []string{"dave=dps", "hana=healer", "tess=tank", "tom=dps", "ty=dps"},
		},
		{
			name: "the dps mains stay dps",
			players: []*tb{
				ticket("ann", 0).list("role", "tank", "dps"),
				ticket("bo", 1).list("role", "dps", "healer"),
				ticket("cy", 2).list("role", "dps", "healer"),
				ticket("di", 3).list("role", "tank", "dps"),
				ticket("ed", 4).list("role", "tank", "healer"),
			},
			// Only ed, of those who accept healing, does not want dps
			// first, so ed heals and bo and cy stay dps; ann or di
			// tanks: 3 first choices.
			want: []string{"bo=dps", "cy=dps", "ed=healer"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, coop)
			for _, b := range tc.players {
				b.add(t, p)
			}
			props := p.Step(at(5))
			if len(props) != 1 {
				t.Fatalf("matches = %v", matchIDs(props))
			}
			got := rolesOf(props[0].Match.Roles)
			for _, w := range tc.want {
				if !slices.Contains(strings.Fields(got), w) {
					t.Errorf("roles = %s, want %s", got, w)
				}
			}
			if v, _ := props[0].Match.Quality.Parts.Get("roles"); v != 3.0/5 {
				t.Errorf("roles quality part = %v, want %v (3 of 5 first choices)", v, 3.0/5)
			}
		})
	}
}

func TestRoleFirstChoicesWithBalancing(t *testing.T) {
	// Two teams of three, balanced on mmr: the only exactly even split is
	// {a, d, e} (1000+1300+1200) against {b, c, f} (1100+1250+1150). Role
	// first choices are then the best each team allows: balancing decides
	// the teams, roles never unbalance them.
	rules := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 3, "player_max_number": 3},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1000}],
		"roles": {"quotas": [{"name": "tank", "min": 1, "max": 1}, {"name": "healer", "min": 1, "max": 1}, {"name": "dps", "max": 1}]}}`
	p := newPool(t, rules)
	ticket("a", 0).num("mmr", 1000).list("role", "tank", "healer", "dps").add(t, p)
	ticket("b", 1).num("mmr", 1100).list("role", "tank", "healer", "dps").add(t, p)
	ticket("c", 2).num("mmr", 1250).list("role", "healer", "tank", "dps").add(t, p)
	ticket("d", 3).num("mmr", 1300).list("role", "healer", "tank", "dps").add(t, p)
	ticket("e", 4).num("mmr", 1200).list("role", "healer").add(t, p)
	ticket("f", 5).num("mmr", 1150).list("role", "dps").add(t, p)
	props := p.Step(at(6))
	if len(props) != 1 {
		t.Fatalf("matches = %v", matchIDs(props))
	}
	if got := matchIDs(props)[0]; got != "a+d+e|b+c+f" {
		t.Fatalf("teams = %s, want the balanced a+d+e|b+c+f", got)
	}
	// Team 1: e can only heal, so a tanks and d plays dps: a and e get
	// their first choice. Team 2: f can only dps; b tanks, c heals: all
	// three first choices.
	if got, want := rolesOf(props[0].Match.Roles), "a=tank b=tank c=healer d=dps e=healer f=dps"; got != want {
		t.Errorf("roles = %s\n          want %s", got, want)
	}
}

// bruteFirstChoices is the most first choices any valid assignment gives,
// -1 when none is valid.
func bruteFirstChoices(masks []uint64, pref []int8, mins, maxs []int) int {
	n, nr := len(masks), len(mins)
	best := -1
	cnt := make([]int, nr)
	var rec func(i, first int)
	rec = func(i, first int) {
		if i == n {
			for r := range nr {
				if cnt[r] < mins[r] || (maxs[r] >= 0 && cnt[r] > maxs[r]) {
					return
				}
			}
			best = max(best, first)
			return
		}
		for r := range nr {
			if masks[i]&(1<<r) == 0 {
				continue
			}
			cnt[r]++
			f := first
			if int(pref[i]) == r {
				f++
			}
			rec(i+1, f)
			cnt[r]--
		}
	}
	rec(0, 0)
	return best
}

func TestRoleAssignmentMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var rs roleSolver
	for it := range 20000 {
		nr := 1 + rng.IntN(4)
		n := 1 + rng.IntN(6)
		mins, maxs := make([]int, nr), make([]int, nr)
		for r := range nr {
			mins[r] = rng.IntN(2)
			maxs[r] = -1
			if rng.IntN(2) == 0 {
				maxs[r] = mins[r] + rng.IntN(3)
			}
		}
		masks, pref := make([]uint64, n), make([]int8, n)
		for i := range n {
			perm := rng.Perm(nr)[:1+rng.IntN(nr)]
			for _, r := range perm {
				masks[i] |= 1 << r
			}
			pref[i] = int8(perm[0])
		}
		out := make([]int, n)
		ok := rs.assignBest(masks, pref, mins, maxs, out)
		want := bruteFirstChoices(masks, pref, mins, maxs)
		desc := fmt.Sprintf("case %d: mins %v maxs %v masks %b pref %v", it, mins, maxs, masks, pref)
		if ok != (want >= 0) {
			t.Fatalf("%s: feasible %v, brute force says %v", desc, ok, want >= 0)
		}
		if !ok {
			continue
		}
		cnt := make([]int, nr)
		first := 0
		for i, r := range out {
			if masks[i]&(1<<r) == 0 {
				t.Fatalf("%s: player %d given role %d it does not accept (out %v)", desc, i, r, out)
			}
			cnt[r]++
			if int(pref[i]) == r {
				first++
			}
		}
		for r := range nr {
			if cnt[r] < mins[r] || (maxs[r] >= 0 && cnt[r] > maxs[r]) {
				t.Fatalf("%s: role %d has %d players (out %v)", desc, r, cnt[r], out)
			}
		}
		if first != want {
			t.Fatalf("%s: %d first choices (out %v), %d possible", desc, first, out, want)
		}
	}
}
