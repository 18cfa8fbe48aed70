package importer

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cupid-match/cupid/ruleset"
)

// Nakama reads a Nakama matchmaker request — the fields of the realtime
// matchmaker_add message, as JSON:
//
//	{"query": "+properties.region:eu +properties.rank:>=5 -properties.mode:casual",
//	 "min_count": 2, "max_count": 4, "count_multiple": 2,
//	 "string_properties": {"region": "eu"}, "numeric_properties": {"rank": 7}}
//
// and writes the ruleset of a queue whose tickets carry the properties as
// attributes. Required terms (+) become comparison gates, excluded terms (-)
// gates with != , optional terms (no prefix, with their ^boost) a score; the
// counts become the alliance.
//
// A query is often built by each client from its own properties ("my region,
// my rank ± 2"): each ticket carries its own query. The sample's properties
// say which terms do that — a value equal to the sample's own property — and
// those become rules between tickets: the same value as the match's anchor
// (comparison "="), or a window around its value (a distance rule).
func Nakama(src []byte) *Result {
	rep := Report{From: "nakama"}
	var req nkRequest
	dec := json.NewDecoder(strings.NewReader(string(src)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		rep.Refused = "not a Nakama matchmaker request (query, min_count, max_count, count_multiple, string_properties, numeric_properties): " + err.Error()
		return finish(nil, rep)
	}
	lines := newLineFinder(string(src))
	rs := &ruleset.Ruleset{}
	n := nkBuilder{req: req, rs: rs, rep: &rep, lines: lines}
	if !n.counts() {
		return finish(nil, rep)
	}
	n.query()
	return finish(rs, rep)
}

type nkRequest struct {
	Query             string             `json:"query"`
	MinCount          int                `json:"min_count"`
	MaxCount          int                `json:"max_count"`
	CountMultiple     int                `json:"count_multiple"`
	StringProperties  map[string]string  `json:"string_properties"`
	NumericProperties map[string]float64 `json:"numeric_properties"`
}

type nkBuilder struct {
	req   nkRequest
	rs    *ruleset.Ruleset
	rep   *Report
	lines *lineFinder
}

// counts turns min_count, max_count and count_multiple into the alliance.
// Nakama's matches have no teams; a multiple becomes teams of that many
// players, so every match holds a multiple of it.
func (n *nkBuilder) counts() bool {
	r := n.req
	line, _ := n.lines.key("min_count", 0)
	if r.MinCount < 2 || r.MaxCount < r.MinCount {
		n.rep.Refused = fmt.Sprintf("min_count %d, max_count %d: Nakama needs 2 ≤ min_count ≤ max_count", r.MinCount, r.MaxCount)
		return false
	}
	if r.CountMultiple > 1 {
		m := r.CountMultiple
		if r.MinCount%m != 0 || r.MaxCount%m != 0 {
			n.rep.Refused = fmt.Sprintf("count_multiple %d must divide min_count %d and max_count %d", m, r.MinCount, r.MaxCount)
			return false
		}
		n.rs.Alliance = ruleset.Alliance{MinNumber: r.MinCount / m, MaxNumber: r.MaxCount / m, PlayerMinNumber: m, PlayerMaxNumber: m}
		mline, _ := n.lines.key("count_multiple", 0)
		n.rep.add(line, fmt.Sprintf("min_count %d, max_count %d", r.MinCount, r.MaxCount), "alliance", Exact, "")
		n.rep.add(mline, fmt.Sprintf("count_multiple %d", m), "alliance", Approximate,
			"teams of %d players, so a match holds a multiple of %d; Cupid balances those teams and never splits a party, so a party larger than %d is refused", m, m, m)
		return true
	}
	n.rs.Alliance = ruleset.Alliance{MinNumber: 1, MaxNumber: 1, PlayerMinNumber: r.MinCount, PlayerMaxNumber: r.MaxCount}
	n.rep.add(line, fmt.Sprintf("min_count %d, max_count %d", r.MinCount, r.MaxCount), "alliance", Exact, "one team of min_count to max_count players")
	return true
}

// nkTerm is one clause of a query.
type nkTerm struct {
	text   string
	occur  byte // '+', '-' or 0 (should)
	field  string
	op     string // "", ">", ">=", "<", "<="
	value  string
	quoted bool
	boost  float64
}

// splitQuery cuts a query string into clauses at spaces outside quotes.
func splitQuery(q string) []string {
	var out []string
	var cur strings.Builder
	inQuote := false
	for _, r := range q {
		switch {
		case r == '"':
			inQuote = !inQuote
			cur.WriteRune(r)
		case (r == ' ' || r == '\t' || r == '\n') && !inQuote:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func parseTerm(s string) (nkTerm, error) {
	t := nkTerm{text: s, boost: 1}
	if s != "" && (s[0] == '+' || s[0] == '-') {
		t.occur, s = s[0], s[1:]
	}
	if i := strings.LastIndexByte(s, '^'); i > 0 && !strings.HasSuffix(s, `"`) {
		b, err := strconv.ParseFloat(s[i+1:], 64)
		if err != nil {
			return t, fmt.Errorf("boost %q is not a number", s[i+1:])
		}
		t.boost, s = b, s[:i]
	} else if i > 0 && strings.HasSuffix(s[:i], `"`) {
		b, err := strconv.ParseFloat(s[i+1:], 64)
		if err == nil {
			t.boost, s = b, s[:i]
		}
	}
	field, value, ok := strings.Cut(s, ":")
	if !ok {
		return t, fmt.Errorf("a clause is field:value")
	}
	t.field = field
	for _, op := range []string{">=", "<=", ">", "<"} {
		if v, ok := strings.CutPrefix(value, op); ok {
			t.op, value = op, v
			break
		}
	}
	if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
		t.value, t.quoted = value[1:len(value)-1], true
	} else {
		t.value = value
	}
	return t, nil
}

// query converts each clause.
func (n *nkBuilder) query() {
	qline, _ := n.lines.key("query", 0)
	q := strings.TrimSpace(n.req.Query)
	if q == "" || q == "*" {
		n.rep.add(qline, fmt.Sprintf("query %q", q), "", Exact, "matches every ticket: no rule")
		return
	}
	var terms []nkTerm
	clauses := splitQuery(q)
	if len(clauses) > maxList {
		n.rep.add(qline, "query", "", Dropped, "%d clauses, more than %d: not imported", len(clauses), maxList)
		return
	}
	for _, s := range clauses {
		t, err := parseTerm(s)
		if err != nil {
			n.rep.add(qline, "query clause "+s, "", Dropped, "%v", err)
			continue
		}
		if !strings.HasPrefix(t.field, "properties.") {
			n.rep.add(qline, "query clause "+s, "", Dropped, "only properties.* are ticket properties Cupid can read")
			continue
		}
		t.field = strings.TrimPrefix(t.field, "properties.")
		if strings.ContainsAny(t.value, "*?/") && !t.quoted {
			n.rep.add(qline, "query clause "+s, "", Dropped, "wildcards and regular expressions are not carried over")
			continue
		}
		terms = append(terms, t)
	}
	used := map[int]bool{}
	n.windows(terms, used, qline)
	var scores []string
	var scoreWeight float64
	for i, t := range terms {
		if used[i] {
			continue
		}
		src := "query clause " + t.text
		num, isNum := n.number(t)
		if t.occur == 0 {
			cond, ok := n.condition(t, num, isNum)
			if !ok {
				n.rep.add(qline, src, "", Dropped, "an optional clause on a property the sample does not show as a number or string")
				continue
			}
			scores = append(scores, fmt.Sprintf("%s * mean(map(match.tickets, {%s ? 1 : 0}))", fmtNum(t.boost), cond))
			scoreWeight += t.boost
			n.rep.add(qline, src, "score query_should", Approximate,
				"optional: Nakama ranks candidates by it (boost %s); Cupid adds the share of tickets that satisfy it to match quality", fmtNum(t.boost))
			continue
		}
		op := "="
		if t.op != "" {
			op = t.op
		}
		if t.occur == '-' {
			if t.op != "" {
				op = map[string]string{">": "<=", ">=": "<", "<": ">=", "<=": ">"}[t.op]
			} else {
				op = "!="
			}
		}
		// The same value as my own: a rule between tickets.
		if own, ok := n.req.StringProperties[t.field]; ok && t.occur == '+' && t.op == "" && own == t.value {
			n.rs.ComparisonRule = append(n.rs.ComparisonRule, ruleset.ComparisonRule{Attribute: t.field, Operator: ruleset.OpEqual})
			n.rep.add(qline, src, fmt.Sprintf("comparison_rule[%d]", len(n.rs.ComparisonRule)-1), Approximate,
				"read as \"the same as mine\", since the sample's own %s is %q: every ticket of a match has the same %s; if every client asks for %q whatever its own, make it a gate (\"value\": %q)", t.field, own, t.field, own, own)
			continue
		}
		lit := &ruleset.Literal{IsString: true, String: t.value}
		if isNum {
			lit = &ruleset.Literal{Number: num}
		} else if t.op != "" {
			n.rep.add(qline, src, "", Dropped, "a range on a property that is not a number")
			continue
		}
		n.rs.ComparisonRule = append(n.rs.ComparisonRule, ruleset.ComparisonRule{Attribute: t.field, Operator: op, Value: lit})
		st, why := Exact, ""
		if t.occur == '-' {
			st, why = Approximate, fmt.Sprintf("Nakama accepts a ticket without %s here; Cupid requires every ticket to set it", t.field)
		}
		if t.boost != 1 {
			why = join(why, "a boost on a required clause changes only Nakama's ranking")
		}
		n.rep.add(qline, src, fmt.Sprintf("comparison_rule[%d]", len(n.rs.ComparisonRule)-1), st, why)
	}
	if len(scores) > 0 {
		n.rs.Score = append(n.rs.Score, ruleset.ExprRule{Name: "query_should", Expr: "(" + strings.Join(scores, " + ") + ") / " + fmtNum(scoreWeight)})
	}
}

// number reads a clause's value as a number when the property is numeric.
func (n *nkBuilder) number(t nkTerm) (float64, bool) {
	if _, isStr := n.req.StringProperties[t.field]; isStr || t.quoted {
		return 0, false
	}
	f, err := strconv.ParseFloat(t.value, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// condition is an optional clause as an expression over one ticket (.attr).
func (n *nkBuilder) condition(t nkTerm, num float64, isNum bool) (string, bool) {
	attr := ".attr[" + strconv.Quote(t.field) + "]"
	switch {
	case isNum:
		op := t.op
		if op == "" {
			op = "=="
		}
		return fmt.Sprintf("(%s ?? nil) != nil && %s %s %s", attr, attr, op, fmtNum(num)), true
	case t.op == "":
		return fmt.Sprintf("%s == %s", attr, strconv.Quote(t.value)), true
	}
	return "", false
}

// windows finds pairs of required clauses properties.x:>=own-d and
// properties.x:<=own+d around the sample's own numeric property: "within d
// of me", a distance rule.
func (n *nkBuilder) windows(terms []nkTerm, used map[int]bool, line int) {
	fields := map[string][2]int{}
	for i, t := range terms {
		if t.occur != '+' {
			continue
		}
		k := fields[t.field]
		switch t.op {
		case ">=":
			k[0] = i + 1
		case "<=":
			k[1] = i + 1
		default:
			continue
		}
		fields[t.field] = k
	}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		k := fields[f]
		own, ok := n.req.NumericProperties[f]
		if !ok || k[0] == 0 || k[1] == 0 {
			continue
		}
		lo, ok1 := n.number(terms[k[0]-1])
		hi, ok2 := n.number(terms[k[1]-1])
		if !ok1 || !ok2 || own-lo != hi-own || hi < lo {
			continue
		}
		used[k[0]-1], used[k[1]-1] = true, true
		n.rs.MatchingRule = append(n.rs.MatchingRule, ruleset.MatchingRule{Attribute: f, Criteria: ruleset.CriteriaDistance, Reference: own - lo})
		n.rep.add(line, fmt.Sprintf("query clauses %s %s", terms[k[0]-1].text, terms[k[1]-1].text),
			fmt.Sprintf("matching_rule[%d]", len(n.rs.MatchingRule)-1), Approximate,
			"read as \"within %s of mine\", the window around the sample's own %s (%s): every ticket within %s of the anchor's (the oldest ticket's) %s; for every pair within %s, use criteria \"spread\"", fmtNum(own-lo), f, fmtNum(own), fmtNum(own-lo), f, fmtNum(own-lo))
	}
}
