package doctest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		name, pattern, output string
		ok                    bool
	}{
		{"exact object", `{"online":true,"stored":true}`, `{"online":true,"stored":true}`, true},
		{"a member the page leaves out", `{"online":true}`, `{"online":true,"stored":true}`, false},
		{"open object", `{"online":true,…}`, `{"online":true,"stored":true}`, true},
		{"a member shown that is not there", `{"backfill":false,…}`, `{"state":"x"}`, false},
		{"any value", `{"match":{…},"state":…}`, `{"match":{"id":"1"},"state":"S"}`, true},
		{"any object is not an array", `{"match":{…}}`, `{"match":[1]}`, false},
		{"id prefix", `{"id":"0193…"}`, `{"id":"019d2c4e-7a1b-7000-8000-000000000000"}`, true},
		{"glob keeps its fixed part", `{"id":"rsv_…"}`, `{"id":"res_1"}`, false},
		{"glob", `{"id":"rsv_…"}`, `{"id":"rsv_42"}`, true},
		{"time", `{"at":"2026-05-01T12:05:00Z"}`, `{"at":"2027-01-02T03:04:05.678Z"}`, true},
		{"fraction within 2%", `{"score":0.89}`, `{"score":0.887}`, true},
		{"fraction too far", `{"score":0.97}`, `{"score":0.887}`, false},
		{"integer exact", `{"score":390}`, `{"score":391}`, false},
		{"array exact length", `["a","b"]`, `["a","b","c"]`, false},
		{"array open in order", `["a",…,"c"]`, `["a","b","c"]`, true},
		{"array open out of order", `["c",…,"a"]`, `["a","b","c"]`, false},
		{"nested difference", `{"ticket":{"state":"TICKET_STATE_MATCHED",…}}`, `{"ticket":{"state":"TICKET_STATE_WAITING","id":"x"}}`, false},
		{"empty object", `{}`, `{}`, true},
		{"no comma after …", `{…"b":2}`, `{"a":1,"b":2}`, true},
		{"empty object shown, members printed", `{}`, `{"removed":1}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, rest, err := ParsePattern(tt.pattern)
			if err != nil || rest != "" {
				t.Fatalf("parse %s: %v, rest %q", tt.pattern, err, rest)
			}
			var v any
			if err := json.Unmarshal([]byte(tt.output), &v); err != nil {
				t.Fatal(err)
			}
			diffs := Match(p, v)
			if (len(diffs) == 0) != tt.ok {
				t.Fatalf("Match(%s, %s) = %v, want ok=%v", tt.pattern, tt.output, diffs, tt.ok)
			}
		})
	}
}

func TestParsePatternProseAndIncomplete(t *testing.T) {
	_, rest, err := ParsePattern(`{"matches":["bob"]}   before the reveal: failed_precondition`)
	if err != nil || strings.TrimSpace(rest) != "before the reveal: failed_precondition" {
		t.Fatalf("prose after a value: %v, %q", err, rest)
	}
	if _, _, err := ParsePattern(`{"ticket":{…,"state":"X",`); err != errIncomplete {
		t.Fatalf("an unclosed value: %v, want errIncomplete", err)
	}
	if _, _, err := ParsePattern(`{"a" 1}`); err == nil || err == errIncomplete {
		t.Fatalf("a malformed value: %v, want a syntax error", err)
	}
}

const page = "# Title\n" +
	"\n" +
	"<!-- doctest: config=docs/examples/x.yaml -->\n" +
	"<!-- doctest: let <match id> = matches.0.match.id -->\n" +
	"```sh\n" +
	"curl -s localhost:7070/a \\\n" +
	"  -d '{}'\n" +
	"# {\"ticket\":{…,\n" +
	"#   \"state\":\"X\"}}   prose\n" +
	"\n" +
	"curl -s localhost:7070/b -d '{}'\n" +
	"curl -s localhost:7070/c -d '{}'\n" +
	"```\n" +
	"\n" +
	"<!-- doctest: skip (needs Docker) -->\n" +
	"```sh\n" +
	"docker build .\n" +
	"```\n"

func TestParseAndSegments(t *testing.T) {
	p, err := Parse("x.md", page)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Blocks) != 2 {
		t.Fatalf("%d blocks, want 2", len(p.Blocks))
	}
	b := p.Blocks[0]
	if b.Line != 5 || b.Config != "docs/examples/x.yaml" || len(b.Lets) != 1 || b.Lets[0] != (Let{"<match id>", "matches.0.match.id"}) || !b.Runnable() {
		t.Fatalf("first block: %+v", b)
	}
	if p.Blocks[1].Skip != "needs Docker" || p.Blocks[1].Runnable() {
		t.Fatalf("second block: %+v", p.Blocks[1])
	}
	segs, err := b.Segments()
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 2 {
		t.Fatalf("%d segments, want 2: %+v", len(segs), segs)
	}
	if segs[0].Line != 6 || len(segs[0].Expect) != 1 || segs[0].Expect[0].Line != 8 || !strings.Contains(segs[0].Script, "-d '{}'") {
		t.Fatalf("first segment: %+v", segs[0])
	}
	if segs[1].Line != 11 || len(segs[1].Expect) != 0 || strings.Count(segs[1].Script, "curl") != 2 {
		t.Fatalf("second segment: %+v", segs[1])
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"a skip without a reason", "<!-- doctest: skip -->\n```sh\nx\n```\n", "x.md:1: doctest: skip needs its reason"},
		{"an unknown directive", "<!-- doctest: skp (x) -->\n```sh\nx\n```\n", "x.md:1: doctest: \"skp (x)\" is not a directive"},
		{"a directive without a block", "<!-- doctest: retry -->\ntext\n", "x.md:1: the doctest directive is not followed by a code block"},
		{"an open fence", "```sh\nx\n", "x.md:1: the code block is never closed"},
		{"an unclosed output", "```sh\nx\n# {\"a\":\n```\n", "x.md:3: the output shown is not closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse("x.md", tt.text)
			if err == nil {
				for _, b := range p.Blocks {
					if _, err = b.Segments(); err != nil {
						break
					}
				}
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	pat := func(s string) Expectation {
		p, _, err := ParsePattern(s)
		if err != nil {
			t.Fatal(err)
		}
		return Expectation{Line: 9, Text: s, Pattern: p}
	}
	outs, ok := Outputs(`{"a":1}{"code":"not_found","message":"no"}{"b":2}`)
	if !ok || len(outs) != 3 {
		t.Fatalf("Outputs: %v %v", outs, ok)
	}
	if d := Compare([]Expectation{pat(`{"b":2}`)}, outs); len(d) != 1 || !strings.Contains(d[0], "a command failed") {
		t.Fatalf("an error the page does not show: %v", d)
	}
	if d := Compare([]Expectation{pat(`{"code":"not_found",…}`), pat(`{"b":2}`)}, outs); len(d) != 0 {
		t.Fatalf("an error the page shows: %v", d)
	}
	if d := Compare([]Expectation{pat(`{"a":1}`)}, outs[:1]); len(d) != 0 {
		t.Fatalf("one output: %v", d)
	}
	if d := Compare([]Expectation{pat(`{"a":2}`)}, outs[:1]); len(d) != 1 || !strings.HasPrefix(d[0], "line 9: $.a: got 1") {
		t.Fatalf("a difference names the line and the path: %v", d)
	}
	env := "\x00\x00\x00\x00\x07{\"a\":1}\x02\x00\x00\x00\x02{}"
	if outs, ok := Outputs(env); !ok || len(outs) != 2 {
		t.Fatalf("a Connect stream's envelopes: %v %v", outs, ok)
	}
	if _, ok := Outputs("\x00\x00\x00\x00\x08{\"a\":1}"); ok {
		t.Fatal("an envelope longer than its message was read")
	}
	if v, ok := Lookup(map[string]any{"matches": []any{map[string]any{"match": map[string]any{"id": "m1"}}}}, "matches.0.match.id"); !ok || v != "m1" {
		t.Fatalf("Lookup: %q %v", v, ok)
	}
}
