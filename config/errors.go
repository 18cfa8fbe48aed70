package config

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Error is one problem of a configuration file: where it is and what is
// wrong.
type Error struct {
	// File is the file the problem is in: set by LoadConfig, and for a
	// ruleset file by ParseConfig; empty for text given to ParseConfig.
	File string
	// Line and Column place the problem, counting from 1; 0 when it has no
	// one place (a required section missing from the whole file).
	Line, Column int
	// Field is the setting's path, as "opponents[1].player_cache_size" or
	// "queues[0].ruleset.matching_rule[0].criteria"; empty for a syntax
	// error.
	Field string
	// Message says what is wrong.
	Message string
	// Err is the underlying error, when there is one (a *cupid.Error for a
	// value the program refuses).
	Err error
}

// Error renders the problem as compilers do: "FILE:LINE:COL: field:
// message", or "line LINE, column COL: field: message" without a file.
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Column)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", e.File)
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errors is every problem found in a configuration, in the order of the
// file (a problem in a ruleset file sorts at the setting naming that file),
// at most MaxProblems of them and then one saying how many more.
type Errors []*Error

// Error lists the problems one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, so errors.As finds the first *Error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// inFile names the file of every problem that has none yet.
func inFile(err error, name string) error {
	var es Errors
	var e *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &es):
		for _, e := range es {
			if e.File == "" {
				e.File = name
			}
		}
		return es
	case errors.As(err, &e):
		if e.File == "" {
			e.File = name
		}
		return e
	}
	return fmt.Errorf("config %s: %w", name, err)
}

// document is a parsed configuration file: its top node, to place problems
// found after decoding, and the problems found in it so far.
type document struct {
	root *yaml.Node

	// problems are every problem found, in the order found.
	problems []problem
	// badValue holds the settings whose value the structural check refused
	// (or could not tell, as one set twice): nothing about them, or inside
	// them, can be checked further. badAbove holds every path above one of
	// them, so a check of a whole section can tell that part of it is
	// unknown.
	badValue, badAbove map[string]bool
	// misspelt holds the settings an unknown one was probably meant to be:
	// "is required" and the like about them would only repeat the problem.
	misspelt map[string]bool
}

// problem is one problem and where it sorts: at its own place in the file,
// or for a problem in another file (a ruleset file, a server keys file) at
// the setting naming that file, then at its place in that file.
type problem struct {
	line, col, subLine, subCol int
	err                        *Error
}

// MaxProblems bounds the problems one load reports; a last entry says how
// many more there were.
const MaxProblems = 100

// add records a problem of this file as it is, sorted at its own place.
func (d *document) add(e *Error) {
	d.problems = append(d.problems, problem{line: e.Line, col: e.Column, err: e})
}

// failed reports whether a problem was found.
func (d *document) failed() bool { return len(d.problems) > 0 }

// report records a problem found in a decoded value (a *cupid.Error naming
// its field, an *Error, or Errors), unless the structural check already
// refused the setting it is about, or a setting it is inside: that problem
// would follow from the first.
func (d *document) report(err error) { d.reportFile("", err) }

// reportFile is report for problems that may lie in another file, named by
// the setting field: those sort at that setting.
func (d *document) reportFile(field string, err error) {
	if err == nil {
		return
	}
	var e *Error
	switch err := err.(type) {
	case Errors:
		for _, e := range err {
			d.reportFile(field, e)
		}
		return
	case *Error:
		e = err
	default:
		e = d.invalid(err).(*Error)
	}
	if e.File == "" {
		if d.suppressed(e.Field) {
			return
		}
		d.add(e)
		return
	}
	p := problem{subLine: e.Line, subCol: e.Column, err: e}
	if n := d.locate(field); n != nil {
		p.line, p.col = n.Line, n.Column
	}
	d.problems = append(d.problems, p)
}

// markValue records that the structural check refused the value at path.
func (d *document) markValue(path string) {
	if d.badValue == nil {
		d.badValue, d.badAbove = map[string]bool{}, map[string]bool{}
	}
	d.badValue[path] = true
	for _, p := range prefixes(path) {
		d.badAbove[p] = true
	}
}

