package ruleset

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// This file holds a small strict JSON reader. encoding/json reports a syntax
// error as a byte offset with a terse reason and an unknown field by its bare
// name; a studio editing a ruleset needs the line, the column, the JSON path
// and a reason it can act on ("trailing comma before ']'"). So the text is
// first read into a tree of nodes that remember their positions, and the tree
// is then decoded field by field (decode.go).

// Limits on a ruleset's text. They keep a hostile or broken file from
// costing the server more than a moment to reject.
const (
	// MaxSourceBytes is the largest ruleset accepted.
	MaxSourceBytes = 1 << 20
	// maxDepth is how deeply objects and arrays may nest; a ruleset needs 4.
	maxDepth = 32
)

type nodeKind uint8

const (
	kindNull nodeKind = iota
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

// kindNames are used in "must be a number, not a string" messages.
var kindNames = [...]string{
	kindNull:   "null",
	kindBool:   "a boolean",
	kindNumber: "a number",
	kindString: "a string",
	kindObject: "an object",
	kindArray:  "an array",
}

// node is one JSON value with the position of its first character.
type node struct {
	kind    nodeKind
	pos     Pos
	boolean bool
	number  float64
	text    string // the string's value, or the number as written
	// keys, keyPos and elems hold an object's members (elems[i] is the
	// value of keys[i]) or an array's elements (keys is nil).
	keys   []string
	keyPos []Pos
	elems  []*node
}

// syntaxError is a fatal problem in the text: reading stops at the first one,
// since after a syntax error the rest of the text cannot be trusted.
type syntaxError struct {
	offset int
	path   string
	msg    string
}

func (e *syntaxError) Error() string { return e.msg }

// reader walks the text once, building the tree.
type reader struct {
	data []byte
	off  int
	// lineStarts holds the offset of the first byte of every line, so an
	// offset becomes a line and column by binary search.
	lineStarts []int
	// path is the JSON path of the value being read, for error messages.
	path []string
	// dups collects duplicate keys; they are reported but reading goes on.
	dups []Problem
	// lastLine, lastOff and lastCol remember posAt's previous answer
	// (0-based line and column).
	lastLine, lastOff, lastCol int
}

func newReader(data []byte) *reader {
	r := &reader{data: data, lineStarts: []int{0}}
	for i, c := range data {
		if c == '\n' {
			r.lineStarts = append(r.lineStarts, i+1)
		}
	}
	return r
}

// posAt turns a byte offset into a line and a rune column. Offsets mostly
// come in increasing order, so it counts on from the previous answer when it
// can: a minified megabyte on one line must not cost a rescan per value.
func (r *reader) posAt(off int) Pos {
	if off > len(r.data) {
		off = len(r.data)
	}
	line := sort.Search(len(r.lineStarts), func(i int) bool { return r.lineStarts[i] > off }) - 1
	start := r.lineStarts[line]
	if r.lastLine == line && r.lastOff <= off && r.lastOff >= start {
		start = r.lastOff
	} else {
		r.lastCol = 0
	}
	col := r.lastCol + utf8.RuneCount(r.data[start:off])
	r.lastLine, r.lastOff, r.lastCol = line, off, col
	return Pos{Line: line + 1, Column: col + 1}
}

func (r *reader) pathString() string {
	s := ""
	for _, p := range r.path {
		if len(p) > 0 && p[0] == '[' {
			s += p
		} else if s == "" {
			s = p
		} else {
			s += "." + p
		}
	}
	return s
}

func (r *reader) fail(off int, format string, args ...any) {
	panic(&syntaxError{offset: off, path: r.pathString(), msg: fmt.Sprintf(format, args...)})
}

// readJSON reads one JSON document. A syntax error comes back as a single
// Problem with its position; duplicate keys come back as problems beside a
// usable tree.
func readJSON(data []byte) (root *node, probs Problems) {
	if len(data) > MaxSourceBytes {
		return nil, Problems{{Line: 1, Column: 1, Message: fmt.Sprintf("ruleset is %d bytes, more than the limit of %d", len(data), MaxSourceBytes)}}
	}
	r := newReader(data)
	defer func() {
		if v := recover(); v != nil {
			se, ok := v.(*syntaxError)
			if !ok {
				panic(v)
			}
			p := r.posAt(se.offset)
			root, probs = nil, Problems{{Path: se.path, Line: p.Line, Column: p.Column, Message: se.msg}}
		}
	}()
	// A UTF-8 byte order mark is what some Windows editors write first;
	// it is not JSON but it is harmless, so it is skipped.
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		r.off = 3
	}
	r.space()
	if r.off >= len(data) {
		r.fail(r.off, "empty document: a ruleset is a JSON object")
	}
	root = r.value(0)
	r.space()
	if r.off < len(data) {
		r.fail(r.off, "unexpected %s after the end of the ruleset object", r.describe(r.off))
	}
	return root, Problems(r.dups)
}

