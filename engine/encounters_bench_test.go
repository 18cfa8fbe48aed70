package engine

import (
	"cmp"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// The encounter history's rules in a 1v1 pass (docs/encounters.md): each
// player's ticket carries the lists the server fills at intake — "blocked"
// (his block list) and "met" (opponents met lately) — and the ruleset keeps
// blocked pairs apart and recent opponents apart for a while (collection
// rules "player_ids", the second with disable_after, both judged natively:
// excludes.go). The bound: within 1.5× of the same pass without
// the rules, on the same tickets.
//
//	go test ./engine/ -run '^$' -bench 'PassEncounters' -benchtime 5x
var benchEncounterRules = strings.Replace(bench1v1Rules, `"alliance"`, `"collection_rule": [
		{"attribute": "blocked", "operation": "player_ids", "max_count": 0},
		{"attribute": "met", "operation": "player_ids", "max_count": 0, "disable_after": 30}],
	"alliance"`, 1)

// benchEncounterExprRules is the same as expressions the engine cannot
// judge natively: what the rules cost without excludes.go.
var benchEncounterExprRules = strings.Replace(bench1v1Rules, `"alliance"`, `"filter": [
		{"name": "not_blocked", "expr": "!(candidate.player_ids[0] in ticket.players[0].blocked) && !(ticket.player_ids[0] in candidate.players[0].blocked)"},
		{"name": "not_again", "expr": "!(candidate.player_ids[0] in ticket.players[0].met)", "disable_after": 30}],
	"alliance"`, 1)

// genEncounters is gen1v1 with each player's lists, of the sizes the issue
// names within what a ticket may carry (cupid.MaxListItems, 64, to which
// the server cuts "met" and block lists): he met 20–64 others lately, each
// meeting in both players' "met" lists as the history has it, and he
// blocked 0–64 players (his own list, sorted, as the server fills it), half
// of them anyone and half, like the opponents he met, drawn from the
// players of nearby skill, whom the pass would otherwise pair. The
// attributes are in name order, as the server's are: Add refuses a ticket
// with them out of order.
func genEncounters(n int, now time.Time, seed uint64) []*cupid.Ticket {
	ts := gen1v1(n, now, seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	mmr := func(i int) float64 { v, _ := ts[i].Players[0].Attributes.Get("mmr"); return v.Number }
	bySkill := make([]int, n) // ticket indices in mmr order
	rank := make([]int, n)    // and each ticket's place in it
	for i := range bySkill {
		bySkill[i] = i
	}
	slices.SortFunc(bySkill, func(a, b int) int { return cmp.Compare(mmr(a), mmr(b)) })
	for r, i := range bySkill {
		rank[i] = r
	}
	// near is a player within 200 places of i in skill.
	near := func(i int) int { return bySkill[min(max(rank[i]+rng.IntN(401)-200, 0), n-1)] }
	id := func(i int) string { return ts[i].Players[0].ID }
	met := make([][]string, n)
	want := make([]int, n)
	for i := range want {
		want[i] = 20 + rng.IntN(45)
	}
	for i := range ts {
		for tries := 0; len(met[i]) < want[i] && tries < 4*want[i]; tries++ {
			j := near(i)
			if j == i || len(met[j]) >= cupid.MaxListItems {
				continue
			}
			met[i] = append(met[i], id(j))
			met[j] = append(met[j], id(i))
		}
	}
	for i, t := range ts {
		var blocked []string
		for k := range rng.IntN(cupid.MaxListItems + 1) {
			j := rng.IntN(n)
			if k%2 == 0 {
				j = near(i)
			}
			if j != i {
				blocked = append(blocked, id(j))
			}
		}
		slices.Sort(blocked)
		blocked = slices.Compact(blocked)
		attrs := append(cupid.Attributes{
			{Name: "blocked", Value: cupid.Strings(blocked...)},
			{Name: "met", Value: cupid.Strings(met[i]...)},
		}, t.Players[0].Attributes...)
		t.Players[0].Attributes = attrs
	}
	return ts
}

func BenchmarkPassEncounters1v1_100k(b *testing.B) {
	benchPass(b, benchEncounterRules, genEncounters, 100_000)
}

func BenchmarkPassEncountersExpr1v1_100k(b *testing.B) {
	benchPass(b, benchEncounterExprRules, genEncounters, 100_000)
}

// BenchmarkPassEncountersBaseline1v1_100k is the same tickets without the
// rules.
func BenchmarkPassEncountersBaseline1v1_100k(b *testing.B) {
	benchPass(b, bench1v1Rules, genEncounters, 100_000)
}

// BenchmarkPassEncountersPaired1v1_100k times the pass with the rules and
// the pass without them on the same tickets, one after the other in each
// iteration, and reports the ratio of their CPU times: on a machine shared
// with other work, the two figures then see the same load. The CPU time is
// the pass's own thread's ("ratio"); the process's, which also holds what
// the runtime's background threads did meanwhile, is reported beside it
// ("process-ratio"). It also reports what loading each pool cost per ticket
// and the page faults of each pass.
//
//	go test ./engine/ -run '^$' -bench 'PassEncountersPaired' -benchtime 5x
func BenchmarkPassEncountersPaired1v1_100k(b *testing.B) {
	benchPaired(b, benchEncounterRules)
}

// benchEncounterMetRules keeps the one history rule the wording
// names ("a history rule"): recent opponents apart for a while, "met" with
// disable_after, without the block list.
var benchEncounterMetRules = strings.Replace(bench1v1Rules, `"alliance"`, `"collection_rule": [
		{"attribute": "met", "operation": "player_ids", "max_count": 0, "disable_after": 30}],
	"alliance"`, 1)

// BenchmarkPassEncountersMetPaired1v1_100k is the paired benchmark with
// that one rule, on the same tickets (their "blocked" lists are there but
// no rule reads them).
func BenchmarkPassEncountersMetPaired1v1_100k(b *testing.B) {
	benchPaired(b, benchEncounterMetRules)
}

// benchPaired times a pass under the given rules against the plain pass,
// the two pools holding the same tickets.
//
// Each pass is timed by its own thread's CPU clock (threadCPU): after the
// pool's loading and the collection that follows it, the runtime's
// scavenger returns the freed memory to the system on another thread, and
// billed to the pass by the process's clock it added up to 0.3 to the
// ratio, most of it during the rules' pass, whose pool's loading frees
// more (docs/PERFORMANCE.md, the history rule's fifth round). The two
// pools take turns being loaded first, so that neither always finds the
// memory the other left.
func benchPaired(b *testing.B, withRules string) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tickets := genEncounters(100_000, t0, 42)
	comp := [2]*ruleset.Compiled{load(b, bench1v1Rules), load(b, withRules)}
	var cpu, proc, add [2]time.Duration
	var faults [2]int64
	matches := [2]int{}
	b.ResetTimer()
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		for n := range 2 {
			k := (i + n) % 2 // 0 the plain pool, 1 the rules'
			add0 := cpuTime()
			p := loadedPool(b, comp[k], tickets)
			add[k] += cpuTime() - add0
			heapInUse()
			_, f0 := usage()
			proc0, cpu0 := cpuTime(), threadCPU()
			b.StartTimer()
			props := p.Step(t0)
			b.StopTimer()
			cpu[k] += threadCPU() - cpu0
			proc[k] += cpuTime() - proc0
			_, f1 := usage()
			faults[k] += f1 - f0
			matches[k] = len(props)
		}
	}
	b.ReportMetric(float64(cpu[0])/float64(b.N), "plain-cpu-ns/op")
	b.ReportMetric(float64(cpu[1])/float64(b.N), "rules-cpu-ns/op")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "ratio")
	b.ReportMetric(float64(proc[0])/float64(b.N), "plain-process-cpu-ns/op")
	b.ReportMetric(float64(proc[1])/float64(b.N), "rules-process-cpu-ns/op")
	b.ReportMetric(float64(proc[1])/float64(proc[0]), "process-ratio")
	b.ReportMetric(float64(faults[0])/float64(b.N), "plain-faults/op")
	b.ReportMetric(float64(faults[1])/float64(b.N), "rules-faults/op")
	// What loading the pool cost per ticket (Add, which summarises the
	// block lists, and the index), apart from the pass.
	n := float64(b.N * len(tickets))
	b.ReportMetric(float64(add[0])/n, "plain-add-ns/ticket")
	b.ReportMetric(float64(add[1])/n, "rules-add-ns/ticket")
	b.ReportMetric(float64(matches[0]), "plain-matches")
	b.ReportMetric(float64(matches[1]), "rules-matches")
}

// loadedPool is a pool holding the tickets, flushed and sorted, as
// benchPass loads it.
func loadedPool(b *testing.B, c *ruleset.Compiled, tickets []*cupid.Ticket) *Pool {
	p, err := New(testKey, c, Options{Candidates: benchCandidates})
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range tickets {
		if err := p.Add(t); err != nil {
			b.Fatal(err)
		}
	}
	p.flush()
	p.sortOrder()
	return p
}
