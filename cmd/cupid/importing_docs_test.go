package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cupid-match/cupid/ruleset"
)

// docFence matches an HTML comment naming a file (<!-- file: NAME --> or
// <!-- output: NAME -->) and the fenced block after it.
var docFence = regexp.MustCompile("(?s)<!-- (file|output): ([^ ]+) -->\\s*```[a-z]*\\n(.*?)\\n```")

// consoleBlock matches a ```console block.
var consoleBlock = regexp.MustCompile("(?s)```console\\n(.*?)\\n```")

// TestImportingDocs runs the worked examples of docs/importing.md: each
// source file shown is written, each command run as shown (standard error is
// the report printed under it, `echo $?` the exit status), and each output
// file compared with the block that shows it.
func TestImportingDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/importing.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	outputs := map[string]string{}
	for _, m := range docFence.FindAllStringSubmatch(string(doc), -1) {
		if m[1] == "file" {
			if err := os.WriteFile(filepath.Join(dir, m[2]), []byte(m[3]+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			outputs[m[2]] = m[3]
		}
	}
	t.Chdir(dir)
	blocks := consoleBlock.FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 3 {
		t.Fatalf("docs/importing.md has %d console examples, want one per product", len(blocks))
	}
	froms := map[string]bool{}
	for _, b := range blocks {
		lines := strings.Split(b[1], "\n")
		code := -1
		for i := 0; i < len(lines); i++ {
			cmdline, ok := strings.CutPrefix(lines[i], "$ ")
			if !ok {
				t.Fatalf("console block line %q is neither a command nor its output", lines[i])
			}
			var want []string
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") {
				i++
				want = append(want, lines[i])
			}
			if cmdline == "echo $?" {
				if len(want) != 1 || want[0] != strconv.Itoa(code) {
					t.Errorf("exit status %d, the page says %q", code, want)
				}
				continue
			}
			args, redirect, _ := strings.Cut(cmdline, " > ")
			fields := strings.Fields(args)
			if len(fields) < 5 || fields[0] != "cupid" {
				t.Fatalf("unexpected command %q", cmdline)
			}
			froms[fields[4]] = true
			stdout, stderr, err := runSplit(fields[1:]...)
			code = exitCode(err)
			if got := strings.TrimRight(stderr, "\n"); got != strings.Join(want, "\n") {
				t.Errorf("%s: report\n%s\nthe page shows\n%s", cmdline, got, strings.Join(want, "\n"))
			}
			if redirect != "" {
				shown, ok := outputs[strings.TrimSpace(redirect)]
				if !ok {
					t.Errorf("%s: the page does not show %s", cmdline, redirect)
				} else if strings.TrimRight(stdout, "\n") != shown {
					t.Errorf("%s: wrote\n%s\nthe page shows\n%s", cmdline, stdout, shown)
				}
			}
		}
	}
	for _, from := range []string{"flexmatch", "nakama", "openmatch"} {
		if !froms[from] {
			t.Errorf("docs/importing.md has no example of --from %s", from)
		}
	}
}

// TestImportingDocsAPI checks what docs/importing.md says ImportRuleset
// answers, in more detail than the page shows (TestDocs runs its curl
// example as written): the entries, the ruleset that loads, the refusals.
func TestImportingDocsAPI(t *testing.T) {
	s := startServer(t, serveFlags{})
	var out struct {
		Outcome string `json:"outcome"`
		Ruleset string `json:"ruleset"`
		Entries []struct {
			Line   int    `json:"line"`
			Source string `json:"source"`
			Became string `json:"became"`
			Status string `json:"status"`
		} `json:"entries"`
		Report string `json:"report"`
	}
	body := postOK(t, s.url, "/cupid.v1.RulesetService/ImportRuleset",
		`{"from":"nakama","source":"{\"query\":\"+properties.mode:ranked +properties.level:>=10\",\"min_count\":2,\"max_count\":2}"}`)
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	if out.Outcome != "exact" || len(out.Entries) != 2 || !strings.HasPrefix(out.Report, "source:1: min_count 2, max_count 2 -> alliance: exact") {
		t.Fatalf("answer %s", body)
	}
	if e := out.Entries[1]; e.Line != 1 || e.Source != `query "+properties.mode:ranked +properties.level:>=10"` || e.Became != "ticket_query" || e.Status != "exact" {
		t.Errorf("entries[1] = %+v", e)
	}
	if _, err := ruleset.Load([]byte(out.Ruleset)); err != nil {
		t.Errorf("the ruleset answered does not load: %v", err)
	}
	// The refusals the page describes.
	for _, tc := range []struct{ body, field string }{
		{`{"from":"x","source":"{}"}`, "from"},
		{`{"from":"flexmatch"}`, "source"},
	} {
		status, ans, _ := postService(t, s.url, "RulesetService", "ImportRuleset", tc.body)
		if status != http.StatusBadRequest || !strings.HasPrefix(ans["message"].(string), tc.field+":") {
			t.Errorf("%s: %d %v, want invalid_argument naming %s", tc.body, status, ans, tc.field)
		}
	}
	status, ans, _ := postService(t, s.url, "RulesetService", "ImportRuleset", `{"from":"flexmatch","source":"not json"}`)
	if status != http.StatusOK || ans["outcome"] != "refused" || ans["refused"] == "" {
		t.Errorf("an unreadable source: %d %v, want outcome refused", status, ans)
	}
}
