package ruleset

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// The expression budget. The engine may evaluate a filter for every pair of
// tickets it considers, so an expression's cost must be small and known when
// the ruleset loads, not discovered in production. expr-lang has no loops;
// its only iteration is the builtins that take a predicate (all, any, map,
// filter, count, sum, reduce, …), each running once per element of a list
// the environment provides: the players or tickets of a match, at most
// maxMatchPlayers. So the cost is bounded by the size of the expression
// times the list length raised to the predicate nesting depth:
//
//	cost ≤ MaxExprNodes × maxMatchPlayers^MaxExprNesting
//
// and the memory an evaluation may allocate is capped by ExprMemoryBudget.
const (
	// MaxExprBytes is the longest expression source accepted.
	MaxExprBytes = 1000
	// MaxExprNodes is the most syntax-tree nodes an expression may have.
	MaxExprNodes = 200
	// MaxExprPredicates is the most predicate closures in one expression.
	MaxExprPredicates = 4
	// MaxExprNesting is how deeply predicates may nest (a predicate inside
	// a predicate is depth 2: quadratic in the number of players).
	MaxExprNesting = 2
	// MaxExprRange is the largest constant range (1..n) an expression may
	// build; ranges with bounds computed at run time are refused.
	MaxExprRange = 1000
	// ExprMemoryBudget caps what one evaluation may allocate, in expr-lang's
	// units (roughly one per element of a list it builds).
	ExprMemoryBudget = 100_000
)

// disabledBuiltins are expr-lang builtins a ruleset may not call: now, date
// and timezone read the wall clock or the machine's zone (decisions must
// replay exactly), and repeat multiplies memory with one call.
var disabledBuiltins = []string{"now", "date", "timezone", "repeat"}

// TicketView is what an expression sees of one ticket. Attribute values are
// float64 for numbers, string for strings and []string for string lists.
type TicketView struct {
	// ID is the ticket's id.
	ID string `expr:"id"`
	// Size is the number of players (a party's size).
	Size int `expr:"size"`
	// Wait is how long the ticket has waited, in seconds.
	Wait float64 `expr:"wait"`
	// Attr holds the ticket's attributes; a numeric player attribute the
	// ticket itself lacks appears as the players' average, so a party reads
	// like a single player.
	Attr map[string]any `expr:"attr"`
	// Players holds each player's own attributes, for rules that look
	// inside a party.
	Players []map[string]any `expr:"players"`
	// Latencies maps a region to the ticket's latency there, in ms.
	Latencies map[string]float64 `expr:"latencies"`
	// PlayerIDs are the ids of the ticket's players, in order: what block
	// lists name.
	PlayerIDs []string `expr:"player_ids"`
}

// TeamView is what a match-scope expression sees of one team.
type TeamView struct {
	// Size is the number of players on the team.
	Size int `expr:"size"`
	// Tickets are the team's tickets.
	Tickets []TicketView `expr:"tickets"`
	// Players are the attributes of every player on the team.
	Players []map[string]any `expr:"players"`
}

// MatchView is what a match-scope expression sees of the whole match.
type MatchView struct {
	// Size is the number of players in the match.
	Size int `expr:"size"`
	// Tickets are all the tickets of the match.
	Tickets []TicketView `expr:"tickets"`
	// Players are the attributes of every player of the match.
	Players []map[string]any `expr:"players"`
	// MaxWait is the longest wait among the tickets, in seconds.
	MaxWait float64 `expr:"max_wait"`
}

// PairEnv is the environment of a "pair" expression: may ticket and
// candidate be in the same match?
type PairEnv struct {
	Ticket    TicketView `expr:"ticket"`
	Candidate TicketView `expr:"candidate"`
}

// MatchEnv is the environment of a "match" expression: a proposed match and
// its teams.
type MatchEnv struct {
	Match MatchView  `expr:"match"`
	Teams []TeamView `expr:"teams"`
}

