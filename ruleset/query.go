package ruleset

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cupid-match/cupid"
)

// Ticket queries: each ticket carries, in one of its attributes, the query
// that says which other tickets it accepts (ticket_query). The only syntax is
// that of Nakama's matchmaker queries, so that clients moving from Nakama keep
// sending the string they send today. What Cupid reads, and why:
//
//   - A query is clauses separated by spaces. A clause is field:value, with
//     a prefix: + (the other ticket must satisfy it), - (it must not), or
//     none (optional).
//   - Nakama indexes a ticket's properties under properties.NAME, so a field
//     is properties.NAME and names the other ticket's attribute NAME (see
//     Query.Accepts for where it is read). Any other field — Nakama's
//     min_count, created_at… — is refused: Cupid's own rules own those.
//   - value is matched whole and case-sensitively (Nakama's keyword
//     indexing: mode:free does not match "freeforall"). "quoted values" may
//     hold spaces; a backslash escapes the next character. A number matches
//     an equal numeric attribute or the same text in a string attribute, as
//     Nakama's number terms do. field:>=n, >n, <=n, <n compare numbers only.
//     A list of strings matches when one of its values does (Nakama matches
//     an indexed array by any element).
//   - Optional clauses. Nakama's index runs the query as a boolean search:
//     with at least one + clause, optional clauses only rank the tickets
//     found, and with none, the tickets found are those that satisfy at least
//     one optional clause. Cupid does both: optional clauses filter only in a
//     query without + clauses, and in every query they rank (Query.Score).
//   - field:value^n boosts a clause (n a positive number, as 2 or 0.5;
//     default 1). A boost only weighs an optional clause in the score: a +
//     or - clause filters, and every ticket it lets through satisfies it
//     alike, so its boost is accepted and changes nothing.
//   - Wildcards (* ?), regular expressions (/…/), fuzzy terms (~) and date
//     ranges are refused, with the clause named.
//   - An empty query, or "*", accepts every ticket.
//
// Direction is Nakama's too. By default a ticket's query picks the tickets it
// is matched with, and theirs are not consulted (one_way: here the anchor's
// query, the oldest ticket the match forms around, must accept every other
// ticket). With matchmaker.rev_precision Nakama also checks that every hit's
// query accepts the searching ticket and each other (mutual); Cupid's mutual
// checks every pair both ways. Nakama's rev_threshold, which falls back to
// one-way after some intervals, has no counterpart: pick one direction.

// Query syntaxes and directions of ticket_query.
const (
	QuerySyntaxNakama = "nakama"
	QueryOneWay       = "one_way"
	QueryMutual       = "mutual"
)

// Bounds on one ticket's query, so that a client cannot make the server
// parse, keep or evaluate without bound: the engine judges a query for every
// pair it considers.
const (
	MaxQueryBytes   = 1024
	MaxQueryClauses = 32
)

// Query is a compiled ticket query. It is immutable and shared by every
// ticket that sends the same text.
type Query struct {
	text    string
	clauses []clause
	must    bool    // some clause is required: optional clauses only rank
	should  bool    // some clause is optional: the query ranks
	max     float64 // the sum of the optional clauses' boosts
}

// clause is one field:value term of a query.
type clause struct {
	text  string // as written, for explanations
	occur byte   // '+', '-' or 0 (optional)
	attr  string // the attribute read: the field without "properties."
	op    string // "" (equal), ">", ">=", "<", "<="
	str   string // the value as text
	num   float64
	isNum bool    // str reads as a finite number
	boost float64 // ^n, 1 when not written
}

// AcceptsAll reports whether the query has no clause ("" or "*").
func (q *Query) AcceptsAll() bool { return len(q.clauses) == 0 }

// Ranks reports whether the query has optional clauses, whose score orders
// the tickets it accepts (Score).
func (q *Query) Ranks() bool { return q != nil && q.should }

// Text is the query as the ticket sent it.
func (q *Query) Text() string { return q.text }

// ParseQuery compiles a ticket query of the given syntax. Errors name the
// clause at fault.
func ParseQuery(syntax, text string) (*Query, error) {
	if syntax != QuerySyntaxNakama {
		return nil, fmt.Errorf("unknown query syntax %q", syntax)
	}
	if len(text) > MaxQueryBytes {
		return nil, fmt.Errorf("is %d bytes long, more than the limit of %d", len(text), MaxQueryBytes)
	}
	q := &Query{text: text}
	t := strings.TrimSpace(text)
	if t == "" || t == "*" {
		return q, nil
	}
	s := &qscan{src: t}
	for {
		s.skipSpace()
		if s.done() {
			break
		}
		c, err := s.clause()
		if err != nil {
			return nil, err
		}
		if len(q.clauses) == MaxQueryClauses {
			return nil, fmt.Errorf("has more than %d clauses", MaxQueryClauses)
		}
		q.clauses = append(q.clauses, c)
	}
	for _, c := range q.clauses {
		switch c.occur {
		case '+':
			q.must = true
		case 0:
			q.should = true
			q.max += c.boost
		}
	}
	return q, nil
}

