package enginetest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cupid-match/cupid/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestGolden runs every testdata/*.json scenario and compares its text report
// with the .golden file beside it; -update rewrites them.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := sim.ParseScenario(data)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := sim.RunScenario(s)
			if err != nil {
				t.Fatal(err)
			}
			got := rep.Text()
			golden := strings.TrimSuffix(f, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("report differs from %s (run with -update after checking):\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}
