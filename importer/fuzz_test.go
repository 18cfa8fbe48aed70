package importer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cupid-match/cupid/ruleset"
)

// The importers read what anyone may send through the API: whatever the
// bytes, an import returns a report, never panics, and any ruleset it writes
// loads.
func fuzzImport(f *testing.F, from string) {
	files, _ := filepath.Glob(filepath.Join("testdata", from, "*.json"))
	for _, path := range files {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"teams": [{"name": "a", "minPlayers": 1, "maxPlayers": 1}], "rules": [{"name": "x", "type": "comparison", "measurements": "avg(count(teams[a].players[playerId]))"}]}`))
	f.Add([]byte(`{"query": "+properties.a:\"b c\"^x -properties.n:>=", "min_count": 2, "max_count": 2}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		res, err := Import(from, src)
		if err != nil {
			t.Fatal(err)
		}
		if res.Ruleset != nil {
			if _, err := ruleset.Load(res.Ruleset); err != nil {
				t.Fatalf("an import wrote a ruleset that does not load: %v\n%s", err, res.Ruleset)
			}
		}
		if res.Report.Outcome() == OutcomeRefused && (res.Ruleset != nil || res.Config != nil) {
			t.Fatal("a refused import wrote something")
		}
	})
}

func FuzzFlexMatch(f *testing.F) { fuzzImport(f, "flexmatch") }
func FuzzNakama(f *testing.F)    { fuzzImport(f, "nakama") }
func FuzzOpenMatch(f *testing.F) { fuzzImport(f, "openmatch") }
