package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// measurer runs one round of a part, adding its samples to the table.
type measurer struct {
	tmp   string
	bins  map[string]string // package → compiled test binary or cupid
	table table
}

// packages lists what the parts need built.
func (m *measurer) packages(want map[string]bool) []string {
	var pkgs []string
	if want["engine"] || want["pure"] || want["sim"] {
		pkgs = append(pkgs, "./engine") // the sort floors live there
	}
	if want["pure"] {
		pkgs = append(pkgs, "./pairing", "./opponent", "./rating")
	}
	if want["server"] {
		pkgs = append(pkgs, "./service/ratingsvc")
	}
	if want["server"] {
		pkgs = append(pkgs, "./sqlite")
	}
	if want["server"] || want["sim"] {
		pkgs = append(pkgs, "./cmd/cupid")
	}
	return pkgs
}

func (m *measurer) measure(part string) error {
	switch part {
	case "engine":
		return m.engine()
	case "pure":
		return m.pure()
	case "server":
		return m.server()
	case "sim":
		return m.sim()
	}
	return fmt.Errorf("unknown part %q", part)
}

// bench runs benchmarks of a package built by packages.
func (m *measurer) bench(pkg, pattern, benchtime string) (map[string]result, error) {
	return runBench(m.bins[pkg], pkg, pattern, benchtime)
}

// sortFloor is the engine's BenchmarkSortFloor1M in milliseconds, the floor
// of the in-memory rows.
func (m *measurer) sortFloor() (float64, error) {
	v, err := m.sortFloorValues()
	return v["ns/op"] / 1e6, err
}

// sortFloorValues is every value BenchmarkSortFloor1M reports.
func (m *measurer) sortFloorValues() (map[string]float64, error) {
	rs, err := m.bench("./engine", "^BenchmarkSortFloor1M$", "5x")
	if err != nil {
		return nil, err
	}
	return rs["SortFloor1M"].values, nil
}

// over is a figure's ratio to its floor.
func over(measured, floor float64) float64 { return measured / floor }

// perSort is how many operations of a rate fit in one sort.
func perSort(rate, floorMs float64) float64 { return rate * floorMs / 1e3 }

func (m *measurer) engine() error {
	const pass1M = "go test ./engine -run '^$' -bench 'Pass1v1_1M|SortFloor1M' -benchtime 5x"
	rs, err := m.bench("./engine", "^BenchmarkPass1v1_1M$|^BenchmarkSortFloor1M$", "5x")
	if err != nil {
		return err
	}
	pass, sort := rs["Pass1v1_1M"].values, rs["SortFloor1M"].values
	m.table.addWall(row{target: "1v1 queue, 1,000,000 waiting tickets: one pass ≤ 1 s on one core, aim ≤ 4× a sort", command: pass1M,
		unit: "ms CPU", floorName: "slices.Sort of 1M float64", floorUnit: "ms CPU", ratioName: "× sort", ratio: over,
		most: 1000, mostRatio: 4},
		pass["cpu-ns/op"]/1e6, sort["cpu-ns/op"]/1e6, pass["ns/op"]/1e6, sort["ns/op"]/1e6)
	m.table.add(row{target: "≤ 1 KiB of memory per waiting ticket (engine and ticket)", command: pass1M,
		unit: "B (engine-B/ticket)"}, pass["engine-B/ticket"], 0)
	m.table.add(row{target: "≤ 1 KiB of memory per waiting ticket (engine and ticket)", command: pass1M + " (total)",
		unit: "B (total-B/ticket)", most: 1024}, pass["total-B/ticket"], 0)

	const pass100k = "go test ./engine -run '^$' -bench 'PassFree|Pass5v5_100k|SortFloor100k' -benchtime 5x"
	rs, err = m.bench("./engine", "^BenchmarkPassFree1v1_100k$|^BenchmarkPassFree2v2_100k$|^BenchmarkPass5v5_100k$|^BenchmarkSortFloor100k$", "5x")
	if err != nil {
		return err
	}
	floor := rs["SortFloor100k"].values
	// Each of them has a pass ≤ 1 s as its target.
	for _, c := range []struct{ name, target string }{
		{"PassFree1v1_100k", "100,000 one-player tickets, no distance rule, 1v1: every possible match in ≤ 1 s"},
		{"PassFree2v2_100k", "100,000 one-player tickets, no distance rule, 2v2: every possible match in ≤ 1 s"},
		{"Pass5v5_100k", "5v5, parties 1–5, roles and three regions, 100,000 tickets: a pass ≤ 1 s"},
	} {
		v := rs[c.name].values
		m.table.addWall(row{target: c.target, command: pass100k, unit: "ms CPU",
			floorName: "slices.Sort of 100k float64", floorUnit: "ms CPU", ratioName: "× sort", ratio: over, most: 1000},
			v["cpu-ns/op"]/1e6, floor["cpu-ns/op"]/1e6, v["ns/op"]/1e6, floor["ns/op"]/1e6)
	}

	// The encounter history's rules: the floor is the same pass over the
	// same tickets without them, timed right after in each iteration.
	const history = "go test ./engine -run '^$' -bench 'PassEncountersPaired1v1_100k$' -benchtime 3x"
	rs, err = m.bench("./engine", "^BenchmarkPassEncountersPaired1v1_100k$", "3x")
	if err != nil {
		return err
	}
	h, ok := rs["PassEncountersPaired1v1_100k"]
	if !ok {
		return fmt.Errorf("%s: no result (got %v)", history, keys(rs))
	}
	m.table.add(row{target: "1v1 pass of 100,000 tickets with the encounter history's rules (blocked, met) within 1.5× the same pass without them",
		command: history, unit: "ms CPU", floorName: "the same pass without the rules", floorUnit: "ms CPU", ratioName: "× without",
		ratio: over, mostRatio: 1.5},
		h.values["rules-cpu-ns/op"]/1e6, h.values["plain-cpu-ns/op"]/1e6)
	return nil
}

