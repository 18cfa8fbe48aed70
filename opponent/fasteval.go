package opponent

import (
	"math"
	"slices"
	"strings"

	"github.com/cupid-match/cupid"
	"github.com/expr-lang/expr/ast"
)

// The quality expressions run once per candidate, up to MaxCandidates times
// per query, which makes expr's general-purpose VM (every value boxed in an
// interface, builtins called through reflection) the largest cost of a query.
// So after expr has parsed, type-checked and optimised an expression, the
// common subset — numbers, strings, booleans and string lists; arithmetic,
// comparisons, logic, ternaries, `in`, abs/min/max/len/float/int — is turned
// into a tree of typed Go closures that read the candidate's columns in
// place and allocate nothing. An expression using anything else keeps
// running on the VM, so the fast path changes speed, never meaning; a test
// checks both give the same answers.

// evalCtx is what a compiled expression reads: the candidate in place and
// the query's attributes, laid out by declaration index once per query.
type evalCtx struct {
	f       *Finder
	b       *bucket
	i       int
	q       *Query
	retries float64
	qnum    []float64
	qstr    []string
	qlist   [][]string
	// qsid and qlid are the query's strings and lists as interned string
	// ids (noSID when the finder holds no such string), for comparisons
	// with candidate strings by id; filled only for the query attributes
	// the compiled expressions compare that way (sidAttrs).
	qsid []uint32
	qlid [][]uint32
}

// noSID stands for a query string that no cached entry holds: it equals no
// candidate's string id.
const noSID = math.MaxUint32

type (
	sidFn  func(*evalCtx) uint32
	lidFn  func(*evalCtx) []uint32
	numFn  func(*evalCtx) float64
	strFn  func(*evalCtx) string
	boolFn func(*evalCtx) bool
	listFn func(*evalCtx) []string
)

type fkind uint8

const (
	kNum fkind = iota + 1
	kStr
	kBool
	kList
	kSet // a constant set of strings, as expr's optimiser writes ["a", "b"]
)

// fnode is one compiled sub-expression: its kind and the function of that
// kind.
type fnode struct {
	k    fkind
	num  numFn
	str  strFn
	bool boolFn
	list listFn
	set  map[string]struct{}
	// sid, when set, gives a string as its interned id; exact says the id
	// is a candidate's own (always interned), so two strings compare
	// equal by id only when one side is exact. lid gives a query list as
	// ids.
	sid   sidFn
	exact bool
	lid   lidFn
	q     int // the query attribute's index + 1, or 0
}

// useSID notes that the query attributes behind these nodes are read by id.
func (c *fastCompiler) useSID(ns ...fnode) {
	for _, n := range ns {
		if n.q > 0 {
			c.sids[n.q-1] = true
		}
	}
}

// fastCompiler compiles checked expr trees into closures. sids records the
// query attributes compared with candidate strings by id, which prepareCtx
// then looks up once per query.
type fastCompiler struct {
	s    *schema
	sids map[int]bool
}

// compileFastBool and compileFastNum return the closures for a checked tree,
// or ok false when the tree uses something outside the subset.
func compileFastBool(s *schema, n ast.Node, sids map[int]bool) (boolFn, bool) {
	r, ok := (&fastCompiler{s: s, sids: sids}).node(n)
	if !ok || r.k != kBool {
		return nil, false
	}
	return r.bool, true
}

func compileFastNum(s *schema, n ast.Node, sids map[int]bool) (numFn, bool) {
	r, ok := (&fastCompiler{s: s, sids: sids}).node(n)
	if !ok || r.k != kNum {
		return nil, false
	}
	return r.num, true
}

func numConst(v float64) fnode {
	return fnode{k: kNum, num: func(*evalCtx) float64 { return v }}
}

func (c *fastCompiler) node(n ast.Node) (fnode, bool) {
	switch n := n.(type) {
	case *ast.IntegerNode:
		return numConst(float64(n.Value)), true
	case *ast.FloatNode:
		return numConst(n.Value), true
	case *ast.StringNode:
		v := n.Value
		return fnode{k: kStr, str: func(*evalCtx) string { return v }}, true
	case *ast.BoolNode:
		v := n.Value
		return fnode{k: kBool, bool: func(*evalCtx) bool { return v }}, true
	case *ast.ConstantNode:
		return c.constant(n.Value)
	case *ast.ArrayNode:
		var l []string
		for _, e := range n.Nodes {
			s, ok := e.(*ast.StringNode)
			if !ok {
				return fnode{}, false
			}
			l = append(l, s.Value)
		}
		return fnode{k: kList, list: func(*evalCtx) []string { return l }}, true
	case *ast.IdentifierNode:
		return c.identifier(n.Value)
	case *ast.UnaryNode:
		return c.unary(n)
	case *ast.BinaryNode:
		return c.binary(n)
	case *ast.ConditionalNode:
		return c.conditional(n)
	case *ast.BuiltinNode:
		return c.builtin(n)
	}
	return fnode{}, false
}

