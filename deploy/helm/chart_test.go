// Package helm holds the test of Cupid's Helm chart (deploy/helm/cupid).
// It is a module of its own so that the main module does not depend on
// Helm's large tree; CI runs it in a separate step (.ci/run).
package helm

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/strvals"
)

const chartDir = "cupid"

// testValues are the least a real install gives: a database and a key.
func testValues() map[string]any {
	return map[string]any{
		"postgres": map[string]any{"url": "postgres://cupid:secret@db.internal:5432/cupid"},
		"serverKeys": []any{map[string]any{
			"name": "backend", "sha256": strings.Repeat("ab", 32), "scopes": []any{"tickets", "events"},
		}},
	}
}

// withValues is testValues with more settings merged in (top level).
func withValues(extra map[string]any) map[string]any {
	v := testValues()
	for k, x := range extra {
		v[k] = x
	}
	return v
}

func TestChartLints(t *testing.T) {
	for _, c := range []struct {
		name   string
		values map[string]any
	}{
		{"least", testValues()},
		{"everything", withValues(map[string]any{
			"config":         "queues:\n  - name: duel\n    ruleset:\n      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}\n",
			"serviceMonitor": map[string]any{"enabled": true, "keySecret": map[string]any{"name": "prometheus-key", "key": "key"}},
			"extraArgs":      []any{"--max-connections=20000"},
		})},
	} {
		t.Run(c.name, func(t *testing.T) {
			linter := lint.All(chartDir, c.values, "games", false)
			for _, m := range linter.Messages {
				if m.Severity >= support.WarningSev {
					t.Errorf("helm lint: %s", m)
				}
			}
		})
	}
}

// render is helm template: the manifests, each decoded.
func render(t *testing.T, values map[string]any) ([]map[string]any, error) {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	install := action.NewInstall(&action.Configuration{})
	install.DryRun, install.ClientOnly, install.Replace = true, true, true
	install.ReleaseName, install.Namespace = "cupid", "games"
	install.KubeVersion = &chartutil.KubeVersion{Version: "v1.31.0", Major: "1", Minor: "31"}
	rel, err := install.Run(ch, values)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	dec := yaml.NewDecoder(strings.NewReader(rel.Manifest))
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("a rendered manifest is not YAML: %v\n%s", err, rel.Manifest)
		}
		if doc != nil {
			out = append(out, doc)
		}
	}
	return out, nil
}

func byKind(docs []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, d := range docs {
		if d["kind"] == kind {
			out = append(out, d)
		}
	}
	return out
}

// dig walks maps and lists: dig(x, "spec", "template", 0, …).
func dig(x any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := x.(map[string]any)
			if !ok {
				return nil
			}
			x = m[k]
		case int:
			l, ok := x.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			x = l[k]
		}
	}
	return x
}

