package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fuzzRuleset is the one ruleset file the fuzzed configurations can name.
const fuzzRuleset = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`

// fuzzFiles stands in for the file system: "ok.json" is a ruleset, every
// other name is missing, so a fuzzed ruleset_file reads nothing real.
func fuzzFiles(path string) ([]byte, error) {
	if filepath.Base(path) == "ok.json" {
		return []byte(fuzzRuleset), nil
	}
	return nil, os.ErrNotExist
}

// FuzzParseConfig feeds the parser arbitrary text. It must never panic,
// must refuse with Errors, each placed inside the text (or nowhere) and in
// the order of the text, must
// accept only configurations that hold something, and must say the same
// thing twice.
func FuzzParseConfig(f *testing.F) {
	f.Add(demoYAML)
	f.Add([]byte(oneQueue))
	f.Add([]byte(finderYAML("scan: {enabled: true, tick: 1s}", "strategies: [{name: l, kind: ranged, attribute: l, order: [a, b]}]",
		"attributes: [{name: l, type: string}]")))
	f.Add([]byte("queues:\n  - {name: d, ruleset_file: ok.json, ticket_ttl: 90}\npairing: {max_events: 3, defaults: {round: 1m}}\n"))
	f.Add([]byte("queues:\n  - &q {name: a, ruleset_file: ok.json}\n  - <<: *q\n    name: b\n"))
	for _, dir := range []string{"testdata/errors"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parse(data, "fuzz", fuzzFiles)
		_, again := parse(data, "fuzz", fuzzFiles)
		if (err == nil) != (again == nil) || (err != nil && err.Error() != again.Error()) {
			t.Fatalf("two parses disagree: %v / %v", err, again)
		}
		if err == nil {
			if len(cfg.Queues) == 0 && len(cfg.Opponents) == 0 {
				t.Fatal("accepted a configuration with nothing in it")
			}
			return
		}
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 || len(es) > MaxProblems+1 {
			t.Fatalf("err = %v (%T), want Errors of 1 to %d problems", err, err, MaxProblems+1)
		}
		// YAML breaks lines at \n, \r and \r\n alike.
		lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 1
		prevLine, prevCol := 0, 0
		for _, e := range es {
			if e == nil {
				t.Fatalf("a nil problem in %v", err)
			}
			if e.File != "" {
				continue
			}
			if e.Line < 0 || e.Line > lines+1 {
				t.Fatalf("err %q is on line %d of a %d-line text", e, e.Line, lines)
			}
			if e.Line == 0 {
				continue // the "and more" entry, or a problem of the whole file
			}
			if e.Line < prevLine || (e.Line == prevLine && e.Column < prevCol) {
				t.Fatalf("problems out of order:\n%v", err)
			}
			prevLine, prevCol = e.Line, e.Column
		}
	})
}
