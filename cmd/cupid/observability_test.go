package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"gopkg.in/yaml.v3"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// family is one metric family a server exposes: its type and the label
// names its samples carry.
type family struct {
	kind   string
	labels map[string]bool
}

// scrapeFamilies reads a server's /metrics (text format) into families.
func scrapeFamilies(t *testing.T, url string) map[string]*family {
	t.Helper()
	res, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	out := map[string]*family{}
	sample := regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? `)
	label := regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="`)
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			out[f[2]] = &family{kind: f[3], labels: map[string]bool{}}
			continue
		}
		m := sample.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		fam := familyOf(out, m[1])
		if fam == nil {
			continue
		}
		for _, l := range label.FindAllStringSubmatch(m[2], -1) {
			fam.labels[l[1]] = true
		}
	}
	return out
}

// familyOf finds the family of a series name: itself, or a histogram's
// or summary's _bucket, _sum and _count.
func familyOf(fams map[string]*family, name string) *family {
	if f, ok := fams[name]; ok {
		return f
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f, ok := fams[base]; ok && (f.kind == "histogram" || f.kind == "summary") {
				return f
			}
		}
	}
	return nil
}

// seriesRe finds the server's series named in PromQL, with the label
// matchers that follow them; Prometheus's own (up) are not the server's.
var (
	seriesRe  = regexp.MustCompile(`\b((?:cupid|go|process)_[a-zA-Z0-9_]+)(\{[^}]*\})?`)
	matcherRe = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)`)
)

// checkExpr reports every series an expression names that the server
// does not expose, and every label matcher on a label its samples lack
// (job and instance are Prometheus's own).
func checkExpr(t *testing.T, where, expr string, fams map[string]*family) int {
	t.Helper()
	n := 0
	for _, m := range seriesRe.FindAllStringSubmatch(expr, -1) {
		n++
		fam := familyOf(fams, m[1])
		if fam == nil {
			t.Errorf("%s: %s is not a metric the server exposes", where, m[1])
			continue
		}
		for _, l := range matcherRe.FindAllStringSubmatch(m[2], -1) {
			if name := l[1]; !fam.labels[name] && name != "job" && name != "instance" && !(name == "le" && strings.HasSuffix(m[1], "_bucket")) {
				t.Errorf("%s: %s has no label %q (it has %v)", where, m[1], name, keys(fam.labels))
			}
		}
	}
	return n
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestObservabilityNamesRealMetrics starts a real server on PostgreSQL (as
// the compose file and the Helm chart run it, so the cluster's metrics
// are there), creates and matches tickets and asks a finder, then checks
// that every metric the Grafana dashboard and the alert rules name is
// among those the server exposes at /metrics, with the labels they match
// on.
func TestObservabilityNamesRealMetrics(t *testing.T) {
	s := startServer(t, serveFlags{store: postgresURL(t)})
	c := s.connectClient()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var ids []string
	for i, mmr := range []float64{1500, 1510, 900} {
		tk := create(t, c, "duel", player(fmt.Sprintf("p%d", i), mmr))
		ids = append(ids, tk.GetId())
	}
	waitFinal(t, c, ids[0], 0)
	if _, err := c.CancelTicket(ctx, connect.NewRequest(&cupidv1.CancelTicketRequest{Id: ids[2]})); err != nil {
		t.Fatal(err)
	}
	if _, err := s.opponents().FindOpponent(ctx, connect.NewRequest(&cupidv1.FindOpponentRequest{
		Finder: "raid", Attacker: &cupidv1.PlayerModel{Id: "x", Mmr: 1000}})); err != nil {
		t.Fatal(err)
	}
	fams := scrapeFamilies(t, s.url)
	if familyOf(fams, "cupid_time_to_match_seconds_bucket") == nil || familyOf(fams, "cupid_queue_takeovers_total") == nil {
		t.Fatal("the server's metrics lack the families a match and a takeover make")
	}

	// The dashboard: every panel's every query, and the variables'.
	raw, err := os.ReadFile("../../deploy/observability/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID        string `json:"uid"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	named := 0
	for _, v := range dash.Templating.List {
		named += checkExpr(t, "dashboard variable "+v.Name, v.Definition, fams)
	}
	for _, p := range dash.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("dashboard panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			named += checkExpr(t, "dashboard panel "+p.Title, q.Expr, fams)
		}
	}
	if named < 20 {
		t.Fatalf("the dashboard names %d series; the pattern no longer finds them", named)
	}

	// The alert rules.
	raw, err = os.ReadFile("../../deploy/observability/alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&rules); err != nil {
		t.Fatalf("alerts.yaml: %v", err)
	}
	alerts := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			alerts++
			if r.Alert == "" || r.Expr == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("alert %q: needs alert, expr, a severity label and a summary", r.Alert)
			}
			if r.For != "" {
				if _, err := time.ParseDuration(r.For); err != nil {
					t.Errorf("alert %s: for %q: %v", r.Alert, r.For, err)
				}
			}
			checkExpr(t, "alert "+r.Alert, r.Expr, fams)
		}
	}
	if alerts < 5 {
		t.Fatalf("%d alerts read", alerts)
	}
}
