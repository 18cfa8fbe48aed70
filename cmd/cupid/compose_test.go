package main

import (
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/cupid-match/cupid/config"
)

// composeFile is what the test reads of deploy/compose/compose.yaml.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Command     []string          `yaml:"command"`
		Volumes     []string          `yaml:"volumes"`
		Ports       []string          `yaml:"ports"`
		Environment map[string]string `yaml:"environment"`
		DependsOn   any               `yaml:"depends_on"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

// mountOf returns the host side of the volume mounted at target ("" when
// none).
func mountOf(volumes []string, target string) string {
	for _, v := range volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == target {
			return parts[0]
		}
	}
	return ""
}

// TestComposeFile reads the compose file as docker compose would (YAML,
// anchors merged) and checks what it names: the services of a three-node
// cluster on PostgreSQL with Prometheus and Grafana; every flag of every
// node is one cupid serve has; the nodes share the database and the
// configuration, each with its own name; the configuration passes the
// server's check with the keys the keys service makes where the nodes
// read them; Prometheus scrapes every node and loads the alert rules;
// Grafana is given the dashboard; the passwords are required, not
// defaulted.
func TestComposeFile(t *testing.T) {
	const dir = "../../deploy/compose"
	raw, err := os.ReadFile(filepath.Join(dir, "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	if err := yaml.Unmarshal(raw, &cf); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	nodes := []string{"cupid-1", "cupid-2", "cupid-3"}
	for _, name := range append([]string{"postgres", "keys", "prometheus", "grafana"}, nodes...) {
		if _, ok := cf.Services[name]; !ok {
			t.Errorf("no service %s", name)
		}
	}

	// The keys service makes the keys file in the volume the nodes read.
	keys := cf.Services["keys"]
	if len(keys.Command) != 3 || keys.Command[0] != "key" || keys.Command[1] != "init" {
		t.Fatalf("keys: command %q, want key init FILE", keys.Command)
	}
	if _, _, err := rootCmd().Find(keys.Command); err != nil {
		t.Errorf("keys: %q is not a cupid command: %v", keys.Command, err)
	}
	keysVolume := mountOf(keys.Volumes, filepath.Dir(keys.Command[2]))
	if keysVolume == "" {
		t.Fatalf("keys: %s is not in a volume", keys.Command[2])
	}

	serve := serveCmd()
	var configPath, keysDir string
	stores := map[string]bool{}
	for _, name := range nodes {
		n := cf.Services[name]
		if len(n.Command) == 0 || n.Command[0] != "serve" {
			t.Fatalf("%s: command %q, want serve", name, n.Command)
		}
		values := map[string]string{}
		for i := 1; i < len(n.Command); i += 2 {
			flag := n.Command[i]
			if !strings.HasPrefix(flag, "--") || serve.Flags().Lookup(strings.TrimPrefix(flag, "--")) == nil {
				t.Errorf("%s: %s is not a flag of cupid serve", name, flag)
				continue
			}
			if i+1 < len(n.Command) {
				values[flag] = n.Command[i+1]
			}
		}
		if values["--node-id"] != name || values["--advertise"] != name+":7070" || values["--addr"] != ":7070" {
			t.Errorf("%s: --node-id %q --advertise %q --addr %q: each node its own name, reached at its service name",
				name, values["--node-id"], values["--advertise"], values["--addr"])
		}
		// As docker compose interpolates it, with the password set.
		store := regexp.MustCompile(`\$\{POSTGRES_PASSWORD\}`).ReplaceAllString(values["--store"], "s3cret")
		u, err := url.Parse(store)
		if err != nil {
			u = &url.URL{}
		}
		if pw, _ := u.User.Password(); u.Scheme != "postgres" || u.Hostname() != "postgres" || pw != "s3cret" {
			t.Errorf("%s: --store %q is not the postgres service", name, values["--store"])
		}
		stores[values["--store"]] = true
		configPath = values["--config"]
		if mountOf(n.Volumes, configPath) != "./cupid.yaml" {
			t.Errorf("%s: --config %s is not ./cupid.yaml mounted", name, configPath)
		}
		for _, v := range n.Volumes {
			if strings.HasPrefix(v, keysVolume+":") {
				keysDir = strings.Split(v, ":")[1]
			}
		}
		if !slices.ContainsFunc(n.Ports, func(p string) bool { return strings.HasPrefix(p, "127.0.0.1:") }) {
			t.Errorf("%s: ports %v: publish on 127.0.0.1 only", name, n.Ports)
		}
	}
	if len(stores) != 1 {
		t.Errorf("the nodes use %d databases, want one", len(stores))
	}
	if keysDir == "" {
		t.Fatal("the nodes do not mount the keys volume")
	}

	// The configuration, with the keys file where the nodes find it.
	cfgText, err := os.ReadFile(filepath.Join(dir, "cupid.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	keysFile := filepath.Join(tmp, filepath.Base(keys.Command[2]))
	if _, err := initKeysFile(keysFile); err != nil {
		t.Fatal(err)
	}
	local := strings.ReplaceAll(string(cfgText), keysDir+"/", tmp+"/")
	if local == string(cfgText) {
		t.Fatalf("cupid.yaml does not read its keys from %s, where the nodes mount the keys volume", keysDir)
	}
	localPath := filepath.Join(tmp, "cupid.yaml")
	os.WriteFile(localPath, []byte(local), 0o644)
	cfg, err := config.LoadConfig(localPath)
	if err != nil {
		t.Fatalf("deploy/compose/cupid.yaml: %v", err)
	}
	if cfg.Auth == nil || cfg.Auth.ServerKeysFile != keysFile || cfg.Auth.Metrics != config.MetricsOpen {
		t.Errorf("cupid.yaml: auth %+v: want the keys file and /metrics open to Prometheus", cfg.Auth)
	}

	// Prometheus scrapes every node and loads the alerts.
	prom := cf.Services["prometheus"]
	promYAML, err := os.ReadFile(filepath.Join(dir, mountOf(prom.Volumes, "/etc/prometheus/prometheus.yml")))
	if err != nil {
		t.Fatal(err)
	}
	var pc struct {
		RuleFiles     []string `yaml:"rule_files"`
		ScrapeConfigs []struct {
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	if err := yaml.Unmarshal(promYAML, &pc); err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, sc := range pc.ScrapeConfigs {
		for _, st := range sc.StaticConfigs {
			targets = append(targets, st.Targets...)
		}
	}
	for _, name := range nodes {
		if !slices.Contains(targets, name+":7070") {
			t.Errorf("prometheus does not scrape %s (targets %v)", name, targets)
		}
	}
	for _, rf := range pc.RuleFiles {
		if src := mountOf(prom.Volumes, rf); src != "../observability/alerts.yaml" {
			t.Errorf("prometheus rule file %s is mounted from %q, not deploy/observability's alerts", rf, src)
		}
	}
	if len(pc.RuleFiles) == 0 {
		t.Error("prometheus loads no alert rules")
	}

	// Grafana gets the dashboard where its provisioning looks.
	graf := cf.Services["grafana"]
	provYAML, err := os.ReadFile(filepath.Join(dir, mountOf(graf.Volumes, "/etc/grafana/provisioning/dashboards/cupid.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	var prov struct {
		Providers []struct {
			Options struct {
				Path string `yaml:"path"`
			} `yaml:"options"`
		} `yaml:"providers"`
	}
	if err := yaml.Unmarshal(provYAML, &prov); err != nil || len(prov.Providers) == 0 {
		t.Fatalf("grafana dashboards provisioning: %v", err)
	}
	found := false
	for _, v := range graf.Volumes {
		parts := strings.Split(v, ":")
		found = found || (parts[0] == "../observability/grafana-dashboard.json" && filepath.Dir(parts[1]) == prov.Providers[0].Options.Path)
	}
	if !found {
		t.Errorf("grafana: the dashboard is not mounted in %s", prov.Providers[0].Options.Path)
	}

	// Passwords are required (${VAR:?…}), never a default.
	required := regexp.MustCompile(`^\$\{[A-Z_]+:\?[^}]+\}$`)
	for svc, env := range map[string]string{"postgres": "POSTGRES_PASSWORD", "grafana": "GF_SECURITY_ADMIN_PASSWORD"} {
		if v := cf.Services[svc].Environment[env]; !required.MatchString(v) {
			t.Errorf("%s: %s is %q; require it with ${VAR:?message}", svc, env, v)
		}
	}
}