// qscan reads the clauses of a query string.
type qscan struct {
	src string
	i   int
}

func (s *qscan) done() bool { return s.i >= len(s.src) }

func (s *qscan) skipSpace() {
	for s.i < len(s.src) && isQuerySpace(s.src[s.i]) {
		s.i++
	}
}

func isQuerySpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// clause reads one clause from s.i.
func (s *qscan) clause() (clause, error) {
	start := s.i
	var c clause
	if b := s.src[s.i]; b == '+' || b == '-' {
		c.occur = b
		s.i++
	}
	// The field, up to the colon.
	fstart := s.i
	for s.i < len(s.src) && s.src[s.i] != ':' && !isQuerySpace(s.src[s.i]) {
		s.i++
	}
	field := s.src[fstart:s.i]
	if s.done() || s.src[s.i] != ':' {
		return c, fmt.Errorf("clause %q: a clause is properties.NAME:value", s.src[start:s.i])
	}
	s.i++ // the colon
	name, ok := strings.CutPrefix(field, "properties.")
	if !ok || name == "" {
		return c, fmt.Errorf("clause %q: field %q is not a ticket property: write properties.NAME", s.rest(start), field)
	}
	if len(name) > maxNameLen {
		return c, fmt.Errorf("clause %q: field %q is longer than %d bytes", s.rest(start), field, maxNameLen)
	}
	c.attr = name
	for _, op := range []string{">=", "<=", ">", "<"} {
		if strings.HasPrefix(s.src[s.i:], op) {
			c.op = op
			s.i += len(op)
			break
		}
	}
	quoted := false
	var val strings.Builder
	if !s.done() && s.src[s.i] == '"' {
		quoted = true
		s.i++
		closed := false
		for !s.done() {
			b := s.src[s.i]
			if b == '\\' && s.i+1 < len(s.src) {
				val.WriteByte(s.src[s.i+1])
				s.i += 2
				continue
			}
			s.i++
			if b == '"' {
				closed = true
				break
			}
			val.WriteByte(b)
		}
		if !closed {
			return c, fmt.Errorf("clause %q: the quote is not closed", s.src[start:])
		}
	} else {
		for !s.done() && !isQuerySpace(s.src[s.i]) && s.src[s.i] != '^' {
			b := s.src[s.i]
			if b == '\\' && s.i+1 < len(s.src) {
				val.WriteByte(s.src[s.i+1])
				s.i += 2
				continue
			}
			switch b {
			case '*', '?':
				return c, fmt.Errorf("clause %q: wildcards are not supported; match whole values", s.rest(start))
			case '~':
				return c, fmt.Errorf("clause %q: fuzzy terms (~) are not supported; match whole values", s.rest(start))
			case '"':
				return c, fmt.Errorf("clause %q: a quote inside a value; quote the whole value or escape it with a backslash", s.rest(start))
			}
			val.WriteByte(b)
			s.i++
		}
	}
	// What may follow a value: a boost, then a space.
	c.boost = 1
	if !s.done() && s.src[s.i] == '^' {
		bstart := s.i + 1
		for !s.done() && !isQuerySpace(s.src[s.i]) {
			s.i++
		}
		b, ok := parseBoost(s.src[bstart:s.i])
		if !ok {
			return c, fmt.Errorf("clause %q: the boost %q is not a positive number (write ^2 or ^0.5)", s.src[start:s.i], s.src[bstart:s.i])
		}
		c.boost = b
	}
	if quoted && !s.done() && !isQuerySpace(s.src[s.i]) {
		if s.src[s.i] == '~' {
			return c, fmt.Errorf("clause %q: fuzzy terms (~) are not supported; match whole values", s.rest(start))
		}
		return c, fmt.Errorf("clause %q: a space must follow the closing quote", s.rest(start))
	}
	c.text = s.src[start:s.i]
	c.str = val.String()
	if c.str == "" && !quoted {
		return c, fmt.Errorf("clause %q: no value after the colon", c.text)
	}
	if !quoted && len(c.str) >= 2 && c.str[0] == '/' && c.str[len(c.str)-1] == '/' {
		return c, fmt.Errorf("clause %q: regular expressions are not supported; match whole values", c.text)
	}
	if f, err := strconv.ParseFloat(c.str, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		c.num, c.isNum = f, true
	}
	if c.op != "" && (quoted || !c.isNum) {
		return c, fmt.Errorf("clause %q: a range (%s) compares numbers; %q is not a finite number (date ranges are not supported)", c.text, c.op, c.str)
	}
	return c, nil
}

