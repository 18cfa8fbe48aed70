package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// curlCall is one curl command of a document: the procedure it posts to and
// its JSON body.
type curlCall struct {
	procedure, body string
}

var curlRe = regexp.MustCompile(`(?s)curl -s localhost:7070(/\S+) -H 'Content-Type: application/json'\s*-d '((?:[^']|'"'"')*)'`)

// curlCalls finds the curl commands in a markdown file's code blocks,
// joining the lines a trailing backslash continues.
func curlCalls(t *testing.T, path string) []curlCall {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	var out []curlCall
	for _, m := range curlRe.FindAllStringSubmatch(text, -1) {
		out = append(out, curlCall{procedure: m[1], body: m[2]})
	}
	return out
}

// TestReadmeCurlExamples runs every curl command of the README against the
// server started as the README starts it (the built-in demo), in order, and
// expects each to succeed. A placeholder such as <alice's ticket id> takes
// the id of the first ticket created.
func TestReadmeCurlExamples(t *testing.T) {
	calls := curlCalls(t, "../../README.md")
	if len(calls) < 5 {
		t.Fatalf("found %d curl examples in the README; the pattern no longer matches them", len(calls))
	}
	s := startServer(t, serveFlags{})
	var firstTicket string
	placeholder := regexp.MustCompile(`<[^>]*ticket id>`)
	for _, c := range calls {
		body := strings.ReplaceAll(c.body, "'\"'\"'", "'")
		body = placeholder.ReplaceAllString(body, firstTicket)
		if !json.Valid([]byte(body)) {
			t.Fatalf("%s: the README's body is not JSON: %s", c.procedure, body)
		}
		out := postOK(t, s.url, c.procedure, body)
		var r struct {
			Ticket  struct{ ID string } `json:"ticket"`
			Results []struct {
				Error string `json:"error"`
			} `json:"results"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%s: %v: %s", c.procedure, err, out)
		}
		if firstTicket == "" && r.Ticket.ID != "" {
			firstTicket = r.Ticket.ID
		}
		for i, res := range r.Results {
			if res.Error != "" {
				t.Fatalf("%s: result %d refused: %s", c.procedure, i, res.Error)
			}
		}
	}
}
