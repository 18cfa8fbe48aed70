package doctest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Outputs decodes what a segment printed as a stream of JSON values (curl
// prints one per call, without a newline between them). ok is false when
// the text is not such a stream; a command that prints text then has only
// its exit status checked.
//
// A Connect stream's answer (curl of a streaming procedure) is a run of
// envelopes, each a flags byte, a 4-byte length and a JSON message; its
// messages are the outputs.
func Outputs(stdout string) (values []any, ok bool) {
	if msgs, ok := unenvelope(stdout); ok {
		stdout = msgs
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return values, true
		}
		if err != nil {
			return nil, false
		}
		values = append(values, v)
	}
}

// IsError says whether an output is a Connect error ({"code":…,
// "message":…}), which a command whose page shows no error must not print.
//
// A Connect stream ends with {"error":{…}} when it fails.
func IsError(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	if e, ok := obj["error"].(map[string]any); ok && len(obj) == 1 {
		obj = e
	}
	_, code := obj["code"].(string)
	_, msg := obj["message"].(string)
	return code && (msg || len(obj) == 1)
}

// Compare matches a segment's outputs with the outputs its page shows: the
// last shown output is the last one printed; the ones before it appear, in
// order, among the ones before. An error printed where the page shows none
// is a difference too.
func Compare(expect []Expectation, outputs []any) []string {
	var diffs []string
	matched := make([]bool, len(outputs))
	if len(expect) > 0 {
		if len(outputs) == 0 {
			return []string{fmt.Sprintf("line %d: the command printed nothing; the page shows %s", expect[len(expect)-1].Line, expect[len(expect)-1].Text)}
		}
		next := 0
		for _, e := range expect[:len(expect)-1] {
			found := false
			for ; next < len(outputs)-1; next++ {
				if len(Match(e.Pattern, outputs[next])) == 0 {
					matched[next], found = true, true
					next++
					break
				}
			}
			if !found {
				diffs = append(diffs, fmt.Sprintf("line %d: no output matches %s", e.Line, e.Text))
			}
		}
		last := expect[len(expect)-1]
		for _, d := range Match(last.Pattern, outputs[len(outputs)-1]) {
			diffs = append(diffs, fmt.Sprintf("line %d: %s", last.Line, d))
		}
		matched[len(outputs)-1] = true
	}
	for i, o := range outputs {
		if !matched[i] && IsError(o) {
			diffs = append(diffs, fmt.Sprintf("a command failed where the page shows no error: %s", render(o)))
		}
	}
	return diffs
}

// Lookup finds a dot-separated path ("matches.0.match.id") in an output.
func Lookup(v any, path string) (string, bool) {
	for _, part := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return "", false
			}
			v = x[i]
		default:
			return "", false
		}
	}
	switch x := v.(type) {
	case string:
		return x, x != ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}

func render(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(b.String())
}

// unenvelope joins the messages of a Connect stream's envelopes; ok is
// false when the text is not such a stream.
func unenvelope(s string) (string, bool) {
	if s == "" || (s[0] != 0 && s[0] != 2) {
		return "", false
	}
	var b strings.Builder
	for len(s) > 0 {
		if len(s) < 5 || (s[0] != 0 && s[0] != 2) {
			return "", false
		}
		n := int(s[1])<<24 | int(s[2])<<16 | int(s[3])<<8 | int(s[4])
		if len(s) < 5+n {
			return "", false
		}
		b.WriteString(s[5 : 5+n])
		b.WriteByte('\n')
		s = s[5+n:]
	}
	return b.String(), true
}
