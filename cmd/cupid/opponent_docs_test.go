package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpponentDocsCurlExamples runs every curl command of docs/opponents.md,
// in order, against a server running the document's finders, and expects
// each to succeed. The examples stand alone (each assumes a defender to
// find), so the test caches a few defenders in arena first, and a
// reservation id written "rsv_…" takes the id of a reservation made for
// the example's attacker just before.
func TestOpponentDocsCurlExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/opponents.md")
	if err != nil {
		t.Fatal(err)
	}
	var cfg strings.Builder
	cfg.WriteString("opponents:\n")
	for _, b := range yamlBlock.FindAllSubmatch(doc, -1) {
		text, ok := strings.CutPrefix(string(b[1]), "opponents:\n")
		if !ok {
			t.Fatalf("a yaml block of docs/opponents.md does not start with opponents: %q", b[1])
		}
		cfg.WriteString(text)
	}
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, serveFlags{config: path})
	for i := range 5 {
		status, out := postOpponent(t, s.url, "UpdatePlayer", fmt.Sprintf(
			`{"finder":"arena","player_id":"d%d","model":{"mmr":%d,"labels":{"league":"gold"},"attributes":{"guild":"wolves","hero":"mage"}}}`, i, 1480+i*10))
		if status != http.StatusOK {
			t.Fatalf("seeding: %d %v", status, out)
		}
	}
	calls := curlCalls(t, "../../docs/opponents.md")
	seen := map[string]bool{}
	for _, c := range calls {
		seen[c.procedure[strings.LastIndexByte(c.procedure, '/')+1:]] = true
		body := strings.ReplaceAll(c.body, "'\"'\"'", "'")
		if strings.Contains(body, "rsv_…") {
			status, out := postOpponent(t, s.url, "FindOpponent",
				`{"finder":"arena","reserve":true,"attacker":{"id":"bob","mmr":1500,"labels":{"league":"gold"},"attributes":{"guild":"bears"}}}`)
			r, _ := out["reservation"].(map[string]any)
			id, _ := r["id"].(string)
			if status != http.StatusOK || id == "" {
				t.Fatalf("reserving for %s: %d %v", c.procedure, status, out)
			}
			body = strings.ReplaceAll(body, "rsv_…", id)
		}
		postOK(t, s.url, c.procedure, body)
	}
	for _, p := range []string{"UpdatePlayer", "FindOpponent", "ConfirmAttack", "ReleaseReservation", "SetPlayerOnline"} {
		if !seen[p] {
			t.Errorf("docs/opponents.md has no curl example of %s", p)
		}
	}
}
