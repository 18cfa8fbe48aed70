package ruleset

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Some rules of the language are declarative on the surface but judged by
// the expression machinery underneath: team_sizes, collection rules that
// count players ("at most 5 medics", block lists) and compound rules. Each
// becomes one filter with a generated expression, so the engine needs no new
// code path for them, "why am I waiting" names them like any filter, and
// the expression budget bounds their cost like any other. This file writes
// those expressions.

// derivedFilter is a filter the ruleset implies rather than spells out.
type derivedFilter struct {
	// path is where the rule was written (team_sizes, collection_rule[2],
	// compound_rule[0]); it names the filter unless name is set.
	path         string
	name         string
	scope        string
	src          string
	disableAfter int
	// excludes is the list attribute of a block-list rule, which the
	// engine judges natively (Expr.Excludes).
	excludes string
}

func (f derivedFilter) rule() ExprRule {
	name := f.name
	if name == "" {
		name = f.path
	}
	return ExprRule{Name: name, Scope: f.scope, Expr: f.src, DisableAfter: f.disableAfter, excludes: f.excludes}
}

// countsPlayers reports whether a collection rule is one of the counting
// kinds judged by a generated filter rather than by the engine's own
// collection code.
func countsPlayers(c CollectionRule) bool {
	switch c.Operation {
	case CollectionPlayerIDs:
		return true
	case CollectionContains:
		return c.MinCount != nil || c.MaxCount != nil
	}
	return false
}

// quote writes s as an expr-lang string literal. expr-lang reads Go's
// double-quoted escapes.
func quote(s string) string { return strconv.Quote(s) }

// bounds renders "n >= lo && n <= hi" for a count n, leaving out a bound
// that is not given.
func bounds(n string, lo, hi *int) string {
	var parts []string
	if lo != nil {
		parts = append(parts, fmt.Sprintf("%s >= %d", n, *lo))
	}
	if hi != nil {
		parts = append(parts, fmt.Sprintf("%s <= %d", n, *hi))
	}
	if len(parts) == 0 {
		return "true"
	}
	return strings.Join(parts, " && ")
}

// teamSizesFilter is the filter of team_sizes.
func teamSizesFilter(policy string) derivedFilter {
	src := "all(teams, {.size == teams[0].size})"
	if policy == TeamSizesWithinOne {
		src = "max(map(teams, .size)) - min(map(teams, .size)) <= 1"
	}
	return derivedFilter{path: "team_sizes", scope: ExprMatch, src: src}
}

// collectionFilter is the filter of a counting collection rule.
func collectionFilter(path string, c CollectionRule) derivedFilter {
	attr := quote(c.Attribute)
	if c.Operation == CollectionContains {
		// A player holds the value when his attribute is that string or
		// a list containing it.
		val := quote(c.Value)
		holds := fmt.Sprintf("{let v = #[%s]; v == %s || (type(v) == \"array\" && %s in v)}", attr, val, val)
		if c.Scope == ScopeTeam {
			return derivedFilter{path: path, scope: ExprMatch,
				src: fmt.Sprintf("all(teams, {let n = count(.players, %s); %s})", holds, bounds("n", c.MinCount, c.MaxCount))}
		}
		return derivedFilter{path: path, scope: ExprMatch,
			src: fmt.Sprintf("let n = count(match.players, %s); %s", holds, bounds("n", c.MinCount, c.MaxCount))}
	}
	// player_ids. A block list (no player may name another: max 0, whole
	// match) is a property of every pair, so it is judged pair by pair and
	// a blocked candidate is turned away before any match is tried.
	if c.Scope != ScopeTeam && c.MaxCount != nil && *c.MaxCount == 0 && (c.MinCount == nil || *c.MinCount == 0) {
		return derivedFilter{path: path, scope: ExprPair, disableAfter: c.DisableAfter, excludes: c.Attribute,
			src: fmt.Sprintf("all(ticket.players, {let l = #[%s] ?? []; none(candidate.player_ids, {# in l})})", attr)}
	}
	lists := fmt.Sprintf("flatten(map(%%s.players, #[%s] ?? []))", attr)
	ids := "flatten(map(%s.tickets, .player_ids))"
	if c.Scope == ScopeTeam {
		return derivedFilter{path: path, scope: ExprMatch, disableAfter: c.DisableAfter,
			src: fmt.Sprintf("all(teams, {let l = %s; let n = count(%s, {# in l}); %s})",
				fmt.Sprintf(lists, ""), fmt.Sprintf(ids, ""), bounds("n", c.MinCount, c.MaxCount))}
	}
	return derivedFilter{path: path, scope: ExprMatch, disableAfter: c.DisableAfter,
		src: fmt.Sprintf("let l = %s; let n = count(%s, {# in l}); %s",
			fmt.Sprintf(lists, "match"), fmt.Sprintf(ids, "match"), bounds("n", c.MinCount, c.MaxCount))}
}

// statement is a parsed compound statement: a filter name, or an operator
// over statements.
type statement struct {
	op   string // "", "and", "or", "xor", "not"
	name string
	args []statement
	// at is the byte offset in the statement text, for messages.
	at int
}

