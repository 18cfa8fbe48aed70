package ruleset

import (
	"strconv"
	"strings"
	"testing"
)

// TestSyntaxErrors pins the position and reason of each kind of malformed
// JSON, as "LINE:COL: path: message".
func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", "1:1: empty document: a ruleset is a JSON object"},
		{"spaces only", " \n ", "2:2: empty document: a ruleset is a JSON object"},
		{"trailing comma in array", "{\"matching_rule\": [\n{},\n]}", "2:3: matching_rule: trailing comma before ']': JSON allows no comma after the last element"},
		{"trailing comma in object", "{\"alliance\": {\"min_number\": 1,\n}}", "1:30: alliance: trailing comma before '}': JSON allows no comma after the last member"},
		{"missing comma", "{\"a\": 1\n\"b\": 2}", "2:1: unexpected '\"': expected ',' or '}' after the value of \"a\""},
		{"missing colon", `{"a" 1}`, `1:6: a: unexpected '1': expected ':' after key "a"`},
		{"unquoted key", `{alliance: {}}`, "1:2: object keys must be strings in double quotes"},
		{"single quotes", `{"a": 'x'}`, "1:7: a: strings must be in double quotes, not single quotes"},
		{"line comment", "{\n// teams\n}", "2:1: comments are not allowed in JSON"},
		{"block comment", "{\"a\": /* x */ 1}", "1:7: a: comments are not allowed in JSON"},
		{"unclosed object", `{"a": 1`, "1:1: object is never closed: '}' missing before the end of file"},
		{"unclosed array", `{"a": [1, 2`, "1:7: a: array is never closed: ']' missing before the end of file"},
		{"unclosed string", "{\"a\": \"x\n}", "1:7: a: string is never closed on its line (JSON strings cannot span lines)"},
		{"bad escape", `{"a": "\x"}`, `1:8: a: invalid escape "\\x" in a string`},
		{"lone surrogate", `{"a": "\ud800"}`, `1:8: a: invalid \u escape: lone surrogate`},
		{"tab in string", "{\"a\": \"x\ty\"}", "1:9: a: control character U+0009 in a string must be escaped"},
		{"leading zero", `{"a": 01}`, `1:7: a: invalid number "01": leading zeros are not allowed`},
		{"bare point", `{"a": 1.}`, `1:7: a: invalid number "1.": a digit must follow the decimal point`},
		{"plus sign", `{"a": +1}`, "1:7: a: unexpected '+': expected a value (object, array, string, number, true, false or null)"},
		{"huge number", `{"a": 1e400}`, "1:7: a: number 1e400 is out of range"},
		{"True", `{"a": True}`, `1:7: a: unexpected "True": expected a value (strings need double quotes)`},
		{"truex", `{"a": truex}`, `1:7: a: unexpected "truex": expected a value (strings need double quotes)`},
		{"two documents", `{} {}`, "1:4: unexpected '{' after the end of the ruleset object"},
		{"missing value", `{"a": }`, "1:7: a: unexpected '}': a value is missing"},
		{"missing key", `{,}`, "1:2: unexpected ',': expected a key in double quotes"},
		{"invalid utf8", "{\"a\": \"\xff\"}", "1:8: a: invalid UTF-8 in a string"},
		{"column counts runes", "{\"名前\": 1,}", "1:9: trailing comma before '}': JSON allows no comma after the last member"},
		{"deep", strings.Repeat("[", 40) + strings.Repeat("]", 40), "1:34: " + strings.Repeat("[0]", 33) + ": nesting deeper than 32 levels"},
		{"nested path", `{"roles": {"quotas": [{"name": "tank"}, {"name": x}]}}`, `1:50: roles.quotas[1].name: unexpected "x": expected a value (strings need double quotes)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			ps, ok := err.(Problems)
			if !ok || len(ps) != 1 {
				t.Fatalf("want one problem, got %v", err)
			}
			if got := ps[0].String(); got != tt.want {
				t.Errorf("\ngot  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	data := make([]byte, MaxSourceBytes+1)
	_, err := Parse(data)
	if err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Fatalf("got %v", err)
	}
}

// TestStringValues checks escapes decode to the right text.
func TestStringValues(t *testing.T) {
	tests := []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"a\"b\\c\/d"`, `a"b\c/d`},
		{`"\b\f\n\r\t"`, "\b\f\n\r\t"},
		{`"\u00e9\u30de"`, "éマ"},
		{`"\ud83d\ude00"`, "😀"},
		{`"マッチ"`, "マッチ"},
	}
	for _, tt := range tests {
		root, ps := readJSON([]byte(`{"k": ` + tt.in + `}`))
		if len(ps) > 0 {
			t.Fatalf("%s: %v", tt.in, ps)
		}
		if got := root.elems[0].text; got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestBOMIsSkipped(t *testing.T) {
	data := append([]byte{0xEF, 0xBB, 0xBF}, []byte(`{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 1, "player_max_number": 2}}`)...)
	if _, err := Load(data); err != nil {
		t.Fatal(err)
	}
}

// TestPosAtAnyOrder: positions asked out of order are as right as in order.
func TestPosAtAnyOrder(t *testing.T) {
	r := newReader([]byte("ab\nマッチ x\n\nz"))
	tests := []struct {
		off  int
		want Pos
	}{
		{0, Pos{1, 1}}, {1, Pos{1, 2}}, {3, Pos{2, 1}}, {13, Pos{2, 5}}, {6, Pos{2, 2}}, {14, Pos{2, 6}}, {16, Pos{4, 1}}, {2, Pos{1, 3}},
	}
	for _, tt := range tests {
		if got := r.posAt(tt.off); got != tt.want {
			t.Errorf("posAt(%d) = %v, want %v", tt.off, got, tt.want)
		}
	}
}

// TestLongLine: a large minified ruleset on one line loads in one pass.
func TestLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 1, "player_max_number": 2}, "match_options": {"options": [`)
	for i := range maxListLen {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"name": "o` + strings.Repeat("x", 100) + string(rune('a'+i%26)) + `", "type": "any"}`)
	}
	b.WriteString("]}, \"zz\": [" + strings.Repeat("1,", 100000) + "1]}")
	_, err := Parse([]byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "zz: unknown field") {
		t.Fatalf("got %v", err)
	}
}

// TestManyKeysOneLine: a hostile one-line document with many keys is read
// in linear time (positions are not rescanned per key).
func TestManyKeysOneLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 60000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	_, err := Parse([]byte(b.String()))
	ps, _ := err.(Problems)
	if len(ps) != MaxProblems+1 || ps[MaxProblems].Message != "… and 59901 more problems" {
		t.Fatalf("got %d problems, last %v", len(ps), ps[len(ps)-1])
	}
}
