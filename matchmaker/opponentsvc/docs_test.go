package opponentsvc

import (
	"os"
	"regexp"
	"testing"

	"github.com/cupid-match/cupid/config"
)

// TestDocsExamplesLoad keeps docs/opponents.md honest: every yaml block in
// it must load as a configuration and build a running service.
func TestDocsExamplesLoad(t *testing.T) {
	doc, err := os.ReadFile("../../docs/opponents.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1)
	if len(blocks) < 2 {
		t.Fatalf("found %d yaml blocks, want the examples", len(blocks))
	}
	for i, b := range blocks {
		cfg, err := config.ParseConfig(b[1], ".")
		if err != nil {
			t.Fatalf("yaml block %d: %v", i+1, err)
		}
		if _, err := New(Options{Docs: newMemDocs(), Config: cfg.Opponents}); err != nil {
			t.Fatalf("yaml block %d: %v", i+1, err)
		}
	}
}
