package main

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestServeFlagsDocumented: every flag of cupid serve has its row in
// docs/configuration.md, so a flag cannot be added unsaid.
func TestServeFlagsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	serveCmd().Flags().VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(string(doc), "`--"+f.Name+"`") {
			t.Errorf("--%s is not in docs/configuration.md", f.Name)
		}
	})
}
