package ruleset

import (
	"errors"
	"fmt"
	"strings"
)

// Load parses, validates and compiles a ruleset in one call: what a server
// does when a ruleset file or API request arrives. The error is Problems.
func Load(data []byte) (*Compiled, error) {
	rs, err := Parse(data)
	if err != nil {
		return nil, err
	}
	return Compile(rs)
}

// Check returns every problem of a ruleset's text, from syntax to meaning,
// or nil when it loads.
func Check(data []byte) Problems {
	_, err := Load(data)
	if err == nil {
		return nil
	}
	var ps Problems
	if errors.As(err, &ps) {
		return ps
	}
	return Problems{{Message: err.Error()}}
}

// FormatProblems renders problems the way compilers do, one per line as
// "NAME:LINE:COL: path: message", so editors and CI can jump to them. A
// problem without a position prints as "NAME: path: message".
func FormatProblems(name string, ps Problems) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(name)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
		}
		b.WriteString(": ")
		if p.Path != "" {
			b.WriteString(p.Path)
			b.WriteString(": ")
		}
		b.WriteString(p.Message)
		b.WriteByte('\n')
	}
	return b.String()
}

// CheckText is what "cupid ruleset check FILE" prints: the problems of the
// file named name with contents data, or "" when it is a valid ruleset. The
// command only has to read the file, print this and exit non-zero when it
// is not empty.
func CheckText(name string, data []byte) string {
	return FormatProblems(name, Check(data))
}
