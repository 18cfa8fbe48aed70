package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/ruleset"
)

// runSplit executes the cupid command line with standard output and error
// kept apart: ruleset import writes the ruleset to one, the report to the
// other.
func runSplit(args ...string) (stdout, stderr string, err error) {
	root := rootCmd()
	var out, errOut strings.Builder
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errOut.String(), err
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ex *exitStatus
	if errors.As(err, &ex) {
		return ex.code
	}
	return 1
}

func TestRulesetImport(t *testing.T) {
	data := filepath.Join("..", "..", "importer", "testdata")
	for _, tc := range []struct {
		from, file string
		code       int
		config     bool
	}{
		{"flexmatch", "block_list.json", 0, false},
		{"flexmatch", "three_teams.json", 0, false},
		{"flexmatch", "hunters_vs_monster.json", 0, false},
		{"flexmatch", "explicit_sort.json", 1, false},
		{"nakama", "ranked.json", 1, false}, // the query's boost ranks, approximately
		{"nakama", "fixed.json", 1, false},
		{"openmatch", "two_pools.json", 1, true},
	} {
		t.Run(tc.from+"/"+tc.file, func(t *testing.T) {
			path := filepath.Join(data, tc.from, tc.file)
			out, report, err := runSplit("ruleset", "import", "--from", tc.from, path)
			if got := exitCode(err); got != tc.code {
				t.Fatalf("exit status %d, want %d (%v)\n%s", got, tc.code, err, report)
			}
			if !strings.Contains(report, path+":") {
				t.Errorf("report does not name the file's lines:\n%s", report)
			}
			switch {
			case tc.code == 2:
				if out != "" || !strings.Contains(report, "refused") {
					t.Errorf("refused import wrote %q, report %q", out, report)
				}
			case tc.config:
				if _, err := config.ParseConfig([]byte(out), t.TempDir()); err != nil {
					t.Errorf("the queues written do not load: %v\n%s", err, out)
				}
			default:
				if _, err := ruleset.Load([]byte(out)); err != nil {
					t.Errorf("the ruleset written does not load: %v\n%s", err, out)
				}
			}
		})
	}
}

// TestRulesetImportRefused: a rule set without teams is refused with exit
// status 2 and nothing written.
func TestRulesetImportRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no_teams.json")
	if err := os.WriteFile(path, []byte(`{"name": "x", "ruleLanguageVersion": "1.0", "rules": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, report, err := runSplit("ruleset", "import", "--from", "flexmatch", path)
	if exitCode(err) != 2 || out != "" || !strings.Contains(report, "refused: the rule set has no teams") {
		t.Errorf("exit %d, wrote %q, report %q; want exit 2, nothing written, refused for no teams", exitCode(err), out, report)
	}
}

func TestRulesetImportErrors(t *testing.T) {
	path := filepath.Join("..", "..", "importer", "testdata", "flexmatch", "block_list.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ruleset", "import", path}, "--from is required"},
		{[]string{"ruleset", "import", "--from", "matchmaker9000", path}, `unknown source "matchmaker9000"`},
		{[]string{"ruleset", "import", "--from", "flexmatch", "/nonexistent/rules.json"}, "no such file"},
	} {
		_, _, err := runSplit(tc.args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v (exit %d), want exit 2 and %q", tc.args, err, exitCode(err), tc.want)
		}
	}
	// --out writes the file.
	out := filepath.Join(t.TempDir(), "cupid.json")
	if _, _, err := runSplit("ruleset", "import", "--from", "flexmatch", "-o", out, path); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(out); err != nil || ruleset.Check(data) != nil {
		t.Errorf("--out: %v, %v", err, ruleset.Check(data))
	}
}
