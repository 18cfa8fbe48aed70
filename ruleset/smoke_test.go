package ruleset

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSmoke(t *testing.T) {
	files, _ := filepath.Glob("testdata/seed003/*.json")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		t.Logf("%s:\n%s", f, CheckText(filepath.Base(f), data))
	}
}
