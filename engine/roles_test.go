package engine

import (
	"fmt"
	"math"
	"math/bits"
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
			got := rolesOf(props[0].Roles)
			for _, w := range tc.want {
				if !slices.Contains(strings.Fields(got), w) {
					t.Errorf("roles = %s, want %s", got, w)
				}
			}
			if v, _ := props[0].Quality.Parts.Get("roles"); v != 3.0/5 {
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
	if got, want := rolesOf(props[0].Roles), "a=tank b=tank c=healer d=dps e=healer f=dps"; got != want {
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

// When balancing leaves several splits equally even, the split that gives
// more players their first-choice role wins: roles are the tie-break, never
// a reason to unbalance.
func TestRoleFirstChoicesBreakBalanceTies(t *testing.T) {
	duo := `"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
		"roles": {"quotas": [{"name": "tank", "min": 1, "max": 1}, {"name": "dps", "min": 1, "max": 1}]}`
	for _, tc := range []struct {
		name    string
		rules   string
		players []*tb
		// first is how many players must get their first choice.
		first int
		want  string // the roles every best split gives
	}{
		{
			// Same mmr: every split is perfectly even. {flex1, tank}
			// against {flex2, dps} puts both flexible players on their
			// second choice; the other splits give all four theirs.
			name:  "balance ties on equal skill",
			rules: `{` + duo + `, "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100}]}`,
			players: []*tb{
				ticket("flex1", 0).num("mmr", 1500).list("role", "tank", "dps"),
				ticket("flex2", 1).num("mmr", 1500).list("role", "dps", "tank"),
				ticket("tank", 2).num("mmr", 1500).list("role", "tank"),
				ticket("dps", 3).num("mmr", 1500).list("role", "dps"),
			},
			first: 4,
			want:  "dps=dps flex1=tank flex2=dps tank=tank",
		},
		{
			name:  "nothing to balance",
			rules: `{` + duo + `}`,
			players: []*tb{
				ticket("flex1", 0).list("role", "tank", "dps"),
				ticket("flex2", 1).list("role", "dps", "tank"),
				ticket("tank", 2).list("role", "tank"),
				ticket("dps", 3).list("role", "dps"),
			},
			first: 4,
			want:  "dps=dps flex1=tank flex2=dps tank=tank",
		},
		{
			// Skill differs, so balance decides: {flex1 1400, dps
			// 1600} against {flex2 1500, tank 1500} is the only even
			// split (both average 1500), whatever it costs the roles.
			name:  "balance first",
			rules: `{` + duo + `, "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 500}]}`,
			players: []*tb{
				ticket("flex1", 0).num("mmr", 1400).list("role", "tank", "dps"),
				ticket("flex2", 1).num("mmr", 1500).list("role", "dps", "tank"),
				ticket("tank", 2).num("mmr", 1500).list("role", "tank"),
				ticket("dps", 3).num("mmr", 1600).list("role", "dps"),
			},
			first: 4,
			want:  "dps=dps flex1=tank flex2=dps tank=tank",
		},
		{
			// The only even split is {flex1 1400, tank 1600} against
			// {flex2 1500, dps 1500}: both flexible players play their
			// second choice, since balance comes first.
			name:  "balance first, at the roles' cost",
			rules: `{` + duo + `, "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 500}]}`,
			players: []*tb{
				ticket("flex1", 0).num("mmr", 1400).list("role", "tank", "dps"),
				ticket("flex2", 1).num("mmr", 1500).list("role", "dps", "tank"),
				ticket("tank", 2).num("mmr", 1600).list("role", "tank"),
				ticket("dps", 3).num("mmr", 1500).list("role", "dps"),
			},
			first: 2,
			want:  "dps=dps flex1=dps flex2=tank tank=tank",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, tc.rules)
			for _, b := range tc.players {
				b.add(t, p)
			}
			props := p.Step(at(5))
			if len(props) != 1 {
				t.Fatalf("matches = %v", matchIDs(props))
			}
			if got := rolesOf(props[0].Roles); got != tc.want {
				t.Errorf("teams %s, roles = %s\n  want roles %s", matchIDs(props)[0], got, tc.want)
			}
			if v, _ := props[0].Quality.Parts.Get("roles"); v != float64(tc.first)/4 {
				t.Errorf("roles quality part = %v, want %v", v, float64(tc.first)/4)
			}
		})
	}
}

// TestRoleTieBreakMatchesBruteForce forms random two-team matches of solos
// (2v2 to 6v6: branch and bound up to five a side, meet in the middle
// beyond) whose skills come from three values, so that equally even splits
// are common, and checks the formed split against every split: as even as
// the most even staffable one, and among those with the most first choices.
func TestRoleTieBreakMatchesBruteForce(t *testing.T) {
	roles := []string{"tank", "healer", "dps"}
	rng := rand.New(rand.NewPCG(3, 5))
	formed := 0
	for it := range 300 {
		size := 2 + rng.IntN(5)
		rules := fmt.Sprintf(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": %d, "player_max_number": %d},
			"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 1000, "max": 3000}],
			"roles": {"quotas": [{"name": "tank", "min": 1, "max": 1}, {"name": "healer", "min": 1, "max": 2}, {"name": "dps", "max": %d}]}}`,
			size, size, size)
		p := newPool(t, rules)
		n := 2 * size
		mmr := make([]float64, n)
		masks := make([]uint64, n)
		pref := make([]int8, n)
		index := map[string]int{}
		for i := range n {
			mmr[i] = []float64{1400, 1500, 1600}[rng.IntN(3)]
			perm := rng.Perm(len(roles))[:1+rng.IntN(2)]
			var names []string
			for _, r := range perm {
				masks[i] |= 1 << r
				names = append(names, roles[r])
			}
			pref[i] = int8(perm[0])
			id := fmt.Sprintf("p%02d", i)
			index[id] = i
			ticket(id, float64(i)).num("mmr", mmr[i]).list("role", names...).add(t, p)
		}
		// Every split into two teams of size (the first player on team
		// 0): its imbalance and first choices, when both teams can be
		// staffed.
		bestGap, bestFirst := math.Inf(1), -1
		mins, maxs := []int{1, 1, 0}, []int{1, 2, size}
		for set := 0; set < 1<<n; set++ {
			if set&1 == 0 || bits.OnesCount(uint(set)) != size {
				continue
			}
			first, gap := 0, 0.0
			ok := true
			for team := range 2 {
				var tm []uint64
				var tp []int8
				sum := 0.0
				for i := range n {
					if (set>>i&1 == 1) == (team == 0) {
						tm, tp = append(tm, masks[i]), append(tp, pref[i])
						sum += mmr[i]
					}
				}
				f := bruteFirstChoices(tm, tp, mins, maxs)
				if f < 0 {
					ok = false
					break
				}
				first += f
				if team == 0 {
					gap += sum
				} else {
					gap = math.Abs(gap - sum)
				}
			}
			if !ok {
				continue
			}
			if gap < bestGap {
				bestGap, bestFirst = gap, first
			} else if gap == bestGap {
				bestFirst = max(bestFirst, first)
			}
		}
		props := p.Step(at(float64(n)))
		if bestFirst < 0 {
			if len(props) != 0 {
				t.Fatalf("case %d: no split can be staffed, yet %v formed", it, matchIDs(props))
			}
			continue
		}
		if len(props) != 1 {
			t.Fatalf("case %d: %d matches, want one", it, len(props))
		}
		m := props[0].Match()
		sums := [2]float64{}
		for team, tm := range m.Teams {
			for _, id := range tm.TicketIDs {
				sums[team] += mmr[index[id]]
			}
		}
		first := 0
		for pl, r := range m.Roles {
			if roles[pref[index[strings.TrimSuffix(pl, ".p0")]]] == r {
				first++
			}
		}
		if gap := math.Abs(sums[0] - sums[1]); gap != bestGap || first != bestFirst {
			t.Fatalf("case %d (%dv%d): formed %s with gap %v and %d first choices; best is gap %v with %d",
				it, size, size, matchIDs(props)[0], gap, first, bestGap, bestFirst)
		}
		formed++
	}
	if formed < 100 {
		t.Fatalf("only %d of 300 cases formed a match: the test checks too little", formed)
	}
}
