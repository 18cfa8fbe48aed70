package importer

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden imports every source in testdata/<product>/ and compares the
// ruleset and the report with the golden files next to it: NAME.cupid.json
// (absent when the import is refused) and NAME.report.txt. Run with -update
// to rewrite them after a deliberate change, and read the diff.
func TestGolden(t *testing.T) {
	for _, from := range Sources {
		files, _ := filepath.Glob(filepath.Join("testdata", from, "*"))
		for _, path := range files {
			if strings.HasSuffix(path, ".cupid.json") || strings.HasSuffix(path, ".report.txt") || strings.HasSuffix(path, ".cupid.yaml") {
				continue
			}
			t.Run(from+"/"+filepath.Base(path), func(t *testing.T) {
				src, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				res, err := Import(from, src)
				if err != nil {
					t.Fatal(err)
				}
				base := strings.TrimSuffix(path, filepath.Ext(path))
				golden(t, base+".report.txt", []byte(res.Report.Text(filepath.Base(path))))
				golden(t, base+".cupid.json", res.Ruleset)
				golden(t, base+".cupid.yaml", res.Config)
			})
		}
	}
}

// golden compares got with the file at path; nil got means the file must
// not exist.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if got == nil {
			os.Remove(path)
			return
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	switch {
	case got == nil && os.IsNotExist(err):
		return
	case got == nil:
		t.Errorf("%s exists but the import wrote no ruleset (run with -update)", path)
	case err != nil:
		t.Errorf("%v (run with -update)", err)
	case !bytes.Equal(got, want):
		t.Errorf("%s differs (run with -update and read the diff):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestRefusesHugeSources: a source asking for more than Cupid's limits is
// refused at once, before any work proportional to what it asks.
func TestRefusesHugeSources(t *testing.T) {
	for _, tc := range []struct{ from, src, want string }{
		{"flexmatch", `{"teams": [{"name": "a", "minPlayers": 1, "maxPlayers": 1, "quantity": 1000000000}]}`, "at most 100 teams"},
		{"flexmatch", `{"teams": [{"name": "a", "minPlayers": 1, "maxPlayers": 1, "quantity": 60}, {"name": "b", "minPlayers": 1, "maxPlayers": 1, "quantity": 60}]}`, "120 teams"},
		{"flexmatch", `{"rules": [` + strings.Repeat(`{},`, 300) + `{}]}`, "rules has 301 entries"},
		{"openmatch", `{"pools": [` + strings.Repeat(`{},`, 300) + `{}]}`, "301 pools"},
	} {
		res, err := Import(tc.from, []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Report.Refused, tc.want) {
			t.Errorf("%s: refused %q, want %q", tc.src[:40], res.Report.Refused, tc.want)
		}
	}
}