// TestChartRenders: what helm template makes of the chart — the nodes,
// their probes, resources and flags (each one the real cupid serve has),
// the database URL and the keys from Secrets, the budget, the monitor, and
// the configuration cupid config check accepts.
func TestChartRenders(t *testing.T) {
	config := "queues:\n  - name: duel\n    ruleset:\n      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}\n      matching_rule: [{attribute: mmr, criteria: distance, reference: 100, max: 3000}]\n"
	docs, err := render(t, withValues(map[string]any{
		"replicaCount":   5,
		"config":         config,
		"serviceMonitor": map[string]any{"enabled": true, "keySecret": map[string]any{"name": "prometheus-key", "key": "key"}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"Deployment", "Service", "Secret", "ConfigMap", "PodDisruptionBudget", "ServiceMonitor"} {
		if len(byKind(docs, kind)) == 0 {
			t.Errorf("no %s rendered", kind)
		}
	}
	dep := byKind(docs, "Deployment")[0]
	if r := dig(dep, "spec", "replicas"); r != 5 {
		t.Errorf("replicas %v, want 5", r)
	}
	ctr := dig(dep, "spec", "template", "spec", "containers", 0)
	if p := dig(ctr, "livenessProbe", "httpGet", "path"); p != "/healthz" {
		t.Errorf("liveness probe %v", p)
	}
	if p := dig(ctr, "readinessProbe", "httpGet", "path"); p != "/readyz" {
		t.Errorf("readiness probe %v", p)
	}
	if dig(ctr, "resources", "requests", "cpu") == nil || dig(ctr, "resources", "limits", "memory") == nil {
		t.Errorf("resources %v", dig(ctr, "resources"))
	}

	// The flags are the real CLI's, and $(VAR)s name the container's env.
	var args []string
	for _, a := range dig(ctr, "args").([]any) {
		args = append(args, a.(string))
	}
	if args[0] != "serve" {
		t.Fatalf("args %v: want serve first", args)
	}
	known := serveFlags(t)
	env := map[string]any{}
	for _, e := range dig(ctr, "env").([]any) {
		env[dig(e, "name").(string)] = e
	}
	for _, a := range args[1:] {
		name, _, _ := strings.Cut(a, "=")
		if !known[name] {
			t.Errorf("%s: cupid serve has no such flag", a)
		}
		for _, m := range regexp.MustCompile(`\$\((\w+)\)`).FindAllStringSubmatch(a, -1) {
			if env[m[1]] == nil {
				t.Errorf("%s: no env %s to expand", a, m[1])
			}
		}
	}
	// The database URL and the keys come from Secrets, not the pod spec.
	store := env["CUPID_STORE"]
	secretName := dig(store, "valueFrom", "secretKeyRef", "name")
	secrets := map[string]map[string]any{}
	for _, s := range byKind(docs, "Secret") {
		secrets[dig(s, "metadata", "name").(string)] = s
	}
	if s := secrets[fmt.Sprint(secretName)]; s == nil || dig(s, "stringData", dig(store, "valueFrom", "secretKeyRef", "key").(string)) != "postgres://cupid:secret@db.internal:5432/cupid" {
		t.Errorf("CUPID_STORE comes from %v, which does not hold the URL", dig(store, "valueFrom"))
	}
	spec, _ := yaml.Marshal(dig(dep, "spec"))
	if bytes.Contains(spec, []byte("secret@db.internal")) {
		t.Error("the database password is in the pod spec")
	}
	keysFile := ""
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--server-keys-file="); ok {
			keysFile = v
		}
	}
	var keysSecret string
	for _, v := range dig(dep, "spec", "template", "spec", "volumes").([]any) {
		if dig(v, "name") == "server-keys" {
			keysSecret = fmt.Sprint(dig(v, "secret", "secretName"))
		}
	}
	keysYAML, _ := dig(secrets[keysSecret], "stringData", filepath.Base(keysFile)).(string)
	var keys struct {
		ServerKeys []struct {
			Name, SHA256 string
			Scopes       []string
		} `yaml:"server_keys"`
	}
	if err := yaml.Unmarshal([]byte(keysYAML), &keys); err != nil || len(keys.ServerKeys) != 1 || keys.ServerKeys[0].Name != "backend" ||
		keys.ServerKeys[0].SHA256 != strings.Repeat("ab", 32) || !slices.Equal(keys.ServerKeys[0].Scopes, []string{"tickets", "events"}) {
		t.Errorf("--server-keys-file %s from Secret %s holds %q (%v)", keysFile, keysSecret, keysYAML, err)
	}

	// The configuration as mounted passes the server's own check.
	cm := byKind(docs, "ConfigMap")[0]
	dir := t.TempDir()
	path := filepath.Join(dir, "cupid.yaml")
	if err := os.WriteFile(path, []byte(dig(cm, "data", "cupid.yaml").(string)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := cupid(t, "config", "check", path); err != nil {
		t.Errorf("cupid config check of the rendered configuration: %v\n%s", err, out)
	}

	pdb := byKind(docs, "PodDisruptionBudget")[0]
	if dig(pdb, "spec", "maxUnavailable") != 1 {
		t.Errorf("PodDisruptionBudget %v", dig(pdb, "spec"))
	}
	sm := byKind(docs, "ServiceMonitor")[0]
	if dig(sm, "spec", "endpoints", 0, "path") != "/metrics" || dig(sm, "spec", "endpoints", 0, "authorization", "credentials", "name") != "prometheus-key" {
		t.Errorf("ServiceMonitor %v", dig(sm, "spec"))
	}
}

// TestChartRefuses: what a node cannot start without, or would start
// open with, is refused by name at template time.
func TestChartRefuses(t *testing.T) {
	noDB := testValues()
	delete(noDB, "postgres")
	noKeys := testValues()
	delete(noKeys, "serverKeys")
	for _, c := range []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"no database", noDB, "postgres.url or postgres.existingSecret is required"},
		{"no keys", noKeys, "serverKeys or serverKeysSecret is required"},
		{"auth in config", withValues(map[string]any{"config": "queues: []\nauth:\n  metrics: open\n"}), "config must not have an auth section"},
		{"monitor without key", withValues(map[string]any{"serviceMonitor": map[string]any{"enabled": true}}), "serviceMonitor.keySecret.name is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := render(t, c.values)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// cupid runs the real binary, built once from the main module.
func cupid(t *testing.T, args ...string) (string, error) {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cupid-helm-test")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "cupid")
		cmd := exec.Command("go", "build", "-o", binary, "./cmd/cupid")
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/cupid: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	out, err := exec.Command(binary, args...).CombinedOutput()
	return string(out), err
}

// serveFlags lists the flags of the real cupid serve, from its help.
func serveFlags(t *testing.T) map[string]bool {
	out, err := cupid(t, "serve", "--help")
	if err != nil {
		t.Fatalf("cupid serve --help: %v\n%s", err, out)
	}
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)`).FindAllStringSubmatch(out, -1) {
		flags[m[1]] = true
	}
	if !flags["--store"] || !flags["--addr"] {
		t.Fatalf("cupid serve --help lists %v; the pattern no longer reads it", flags)
	}
	return flags
}

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// TestDocsInstallRenders: every helm install of docs/deployment.md
// renders with the values its --set flags give ($HASH, the hash the
// documented cupid key new prints, takes a well-formed value), so the
// documented values exist and suffice.
func TestDocsInstallRenders(t *testing.T) {
	data, err := os.ReadFile("../../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	n := 0
	for _, line := range strings.Split(text, "\n") {
		words := strings.Fields(line)
		if len(words) < 4 || words[0] != "helm" || words[1] != "install" {
			continue
		}
		n++
		if words[3] != "deploy/helm/cupid" {
			t.Errorf("%s: installs %s, not the chart", line, words[3])
		}
		values := map[string]any{}
		for i, w := range words {
			if w == "--set" && i+1 < len(words) {
				set := strings.ReplaceAll(strings.Trim(words[i+1], `"`), "$HASH", strings.Repeat("cd", 32))
				if err := strvals.ParseInto(set, values); err != nil {
					t.Fatalf("%s: --set %s: %v", line, set, err)
				}
			}
		}
		docs, err := render(t, values)
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		if len(byKind(docs, "Deployment")) != 1 {
			t.Errorf("%s: no Deployment", line)
		}
	}
	if n == 0 {
		t.Fatal("no helm install in docs/deployment.md")
	}
}