// describe names the character at off for an error message.
func (r *reader) describe(off int) string {
	if off >= len(r.data) {
		return "end of file"
	}
	c, _ := utf8.DecodeRune(r.data[off:])
	switch {
	case c == utf8.RuneError:
		return fmt.Sprintf("byte 0x%02x", r.data[off])
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("control character %U", c)
	default:
		return strconv.QuoteRune(c)
	}
}

// space skips JSON whitespace and rejects comments with a message that
// says why, since // comments are the commonest non-JSON in config files.
func (r *reader) space() {
	for r.off < len(r.data) {
		switch r.data[r.off] {
		case ' ', '\t', '\n', '\r':
			r.off++
		case '/':
			if r.off+1 < len(r.data) && (r.data[r.off+1] == '/' || r.data[r.off+1] == '*') {
				r.fail(r.off, "comments are not allowed in JSON")
			}
			return
		default:
			return
		}
	}
}

func (r *reader) value(depth int) *node {
	if depth > maxDepth {
		r.fail(r.off, "nesting deeper than %d levels", maxDepth)
	}
	if r.off >= len(r.data) {
		r.fail(r.off, "unexpected end of file: a value is missing")
	}
	start := r.off
	n := &node{pos: r.posAt(start)}
	switch c := r.data[r.off]; {
	case c == '{':
		r.object(n, depth)
	case c == '[':
		r.array(n, depth)
	case c == '"':
		n.kind = kindString
		n.text = r.str()
	case c == '-' || (c >= '0' && c <= '9'):
		n.kind = kindNumber
		n.text, n.number = r.num()
	case c == 't':
		r.word("true")
		n.kind, n.boolean = kindBool, true
	case c == 'f':
		r.word("false")
		n.kind = kindBool
	case c == 'n':
		r.word("null")
		n.kind = kindNull
	case c == '\'':
		r.fail(r.off, "strings must be in double quotes, not single quotes")
	case isWordByte(c):
		end := r.off
		for end < len(r.data) && isWordByte(r.data[end]) {
			end++
		}
		r.fail(r.off, "unexpected %q: expected a value (strings need double quotes)", string(r.data[r.off:end]))
	case c == '}' || c == ']':
		r.fail(r.off, "unexpected %s: a value is missing", r.describe(r.off))
	default:
		r.fail(r.off, "unexpected %s: expected a value (object, array, string, number, true, false or null)", r.describe(r.off))
	}
	return n
}