func (c *fastCompiler) constant(v any) (fnode, bool) {
	switch v := v.(type) {
	case int:
		return numConst(float64(v)), true
	case float64:
		return numConst(v), true
	case string:
		return fnode{k: kStr, str: func(*evalCtx) string { return v }}, true
	case bool:
		return fnode{k: kBool, bool: func(*evalCtx) bool { return v }}, true
	case []string:
		return fnode{k: kList, list: func(*evalCtx) []string { return v }}, true
	case map[string]struct{}:
		return fnode{k: kSet, set: v}, true
	}
	return fnode{}, false
}

func (c *fastCompiler) identifier(name string) (fnode, bool) {
	switch name {
	case "retries":
		return fnode{k: kNum, num: func(x *evalCtx) float64 { return x.retries }}, true
	case "player.mmr":
		return fnode{k: kNum, num: func(x *evalCtx) float64 { return x.b.mmrAt(x.i) }}, true
	case "player.id":
		return fnode{k: kStr, str: func(x *evalCtx) string { return x.b.ids[x.i] }}, true
	case "query.mmr":
		return fnode{k: kNum, num: func(x *evalCtx) float64 { return x.q.MMR }}, true
	case "query.id":
		return fnode{k: kStr, str: func(x *evalCtx) string { return x.q.AttackerID }}, true
	}
	if rest, ok := strings.CutPrefix(name, "player."); ok {
		ai, ok := c.s.attrIndex[rest]
		if !ok {
			return fnode{}, false
		}
		return c.playerAttr(&c.s.attrs[ai])
	}
	if rest, ok := strings.CutPrefix(name, "query."); ok {
		qi, ok := c.s.qattrIndex[rest]
		if !ok {
			return fnode{}, false
		}
		switch c.s.qattrs[qi].kind {
		case cupid.KindNumber:
			return fnode{k: kNum, num: func(x *evalCtx) float64 { return x.qnum[qi] }}, true
		case cupid.KindString:
			return fnode{k: kStr, str: func(x *evalCtx) string { return x.qstr[qi] },
				sid: func(x *evalCtx) uint32 { return x.qsid[qi] }, q: qi + 1}, true
		default:
			return fnode{k: kList, list: func(x *evalCtx) []string { return x.qlist[qi] },
				lid: func(x *evalCtx) []uint32 { return x.qlid[qi] }, q: qi + 1}, true
		}
	}
	return fnode{}, false
}

// playerAttr reads a candidate attribute straight from its column, or from
// the bucket's label when a strategy holds it.
func (c *fastCompiler) playerAttr(a *attrSpec) (fnode, bool) {
	off, st := a.off, a.label
	switch {
	case st >= 0 && a.kind == cupid.KindNumber:
		return fnode{k: kNum, num: func(x *evalCtx) float64 {
			return x.f.labels[st].vals[x.f.groups[x.b.group].key[st]].Number
		}}, true
	case st >= 0:
		return fnode{k: kStr, str: func(x *evalCtx) string {
			return x.f.labels[st].vals[x.f.groups[x.b.group].key[st]].String
		}}, true
	case a.kind == cupid.KindNumber:
		return fnode{k: kNum, num: func(x *evalCtx) float64 { return x.b.num(x.i, off) }}, true
	case a.kind == cupid.KindString:
		return fnode{k: kStr, str: func(x *evalCtx) string { return x.f.strs.keys[x.b.ref(x.i, off)] },
			sid: func(x *evalCtx) uint32 { return x.b.ref(x.i, off) }, exact: true}, true
	default:
		return fnode{k: kList, list: func(x *evalCtx) []string {
			l, _ := x.f.lists.vals[x.b.ref(x.i, off)].([]string)
			return l
		}}, true
	}
}

func (c *fastCompiler) unary(n *ast.UnaryNode) (fnode, bool) {
	a, ok := c.node(n.Node)
	if !ok {
		return fnode{}, false
	}
	switch {
	case (n.Operator == "!" || n.Operator == "not") && a.k == kBool:
		f := a.bool
		return fnode{k: kBool, bool: func(x *evalCtx) bool { return !f(x) }}, true
	case n.Operator == "-" && a.k == kNum:
		f := a.num
		return fnode{k: kNum, num: func(x *evalCtx) float64 { return -f(x) }}, true
	case n.Operator == "+" && a.k == kNum:
		return a, true
	}
	return fnode{}, false
}

