package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// result is one benchmark line of `go test -bench`: its name without the
// GOMAXPROCS suffix, and every value by its unit (ns/op, B/op, and the
// benchmark's own metrics such as cpu-ns/op or queries/s).
type result struct {
	name   string
	values map[string]float64
}

// parseBench reads the benchmark lines of go test's output.
func parseBench(out string) []result {
	var rs []result
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := f[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		r := result{name: strings.TrimPrefix(name, "Benchmark"), values: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			r.values[f[i+1]] = v
		}
		rs = append(rs, r)
	}
	return rs
}

// testBinary compiles a package's tests once, so every round runs the same
// code and no round pays for a build.
func testBinary(dir, pkg string) (string, error) {
	bin := filepath.Join(dir, strings.ReplaceAll(strings.Trim(pkg, "./"), "/", "_")+".test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go test -c %s: %w", pkg, err)
	}
	return bin, nil
}

// runBench runs benchmarks matching pattern from a compiled test binary,
// in the package's directory as go test would, and returns their results
// by name.
func runBench(bin, pkgDir, pattern, benchtime string) (map[string]result, error) {
	cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", pattern, "-test.benchtime", benchtime, "-test.benchmem")
	cmd.Dir = pkgDir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s -test.bench %q: %w\n%s", filepath.Base(bin), pattern, err, out)
	}
	rs := map[string]result{}
	for _, r := range parseBench(string(out)) {
		rs[r.name] = r
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("%s -test.bench %q: no benchmark ran\n%s", filepath.Base(bin), pattern, out)
	}
	return rs, nil
}