// markMisspelt records a setting an unknown one was probably meant to be.
func (d *document) markMisspelt(path string) {
	if d.misspelt == nil {
		d.misspelt = map[string]bool{}
	}
	d.misspelt[path] = true
}

// suppressed reports whether a problem about field would follow from one
// the structural check found: at the setting, or at a setting holding it.
func (d *document) suppressed(field string) bool {
	for _, p := range append(prefixes(field), field) {
		if d.badValue[p] || d.misspelt[p] {
			return true
		}
	}
	return false
}

// known reports whether the values at field and inside it all passed the
// structural check, and field is not a setting an unknown one was probably
// meant to be, so a check about them as a whole can run.
func (d *document) known(field string) bool {
	for _, p := range append(prefixes(field), field) {
		if d.badValue[p] {
			return false
		}
	}
	return !d.badAbove[field] && !d.misspelt[field]
}

// prefixes lists the paths above a path, from the top (""):
// "a.b[1].c" gives "", "a", "a.b", "a.b[1]".
func prefixes(path string) []string {
	out := []string{""}
	for i := 1; i < len(path); i++ {
		if path[i] == '.' || path[i] == '[' {
			out = append(out, path[:i])
		}
	}
	return out
}

// errors returns the problems found, sorted by their place, at most
// MaxProblems of them and then one saying how many more; nil when none.
func (d *document) errors() error {
	if len(d.problems) == 0 {
		return nil
	}
	ps := slices.Clone(d.problems)
	slices.SortStableFunc(ps, func(a, b problem) int {
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col),
			cmp.Compare(a.subLine, b.subLine), cmp.Compare(a.subCol, b.subCol))
	})
	out := make(Errors, 0, min(len(ps), MaxProblems+1))
	for i, p := range ps {
		if i == MaxProblems {
			out = append(out, &Error{Message: fmt.Sprintf("… and %d more problems", len(ps)-MaxProblems)})
			break
		}
		out = append(out, p.err)
	}
	return out
}