func (m *measurer) pure() error {
	type job struct {
		pkg, pattern, benchtime, command string
		// take reads a row's sample from the results.
		rows []struct {
			target, name, metric, unit string
			rate                       bool    // a rate: the ratio is per sort
			most, least                float64 // the target's bounds (0: none)
		}
	}
	type r = struct {
		target, name, metric, unit string
		rate                       bool
		most, least                float64
	}
	jobs := []job{
		{"./pairing", "^BenchmarkAdvance$/^n=10000$", "20x", "go test ./pairing -run '^$' -bench 'Advance/n=10000$' -benchtime 20x",
			[]r{{"pairing: 10,000-person round ≤ 50 ms", "Advance/n=10000", "ns/op", "ms", false, 50, 0}}},
		{"./pairing", "^BenchmarkAdvance$/^n=80$", "1000x", "go test ./pairing -run '^$' -bench 'Advance/n=80$' -benchtime 1000x",
			[]r{{"pairing: 80-person round ≤ 1 ms", "Advance/n=80", "ns/op", "ms", false, 1, 0}}},
		{"./opponent", "^BenchmarkQuery1M$|^BenchmarkQuery1MSeedExpr$", "2s", "go test ./opponent -run '^$' -bench 'Query1M$|Query1MSeedExpr$' -benchtime 2s",
			[]r{{"opponent look-up ≥ 200,000 queries/s per core, 1,000,000 cached (nearest MMR)", "Query1M", "queries/s", "queries/s", true, 0, 0},
				{"opponent look-up ≥ 200,000 queries/s per core, 1,000,000 cached (Metaplay's rule as an expression)", "Query1MSeedExpr", "queries/s", "queries/s", true, 0, 200000}}},
		{"./rating", "^BenchmarkWengLin5v5$", "1s", "go test ./rating -run '^$' -bench WengLin5v5",
			[]r{{"rating updates ≥ 50,000/s, 5v5 OpenSkill (Plackett-Luce)", "WengLin5v5/plackett-luce", "updates/s", "updates/s", true, 0, 50000},
				{"rating updates ≥ 50,000/s, 5v5 OpenSkill (Bradley-Terry)", "WengLin5v5/bradley-terry", "updates/s", "updates/s", true, 0, 50000}}},
	}
	for _, j := range jobs {
		rs, err := m.bench(j.pkg, j.pattern, j.benchtime)
		if err != nil {
			return err
		}
		floor, err := m.sortFloor()
		if err != nil {
			return err
		}
		for _, c := range j.rows {
			res, ok := rs[c.name]
			if !ok {
				return fmt.Errorf("%s: no result named %s (got %v)", j.command, c.name, keys(rs))
			}
			v := res.values[c.metric]
			if c.metric == "ns/op" {
				v /= 1e6
			}
			proto := row{target: c.target, command: j.command, unit: c.unit,
				floorName: "slices.Sort of 1M float64", floorUnit: "ms", ratioName: "× sort", ratio: over,
				most: c.most, least: c.least}
			if c.rate {
				proto.ratioName, proto.ratio = "per sort", perSort
			}
			m.table.add(proto, v, floor)
		}
	}
	return nil
}

func keys(rs map[string]result) []string {
	var out []string
	for k := range rs {
		out = append(out, k)
	}
	return out
}

func (m *measurer) sim() error {
	for _, pop := range []string{"1v1", "5v5"} {
		args := []string{"sim", "run", "docs/examples/sim/" + pop + ".yaml", "--ruleset", "docs/examples/sim/" + pop + ".json",
			"--baselines=false", "--json", filepath.Join(m.tmp, "sim-"+pop+".json")}
		start := time.Now()
		cmd := exec.Command(m.bins["./cmd/cupid"], args...)
		cmd.Stderr = os.Stderr
		if out, err := cmd.Output(); err != nil {
			return fmt.Errorf("cupid %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		wall := time.Since(start).Seconds()
		cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
		floor, err := m.sortFloorValues()
		if err != nil {
			return err
		}
		// The simulator runs the collector on the other core: its CPU
		// time exceeds its wall time on a quiet machine.
		m.table.addWall(row{target: "simulator: a simulated day of 1,000,000 players in under a minute (" + pop + ", ruleset only)",
			command: "cupid " + strings.Join(args[:5], " ") + " --baselines=false", unit: "s CPU",
			floorName: "slices.Sort of 1M float64", floorUnit: "ms CPU", ratioName: "× sort",
			ratio: func(s, ms float64) float64 { return s * 1e3 / ms }, most: 60, onWall: true},
			cpu, floor["cpu-ns/op"]/1e6, wall, floor["ns/op"]/1e6)
	}
	return nil
}
