package engine

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

// The benchmarks measure one full matching pass: a pool freshly loaded with
// N waiting tickets (every ticket due) and one Step. Building the tickets and
// loading the pool happen outside the timer. Besides ns/op and B/op they
// report:
//
//   - engine-B/ticket: heap the pool itself holds per waiting ticket (its
//     entries, index, order, id map), measured after a GC with the tickets
//     already allocated;
//   - total-B/ticket: the same plus the tickets themselves (what a server
//     holding only the pool's tickets would pay);
//   - matches/op: proposals formed by the pass;
//   - scanned/anchor: waiting tickets an anchor looked at, on average;
//   - cpu-ns/op: the process's CPU time during the pass (includes the
//     garbage collector), steadier than ns/op on a shared machine;
//   - sys-ns/op and faults/op: the part of it in the kernel, and the page
//     faults, mostly the first touch of the memory the proposals take;
//   - mean-quality: the formed matches' average quality score.
//
// Run them with a short benchtime, e.g.
//
//	go test ./engine/ -run '^$' -bench Pass -benchtime 3x -benchmem

const bench1v1Rules = `{
	"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
	"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 50, "max": 3000}],
	"flexing_rule": [
		{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 100},
		{"duration": 30, "attribute": "mmr", "criteria": "distance", "reference": 200}
	]
}`

const bench5v5Rules = `{
	"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 5, "player_max_number": 5},
	"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 150, "max": 3000, "is_for_balancing": true}],
	"flexing_rule": [{"duration": 20, "attribute": "mmr", "criteria": "distance", "reference": 300}],
	"region_latency_initial_range_ms": 60,
	"region_expansion_range_ms": 40,
	"region_expansion_rate_ms": 10000,
	"region_latency_max_ms": 200,
	"roles": {"quotas": [
		{"name": "tank", "min": 1, "max": 1},
		{"name": "healer", "min": 1, "max": 1},
		{"name": "dps", "min": 2, "max": 3}
	]}
}`

// gen1v1 makes n solo tickets with a normal-ish mmr, created over the last
// minute before now.
func gen1v1(n int, now time.Time, seed uint64) []*cupid.Ticket {
	rng := rand.New(rand.NewPCG(seed, 1))
	ts := make([]*cupid.Ticket, n)
	players := make([]cupid.Player, n)
	for i := range ts {
		mmr := min(max(1500+rng.NormFloat64()*400, 0), 3000)
		id := fmt.Sprintf("t%07d", i)
		players[i] = cupid.Player{ID: id, Attributes: cupid.Attributes{{Name: "mmr", Value: cupid.Number(mmr)}}}
		ts[i] = &cupid.Ticket{
			ID: id, Key: testKey, Players: players[i : i+1 : i+1], State: cupid.StateWaiting,
			CreatedAt: now.Add(-time.Minute + time.Duration(i)*time.Minute/time.Duration(n)),
		}
	}
	return ts
}

var roleChoices = [][]string{{"tank"}, {"healer"}, {"dps"}, {"dps"}, {"dps", "tank"}, {"healer", "dps"}, {"dps"}, {"tank", "healer", "dps"}}

// gen5v5 makes n party tickets of 1–5 players with roles and latencies to
// three regions.
func gen5v5(n int, now time.Time, seed uint64) []*cupid.Ticket {
	rng := rand.New(rand.NewPCG(seed, 2))
	regions := []string{"eu-west", "us-east", "ap-south"}
	ts := make([]*cupid.Ticket, n)
	for i := range ts {
		size := 1
		switch r := rng.IntN(100); {
		case r >= 95:
			size = 5
		case r >= 88:
			size = 4
		case r >= 78:
			size = 3
		case r >= 60:
			size = 2
		}
		id := fmt.Sprintf("t%07d", i)
		base := min(max(1500+rng.NormFloat64()*400, 0), 3000)
		t := &cupid.Ticket{ID: id, Key: testKey, State: cupid.StateWaiting,
			CreatedAt: now.Add(-time.Minute + time.Duration(i)*time.Minute/time.Duration(n))}
		for k := 0; k < size; k++ {
			t.Players = append(t.Players, cupid.Player{ID: fmt.Sprintf("%s.%d", id, k), Attributes: cupid.NewAttributes(map[string]cupid.Value{
				"mmr":  cupid.Number(min(max(base+rng.NormFloat64()*80, 0), 3000)),
				"role": cupid.Strings(roleChoices[rng.IntN(len(roleChoices))]...),
			})})
		}
		home := rng.IntN(len(regions))
		t.Latencies = map[string]int32{}
		for r, name := range regions {
			ms := 20 + rng.IntN(40)
			if r != home {
				ms += 60 + rng.IntN(120)
			}
			t.Latencies[name] = int32(ms)
		}
		ts[i] = t
	}
	return ts
}

