package config

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/cupid-match/cupid/internal/editdist"
)

// readDocument parses the file's text into its one YAML document. An empty
// file, a file of comments only and a file of several documents are
// refused: the settings of a second document would otherwise be silently
// dropped.
func readDocument(data []byte) (*document, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{Message: "the file holds no settings: at least one queue (or one opponent finder) is required"}
		}
		return nil, tabHint((*document)(nil).yamlError(err), data)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, tabHint((*document)(nil).yamlError(err), data)
	default:
		return nil, &Error{Line: extra.Line, Column: extra.Column,
			Message: "a second YAML document starts here; the configuration is one document (remove the ---)"}
	}
	root := resolve(&n, 0)
	if root == nil || isNull(root) {
		return nil, &Error{Line: n.Line, Column: n.Column,
			Message: "the file holds no settings: at least one queue (or one opponent finder) is required"}
	}
	return &document{root: root}, nil
}

// tabHint explains the yaml package's message for a tab in a line's
// indentation, which YAML does not allow.
func tabHint(e *Error, data []byte) *Error {
	lines := bytes.Split(data, []byte("\n"))
	if e.Line < 1 || e.Line > len(lines) {
		return e
	}
	line := lines[e.Line-1]
	indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
	if bytes.IndexByte(indent, '\t') >= 0 {
		e.Message += " (this line is indented with a tab; YAML needs spaces)"
	}
	return e
}

// decode checks the document against the settings cfg has, then decodes
// it. The check names the line and the setting of every problem (an unknown
// setting, a value of the wrong type, a setting given twice), recording
// them all in doc; the yaml package, which decodes, would name only the
// line, or for some values neither. It reports whether the document was
// decoded: with problems, every value that passed the check is, so the
// checks after decoding can look at the rest of the file.
func decode(doc *document, data []byte, cfg *Config) bool {
	return decodeValue(doc, data, cfg)
}

// decodeValue is decode for any value, not only a Config.
func decodeValue(doc *document, data []byte, v any) bool {
	c := checker{doc: doc, expanding: map[*yaml.Node]bool{}, bad: map[*yaml.Node]bool{}, replace: map[*yaml.Node]*yaml.Node{}}
	c.check(doc.root, reflect.TypeOf(v).Elem(), "")
	if c.stopped {
		return false
	}
	if len(c.bad) > 0 {
		// Decode what passed: the file without the refused settings (a
		// refused list item stands as an empty one, so the items after it
		// keep their places). Whatever goes wrong here was reported.
		p := pruner{bad: c.bad, replace: c.replace, copies: map[*yaml.Node]*yaml.Node{}}
		_ = p.copy(doc.root).Decode(v)
		return true
	}
	// The check has seen every value; decoding the text once more with
	// unknown fields refused is a second guard, not the first.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		doc.add(doc.yamlError(err))
		return false
	}
	return true
}

// maxVisits bounds the nodes the check visits, aliases expanded, so a file
// of aliases of aliases (a "billion laughs") is refused rather than walked.
const maxVisits = 1 << 18

// checker walks a YAML tree beside the Go type it will be decoded into,
// recording every problem in doc.
type checker struct {
	doc    *document
	visits int
	// stopped is set when the file expands beyond maxVisits: nothing more
	// is walked.
	stopped bool
	// expanding holds the anchors whose aliases are being walked, so an
	// alias inside its own anchor is refused rather than followed forever.
	expanding map[*yaml.Node]bool
	// bad holds the nodes refused (values, and the keys of unknown
	// settings), to leave out when decoding; replace holds what stands
	// for a refused list item.
	bad     map[*yaml.Node]bool
	replace map[*yaml.Node]*yaml.Node
}

