package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manyProblems has problems in every section: the structural check's
// (a value of the wrong type, an unknown setting, a setting set twice) and
// the checks after decoding.
const manyProblems = `queues:
  - name: duel
    ticket_ttl: later
    ruleset: {alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}}
  - name: duel
    max_keys: -1
    rulset: {}
opponents:
  - name: arena
    player_cache_size: lots
    min_mmr: 0
    max_mmr: 3000
    mmr_bucket_count: 30
  - {name: 'bad name', player_cache_size: 10, min_mmr: 0, max_mmr: 1, mmr_bucket_count: 1}
pairing:
  max_events: -1
  max_events: 3
  defaults: {round: 25h, min_lobby: 1}
server:
  read_timeout: -1s
  max_conections: 5
auth:
  metrics: closed
  server_keys: [{name: k, sha256: abc, scopes: [ticket]}]
`

// TestEveryProblemIsReported: one load reports every problem of the file,
// in the order of the file, each at its line and setting, and nothing that
// only follows from another (the finder whose cache size is not a number
// is not also told it must be greater than 0; the queue whose ruleset is
// misspelt is not also told it needs one).
func TestEveryProblemIsReported(t *testing.T) {
	_, err := ParseConfig([]byte(manyProblems), t.TempDir())
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("err = %v (%T), want Errors", err, err)
	}
	want := []struct {
		line, col int
		field     string
		text      string
	}{
		{3, 17, "queues[0].ticket_ttl", "must be a duration"},
		{5, 5, "queues[1].name", `queue "duel" is defined twice`},
		{6, 5, "queues[1].max_keys", "must not be negative"},
		{7, 5, "queues[1].rulset", "did you mean ruleset?"},
		{10, 24, "opponents[0].player_cache_size", `must be a whole number, got "lots"`},
		{14, 6, "opponents[1].name", "may hold only letters"},
		{17, 3, "pairing.max_events", "is set twice (first on line 16)"},
		{18, 14, "pairing.defaults.round", "at most 24h"},
		{18, 26, "pairing.defaults.min_lobby", "between 2"},
		{20, 3, "server.read_timeout", "must be more than 0"},
		{21, 3, "server.max_conections", "did you mean max_connections?"},
		{23, 3, "auth.metrics", "must be key or open"},
		{24, 27, "auth.server_keys[0].sha256", "64 hex digits"},
		{24, 49, "auth.server_keys[0].scopes[0]", `unknown scope "ticket"`},
	}
	var got strings.Builder
	for _, e := range es {
		fmt.Fprintf(&got, "\n%d:%d: %s: %s", e.Line, e.Column, e.Field, e.Message)
	}
	if len(es) != len(want) {
		t.Fatalf("%d problems, want %d:%s", len(es), len(want), got.String())
	}
	for i, w := range want {
		e := es[i]
		if e.Line != w.line || e.Column != w.col || e.Field != w.field || !strings.Contains(e.Message, w.text) {
			t.Errorf("problem %d = %d:%d: %s: %s, want %d:%d: %s: …%s…", i, e.Line, e.Column, e.Field, e.Message,
				w.line, w.col, w.field, w.text)
		}
	}
	if t.Failed() {
		t.Log(got.String())
	}
	lines := strings.Split(err.Error(), "\n")
	for i, e := range es {
		if i >= len(lines) || lines[i] != e.Error() {
			t.Fatalf("err.Error() is not one problem a line:\n%v", err)
		}
	}
}

// TestProblemsInOtherFilesSortAtTheirSetting: a ruleset file's problems
// come where the file is named, between the problems before and after.
func TestProblemsInOtherFilesSortAtTheirSetting(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte("{\n  \"bogus\": 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "pairing: {max_events: -1}\nqueues:\n  - {name: a, ruleset_file: bad.json}\n  - {name: a, ruleset: " + duelRuleset + "}\n"
	_, err := ParseConfig([]byte(text), dir)
	var es Errors
	if !errors.As(err, &es) || len(es) < 3 {
		t.Fatalf("err = %v, want at least three problems", err)
	}
	if es[0].Field != "pairing.max_events" || es[1].File != filepath.Join(dir, "bad.json") ||
		es[len(es)-1].Field != "queues[1].name" {
		t.Fatalf("problems out of order:\n%v", err)
	}
}

// TestProblemsAreCapped: past MaxProblems, one last entry says how many
// more there were.
func TestProblemsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("queues:\n")
	for i := range MaxProblems + 20 {
		fmt.Fprintf(&b, "  - {name: q%d, max_keys: -1, ruleset: %s}\n", i, duelRuleset)
	}
	_, err := ParseConfig([]byte(b.String()), ".")
	var es Errors
	if !errors.As(err, &es) || len(es) != MaxProblems+1 {
		t.Fatalf("%d problems, want %d", len(es), MaxProblems+1)
	}
	if last := es[MaxProblems]; last.Message != "… and 20 more problems" || last.Line != 0 {
		t.Fatalf("last entry %q", last)
	}
	if es[MaxProblems-1].Field != fmt.Sprintf("queues[%d].max_keys", MaxProblems-1) {
		t.Fatalf("entry %d is %q, want the %dth queue's", MaxProblems-1, es[MaxProblems-1], MaxProblems)
	}
}

// TestRefusedListItemsKeepTheirPlaces: a list item the check refuses
// stands as an empty one, so the items after it are checked under their
// own index.
func TestRefusedListItemsKeepTheirPlaces(t *testing.T) {
	text := "queues:\n  - 5\n  -\n  - {name: c, max_keys: -1, ruleset: " + duelRuleset + "}\n"
	_, err := ParseConfig([]byte(text), ".")
	var es Errors
	if !errors.As(err, &es) || len(es) != 3 || es[0].Field != "queues[0]" || es[1].Field != "queues[1]" ||
		es[2].Field != "queues[2].max_keys" || es[2].Line != 4 {
		t.Fatalf("err = %v", err)
	}
}
