// Command perf re-measures the summary table of docs/PERFORMANCE.md on the
// machine at hand, each figure beside its floor measured in the same round:
//
//	go run ./internal/perf                 # everything, three rounds
//	go run ./internal/perf -parts engine   # the engine's passes only
//
// The machines the project is measured on are shared: the same benchmark
// varies by up to 1.7× from one minute to the next. A figure alone then says
// little, a ratio to a floor measured in the same minute says more: a
// slices.Sort of as many float64 for the engine's passes and the other
// in-memory work, the store alone for durable intake, an HTTP round trip to
// the same server for notification latency. Each round measures every figure
// and its floor one after the other, and the table gives the range over the
// rounds of each and of their ratio.
//
// Parts (-parts, comma-separated): engine (the pool's passes and memory),
// pure (pairing, opponents, ratings), server (cupid serve and cupid load on
// SQLite, with the store alone), sim (a simulated day of 1,000,000 players,
// a minute or more each). The test binaries and cupid are built once, first.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

func main() {
	rounds, want, err := parseArgs(os.Args[1:])
	if err == nil {
		err = run(rounds, want)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "perf:", err)
		os.Exit(2)
	}
}

// parseArgs reads the command line: the rounds and the parts wanted.
func parseArgs(args []string) (int, map[string]bool, error) {
	fs := flag.NewFlagSet("perf", flag.ContinueOnError)
	rounds := fs.Int("rounds", 3, "rounds: each measures every figure and its floor once")
	parts := fs.String("parts", "engine,pure,server,sim", "what to measure: engine, pure, server, sim (comma-separated)")
	if err := fs.Parse(args); err != nil {
		return 0, nil, err
	}
	if fs.NArg() > 0 {
		return 0, nil, fmt.Errorf("unexpected arguments %q (flags only: -rounds, -parts)", fs.Args())
	}
	if *rounds < 1 {
		return 0, nil, fmt.Errorf("-rounds must be at least 1, got %d", *rounds)
	}
	want := map[string]bool{}
	for _, p := range strings.Split(*parts, ",") {
		switch p = strings.TrimSpace(p); p {
		case "engine", "pure", "server", "sim":
			want[p] = true
		default:
			return 0, nil, fmt.Errorf("-parts: unknown part %q (engine, pure, server, sim)", p)
		}
	}
	return *rounds, want, nil
}

func run(rounds int, want map[string]bool) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	if err := os.Chdir(root); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "cupid-perf-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	fmt.Printf("Machine: %d CPUs, %s; %s; %s\n", runtime.NumCPU(), cpuModel(), goVersion(), time.Now().UTC().Format("2006-01-02 15:04 MST"))
	m := &measurer{tmp: tmp, bins: map[string]string{}}
	for _, pkg := range m.packages(want) {
		fmt.Fprintf(os.Stderr, "building %s\n", pkg)
		if pkg == "./cmd/cupid" {
			bin := filepath.Join(tmp, "cupid")
			cmd := exec.Command("go", "build", "-o", bin, pkg)
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("go build %s: %w", pkg, err)
			}
			m.bins[pkg] = bin
			continue
		}
		bin, err := testBinary(tmp, pkg)
		if err != nil {
			return err
		}
		m.bins[pkg] = bin
	}
	for r := 1; r <= rounds; r++ {
		for _, part := range []string{"engine", "pure", "server", "sim"} {
			if !want[part] {
				continue
			}
			fmt.Fprintf(os.Stderr, "round %d of %d: %s\n", r, rounds, part)
			if err := m.measure(part); err != nil {
				return err
			}
		}
	}
	fmt.Println()
	m.table.print(os.Stdout, rounds)
	return nil
}

// moduleRoot is the directory of the go.mod above the working directory.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run it inside the cupid module (no go.mod found)")
	}
	return filepath.Dir(mod), nil
}

// cpuModel is the processor's model name as lscpu shows it.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown processor"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown processor"
}

func goVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(out))
}
