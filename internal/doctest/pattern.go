package doctest

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Pattern is a shown output: JSON in which "…" stands for what varies.
//
//   - In an object, a "…" member means the output may have more members;
//     without one, it must have exactly the members shown.
//   - In an array, a "…" element means more elements may come anywhere;
//     the shown ones must then appear in this order.
//   - A value "…" is any value; "{…}" any object, "[…]" any array.
//   - A string with "…" in it matches any string with its fixed parts in
//     place ("rsv_…"); "0193…", hex digits before "…", is an id and matches
//     any id.
//   - A string that is an RFC 3339 time matches any such time.
//   - A number with a fraction matches within 2% (ratings, qualities); an
//     integer must be equal.
type Pattern interface {
	match(path string, v any, diffs *[]string)
	String() string
}

// Match compares an output, decoded by encoding/json, with a pattern and
// returns every difference, each naming its JSON path, empty when it
// matches.
func Match(p Pattern, v any) []string {
	var diffs []string
	p.match("$", v, &diffs)
	return diffs
}

type anyPat struct{}

type objectPat struct {
	keys []string
	vals map[string]Pattern
	open bool
}

type arrayPat struct {
	elems []Pattern
	open  bool
}

type stringPat struct{ s string }

type numberPat struct {
	v        float64
	fraction bool
}

type literalPat struct{ v any } // true, false, nil

const ellipsis = "…"

func (anyPat) match(string, any, *[]string) {}
func (anyPat) String() string               { return ellipsis }

func (p objectPat) match(path string, v any, diffs *[]string) {
	obj, ok := v.(map[string]any)
	if !ok {
		*diffs = append(*diffs, fmt.Sprintf("%s: got %s, the page shows an object", path, short(v)))
		return
	}
	for _, k := range p.keys {
		got, ok := obj[k]
		if !ok {
			*diffs = append(*diffs, fmt.Sprintf("%s.%s: missing, the page shows %s", path, k, p.vals[k]))
			continue
		}
		p.vals[k].match(path+"."+k, got, diffs)
	}
	if p.open {
		return
	}
	var extra []string
	for k := range obj {
		if _, ok := p.vals[k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		*diffs = append(*diffs, fmt.Sprintf("%s.%s: got %s, which the page leaves out without a …", path, k, short(obj[k])))
	}
}

func (p objectPat) String() string {
	var b strings.Builder
	b.WriteString("{")
	for i, k := range p.keys {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:%s", k, p.vals[k])
	}
	if p.open {
		if len(p.keys) > 0 {
			b.WriteString(",")
		}
		b.WriteString(ellipsis)
	}
	b.WriteString("}")
	return b.String()
}

func (p arrayPat) match(path string, v any, diffs *[]string) {
	arr, ok := v.([]any)
	if !ok {
		*diffs = append(*diffs, fmt.Sprintf("%s: got %s, the page shows an array", path, short(v)))
		return
	}
	if !p.open {
		if len(arr) != len(p.elems) {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %d elements %s, the page shows %d", path, len(arr), short(v), len(p.elems)))
			return
		}
		for i, e := range p.elems {
			e.match(fmt.Sprintf("%s[%d]", path, i), arr[i], diffs)
		}
		return
	}
	// With a "…", the shown elements appear in order among the others.
	next := 0
	for i, e := range p.elems {
		found := false
		for ; next < len(arr); next++ {
			if len(Match(e, arr[next])) == 0 {
				found = true
				next++
				break
			}
		}
		if !found {
			*diffs = append(*diffs, fmt.Sprintf("%s: no element (in order) matches the page's element %d, %s; got %s", path, i, e, short(v)))
			return
		}
	}
}

func (p arrayPat) String() string {
	var parts []string
	for _, e := range p.elems {
		parts = append(parts, e.String())
	}
	if p.open {
		parts = append(parts, ellipsis)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func (p stringPat) match(path string, v any, diffs *[]string) {
	s, ok := v.(string)
	if !ok {
		*diffs = append(*diffs, fmt.Sprintf("%s: got %s, the page shows %q", path, short(v), p.s))
		return
	}
	if !matchString(p.s, s) {
		*diffs = append(*diffs, fmt.Sprintf("%s: got %q, the page shows %q", path, s, p.s))
	}
}

func (p stringPat) String() string { return strconv.Quote(p.s) }

// matchString compares a shown string with an output's.
func matchString(want, got string) bool {
	if want == got {
		return true
	}
	if isTime(want) && isTime(got) {
		return true
	}
	if !strings.Contains(want, ellipsis) {
		return false
	}
	prefix, _, _ := strings.Cut(want, ellipsis)
	if strings.HasSuffix(want, ellipsis) && strings.Count(want, ellipsis) == 1 && isHex(prefix) {
		return got != ""
	}
	parts := strings.Split(want, ellipsis)
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	rest := got[len(parts[0]):]
	for i, part := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(rest, part)
		}
		j := strings.Index(rest, part)
		if j < 0 {
			return false
		}
		rest = rest[j+len(part):]
	}
	return true
}

func isTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return false
		}
	}
	return true
}

