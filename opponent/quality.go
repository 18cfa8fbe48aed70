package opponent

import (
	"fmt"
	"math"

	"github.com/cupid-match/cupid"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
)

// QualityFunc judges one candidate for a query, for embedders who write the
// seed's CheckPossibleMatchForQuery in Go: ok false means the match is not
// possible; otherwise a higher score is a better match. The candidate is
// only valid during the call.
type QualityFunc func(q *Query, c *Candidate) (score float64, ok bool)

// Candidate is a cached entry as a QualityFunc sees it, read in place.
type Candidate struct {
	f *Finder
	b *bucket
	i int
}

// PlayerID is the candidate's player.
func (c *Candidate) PlayerID() string { return c.b.ids[c.i] }

// MMR is the candidate entry's (defence) MMR.
func (c *Candidate) MMR() float64 { return c.b.mmrAt(c.i) }

// Number returns a number attribute, or 0 when it is not a declared number.
func (c *Candidate) Number(name string) float64 {
	v, _ := c.f.attrValue(c.b, c.i, name).(float64)
	return v
}

// Text returns a string attribute, or "" when it is not a declared string.
func (c *Candidate) Text(name string) string {
	v, _ := c.f.attrValue(c.b, c.i, name).(string)
	return v
}

// List returns a string-list attribute (shared: do not modify), or nil.
func (c *Candidate) List(name string) []string {
	v, _ := c.f.attrValue(c.b, c.i, name).([]string)
	return v
}

func (f *Finder) attrValue(b *bucket, i int, name string) any {
	ai, ok := f.s.attrIndex[name]
	if !ok {
		return nil
	}
	return f.attrBoxed(b, i, ai)
}

// attrBoxed is attribute ai of dense entry i as an interface value; strings
// and lists come pre-boxed from their tables, so only numbers allocate.
func (f *Finder) attrBoxed(b *bucket, i, ai int) any {
	a := &f.s.attrs[ai]
	switch {
	case a.label >= 0:
		return f.labels[a.label].boxed[f.groups[b.group].key[a.label]]
	case a.kind == cupid.KindNumber:
		return b.num(i, a.off)
	case a.kind == cupid.KindString:
		return f.strs.vals[b.ref(i, a.off)]
	default:
		return f.lists.vals[b.ref(i, a.off)]
	}
}

// exprMemoryBudget bounds what one evaluation may allocate in expr's VM
// (array and range elements); with ranges refused and lists at most
// maxListLen long it is never reached by a sane expression, and it stops an
// insane one.
const exprMemoryBudget = 4096

// exprQuality is the compiled quality expressions. "player.x" and "query.x"
// are rewritten into plain variables of one flat environment map, which
// expr reads with a single map lookup, and which the finder refills per
// candidate with only the player attributes the expressions use. Most
// expressions also compile to closures (fasteval.go) and skip the VM.
type exprQuality struct {
	filter *vm.Program
	score  *vm.Program
	// fastFilter and fastScore are the same programs as closures (see
	// fasteval.go), nil when an expression is outside their subset.
	fastFilter boolFn
	fastScore  numFn
	// player lists the candidate values the expressions read: -1 the MMR,
	// -2 the id, otherwise an attribute index.
	player []envRef
	// sidAttrs are the query attributes the closures compare with
	// candidate strings by interned id, looked up once per query.
	sidAttrs []int
}

type envRef struct {
	key  string
	attr int
}

const (
	refMMR = -1
	refID  = -2
)

// envTypes is the environment the expressions are checked against: every
// name with a zero value of its type, so expr's checker knows each type and
// rejects, say, adding a string to a number when the config loads.
func (s *schema) envTypes() map[string]any {
	env := map[string]any{
		"retries":    0,
		"player.mmr": 0.0,
		"player.id":  "",
		"query.mmr":  0.0,
		"query.id":   "",
	}
	for _, a := range s.attrs {
		env[a.envKey] = zeroOf(a.kind)
	}
	for _, a := range s.qattrs {
		env[a.envKey] = zeroOf(a.kind)
	}
	return env
}

func zeroOf(k cupid.ValueKind) any {
	switch k {
	case cupid.KindNumber:
		return 0.0
	case cupid.KindString:
		return ""
	}
	return []string{}
}

// refPatcher rewrites player.x and query.x into flat variables, refuses
// unknown attributes and unbounded constructs, and records which player
// values are read.
type refPatcher struct {
	s    *schema
	used map[string]int
	err  error
}

func (p *refPatcher) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(format, args...)
	}
}

func (p *refPatcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		if n.Operator == ".." {
			p.fail("ranges (a..b) are not allowed: they make evaluation cost unbounded")
		}
	case *ast.MemberNode:
		id, ok := n.Node.(*ast.IdentifierNode)
		if !ok || (id.Value != "player" && id.Value != "query") {
			return
		}
		prop, ok := n.Property.(*ast.StringNode)
		if !ok {
			p.fail("%s[...] needs a constant attribute name", id.Value)
			return
		}
		name := prop.Value
		key := id.Value + "." + name
		attr := 0
		switch {
		case name == "mmr":
			attr = refMMR
		case name == "id":
			attr = refID
		case id.Value == "player":
			ai, ok := p.s.attrIndex[name]
			if !ok {
				p.fail("player.%s is not a declared attribute", name)
				return
			}
			attr = ai
		default:
			if _, ok := p.s.qattrIndex[name]; !ok {
				p.fail("query.%s is not a declared query attribute", name)
				return
			}
		}
		if id.Value == "player" {
			p.used[key] = attr
		}
		ast.Patch(node, &ast.IdentifierNode{Value: key})
	}
}