// at builds a problem at node n (or nowhere when n is nil).
func at(n *yaml.Node, field, format string, args ...any) *Error {
	e := &Error{Field: field, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// syntaxLine reads the line yaml puts in its messages ("yaml: line 3:
// mapping values are not allowed in this context").
var syntaxLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// yamlError turns an error of the yaml package into an *Error, placing it
// on its line and, when one setting sits there, naming it.
func (d *document) yamlError(err error) *Error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	m := syntaxLine.FindStringSubmatch(msg)
	if m == nil {
		return &Error{Message: msg, Err: err}
	}
	line, _ := strconv.Atoi(m[1])
	e := &Error{Line: line, Column: 1, Message: m[2], Err: err}
	if d != nil && d.root != nil {
		if n, field, ok := settingOnLine(d.root, "", line); ok {
			e.Column, e.Field = n.Column, field
		}
	}
	return e
}

// settingOnLine finds the one setting whose key is on line, walking the
// file's own nodes (not aliases).
func settingOnLine(n *yaml.Node, path string, line int) (*yaml.Node, string, bool) {
	var found *yaml.Node
	var field string
	count := 0
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := joinField(path, k.Value)
				if k.Line == line {
					found, field = k, p
					count++
				}
				walk(v, p)
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				walk(item, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(n, path)
	return found, field, count == 1
}

// invalid places a problem the program found in a decoded value (a
// *cupid.Error naming its field) at the setting in the file.
func (d *document) invalid(err error) error {
	var ce *cupid.Error
	if !errors.As(err, &ce) {
		return &Error{Message: err.Error(), Err: err}
	}
	n := d.locate(ce.Field)
	e := &Error{Field: ce.Field, Message: ce.Message, Err: err}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// rulesetErrors places the problems of an inline ruleset at field in the
// file: the ruleset package names them by their path in the ruleset, and
// its lines and columns count in the JSON made from the YAML, which the
// user never saw.
func (d *document) rulesetErrors(field string, err error) error {
	var ps ruleset.Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		return d.invalid(cupid.Invalid(field, "%v", err))
	}
	out := make(Errors, 0, len(ps))
	for _, p := range ps {
		f := field
		switch {
		case p.Path == "":
		case strings.HasPrefix(p.Path, "["):
			f += p.Path
		default:
			f += "." + p.Path
		}
		e := &Error{Field: f, Message: p.Message, Err: err}
		if n := d.locate(f); n != nil {
			e.Line, e.Column = n.Line, n.Column
		}
		out = append(out, e)
	}
	return out
}

// rulesetFileErrors reports the problems of a ruleset file where they are
// in that file.
func rulesetFileErrors(file, field, queue string, err error) error {
	var ps ruleset.Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		return &Error{File: file, Message: fmt.Sprintf("%v (the ruleset of %s, queue %q)", err, field, queue), Err: err}
	}
	out := make(Errors, 0, len(ps))
	for _, p := range ps {
		out = append(out, &Error{File: file, Line: p.Line, Column: p.Column, Field: p.Path,
			Message: fmt.Sprintf("%s (the ruleset of %s, queue %q)", p.Message, field, queue), Err: err})
	}
	return out
}

// locate finds the node a field path names ("opponents[1].scan.tick"): the
// key of the last setting found, or the list item, so the line points at
// what to fix. A setting missing from the file (a required one left out)
// is placed at the nearest enclosing one. Nil when not even the first step
// of the path is in the file.
func (d *document) locate(field string) *yaml.Node {
	if d == nil || d.root == nil {
		return nil
	}
	var best *yaml.Node
	n := d.root
	for _, step := range splitField(field) {
		n = resolve(n, 0)
		if n == nil {
			break
		}
		var next, mark *yaml.Node
		if step.index >= 0 {
			if n.Kind == yaml.SequenceNode && step.index < len(n.Content) {
				next = n.Content[step.index]
				mark = next
			}
		} else if n.Kind == yaml.MappingNode {
			mark, next = lookup(n, step.name, 0)
		}
		if next == nil {
			break
		}
		best, n = mark, next
	}
	return best
}

// resolve follows aliases (depth-limited against cycles).
func resolve(n *yaml.Node, depth int) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		if depth > 64 {
			return nil
		}
		n, depth = n.Alias, depth+1
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return resolve(n.Content[0], depth+1)
	}
	return n
}

// lookup finds a key in a mapping, then in the mappings merged into it
// ("<<: *base"), and returns the key and its value.
func lookup(m *yaml.Node, key string, depth int) (*yaml.Node, *yaml.Node) {
	if depth > 64 {
		return nil, nil
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if isMerge(k) {
			merges = append(merges, v)
			continue
		}
		if k.Kind == yaml.ScalarNode && k.Value == key {
			return k, v
		}
	}
	for _, v := range merges {
		v = resolve(v, depth+1)
		if v == nil {
			continue
		}
		sources := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			sources = v.Content
		}
		for _, s := range sources {
			if s = resolve(s, depth+1); s != nil && s.Kind == yaml.MappingNode {
				if k, val := lookup(s, key, depth+1); k != nil {
					return k, val
				}
			}
		}
	}
	return nil, nil
}

// isMerge reports whether a mapping key is YAML's merge key "<<".
func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge"
}

// step is one step of a field path: a setting's name, or a list index.
type step struct {
	name  string
	index int // -1 for a name
}

// splitField cuts "opponents[1].scan.tick" into its steps.
func splitField(field string) []step {
	var out []step
	for field != "" {
		switch {
		case field[0] == '.':
			field = field[1:]
		case field[0] == '[':
			end := strings.IndexByte(field, ']')
			if end < 0 {
				return out
			}
			i, err := strconv.Atoi(field[1:end])
			if err != nil || i < 0 {
				return out
			}
			out = append(out, step{index: i})
			field = field[end+1:]
		default:
			end := strings.IndexAny(field, ".[")
			if end < 0 {
				end = len(field)
			}
			out = append(out, step{name: field[:end], index: -1})
			field = field[end:]
		}
	}
	return out
}

// joinField appends a setting's name to a path.
func joinField(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