var (
	yamlUnmarshaler = reflect.TypeFor[yaml.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fail records a value refused: the problem, the node to leave out, and the
// setting, whose later checks cannot run.
func (c *checker) fail(n *yaml.Node, path, format string, args ...any) {
	c.doc.add(at(n, path, format, args...))
	c.bad[n] = true
	c.doc.markValue(path)
}

// visit counts a node walked, and stops the walk past maxVisits.
func (c *checker) visit(n *yaml.Node, path string) bool {
	if c.stopped {
		return false
	}
	c.visits++
	if c.visits > maxVisits {
		c.doc.add(at(n, path, "the file expands to more than %d values (aliases of aliases?)", maxVisits))
		c.stopped = true
		return false
	}
	return true
}

// check records every problem of node n as a value of type t at path.
func (c *checker) check(n *yaml.Node, t reflect.Type, path string) {
	if !c.visit(n, path) {
		return
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil || c.expanding[n.Alias] {
			c.fail(n, path, "alias *%s refers to the value it is part of", n.Value)
			return
		}
		c.expanding[n.Alias] = true
		defer delete(c.expanding, n.Alias)
		c.check(n.Alias, t, path)
		return
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(yamlUnmarshaler) || pt.Implements(textUnmarshaler) {
		if isNull(n) {
			return
		}
		if pt.Implements(textUnmarshaler) && n.Kind != yaml.ScalarNode {
			c.fail(n, path, "must be %s, got %s", want(t), describe(n))
			return
		}
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			c.fail(n, path, "%s", cleanMessage(err))
		}
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if !isNull(n) {
			c.check(n, t.Elem(), path)
		}
		return
	case reflect.Interface:
		return // any value; whoever reads it checks it (a ruleset)
	case reflect.Struct:
		if isNull(n) {
			return
		}
		if n.Kind != yaml.MappingNode {
			c.fail(n, path, "must be a mapping of settings, got %s", describe(n))
			return
		}
		c.mapping(n, settingsOf(t), path, 0)
		return
	case reflect.Slice:
		if isNull(n) {
			return
		}
		if n.Kind != yaml.SequenceNode {
			c.fail(n, path, "must be a list, got %s", describe(n))
			return
		}
		for i, item := range n.Content {
			if c.stopped {
				return
			}
			p := fmt.Sprintf("%s[%d]", path, i)
			if isNull(item) {
				// The yaml package would drop it, and the items after it
				// would no longer be where their paths say.
				c.fail(item, p, "is empty; remove it or give it a value")
			} else {
				c.check(item, t.Elem(), p)
			}
			if c.isBad(item) {
				c.replace[item] = zeroNode(t.Elem())
			}
		}
		return
	}
	if n.Kind != yaml.ScalarNode {
		c.fail(n, path, "must be %s, got %s", want(t), describe(n))
		return
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		if _, ferr := strconv.ParseFloat(n.Value, 64); ferr == nil && isInteger(t) {
			c.fail(n, path, "must be %s, got %s (out of range, or not whole)", want(t), describe(n))
			return
		}
		c.fail(n, path, "must be %s, got %s", want(t), describe(n))
		return
	}
	if isInteger(t) && n.ShortTag() == "!!float" {
		// The yaml package cuts 2.5 down to 2 without a word.
		if f, err := strconv.ParseFloat(n.Value, 64); err != nil || f != math.Trunc(f) {
			c.fail(n, path, "must be %s, got %s (not whole)", want(t), describe(n))
		}
	}
}

// isBad reports whether a node, or the node an alias leads to, was
// refused.
func (c *checker) isBad(n *yaml.Node) bool { return isBad(c.bad, n) }

func isBad(bad map[*yaml.Node]bool, n *yaml.Node) bool {
	for depth := 0; n != nil && depth <= 64; depth++ {
		if bad[n] {
			return true
		}
		if n.Kind != yaml.AliasNode {
			return false
		}
		n = n.Alias
	}
	return n != nil // an alias chain too long to follow counts as refused
}

// zeroNode is a node that decodes to the zero value of t, to stand for a
// refused list item; nil when there is none.
func zeroNode(t reflect.Type) *yaml.Node {
	if t.Kind() == reflect.Struct || (t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct) {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	var n yaml.Node
	if err := n.Encode(reflect.Zero(t).Interface()); err != nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	return &n
}

// mapping checks the settings of one mapping, and of the mappings merged
// into it.
func (c *checker) mapping(n *yaml.Node, fields map[string]reflect.Type, path string, depth int) {
	if depth > 64 {
		c.fail(n, path, "merges nest too deep")
		return
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if c.stopped {
			return
		}
		k, v := n.Content[i], n.Content[i+1]
		if isMerge(k) {
			c.merge(v, fields, path, depth)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			c.doc.add(at(k, path, "a setting's name must be a plain word, got %s", describe(k)))
			c.bad[k] = true
			continue
		}
		p := joinField(path, k.Value)
		if first, dup := seen[k.Value]; dup {
			// Which of the two is meant cannot be told: neither is checked
			// further.
			c.doc.add(at(k, p, "is set twice (first on line %d)", first.Line))
			c.bad[k] = true
			c.doc.markValue(p)
			continue
		}
		seen[k.Value] = k
		t, ok := fields[k.Value]
		if !ok {
			best, hint := suggest(k.Value, fields)
			c.doc.add(at(k, p, "unknown setting%s", hint))
			c.bad[k] = true
			if best != "" {
				c.doc.markMisspelt(joinField(path, best))
			}
			continue
		}
		c.check(v, t, p)
	}
}

// merge checks the value of a merge key: a mapping or a list of them.
func (c *checker) merge(v *yaml.Node, fields map[string]reflect.Type, path string, depth int) {
	if !c.visit(v, path) {
		return
	}
	if v.Kind == yaml.AliasNode {
		if v.Alias == nil || c.expanding[v.Alias] {
			c.fail(v, path, "alias *%s refers to the value it is part of", v.Value)
			return
		}
		c.expanding[v.Alias] = true
		defer delete(c.expanding, v.Alias)
		c.merge(v.Alias, fields, path, depth+1)
		return
	}
	switch v.Kind {
	case yaml.MappingNode:
		c.mapping(v, fields, path, depth+1)
	case yaml.SequenceNode:
		for _, item := range v.Content {
			c.merge(item, fields, path, depth+1)
		}
	default:
		c.fail(v, path, "<< merges a mapping or a list of mappings, got %s", describe(v))
	}
}

// pruner copies a YAML tree without the nodes the check refused.
type pruner struct {
	bad     map[*yaml.Node]bool
	replace map[*yaml.Node]*yaml.Node
	copies  map[*yaml.Node]*yaml.Node
}

// copy copies n, leaving out the settings whose key or value was refused
// and putting a refused list item's stand-in in its place. An alias points
// at the copy of its anchor.
func (p *pruner) copy(n *yaml.Node) *yaml.Node {
	if c, ok := p.copies[n]; ok {
		return c
	}
	c := new(yaml.Node)
	*c = *n
	c.Content = nil
	p.copies[n] = c
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias != nil {
			c.Alias = p.copy(n.Alias)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if isBad(p.bad, k) || isBad(p.bad, v) {
				continue
			}
			c.Content = append(c.Content, p.copy(k), p.copy(v))
		}
	default:
		for _, item := range n.Content {
			if isBad(p.bad, item) {
				if r := p.replace[item]; r != nil {
					c.Content = append(c.Content, r)
				}
				continue
			}
			c.Content = append(c.Content, p.copy(item))
		}
	}
	return c
}

// settingsOf lists the settings a struct reads: its fields by their yaml
// names, with the settings of inline fields beside its own.
func settingsOf(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if slices.Contains(strings.Split(opts, ","), "inline") {
			for k, v := range settingsOf(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

// suggest names the known setting an unknown one was probably meant to be,
// and returns it with the hint to add to the message.
func suggest(name string, fields map[string]reflect.Type) (string, string) {
	best, bestDist := "", 0
	for k := range fields {
		d := editdist.Distance(name, k)
		if len(name) >= 4 && (strings.Contains(k, name) || strings.Contains(name, k)) {
			d = min(d, 2)
		}
		if best == "" || d < bestDist || (d == bestDist && k < best) {
			best, bestDist = k, d
		}
	}
	if best != "" && bestDist <= max(2, len(name)/4) {
		return best, fmt.Sprintf("; did you mean %s?", best)
	}
	if len(fields) <= 8 {
		names := make([]string, 0, len(fields))
		for k := range fields {
			names = append(names, k)
		}
		slices.Sort(names)
		return "", "; the settings here are " + strings.Join(names, ", ")
	}
	return "", ""
}

// isNull reports whether a node is YAML's null (written ~, null, or
// nothing at all).
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func isInteger(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// want says in words what a value of type t is written as.
func want(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[Duration]():
		return "a duration such as 90s or 10m"
	}
	if reflect.PointerTo(t).Implements(textUnmarshaler) && t.Kind() == reflect.Int64 {
		return "a duration such as 500ms, 10s or 5m"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "text"
	}
	return "a single value"
}

// describe shows a node in a message: a scalar as written (cut short), a
// mapping or a list by its kind.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "alias *" + n.Value
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:40] + "…"
	}
	return strconv.Quote(v)
}

// cleanMessage turns an error of a value's own reader into a message:
// without the yaml package's "line N:" (the checker places it) or Go type
// names.
func cleanMessage(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg := te.Errors[0]
		if m := syntaxLine.FindStringSubmatch(msg); m != nil {
			msg = m[2]
		}
		return msg
	}
	return err.Error()
}