func (r *reader) word(w string) {
	if len(r.data)-r.off < len(w) || string(r.data[r.off:r.off+len(w)]) != w {
		// Point at the word, whatever it turns out to be.
		end := r.off
		for end < len(r.data) && isWordByte(r.data[end]) {
			end++
		}
		if end == r.off {
			end = r.off + 1
		}
		r.fail(r.off, "unexpected %q: expected a value (strings need double quotes)", string(r.data[r.off:min(end, len(r.data))]))
	}
	r.off += len(w)
	if r.off < len(r.data) && isWordByte(r.data[r.off]) {
		r.fail(r.off-len(w), "unexpected %q: expected a value (strings need double quotes)", w+string(r.data[r.off]))
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (r *reader) object(n *node, depth int) {
	n.kind = kindObject
	open := r.off
	r.off++ // {
	seen := map[string]bool{}
	r.space()
	if r.off < len(r.data) && r.data[r.off] == '}' {
		r.off++
		return
	}
	for {
		r.space()
		if r.off >= len(r.data) {
			r.fail(open, "object is never closed: '}' missing before the end of file")
		}
		if r.data[r.off] != '"' {
			if r.data[r.off] == '}' {
				r.fail(r.off, "unexpected '}': a key is missing")
			}
			if isWordByte(r.data[r.off]) || r.data[r.off] == '\'' {
				r.fail(r.off, "object keys must be strings in double quotes")
			}
			r.fail(r.off, "unexpected %s: expected a key in double quotes", r.describe(r.off))
		}
		// The key's position is taken before its value is read, so
		// positions are asked in increasing order (see posAt).
		p := r.posAt(r.off)
		key := r.str()
		if seen[key] {
			r.path = append(r.path, key)
			r.dups = append(r.dups, Problem{Path: r.pathString(), Line: p.Line, Column: p.Column, Message: "duplicate key: it is already set above"})
			r.path = r.path[:len(r.path)-1]
		}
		seen[key] = true
		r.path = append(r.path, key)
		r.space()
		if r.off >= len(r.data) || r.data[r.off] != ':' {
			r.fail(r.off, "unexpected %s: expected ':' after key %q", r.describe(r.off), key)
		}
		r.off++
		r.space()
		v := r.value(depth + 1)
		r.path = r.path[:len(r.path)-1]
		n.keys = append(n.keys, key)
		n.keyPos = append(n.keyPos, p)
		n.elems = append(n.elems, v)
		r.space()
		if r.off >= len(r.data) {
			r.fail(open, "object is never closed: '}' missing before the end of file")
		}
		switch r.data[r.off] {
		case '}':
			r.off++
			return
		case ',':
			comma := r.off
			r.off++
			r.space()
			if r.off < len(r.data) && r.data[r.off] == '}' {
				r.fail(comma, "trailing comma before '}': JSON allows no comma after the last member")
			}
		default:
			r.fail(r.off, "unexpected %s: expected ',' or '}' after the value of %q", r.describe(r.off), key)
		}
	}
}

func (r *reader) array(n *node, depth int) {
	n.kind = kindArray
	open := r.off
	r.off++ // [
	r.space()
	if r.off < len(r.data) && r.data[r.off] == ']' {
		r.off++
		return
	}
	for i := 0; ; i++ {
		r.space()
		r.path = append(r.path, "["+strconv.Itoa(i)+"]")
		if r.off >= len(r.data) {
			r.path = r.path[:len(r.path)-1]
			r.fail(open, "array is never closed: ']' missing before the end of file")
		}
		v := r.value(depth + 1)
		r.path = r.path[:len(r.path)-1]
		n.elems = append(n.elems, v)
		r.space()
		if r.off >= len(r.data) {
			r.fail(open, "array is never closed: ']' missing before the end of file")
		}
		switch r.data[r.off] {
		case ']':
			r.off++
			return
		case ',':
			comma := r.off
			r.off++
			r.space()
			if r.off < len(r.data) && r.data[r.off] == ']' {
				r.fail(comma, "trailing comma before ']': JSON allows no comma after the last element")
			}
		default:
			r.fail(r.off, "unexpected %s: expected ',' or ']' after an array element", r.describe(r.off))
		}
	}
}

// str reads a double-quoted string starting at r.off and returns its value.
func (r *reader) str() string {
	open := r.off
	r.off++
	var buf []byte
	for {
		if r.off >= len(r.data) {
			r.fail(open, "string is never closed: '\"' missing before the end of file")
		}
		c := r.data[r.off]
		switch {
		case c == '"':
			r.off++
			return string(buf)
		case c == '\\':
			buf = r.escape(buf)
		case c < 0x20:
			if c == '\n' {
				r.fail(open, "string is never closed on its line (JSON strings cannot span lines)")
			}
			r.fail(r.off, "control character %U in a string must be escaped", rune(c))
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			r.off++
		default:
			ru, size := utf8.DecodeRune(r.data[r.off:])
			if ru == utf8.RuneError && size == 1 {
				r.fail(r.off, "invalid UTF-8 in a string")
			}
			buf = append(buf, r.data[r.off:r.off+size]...)
			r.off += size
		}
	}
}

func (r *reader) escape(buf []byte) []byte {
	at := r.off
	if r.off+1 >= len(r.data) {
		r.fail(at, "string is never closed: '\"' missing before the end of file")
	}
	c := r.data[r.off+1]
	r.off += 2
	switch c {
	case '"', '\\', '/':
		return append(buf, c)
	case 'b':
		return append(buf, '\b')
	case 'f':
		return append(buf, '\f')
	case 'n':
		return append(buf, '\n')
	case 'r':
		return append(buf, '\r')
	case 't':
		return append(buf, '\t')
	case 'u':
		ru := r.hex4(at)
		if utf16IsHighSurrogate(ru) {
			// A character outside the BMP is written as two \u escapes.
			if r.off+1 < len(r.data) && r.data[r.off] == '\\' && r.data[r.off+1] == 'u' {
				next := r.off
				r.off += 2
				lo := r.hex4(next)
				if lo >= 0xDC00 && lo <= 0xDFFF {
					return utf8.AppendRune(buf, (ru-0xD800)<<10+(lo-0xDC00)+0x10000)
				}
				r.fail(next, "invalid \\u escape: a high surrogate must be followed by a low surrogate")
			}
			r.fail(at, "invalid \\u escape: lone surrogate")
		}
		if ru >= 0xDC00 && ru <= 0xDFFF {
			r.fail(at, "invalid \\u escape: lone surrogate")
		}
		return utf8.AppendRune(buf, ru)
	default:
		r.fail(at, "invalid escape %s in a string", strconv.Quote(`\`+string(rune(c))))
	}
	return buf
}

func utf16IsHighSurrogate(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }

// hex4 reads the four hex digits of a \u escape that started at 'at'.
func (r *reader) hex4(at int) rune {
	if len(r.data)-r.off < 4 {
		r.fail(at, "invalid \\u escape: four hex digits expected")
	}
	v, err := strconv.ParseUint(string(r.data[r.off:r.off+4]), 16, 32)
	if err != nil {
		r.fail(at, "invalid \\u escape: four hex digits expected")
	}
	r.off += 4
	return rune(v)
}

// num reads a number with JSON's grammar, which is stricter than Go's: no
// leading zeros, no leading '+', no hex, digits on both sides of the point.
func (r *reader) num() (string, float64) {
	start := r.off
	d := r.data
	if r.off < len(d) && d[r.off] == '-' {
		r.off++
	}
	digits := func() int {
		n := 0
		for r.off < len(d) && d[r.off] >= '0' && d[r.off] <= '9' {
			r.off++
			n++
		}
		return n
	}
	intStart := r.off
	n := digits()
	if n == 0 {
		r.fail(start, "invalid number: a digit must follow '-'")
	}
	if n > 1 && d[intStart] == '0' {
		r.fail(start, "invalid number %q: leading zeros are not allowed", string(d[start:r.off]))
	}
	if r.off < len(d) && d[r.off] == '.' {
		r.off++
		if digits() == 0 {
			r.fail(start, "invalid number %q: a digit must follow the decimal point", string(d[start:r.off]))
		}
	}
	if r.off < len(d) && (d[r.off] == 'e' || d[r.off] == 'E') {
		r.off++
		if r.off < len(d) && (d[r.off] == '+' || d[r.off] == '-') {
			r.off++
		}
		if digits() == 0 {
			r.fail(start, "invalid number %q: the exponent has no digits", string(d[start:r.off]))
		}
	}
	if r.off < len(d) && isWordByte(d[r.off]) {
		r.fail(start, "invalid number starting %q", string(d[start:r.off+1]))
	}
	text := string(d[start:r.off])
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		var ne *strconv.NumError
		if errors.As(err, &ne) || math.IsInf(f, 0) {
			r.fail(start, "number %s is out of range", text)
		}
		r.fail(start, "invalid number %q", text)
	}
	return text, f
}
