package config

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// TestErrorsGolden loads every file of testdata/errors/ and compares the
// errors, as a user sees them, with testdata/errors.golden. Run
// `go test ./config -run Golden -update` after changing a message, and
// read the diff.
func TestErrorsGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "errors", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in testdata/errors: %v", err)
	}
	var got bytes.Buffer
	for _, f := range files {
		_, err := LoadConfig(f)
		if err == nil {
			t.Errorf("%s loads; every file here must fail", f)
			continue
		}
		fmt.Fprintf(&got, "== %s\n%v\n\n", filepath.ToSlash(f), err)
	}
	golden := filepath.Join("testdata", "errors.golden")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("errors differ from %s (run with -update and read the diff):\n%s", golden, got.String())
	}
}