func (c *fastCompiler) binary(n *ast.BinaryNode) (fnode, bool) {
	l, ok := c.node(n.Left)
	if !ok {
		return fnode{}, false
	}
	r, ok := c.node(n.Right)
	if !ok {
		return fnode{}, false
	}
	op := n.Operator
	switch {
	case l.k == kBool && r.k == kBool:
		a, b := l.bool, r.bool
		switch op {
		case "&&", "and":
			return fnode{k: kBool, bool: func(x *evalCtx) bool { return a(x) && b(x) }}, true
		case "||", "or":
			return fnode{k: kBool, bool: func(x *evalCtx) bool { return a(x) || b(x) }}, true
		case "==":
			return fnode{k: kBool, bool: func(x *evalCtx) bool { return a(x) == b(x) }}, true
		case "!=":
			return fnode{k: kBool, bool: func(x *evalCtx) bool { return a(x) != b(x) }}, true
		}
	case l.k == kNum && r.k == kNum:
		return numBinary(op, l.num, r.num, n.Right)
	case l.k == kStr && r.k == kStr && l.sid != nil && r.sid != nil && (l.exact || r.exact) && (op == "==" || op == "!="):
		// Interned strings are equal exactly when their ids are, so no
		// string is read (a query string no entry holds gets noSID, which
		// only a non-exact side can carry).
		c.useSID(l, r)
		a, b := l.sid, r.sid
		if op == "==" {
			return fnode{k: kBool, bool: func(x *evalCtx) bool { return a(x) == b(x) }}, true
		}
		return fnode{k: kBool, bool: func(x *evalCtx) bool { return a(x) != b(x) }}, true
	case l.k == kStr && r.k == kStr:
		return strBinary(op, l.str, r.str)
	case l.k == kStr && r.k == kList && op == "in" && l.exact && r.lid != nil:
		c.useSID(r)
		a, b := l.sid, r.lid
		return fnode{k: kBool, bool: func(x *evalCtx) bool { return slices.Contains(b(x), a(x)) }}, true
	case l.k == kStr && r.k == kList && op == "in":
		a, b := l.str, r.list
		return fnode{k: kBool, bool: func(x *evalCtx) bool { return slices.Contains(b(x), a(x)) }}, true
	case l.k == kStr && r.k == kSet && op == "in":
		a, set := l.str, r.set
		return fnode{k: kBool, bool: func(x *evalCtx) bool { _, ok := set[a(x)]; return ok }}, true
	}
	return fnode{}, false
}

func numBinary(op string, a, b numFn, right ast.Node) (fnode, bool) {
	num := func(f numFn) (fnode, bool) { return fnode{k: kNum, num: f}, true }
	cmp := func(f boolFn) (fnode, bool) { return fnode{k: kBool, bool: f}, true }
	switch op {
	case "+":
		return num(func(x *evalCtx) float64 { return a(x) + b(x) })
	case "-":
		return num(func(x *evalCtx) float64 { return a(x) - b(x) })
	case "*":
		return num(func(x *evalCtx) float64 { return a(x) * b(x) })
	case "/":
		return num(func(x *evalCtx) float64 { return a(x) / b(x) })
	case "%":
		// expr's % is on integers and fails on a zero divisor; only a
		// constant non-zero divisor keeps the two paths identical.
		if d, ok := right.(*ast.IntegerNode); !ok || d.Value == 0 {
			return fnode{}, false
		}
		return num(func(x *evalCtx) float64 { return math.Mod(a(x), b(x)) })
	case "**", "^":
		return num(func(x *evalCtx) float64 { return math.Pow(a(x), b(x)) })
	case "==":
		return cmp(func(x *evalCtx) bool { return a(x) == b(x) })
	case "!=":
		return cmp(func(x *evalCtx) bool { return a(x) != b(x) })
	case "<":
		return cmp(func(x *evalCtx) bool { return a(x) < b(x) })
	case "<=":
		return cmp(func(x *evalCtx) bool { return a(x) <= b(x) })
	case ">":
		return cmp(func(x *evalCtx) bool { return a(x) > b(x) })
	case ">=":
		return cmp(func(x *evalCtx) bool { return a(x) >= b(x) })
	}
	return fnode{}, false
}