// NewTicketView builds the view of a ticket at time now. It belongs here, not
// in the engine, so that the names an expression may use are defined in one
// place, next to the documentation of the language.
func NewTicketView(t *cupid.Ticket, now time.Time) TicketView {
	v := TicketView{
		ID:        t.ID,
		Size:      len(t.Players),
		Wait:      t.Wait(now).Seconds(),
		Attr:      map[string]any{},
		Players:   make([]map[string]any, len(t.Players)),
		Latencies: make(map[string]float64, len(t.Latencies)),
		PlayerIDs: make([]string, len(t.Players)),
	}
	sums := map[string]float64{}
	counts := map[string]int{}
	for i, p := range t.Players {
		attrs := make(map[string]any, len(p.Attributes))
		for _, a := range p.Attributes {
			k, val := a.Name, a.Value
			attrs[k] = val.Plain()
			if val.Kind == cupid.KindNumber {
				sums[k] += val.Number
				counts[k]++
			}
		}
		v.Players[i] = attrs
		v.PlayerIDs[i] = p.ID
	}
	for k, sum := range sums {
		v.Attr[k] = sum / float64(counts[k])
	}
	for _, a := range t.Attributes {
		v.Attr[a.Name] = a.Value.Plain()
	}
	for region, ms := range t.Latencies {
		v.Latencies[region] = float64(ms)
	}
	return v
}

// NewMatchEnv builds the environment of a match-scope expression from the
// views of each team's tickets.
func NewMatchEnv(teams [][]TicketView) MatchEnv {
	env := MatchEnv{Teams: make([]TeamView, len(teams))}
	for i, tickets := range teams {
		team := TeamView{Tickets: tickets}
		for _, t := range tickets {
			team.Size += t.Size
			team.Players = append(team.Players, t.Players...)
			env.Match.MaxWait = max(env.Match.MaxWait, t.Wait)
		}
		env.Teams[i] = team
		env.Match.Size += team.Size
		env.Match.Tickets = append(env.Match.Tickets, tickets...)
		env.Match.Players = append(env.Match.Players, team.Players...)
	}
	return env
}

// Expr is one compiled filter or score.
type Expr struct {
	// Name is the rule's name, used in reports.
	Name string
	// Scope is ExprPair or ExprMatch: which environment Eval takes.
	Scope string
	// Source is the expression as written.
	Source string
	// Weight is a score's share in the quality average (1 by default).
	Weight float64
	// DisableAfter is the wait after which a filter no longer applies; zero
	// means never.
	DisableAfter time.Duration
	// Excludes, when set, names the list attribute of a block-list rule
	// (collection_rule player_ids, max_count 0, over the match): the pair
	// passes when no player of either ticket holds a player id of the
	// other in that list. The engine may judge it natively, without the
	// expression's ticket views (the same answer, a fraction of the
	// cost: ExcludesPass); the expression stays for everything else.
	Excludes string
	// score is true for a score expression, false for a filter.
	score   bool
	program *vm.Program
}

// ActiveAt reports whether a filter still applies to a ticket that has
// waited wait.
func (e *Expr) ActiveAt(wait time.Duration) bool {
	return e.DisableAfter == 0 || wait < e.DisableAfter
}

// Pass evaluates a filter. env must be a PairEnv or MatchEnv (or a pointer to
// one) matching the rule's scope. A run-time error (an attribute missing or
// of the wrong type) comes back as an error; the engine should treat it as
// "does not pass" and can show it in the ticket's "why am I waiting".
func (e *Expr) Pass(env any) (bool, error) {
	out, err := e.run(env)
	if err != nil {
		return false, err
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("filter %s returned %T, not a boolean", e.Name, out)
	}
	return b, nil
}

// Value evaluates a score and clamps it to [0,1].
func (e *Expr) Value(env any) (float64, error) {
	out, err := e.run(env)
	if err != nil {
		return 0, err
	}
	var f float64
	switch x := out.(type) {
	case float64:
		f = x
	case int:
		f = float64(x)
	case bool:
		if x {
			f = 1
		}
	default:
		return 0, fmt.Errorf("score %s returned %T, not a number", e.Name, out)
	}
	if math.IsNaN(f) {
		return 0, fmt.Errorf("score %s returned NaN", e.Name)
	}
	return min(max(f, 0), 1), nil
}

func (e *Expr) run(env any) (any, error) {
	switch env.(type) {
	case PairEnv, *PairEnv:
		if e.Scope != ExprPair {
			return nil, fmt.Errorf("%s has scope %q but was given a pair environment", e.Name, e.Scope)
		}
	case MatchEnv, *MatchEnv:
		if e.Scope != ExprMatch {
			return nil, fmt.Errorf("%s has scope %q but was given a match environment", e.Name, e.Scope)
		}
	default:
		return nil, fmt.Errorf("%s: environment must be a PairEnv or MatchEnv, not %T", e.Name, env)
	}
	// A VM per evaluation: a Compiled is shared by every pool using the
	// ruleset, and a VM is not safe for concurrent use.
	machine := vm.VM{MemoryBudget: ExprMemoryBudget}
	return machine.Run(e.program, env)
}

