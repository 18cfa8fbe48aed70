package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// codeBlock is a fenced block of a markdown file.
type codeBlock struct {
	lang, text string
	line       int // of the opening fence
}

var fence = regexp.MustCompile("(?ms)^```(\\w*)\n(.*?)^```")

// codeBlocks extracts the fenced blocks of the given languages from a
// markdown file.
func codeBlocks(t *testing.T, path string, langs ...string) []codeBlock {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []codeBlock
	for _, m := range fence.FindAllSubmatchIndex(b, -1) {
		lang := string(b[m[2]:m[3]])
		for _, l := range langs {
			if lang == l {
				out = append(out, codeBlock{lang: lang, text: string(b[m[4]:m[5]]), line: 1 + strings.Count(string(b[:m[0]]), "\n")})
			}
		}
	}
	return out
}

// TestDocsExamplesParse keeps the documentation honest: every YAML block of
// README.md, docs/opponents.md and docs/pairing.md is a configuration (or,
// for the pairing section, a part of one) that loads, and every JSON block
// that is a configuration loads too; the others (API messages, stored
// documents) must at least be JSON, unless abridged with "…".
func TestDocsExamplesParse(t *testing.T) {
	demo, err := DemoConfig()
	if err != nil {
		t.Fatal(err)
	}
	// README's example names a ruleset file beside the configuration.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "rulesets"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rulesets", "squad5v5.json"), demo.Queues[1].RulesetJSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"../README.md": 2, "../docs/opponents.md": 3, "../docs/pairing.md": 1, "../docs/ratings.md": 1} {
		blocks := codeBlocks(t, path, "yaml", "yml", "json")
		yamlBlocks := 0
		for _, b := range blocks {
			if b.lang == "json" && !isConfig(b.text) {
				if !strings.Contains(b.text, "…") && !json.Valid([]byte(b.text)) {
					t.Errorf("%s:%d: a JSON block is not JSON", path, b.line)
				}
				continue
			}
			if b.lang != "json" {
				yamlBlocks++
			}
			text := b.text
			if !strings.Contains(text, "queues:") && !strings.Contains(text, "opponents:") && !strings.Contains(text, `"queues"`) {
				text += oneQueue // a section shown alone
			}
			if _, err := ParseConfig([]byte(text), dir); err != nil {
				t.Errorf("%s:%d: the example does not load: %v", path, b.line, err)
			}
		}
		if yamlBlocks != want {
			t.Errorf("%s: %d YAML blocks, want %d: update this test with the documentation", path, yamlBlocks, want)
		}
	}
}

// isConfig reports whether a JSON block is a configuration: an object of
// configuration sections.
func isConfig(text string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &top) != nil || len(top) == 0 {
		return false
	}
	for k := range top {
		if k != "queues" && k != "opponents" && k != "pairing" {
			return false
		}
	}
	return true
}