func strBinary(op string, a, b strFn) (fnode, bool) {
	cmp := func(f boolFn) (fnode, bool) { return fnode{k: kBool, bool: f}, true }
	switch op {
	case "==":
		return cmp(func(x *evalCtx) bool { return a(x) == b(x) })
	case "!=":
		return cmp(func(x *evalCtx) bool { return a(x) != b(x) })
	case "<":
		return cmp(func(x *evalCtx) bool { return a(x) < b(x) })
	case "<=":
		return cmp(func(x *evalCtx) bool { return a(x) <= b(x) })
	case ">":
		return cmp(func(x *evalCtx) bool { return a(x) > b(x) })
	case ">=":
		return cmp(func(x *evalCtx) bool { return a(x) >= b(x) })
	case "contains":
		return cmp(func(x *evalCtx) bool { return strings.Contains(a(x), b(x)) })
	case "startsWith":
		return cmp(func(x *evalCtx) bool { return strings.HasPrefix(a(x), b(x)) })
	case "endsWith":
		return cmp(func(x *evalCtx) bool { return strings.HasSuffix(a(x), b(x)) })
	}
	return fnode{}, false
}

func (c *fastCompiler) conditional(n *ast.ConditionalNode) (fnode, bool) {
	cond, ok := c.node(n.Cond)
	if !ok || cond.k != kBool {
		return fnode{}, false
	}
	a, ok := c.node(n.Exp1)
	if !ok {
		return fnode{}, false
	}
	b, ok := c.node(n.Exp2)
	if !ok || a.k != b.k {
		return fnode{}, false
	}
	p := cond.bool
	switch a.k {
	case kNum:
		f, g := a.num, b.num
		return fnode{k: kNum, num: func(x *evalCtx) float64 {
			if p(x) {
				return f(x)
			}
			return g(x)
		}}, true
	case kStr:
		f, g := a.str, b.str
		return fnode{k: kStr, str: func(x *evalCtx) string {
			if p(x) {
				return f(x)
			}
			return g(x)
		}}, true
	case kBool:
		f, g := a.bool, b.bool
		return fnode{k: kBool, bool: func(x *evalCtx) bool {
			if p(x) {
				return f(x)
			}
			return g(x)
		}}, true
	}
	return fnode{}, false
}

func (c *fastCompiler) builtin(n *ast.BuiltinNode) (fnode, bool) {
	args := make([]fnode, len(n.Arguments))
	for i, a := range n.Arguments {
		r, ok := c.node(a)
		if !ok {
			return fnode{}, false
		}
		args[i] = r
	}
	allNum := len(args) > 0
	for _, a := range args {
		allNum = allNum && a.k == kNum
	}
	switch {
	case n.Name == "abs" && len(args) == 1 && allNum:
		f := args[0].num
		return fnode{k: kNum, num: func(x *evalCtx) float64 { return math.Abs(f(x)) }}, true
	case n.Name == "float" && len(args) == 1 && allNum:
		return args[0], true
	case n.Name == "int" && len(args) == 1 && allNum:
		f := args[0].num
		return fnode{k: kNum, num: func(x *evalCtx) float64 { return math.Trunc(f(x)) }}, true
	case n.Name == "len" && len(args) == 1 && args[0].k == kList:
		f := args[0].list
		return fnode{k: kNum, num: func(x *evalCtx) float64 { return float64(len(f(x))) }}, true
	case (n.Name == "min" || n.Name == "max") && allNum:
		fs := make([]numFn, len(args))
		for i, a := range args {
			fs[i] = a.num
		}
		lower := n.Name == "min"
		return fnode{k: kNum, num: func(x *evalCtx) float64 {
			best := fs[0](x)
			for _, f := range fs[1:] {
				v := f(x)
				if lower && v < best || !lower && v > best {
					best = v
				}
			}
			return best
		}}, true
	}
	return fnode{}, false
}

// prepareCtx lays the query out for the compiled expressions; missing query
// attributes read as zero values, as on the VM.
func (f *Finder) prepareCtx(q *Query) {
	x := &f.ectx
	x.f, x.q, x.retries = f, q, float64(q.Retries)
	if x.qnum == nil {
		n := len(f.s.qattrs)
		x.qnum, x.qstr, x.qlist = make([]float64, n), make([]string, n), make([][]string, n)
		x.qsid, x.qlid = make([]uint32, n), make([][]uint32, n)
	}
	for i := range f.s.qattrs {
		v := q.Attributes[f.s.qattrs[i].name]
		x.qnum[i], x.qstr[i], x.qlist[i] = v.Number, v.String, v.Strings
	}
	for _, i := range f.s.quality.sidAttrs {
		switch f.s.qattrs[i].kind {
		case cupid.KindString:
			x.qsid[i] = f.strs.lookup(x.qstr[i])
		case cupid.KindStrings:
			ids := x.qlid[i][:0]
			for _, s := range x.qlist[i] {
				if id := f.strs.lookup(s); id != noSID {
					ids = append(ids, id)
				}
			}
			x.qlid[i] = ids
		}
	}
}