func (p numberPat) match(path string, v any, diffs *[]string) {
	n, ok := v.(float64)
	if !ok {
		*diffs = append(*diffs, fmt.Sprintf("%s: got %s, the page shows %s", path, short(v), p))
		return
	}
	if p.fraction {
		if math.Abs(n-p.v) <= 0.02*math.Max(math.Abs(p.v), 0.05) {
			return
		}
	} else if n == p.v {
		return
	}
	*diffs = append(*diffs, fmt.Sprintf("%s: got %v, the page shows %s", path, n, p))
}

func (p numberPat) String() string { return strconv.FormatFloat(p.v, 'f', -1, 64) }

func (p literalPat) match(path string, v any, diffs *[]string) {
	if v != p.v {
		*diffs = append(*diffs, fmt.Sprintf("%s: got %s, the page shows %s", path, short(v), p))
	}
}

func (p literalPat) String() string {
	if p.v == nil {
		return "null"
	}
	return fmt.Sprint(p.v)
}

// short renders an output's value for a message, cut to a line.
func short(v any) string {
	s := fmt.Sprintf("%#v", v)
	switch v := v.(type) {
	case string:
		s = strconv.Quote(v)
	case map[string]any, []any:
		s = render(v)
	}
	if utf8.RuneCountInString(s) > 200 {
		s = string([]rune(s)[:200]) + "…"
	}
	return s
}

var errIncomplete = errors.New("the value is not closed")

// ParsePattern reads one pattern from the start of text and returns the
// text after it (prose). An unclosed value is errIncomplete, so that a
// caller can add the next line of a shown output and try again.
func ParsePattern(text string) (Pattern, string, error) {
	p := &parser{s: text}
	pat, err := p.value()
	if err != nil {
		return nil, "", err
	}
	return pat, p.s[p.i:], nil
}

type parser struct {
	s string
	i int
}

func (p *parser) space() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\r\n", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *parser) errf(format string, args ...any) error {
	return fmt.Errorf("at %q: %s", p.s[p.i:min(len(p.s), p.i+20)], fmt.Sprintf(format, args...))
}

func (p *parser) ellipsis() bool {
	if strings.HasPrefix(p.s[p.i:], ellipsis) {
		p.i += len(ellipsis)
		return true
	}
	return false
}

func (p *parser) value() (Pattern, error) {
	p.space()
	if p.i >= len(p.s) {
		return nil, errIncomplete
	}
	if p.ellipsis() {
		return anyPat{}, nil
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		return stringPat{s}, err
	case c == '-' || c >= '0' && c <= '9':
		j := p.i + 1
		for j < len(p.s) && strings.ContainsRune("0123456789.eE+-", rune(p.s[j])) {
			j++
		}
		lit := p.s[p.i:j]
		n, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return nil, p.errf("not a number")
		}
		p.i = j
		return numberPat{v: n, fraction: strings.ContainsAny(lit, ".eE")}, nil
	}
	for lit, v := range map[string]any{"true": true, "false": false, "null": nil} {
		if strings.HasPrefix(p.s[p.i:], lit) {
			p.i += len(lit)
			return literalPat{v}, nil
		}
	}
	return nil, p.errf("not a JSON value")
}

func (p *parser) str() (string, error) {
	start := p.i
	p.i++
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			s, err := strconv.Unquote(p.s[start:p.i])
			if err != nil {
				p.i = start
				return "", p.errf("not a JSON string")
			}
			return s, nil
		}
		p.i++
	}
	return "", errIncomplete
}

func (p *parser) object() (Pattern, error) {
	p.i++ // {
	o := objectPat{vals: map[string]Pattern{}}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, errIncomplete
		}
		if p.s[p.i] == '}' {
			p.i++
			return o, nil
		}
		if p.ellipsis() {
			o.open = true
			p.space()
			if p.i < len(p.s) && p.s[p.i] == '"' {
				continue // {…"a":1}: the comma after … may be left out
			}
		} else {
			if p.s[p.i] != '"' {
				return nil, p.errf("want a member name")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.s) {
				return nil, errIncomplete
			}
			if p.s[p.i] != ':' {
				return nil, p.errf("want :")
			}
			p.i++
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			if _, dup := o.vals[k]; dup {
				return nil, p.errf("%q shown twice", k)
			}
			o.keys = append(o.keys, k)
			o.vals[k] = v
		}
		p.space()
		if p.i >= len(p.s) {
			return nil, errIncomplete
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
		default:
			return nil, p.errf("want , or }")
		}
	}
}

func (p *parser) array() (Pattern, error) {
	p.i++ // [
	a := arrayPat{}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, errIncomplete
		}
		if p.s[p.i] == ']' {
			p.i++
			return a, nil
		}
		if p.ellipsis() {
			a.open = true
			p.space()
			if p.i < len(p.s) && !strings.ContainsRune(",]", rune(p.s[p.i])) {
				continue // […"a"]: the comma after … may be left out
			}
		} else {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			a.elems = append(a.elems, v)
		}
		p.space()
		if p.i >= len(p.s) {
			return nil, errIncomplete
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
		default:
			return nil, p.errf("want , or ]")
		}
	}
}