// cpuTime is the CPU time the process has used (user and system), so that
// a benchmark on a machine shared with other work can report what the pass
// itself cost, apart from the wall-clock time it waited for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// usage is the process's system time and page faults so far: a pass
// writing into memory the process has not touched yet pays for it there.
func usage() (sys time.Duration, faults int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Stime.Nano()), ru.Minflt + ru.Majflt
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func benchPass(b *testing.B, rules string, gen func(int, time.Time, uint64) []*cupid.Ticket, n int) {
	now := t0
	c := load(b, rules)
	before := heapInUse()
	tickets := gen(n, now, 42)
	withTickets := heapInUse()
	var engineBytes, totalBytes float64
	matches := 0
	scanned := 0.0
	cpuNs, sysNs, faults := 0.0, 0.0, 0.0
	quality := 0.0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p, err := New(testKey, c, Options{Candidates: benchCandidates})
		if err != nil {
			b.Fatal(err)
		}
		refused := 0
		for _, t := range tickets {
			// A ticket Check refuses (a party that could never be staffed
			// on one team) is refused at create by the server too.
			if err := p.Add(t); err != nil {
				if cupid.ErrorCode(err) != cupid.CodeInvalid {
					b.Fatal(err)
				}
				refused++
			}
		}
		if refused == len(tickets) {
			// Nothing to match: the figures would time an empty pass.
			b.Fatalf("every ticket refused, the last with %v", p.Add(tickets[len(tickets)-1]))
		}
		b.ReportMetric(float64(refused), "refused")
		p.flush()
		p.sortOrder()
		// Collect the setup's garbage now, so the pass is not billed
		// for it (and the figures below are live bytes).
		loaded := heapInUse()
		if i == 0 {
			engineBytes = float64(loaded-withTickets) / float64(n)
			totalBytes = float64(loaded-before) / float64(n)
		}
		cpu0 := cpuTime()
		sys0, faults0 := usage()
		b.StartTimer()
		props := p.Step(now)
		b.StopTimer()
		cpuNs += float64(cpuTime() - cpu0)
		sys1, faults1 := usage()
		sysNs += float64(sys1 - sys0)
		faults += float64(faults1 - faults0)
		matches = len(props)
		st := p.Stats()
		scanned = float64(st.Scanned) / float64(max(st.AnchorTries, 1))
		quality = st.QualitySum / float64(max(st.Formed, 1))
		runtime.KeepAlive(p)
	}
	b.ReportMetric(engineBytes, "engine-B/ticket")
	b.ReportMetric(totalBytes, "total-B/ticket")
	b.ReportMetric(float64(matches), "matches/op")
	b.ReportMetric(scanned, "scanned/anchor")
	b.ReportMetric(cpuNs/float64(b.N), "cpu-ns/op")
	b.ReportMetric(sysNs/float64(b.N), "sys-ns/op")
	b.ReportMetric(faults/float64(b.N), "faults/op")
	b.ReportMetric(quality, "mean-quality")
	runtime.KeepAlive(tickets)
}

// Rulesets without a distance rule, in the shape of Nakama's matchmaker
// benchmark: one-player tickets, matches of 1 against 1 or 2 against 2, a
// game mode every ticket names ("all": same value).
const (
	benchFree1v1Rules = `{
	"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
	"match_options": {"options": [{"name": "mode", "type": "all"}]}
}`
	benchFree2v2Rules = `{
	"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
	"match_options": {"options": [{"name": "mode", "type": "all"}]}
}`
)

// genFree makes n one-player tickets created over the last minute; one in 32
// asks for a mode nobody else plays and can never match.
func genFree(n int, now time.Time, seed uint64) []*cupid.Ticket {
	rng := rand.New(rand.NewPCG(seed, 3))
	ts := make([]*cupid.Ticket, n)
	players := make([]cupid.Player, n)
	for i := range ts {
		id := fmt.Sprintf("t%07d", i)
		mode := "default"
		if rng.IntN(32) == 0 {
			mode = "custom-" + id
		}
		players[i] = cupid.Player{ID: id}
		ts[i] = &cupid.Ticket{
			ID: id, Key: testKey, Players: players[i : i+1 : i+1], State: cupid.StateWaiting,
			Attributes: cupid.Attributes{{Name: "mode", Value: cupid.String(mode)}},
			CreatedAt:  now.Add(-time.Minute + time.Duration(i)*time.Minute/time.Duration(n)),
		}
	}
	return ts
}

func BenchmarkPass1v1_100k(b *testing.B) { benchPass(b, bench1v1Rules, gen1v1, 100_000) }
func BenchmarkPass1v1_1M(b *testing.B)   { benchPass(b, bench1v1Rules, gen1v1, 1_000_000) }
func BenchmarkPass5v5_100k(b *testing.B) { benchPass(b, bench5v5Rules, gen5v5, 100_000) }

// The passes without a distance rule: every possible match (all but the
// lonely modes) must form.
func BenchmarkPassFree1v1_100k(b *testing.B) { benchPass(b, benchFree1v1Rules, genFree, 100_000) }
func BenchmarkPassFree2v2_100k(b *testing.B) { benchPass(b, benchFree2v2Rules, genFree, 100_000) }

// benchCandidates overrides Options.Candidates in the pass benchmarks (0:
// the default), for tuning.
var benchCandidates = 0
