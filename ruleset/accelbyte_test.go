package ruleset

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the .golden files of testdata from the current output")

// TestTestdata loads every ruleset under testdata. A file whose name starts
// with bad_ must fail, and its "cupid ruleset check" output must equal the
// .golden file beside it; every other file must load cleanly.
func TestTestdata(t *testing.T) {
	files, err := filepath.Glob("testdata/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found only %d testdata files", len(files))
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := CheckText(filepath.Base(file), data)
			bad := strings.HasPrefix(filepath.Base(file), "bad_")
			if !bad {
				if got != "" {
					t.Fatalf("want a valid ruleset, got:\n%s", got)
				}
				return
			}
			if got == "" {
				t.Fatal("want problems, the ruleset loaded")
			}
			golden := strings.TrimSuffix(file, ".json") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("check output differs from %s:\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// TestSeedTrailingCommas pins the message for the seed's three malformed
// examples: it must name the line and column of the comma and say why.
func TestSeedTrailingCommas(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"bad_11_rebalance.json", "bad_11_rebalance.json:19:2: matching_rule: trailing comma before ']': JSON allows no comma after the last element\n"},
		{"bad_12_is_for_balancing.json", "bad_12_is_for_balancing.json:21:2: matching_rule: trailing comma before ']': JSON allows no comma after the last element\n"},
		{"bad_13_max_for_balancing.json", "bad_13_max_for_balancing.json:23:2: matching_rule: trailing comma before ']': JSON allows no comma after the last element\n"},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(filepath.Join("testdata/accelbyte", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := CheckText(tt.file, data); got != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.file, got, tt.want)
		}
	}
}

// TestSeedRebalance checks what the seed says of is_for_balancing: without
// the flag only the first matching rule balances teams; with it, each
// flagged rule does.
func TestSeedRebalance(t *testing.T) {
	tests := []struct {
		file string
		want []int
	}{
		{"11_rebalance_fixed.json", []int{0}},
		{"12_is_for_balancing_fixed.json", []int{0, 1}},
		{"13_max_for_balancing_fixed.json", []int{0, 1}},
	}
	for _, tt := range tests {
		c := loadFile(t, filepath.Join("testdata/accelbyte", tt.file))
		if !slices.Equal(c.Balancing, tt.want) {
			t.Errorf("%s: Balancing = %v, want %v", tt.file, c.Balancing, tt.want)
		}
	}
	c := loadFile(t, "testdata/accelbyte/13_max_for_balancing_fixed.json")
	if c.Matching[0].Max != 2000 || c.Matching[1].Max != 3000 {
		t.Errorf("max values: %v, %v", c.Matching[0].Max, c.Matching[1].Max)
	}
}

func loadFile(t *testing.T, file string) *Compiled {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return c
}
