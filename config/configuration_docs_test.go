package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestConfigurationDocsNameEverySetting keeps docs/configuration.md true:
// every setting the file reads (every yaml name of the Config type, through
// its sections, lists and inline parts) is named there, and every setting
// the document shows in a table is one the file reads.
func TestConfigurationDocsNameEverySetting(t *testing.T) {
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	known := map[string]bool{}
	for _, s := range allSettings(reflect.TypeFor[Config](), "") {
		for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '[' || r == ']' }) {
			known[part] = true
		}
		name := s[strings.LastIndexAny(s, ".]")+1:]
		if !containsWord(doc, name) {
			t.Errorf("setting %s: %q is not in docs/configuration.md", s, name)
		}
	}
	for _, section := range []string{"queues", "opponents", "pairing", "server"} {
		if !strings.Contains(doc, "## `"+section+"`") {
			t.Errorf("docs/configuration.md has no section for %s", section)
		}
	}
	// The first column of the settings tables names real settings.
	row := regexp.MustCompile("(?m)^\\| (`[a-z_\\[\\]. ,`]+) \\|")
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		for _, name := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[1], -1) {
			if strings.HasPrefix(name[1], "--") {
				continue
			}
			for _, part := range strings.FieldsFunc(name[1], func(r rune) bool { return r == '.' || r == '[' || r == ']' }) {
				if !known[part] {
					t.Errorf("docs/configuration.md names %q, which no setting is", name[1])
				}
			}
		}
	}
}
