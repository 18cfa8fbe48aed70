package cupid_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layering of docs/ARCHITECTURE.md, held by the imports of the
// production code (test files may reach further, to build their inputs).

const module = "github.com/cupid-match/cupid"

// productionImports maps each package directory of the module to what its
// non-test files import. gen/ (generated), tools/ (a module of its own)
// and clients/ (other languages) are left out.
func productionImports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			skip := path == "gen" || path == "tools" || path == "clients" || d.Name() == "testdata" || d.Name() == "node_modules"
			if skip || (path != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !slices.Contains(out[dir], p) {
				out[dir] = append(out[dir], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLayers(t *testing.T) {
	imports := productionImports(t)
	if len(imports["api"]) == 0 || len(imports["engine"]) == 0 {
		t.Fatalf("found no imports of api or engine in %d directories: is the test run from the module's root?", len(imports))
	}
	// pure packages do no I/O and know no service: besides the root
	// package they import only one another.
	pure := []string{"engine", "ruleset", "pairing", "opponent", "rating", "graph/matching", "lifecycle", "waitest", "lobby", "rollout", "party", "encounter"}
	ioPkgs := []string{"os", "os/exec", "net", "net/http", "database/sql", "io/fs", "log", "log/slog", "syscall"}
	type rule struct {
		dir    string // "" for every directory
		refuse func(imp string) bool
		why    string
	}
	rules := []rule{
		{"", func(imp string) bool { return imp == module+"/engine/enginetest" }, "engine/enginetest holds tests only"},
		{"api", func(imp string) bool { return imp == module+"/engine" || imp == module+"/dashboard" },
			"api is transport: the wiring mounts the dashboard, the ticket service explains waits"},
		{"service/ticketsvc/handoff", func(imp string) bool {
			own, ok := strings.CutPrefix(imp, module+"/")
			return ok && !slices.Contains([]string{"engine", "ruleset", "lifecycle", "internal/storeerr"}, own)
		}, "the hand-off reaches the pools only through its Pools interface: of the project it imports the root package, engine, ruleset, lifecycle and storeerr"},
		{"service/ticketsvc/stats", func(imp string) bool {
			own, ok := strings.CutPrefix(imp, module+"/")
			return ok && own != "service/ticketsvc/queuestats" && own != "internal/storeerr"
		}, "the statistics reach the pools only through their Pools interface: of the project they import the root package, queuestats and storeerr"},
		{"service/ticketsvc/replace", func(imp string) bool {
			own, ok := strings.CutPrefix(imp, module+"/")
			return ok && !slices.Contains([]string{"ruleset", "service/ticketsvc/rulesets", "internal/storeerr"}, own)
		}, "a run-time replacement reaches the queues only through its Queues interface: of the project it imports the root package, ruleset, rulesets and storeerr"},
		{"service/ticketsvc/canary", func(imp string) bool {
			own, ok := strings.CutPrefix(imp, module+"/")
			return ok && !slices.Contains([]string{"engine", "ruleset", "rollout", "service/ticketsvc/queuestats", "internal/storeerr"}, own)
		}, "shadows and canaries reach the pools only through their Pools interface and the replacement through Rulesets: of the project they import the root package, engine, ruleset, rollout, queuestats and storeerr"},
		{"internal/storeerr", func(imp string) bool { return strings.HasPrefix(imp, module+"/") }, "the store-failure rule is shared by ticketsvc and the packages split from it: of the project it imports the root package only, so any of them can import it"},
	}
	for _, p := range pure {
		rules = append(rules, rule{p, func(imp string) bool {
			if slices.Contains(ioPkgs, imp) {
				return true
			}
			own, ok := strings.CutPrefix(imp, module+"/")
			return ok && !slices.Contains(pure, own)
		}, "pure packages do no I/O and import only the root package and one another"})
	}
	for _, r := range rules {
		for _, dir := range slices.Sorted(maps.Keys(imports)) {
			if r.dir != "" && dir != r.dir {
				continue
			}
			for _, imp := range imports[dir] {
				if r.refuse(imp) {
					t.Errorf("%s imports %s: %s", dir, imp, r.why)
				}
			}
		}
	}
}
