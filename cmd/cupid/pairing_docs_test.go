package main

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestPairingDocsCurlExamples runs every curl command of docs/pairing.md,
// in order, against a fresh server. An example whose documented answer is
// an error ("code":"…") must get exactly that code; every other must
// succeed, or — where it needs a state the page's story does not reach,
// such as an answer about a date that never happened — be refused as
// failed_precondition or not_found, never as a malformed request: every
// procedure and field the page names exists.
func TestPairingDocsCurlExamples(t *testing.T) {
	data, err := os.ReadFile("../../docs/pairing.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	calls := curlRe.FindAllStringSubmatchIndex(text, -1)
	if len(calls) < 20 {
		t.Fatalf("found %d curl examples; the pattern no longer matches them", len(calls))
	}
	documented := regexp.MustCompile(`^\s*# \{"code":"([a-z_]+)"`)
	s := startServer(t, serveFlags{})
	for i, m := range calls {
		procedure, body := text[m[2]:m[3]], text[m[4]:m[5]]
		want := ""
		if c := documented.FindStringSubmatch(text[m[1]:]); c != nil {
			want = c[1]
		}
		if !json.Valid([]byte(body)) {
			t.Fatalf("example %d, %s: the body is not JSON: %s", i, procedure, body)
		}
		status, out, _ := postRaw(t, s.url, procedure, body)
		var e struct{ Code string }
		if status != http.StatusOK {
			if err := json.Unmarshal(out, &e); err != nil || e.Code == "" {
				t.Fatalf("example %d, %s %s: %d %s", i, procedure, body, status, out)
			}
		}
		switch {
		case want != "" && e.Code != want:
			t.Fatalf("example %d, %s %s: got %d %s, the page says %s", i, procedure, body, status, out, want)
		case want == "" && e.Code != "" && e.Code != "failed_precondition" && e.Code != "not_found":
			t.Fatalf("example %d, %s %s: %s", i, procedure, body, out)
		}
	}
}