// disabledBuiltins read the wall clock or the local time zone (a pure
// package must not) or build unbounded strings.
var disabledBuiltins = []string{"now", "date", "timezone", "repeat", "toJSON", "fromJSON"}

func compileExpr(s *schema, field, src string, used map[string]int, as expr.Option) (*vm.Program, error) {
	p := &refPatcher{s: s, used: used}
	opts := []expr.Option{
		expr.Env(s.envTypes()),
		expr.MaxNodes(uint(s.cfg.Quality.MaxNodes)),
		expr.Patch(p),
		as,
	}
	for _, b := range disabledBuiltins {
		opts = append(opts, expr.DisableBuiltin(b))
	}
	prog, err := expr.Compile(src, opts...)
	if p.err != nil {
		return nil, invalid(field, "%v", p.err)
	}
	if err != nil {
		return nil, invalid(field, "%v", err)
	}
	return prog, nil
}

// compileQuality compiles the configured expressions, or returns nil when
// there are none.
func compileQuality(s *schema) (*exprQuality, error) {
	qc := s.cfg.Quality
	if qc.Filter == "" && qc.Score == "" {
		return nil, nil
	}
	q := &exprQuality{}
	used := make(map[string]int)
	var err error
	if qc.Filter != "" {
		if q.filter, err = compileExpr(s, "quality.filter", qc.Filter, used, expr.AsBool()); err != nil {
			return nil, err
		}
	}
	if qc.Score != "" {
		if q.score, err = compileExpr(s, "quality.score", qc.Score, used, expr.AsFloat64()); err != nil {
			return nil, err
		}
	}
	for _, k := range cupid.SortedKeys(used) {
		q.player = append(q.player, envRef{key: k, attr: used[k]})
	}
	sids := map[int]bool{}
	if q.filter != nil {
		q.fastFilter, _ = compileFastBool(s, q.filter.Node(), sids)
	}
	if q.score != nil {
		q.fastScore, _ = compileFastNum(s, q.score.Node(), sids)
	}
	for i := range s.qattrs {
		if sids[i] {
			q.sidAttrs = append(q.sidAttrs, i)
		}
	}
	return q, nil
}

// needsVM reports whether some expression runs on expr's VM, which reads
// the environment map.
func (q *exprQuality) needsVM() bool {
	return q.filter != nil && q.fastFilter == nil || q.score != nil && q.fastScore == nil
}

// prepareEnv fills the query's part of the expression environment; missing
// query attributes read as zero values.
func (f *Finder) prepareEnv(q *Query) {
	env := f.env
	env["retries"] = q.Retries
	env["query.mmr"] = q.MMR
	env["query.id"] = q.AttackerID
	for i := range f.s.qattrs {
		a := &f.s.qattrs[i]
		v, ok := q.Attributes[a.name]
		switch {
		case !ok:
			env[a.envKey] = zeroOf(a.kind)
		case a.kind == cupid.KindNumber:
			env[a.envKey] = v.Number
		case a.kind == cupid.KindString:
			env[a.envKey] = v.String
		default:
			env[a.envKey] = v.Strings
		}
	}
}

// judge says whether dense entry i of bucket b is a possible opponent for q
// and how good. A failing expression counts as "not possible".
func (f *Finder) judge(q *Query, b *bucket, i int) (float64, bool) {
	if fn := f.s.cfg.QualityFunc; fn != nil {
		f.cand.b, f.cand.i = b, i
		s, ok := fn(q, &f.cand)
		return s, ok && !math.IsNaN(s)
	}
	xq := f.s.quality
	if xq == nil {
		return -math.Abs(q.MMR - b.mmrAt(i)), true
	}
	x := &f.ectx
	x.b, x.i = b, i
	if xq.needsVM() {
		for _, r := range xq.player {
			switch r.attr {
			case refMMR:
				f.env[r.key] = b.mmrAt(i)
			case refID:
				f.env[r.key] = b.ids[i]
			default:
				f.env[r.key] = f.attrBoxed(b, i, r.attr)
			}
		}
	}
	switch {
	case xq.fastFilter != nil:
		if !xq.fastFilter(x) {
			return 0, false
		}
	case xq.filter != nil:
		out, err := f.vm.Run(xq.filter, f.env)
		if err != nil {
			f.stats.EvalErrors++
			return 0, false
		}
		if ok, _ := out.(bool); !ok {
			return 0, false
		}
	}
	if xq.score == nil {
		return -math.Abs(q.MMR - b.mmrAt(i)), true
	}
	if xq.fastScore != nil {
		s := xq.fastScore(x)
		if math.IsNaN(s) {
			f.stats.EvalErrors++
			return 0, false
		}
		return s, true
	}
	out, err := f.vm.Run(xq.score, f.env)
	if err != nil {
		f.stats.EvalErrors++
		return 0, false
	}
	s, ok := out.(float64)
	if !ok || math.IsNaN(s) {
		f.stats.EvalErrors++
		return 0, false
	}
	return s, true
}
