package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update and read the diff):\n%s", path, got)
	}
}

// platform is the line end that depends on the machine running the test;
// the golden file has it as PLATFORM.
var platform = runtime.GOOS + "/" + runtime.GOARCH

func TestVersionOutput(t *testing.T) {
	var b bytes.Buffer
	info := &debug.BuildInfo{
		GoVersion: runtime.Version(),
		Main:      debug.Module{Path: "github.com/cupid-match/cupid", Version: "v0.4.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "9f7b865a3c1d2e4f5a6b7c8d9e0f1a2b3c4d5e6f"},
			{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	writeVersion(&b, "", info)
	b.WriteString("-- with -X main.version and no VCS settings\n")
	writeVersion(&b, "v1.0.0", &debug.BuildInfo{GoVersion: runtime.Version(), Main: debug.Module{Version: "(devel)"}})
	b.WriteString("-- without build information\n")
	writeVersion(&b, "", nil)
	got := strings.ReplaceAll(b.String(), platform, "PLATFORM")
	got = strings.ReplaceAll(got, runtime.Version()+" PLATFORM", "GOVERSION PLATFORM")
	golden(t, "version.golden", got)
}

// TestVersionCommand runs the command itself: it reads this binary's own
// build information.
func TestVersionCommand(t *testing.T) {
	out, err := run("version")
	if err != nil {
		t.Fatal(err)
	}
	info, _ := debug.ReadBuildInfo()
	for _, want := range []string{"cupid ", "revision: ", "time: ", "go:       " + info.GoVersion + " " + platform} {
		if !strings.Contains(out, want) {
			t.Errorf("version output lacks %q:\n%s", want, out)
		}
	}
	if _, err := run("version", "extra"); err == nil {
		t.Error("version took an argument")
	}
}

// TestConfigCheck checks the files of testdata/configcheck/ (one good, the
// others with one or more problems each, and one that does not exist) and
// compares the output with testdata/configcheck.golden.
func TestConfigCheck(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "configcheck", "*.yaml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("testdata/configcheck: %v", err)
	}
	args := append([]string{"config", "check"}, files...)
	args = append(args, filepath.Join("testdata", "configcheck", "missing.yaml"))
	out, err := run(args...)
	if err != errConfigProblems {
		t.Fatalf("config check of bad files: %v, want %v", err, errConfigProblems)
	}
	golden(t, "configcheck.golden", filepath.ToSlash(out))

	// Good files only: success, one ok line each, and the built-in demo
	// configuration's file among them.
	out, err = run("config", "check", filepath.Join("testdata", "configcheck", "good.yaml"), filepath.Join("..", "..", "config", "demo.yaml"))
	if err != nil || strings.Count(out, ": ok\n") != 2 {
		t.Fatalf("config check of good files: %q, %v", out, err)
	}
	if _, err := run("config", "check"); err == nil {
		t.Fatal("config check without a file succeeded")
	}
}
