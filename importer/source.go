package importer

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// stripComments blanks out // and /* */ comments outside JSON strings, as
// FlexMatch's published rule sets carry them. Every byte of a comment but
// its newlines becomes a space, so lines and columns do not move.
func stripComments(src []byte) []byte {
	out := bytes.Clone(src)
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			j := i
			for ; j < len(out) && !(out[j] == '*' && j+1 < len(out) && out[j+1] == '/' && j > i+1); j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			for k := j; k < len(out) && k < j+2; k++ {
				out[k] = ' '
			}
			i = j + 1
		}
	}
	return out
}

// stripTrailingCommas removes a comma that directly precedes a closing
// bracket (whitespace between), which hand-written rule sets often carry.
var trailingComma = regexp.MustCompile(`,(\s*[\]}])`)

// lineFinder finds the lines parts of a source start on. JSON decoding
// forgets positions; the report needs them, and the names of a rule set's
// parts are distinctive enough to find again in the text.
type lineFinder struct {
	text string
	// names maps every "name": "…" value to its offsets, in order: one
	// pass over the text however many parts are looked up.
	names map[string][]int
	// lineStarts are the offsets of every line's first byte.
	lineStarts []int
}

func newLineFinder(text string) *lineFinder {
	f := &lineFinder{text: text, names: map[string][]int{}, lineStarts: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			f.lineStarts = append(f.lineStarts, i+1)
		}
	}
	for _, m := range nameRE.FindAllStringSubmatchIndex(text, -1) {
		if v, err := strconv.Unquote(text[m[2]:m[3]]); err == nil {
			f.names[v] = append(f.names[v], m[0])
		}
	}
	return f
}

var nameRE = regexp.MustCompile(`"name"\s*:\s*("(?:[^"\\]|\\.)*")`)

// lineAt is the 1-based line of byte offset off.
func (f *lineFinder) lineAt(off int) int {
	if off < 0 {
		return 0
	}
	return sort.SearchInts(f.lineStarts, off+1)
}

// key is the line of the first occurrence of "key": after offset from, and
// its offset; 0, -1 when absent.
func (f *lineFinder) key(key string, from int) (int, int) {
	if from < 0 {
		from = 0
	}
	re := regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `"\s*:`)
	loc := re.FindStringIndex(f.text[from:])
	if loc == nil {
		return 0, -1
	}
	return f.lineAt(from + loc[0]), from + loc[0]
}

// named is the line of the object whose "name" is name, searched after
// offset from (the start of its section).
func (f *lineFinder) named(name string, from int) int {
	line, _ := f.namedAt(name, from)
	return line
}

// namedAt is named with the offset found (-1 when absent).
func (f *lineFinder) namedAt(name string, from int) (int, int) {
	offs := f.names[name]
	i := sort.SearchInts(offs, max(from, 0))
	if i == len(offs) {
		return 0, -1
	}
	return f.lineAt(offs[i]), offs[i]
}

// number is a JSON number or a string holding one: FlexMatch's own examples
// write "maxDistance": "500".
type number struct {
	v   float64
	set bool
}

func (n *number) UnmarshalJSON(data []byte) error {
	var f float64
	if err := json.Unmarshal(data, &f); err == nil {
		*n = number{v: f, set: true}
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return err
	}
	*n = number{v: f, set: true}
	return nil
}

// fmtNum writes a number the short way, for reports.
func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
