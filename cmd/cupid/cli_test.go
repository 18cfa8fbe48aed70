package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run executes the cupid command line in-process.
func run(args ...string) (string, error) {
	root := rootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestRulesetCheck(t *testing.T) {
	good := filepath.Join("..", "..", "ruleset", "testdata", "accelbyte", "17_ffa_mmr_flexing.json")
	out, err := run("ruleset", "check", good)
	if err != nil || !strings.HasSuffix(out, ": ok\n") {
		t.Fatalf("check of a good ruleset: %q, %v", out, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{\n  \"alliance\": {\"min_number\": 2, \"max_number\": 2, \"player_min_number\": 1, \"player_max_number\": 1},\n  \"matching_rule\": [{\"atribute\": \"mmr\", \"criteria\": \"distance\", \"reference\": 1}]\n}\n"), 0o644)
	out, err = run("ruleset", "check", bad)
	if err == nil {
		t.Fatal("check of a bad ruleset succeeded")
	}
	if !strings.Contains(out, bad+":3:") || !strings.Contains(out, "matching_rule[0]") {
		t.Fatalf("check output %q lacks the line and the JSON path", out)
	}
}

func TestRulesetTry(t *testing.T) {
	out, err := run("ruleset", "try", filepath.Join("..", "..", "engine", "enginetest", "testdata", "duel.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"match 1", "quality", "waiting"} {
		if !strings.Contains(out, want) {
			t.Fatalf("try output lacks %q:\n%s", want, out)
		}
	}
}
