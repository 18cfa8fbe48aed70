package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Bad flags are refused before anything is built or run, naming the flag.
func TestParseArgsRefusesBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"-rounds", "0"}, []string{"-rounds", "at least 1", "0"}},
		{[]string{"-parts", "engine,engin"}, []string{"-parts", `"engin"`}},
		{[]string{"-parts", ""}, []string{"-parts", `""`}},
		{[]string{"-round", "2"}, []string{"-round"}},
		{[]string{"engine"}, []string{"unexpected", "engine"}},
	} {
		_, _, err := parseArgs(c.args)
		if err == nil {
			t.Errorf("parseArgs(%q): no error", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("parseArgs(%q) = %q, want it to say %s", c.args, err, w)
			}
		}
	}
}

// TestDocumentedCommands checks every `go run ./internal/perf …` command
// in docs/PERFORMANCE.md: its flags must parse, so the doc never names a
// part or flag the command refuses. (Running them takes many minutes on a
// quiet machine; the measurements they print are the doc's, not a test's.)
func TestDocumentedCommands(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "PERFORMANCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := regexp.MustCompile("go run ./internal/perf([^`\n]*)").FindAllStringSubmatch(string(doc), -1)
	if len(cmds) == 0 {
		t.Fatal("docs/PERFORMANCE.md names no go run ./internal/perf command")
	}
	for _, c := range cmds {
		args := strings.Fields(strings.SplitN(c[1], "#", 2)[0])
		if _, _, err := parseArgs(args); err != nil {
			t.Errorf("documented %q: %v", c[0], err)
		}
	}
}