// rest is the clause from start to the next space, for messages.
func (s *qscan) rest(start int) string {
	end := s.i
	for end < len(s.src) && !isQuerySpace(s.src[end]) {
		end++
	}
	return s.src[start:end]
}

// Accepts reports whether a ticket — its ticket-wide attributes and its
// players — passes the query. A field names an attribute of the ticket: the
// ticket-wide value when it has one (a Nakama ticket's properties are the
// ticket's), else every player's value, of which one satisfying the clause is
// enough, as one element of a list is. A ticket without the attribute
// satisfies no clause: it fails a required clause and passes an excluding one.
func (q *Query) Accepts(attrs cupid.Attributes, players []cupid.Player) bool {
	return q.Failing(attrs, players) == ""
}

// Failing is Accepts with the reason: "" when the ticket passes, else the
// clause it fails (or, for a query of optional clauses only, the whole
// query). Beside a + clause an optional clause filters nothing: it only
// ranks (Score), and is not read here.
func (q *Query) Failing(attrs cupid.Attributes, players []cupid.Player) string {
	if q == nil || len(q.clauses) == 0 {
		return ""
	}
	anyShould := false
	for i := range q.clauses {
		c := &q.clauses[i]
		if c.occur == 0 && (q.must || anyShould) {
			continue
		}
		hit := c.holds(attrs, players)
		switch c.occur {
		case '+':
			if !hit {
				return c.text
			}
		case '-':
			if hit {
				return c.text
			}
		default:
			anyShould = anyShould || hit
		}
	}
	if q.should && !q.must && !anyShould {
		return "none of " + strings.TrimSpace(q.text)
	}
	return ""
}

// holds reports whether the ticket's value of the clause's attribute
// satisfies it.
func (c *clause) holds(attrs cupid.Attributes, players []cupid.Player) bool {
	if v, ok := attrs.Resolve(c.attr); ok {
		return c.matches(v)
	}
	for i := range players {
		if v, ok := players[i].Attributes.Resolve(c.attr); ok && c.matches(v) {
			return true
		}
	}
	return false
}

// matches compares one value with the clause.
func (c *clause) matches(v cupid.Value) bool {
	switch v.Kind {
	case cupid.KindNumber:
		if !c.isNum {
			return false
		}
		switch c.op {
		case "":
			return v.Number == c.num
		case ">":
			return v.Number > c.num
		case ">=":
			return v.Number >= c.num
		case "<":
			return v.Number < c.num
		case "<=":
			return v.Number <= c.num
		}
	case cupid.KindString:
		return c.op == "" && v.String == c.str
	case cupid.KindStrings:
		if c.op != "" {
			return false
		}
		for _, s := range v.Strings {
			if s == c.str {
				return true
			}
		}
	case cupid.KindBool:
		return c.op == "" && strconv.FormatBool(v.Bool) == c.str
	}
	return false
}

// parseBoost reads the n of ^n: digits with at most one decimal point, as
// Nakama writes boosts, and more than zero. A boost of zero or less would
// turn a preference into its opposite or into nothing; the syntax has -
// clauses for the first and plain omission for the second.
func parseBoost(s string) (float64, bool) {
	digits, dots := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] >= '0' && s[i] <= '9':
			digits++
		case s[i] == '.':
			dots++
		default:
			return 0, false
		}
	}
	if digits == 0 || dots > 1 {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// MaxScore is the best score a ticket can have under the query: the sum of
// the boosts of its optional clauses. Two optional clauses asking one
// attribute for different values keep every ticket below it.
func (q *Query) MaxScore() float64 {
	if q == nil {
		return 0
	}
	return q.max
}

// Score is how well a ticket the query accepts fits it: the sum of the
// boosts of the optional clauses the ticket satisfies (a clause without ^n
// counts 1), read as Failing reads them. It is 0 for a query without
// optional clauses. Only optional clauses count: every accepted ticket
// satisfies all the + clauses and none of the - clauses, so theirs would add
// the same to every ticket and change no order. The engine takes an
// anchor's candidates in descending order of its query's score, as Nakama's
// search returns its best-scoring hits first; Nakama's relevance scoring
// also weighs how rare a term is in the index, which Cupid does not: a
// clause weighs its boost, whatever the pool holds.
func (q *Query) Score(attrs cupid.Attributes, players []cupid.Player) float64 {
	if q == nil || !q.should {
		return 0
	}
	sum := 0.0
	for i := range q.clauses {
		c := &q.clauses[i]
		if c.occur == 0 && c.holds(attrs, players) {
			sum += c.boost
		}
	}
	return sum
}