// compileExpr compiles one rule's source for its scope, enforcing the
// budget. The error message is ready to show after the rule's path.
func compileExpr(src, scope string, score bool) (*vm.Program, error) {
	if len(src) > MaxExprBytes {
		return nil, fmt.Errorf("expression is %d bytes long, more than the limit of %d", len(src), MaxExprBytes)
	}
	opts := []expr.Option{expr.MaxNodes(MaxExprNodes)}
	if scope == ExprMatch {
		opts = append(opts, expr.Env(MatchEnv{}))
	} else {
		opts = append(opts, expr.Env(PairEnv{}))
	}
	if score {
		opts = append(opts, expr.AsFloat64())
	} else {
		opts = append(opts, expr.AsBool())
	}
	for _, name := range disabledBuiltins {
		opts = append(opts, expr.DisableBuiltin(name))
	}
	program, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, exprError(err)
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return nil, exprError(err)
	}
	if err := checkBudget(tree.Node); err != nil {
		return nil, err
	}
	return program, nil
}

// exprError rewrites expr-lang's multi-line error (message, snippet, caret)
// as one line that fits after a JSON path.
func exprError(err error) error {
	var fe *file.Error
	if errors.As(err, &fe) {
		for _, name := range disabledBuiltins {
			if fe.Message == "unknown name "+name {
				fe.Message += " (" + strings.Join(disabledBuiltins, ", ") + " are not available in rulesets)"
			}
		}
		fe.Message += scopeHint(fe.Message)
		if fe.Line > 0 {
			return fmt.Errorf("does not compile: %s (line %d, column %d of the expression)", fe.Message, fe.Line, fe.Column+1)
		}
		return fmt.Errorf("does not compile: %s", fe.Message)
	}
	return fmt.Errorf("does not compile: %v", err)
}

// scopeHint explains an unknown name that belongs to the other scope, the
// likeliest cause of that error.
func scopeHint(msg string) string {
	switch msg {
	case "unknown name teams", "unknown name match":
		return ` (a "pair" expression sees ticket and candidate; set "scope": "match" to see match and teams)`
	case "unknown name ticket", "unknown name candidate":
		return ` (a "match" expression sees match and teams; set "scope": "pair" to see ticket and candidate)`
	}
	return ""
}

// budgetVisitor collects what checkBudget needs from one walk of the tree.
type budgetVisitor struct {
	predicates []*ast.PredicateNode
	err        error
}

func (b *budgetVisitor) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.PredicateNode:
		b.predicates = append(b.predicates, x)
	case *ast.BinaryNode:
		if x.Operator != ".." || b.err != nil {
			return
		}
		from, ok1 := x.Left.(*ast.IntegerNode)
		to, ok2 := x.Right.(*ast.IntegerNode)
		if !ok1 || !ok2 {
			b.err = fmt.Errorf("a range (a..b) must have constant bounds")
			return
		}
		if to.Value-from.Value >= MaxExprRange { // literals are never negative, so no overflow
			b.err = fmt.Errorf("range %d..%d has more than %d elements", from.Value, to.Value, MaxExprRange)
		}
	}
}

func checkBudget(root ast.Node) error {
	b := &budgetVisitor{}
	ast.Walk(&root, b)
	if b.err != nil {
		return b.err
	}
	if len(b.predicates) > MaxExprPredicates {
		return fmt.Errorf("uses %d predicates (all, any, map, filter, …), more than the limit of %d", len(b.predicates), MaxExprPredicates)
	}
	if d := nesting(root); d > MaxExprNesting {
		return fmt.Errorf("nests predicates %d deep, more than the limit of %d (the cost grows as players^depth)", d, MaxExprNesting)
	}
	return nil
}

// nesting is how deeply predicates nest under n. It recurses into each
// predicate found, which is cheap because their number is already bounded.
func nesting(n ast.Node) int {
	b := &budgetVisitor{}
	ast.Walk(&n, b)
	deepest := 0
	for _, p := range b.predicates {
		deepest = max(deepest, 1+nesting(p.Node))
	}
	return deepest
}
