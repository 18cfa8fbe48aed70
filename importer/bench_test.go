package importer

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkImport measures one import of a published example, ruleset check
// included: the work an ImportRuleset call does.
func BenchmarkImport(b *testing.B) {
	for _, tc := range []struct{ from, file string }{
		{"flexmatch", "three_teams.json"},
		{"nakama", "ranked.json"},
		{"openmatch", "two_pools.json"},
	} {
		src, err := os.ReadFile(filepath.Join("testdata", tc.from, tc.file))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.from, func(b *testing.B) {
			for b.Loop() {
				if _, err := Import(tc.from, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