// parseStatement reads "and(a, or(b, not(c)))". Names are filter names:
// letters, digits, '_', '-' and '.'.
func parseStatement(src string) (statement, error) {
	p := &stmtParser{src: src}
	s, err := p.stmt()
	if err != nil {
		return statement{}, err
	}
	p.space()
	if p.i < len(p.src) {
		return statement{}, fmt.Errorf("unexpected %q at character %d", p.src[p.i:p.i+1], p.i+1)
	}
	return s, nil
}

type stmtParser struct {
	src string
	i   int
}

func (p *stmtParser) space() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t' || p.src[p.i] == '\n') {
		p.i++
	}
}

func isNameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.'
}

func (p *stmtParser) stmt() (statement, error) {
	p.space()
	start := p.i
	for p.i < len(p.src) {
		r := rune(p.src[p.i])
		if r >= 0x80 || isNameRune(r) {
			p.i++
			continue
		}
		break
	}
	word := p.src[start:p.i]
	if word == "" {
		if p.i >= len(p.src) {
			return statement{}, fmt.Errorf("ends where a rule name or and/or/xor/not was expected")
		}
		return statement{}, fmt.Errorf("unexpected %q at character %d", p.src[p.i:p.i+1], p.i+1)
	}
	p.space()
	if p.i >= len(p.src) || p.src[p.i] != '(' {
		return statement{name: word, at: start}, nil
	}
	op := strings.ToLower(word)
	switch op {
	case "and", "or", "xor", "not":
	default:
		return statement{}, fmt.Errorf("%q at character %d is not an operator: use and, or, xor or not", word, start+1)
	}
	p.i++ // (
	s := statement{op: op, at: start}
	for {
		arg, err := p.stmt()
		if err != nil {
			return statement{}, err
		}
		s.args = append(s.args, arg)
		p.space()
		if p.i >= len(p.src) {
			return statement{}, fmt.Errorf("%s( at character %d is never closed", op, start+1)
		}
		if p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.src[p.i] == ')' {
			p.i++
			break
		}
		return statement{}, fmt.Errorf("unexpected %q at character %d (expected , or ))", p.src[p.i:p.i+1], p.i+1)
	}
	switch {
	case op == "not" && len(s.args) != 1:
		return statement{}, fmt.Errorf("not( at character %d takes one rule, not %d", start+1, len(s.args))
	case op != "not" && len(s.args) < 2:
		return statement{}, fmt.Errorf("%s( at character %d needs at least two rules", op, start+1)
	}
	return s, nil
}

// names lists the filter names a statement refers to, in order.
func (s statement) names() []string {
	if s.op == "" {
		return []string{s.name}
	}
	var out []string
	for _, a := range s.args {
		out = append(out, a.names()...)
	}
	return out
}

// source writes the statement as one expression over the filters' sources.
func (s statement) source(filters map[string]string) string {
	if s.op == "" {
		return "(" + filters[s.name] + ")"
	}
	parts := make([]string, len(s.args))
	for i, a := range s.args {
		parts[i] = a.source(filters)
	}
	switch s.op {
	case "not":
		return "!" + parts[0]
	case "and":
		return "(" + strings.Join(parts, " && ") + ")"
	case "or":
		return "(" + strings.Join(parts, " || ") + ")"
	}
	// xor: exactly one holds, FlexMatch's meaning for more than two.
	for i, p := range parts {
		parts[i] = "(" + p + " ? 1 : 0)"
	}
	return "(" + strings.Join(parts, " + ") + " == 1)"
}

// compoundParts resolves the compound rules of rs: the filter each becomes,
// and the set of filter names they consume (which then apply only through
// them). Problems are reported by the validator; here a rule that does not
// resolve is left out.
func compoundParts(rs *Ruleset) (out []derivedFilter, used map[string]bool) {
	byName := map[string]ExprRule{}
	for _, f := range rs.Filter {
		byName[f.Name] = f
	}
	used = map[string]bool{}
	for i, c := range rs.CompoundRule {
		st, err := parseStatement(c.Statement)
		if err != nil {
			continue
		}
		srcs := map[string]string{}
		scope := ""
		ok := true
		for _, n := range st.names() {
			f, found := byName[n]
			if !found {
				ok = false
				break
			}
			srcs[n] = f.Expr
			scope = exprScope(f, false)
		}
		if !ok {
			continue
		}
		for n := range srcs {
			used[n] = true
		}
		out = append(out, derivedFilter{
			path: index("compound_rule", i), name: c.Name, scope: scope,
			src: st.source(srcs), disableAfter: c.DisableAfter,
		})
	}
	return out, used
}

// effectiveFilters is the list of filters the engine applies: those written
// in "filter" that no compound rule consumes, then team_sizes, then the
// counting collection rules, then the compound rules.
func effectiveFilters(rs *Ruleset) []ExprRule {
	compounds, used := compoundParts(rs)
	var out []ExprRule
	for _, f := range rs.Filter {
		if !used[f.Name] {
			out = append(out, f)
		}
	}
	if rs.TeamSizes != "" {
		out = append(out, teamSizesFilter(rs.TeamSizes).rule())
	}
	for i, c := range rs.CollectionRule {
		if countsPlayers(c) {
			out = append(out, collectionFilter(index("collection_rule", i), c).rule())
		}
	}
	for _, c := range compounds {
		out = append(out, c.rule())
	}
	return out
}
