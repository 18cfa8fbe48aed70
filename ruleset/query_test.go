package ruleset

import (
	"slices"
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

// TestParseQueryRefuses: every query Cupid does not read is refused with the
// clause named, never parsed and ignored.
func TestParseQueryRefuses(t *testing.T) {
	long := strings.Repeat("+properties.a:b ", MaxQueryClauses+1)
	tests := []struct {
		name, query, want string
	}{
		{"no field", "europe", `clause "europe": a clause is properties.NAME:value`},
		{"not a property", "+region:europe", `field "region" is not a ticket property`},
		{"nakama's own field", "+min_count:2", `field "min_count" is not a ticket property`},
		{"empty property", "+properties.:x", `field "properties." is not a ticket property`},
		{"no value", "+properties.region:", `no value after the colon`},
		{"empty boost", "+properties.region:eu properties.voice:yes^", `clause "properties.voice:yes^": the boost "" is not a positive number`},
		{"zero boost", "properties.voice:yes^0", `clause "properties.voice:yes^0": the boost "0" is not a positive number`},
		{"negative boost", "properties.voice:yes^-2", `the boost "-2" is not a positive number`},
		{"boost not a number", "properties.voice:yes^high", `the boost "high" is not a positive number`},
		{"boost in exponent form", "properties.voice:yes^1e3", `the boost "1e3" is not a positive number`},
		{"boost with two points", "properties.voice:yes^1.2.3", `the boost "1.2.3" is not a positive number`},
		{"bad boost on a quoted value", `properties.mode:"free for all"^x`, `clause "properties.mode:\"free for all\"^x": the boost "x" is not a positive number`},
		{"boost then fuzzy", "properties.voice:yes^2~", `the boost "2~" is not a positive number`},
		{"wildcard", "+properties.region:eu*", "wildcards are not supported"},
		{"question mark", "+properties.region:e?", "wildcards are not supported"},
		{"regexp", "+properties.group:/a|b/", "regular expressions are not supported"},
		{"fuzzy", "+properties.region:europe~1", "fuzzy terms (~)"},
		{"range on text", "+properties.rank:>=high", `a range (>=) compares numbers; "high" is not a finite number`},
		{"date range", `+properties.created:>"2021-12-25"`, "date ranges are not supported"},
		{"open quote", `+properties.mode:"free for all`, "the quote is not closed"},
		{"text after a quote", `+properties.mode:"free"x`, "a space must follow the closing quote"},
		{"quote inside", `+properties.mode:fr"ee`, "a quote inside a value"},
		{"too many clauses", long, "more than 32 clauses"},
		{"too long", "+properties.a:" + strings.Repeat("x", MaxQueryBytes), "more than the limit of 1024"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := ParseQuery(QuerySyntaxNakama, tc.query)
			if err == nil {
				t.Fatalf("ParseQuery(%q) = %+v, want an error", tc.query, q)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseQuery(%q): %v, want it to say %q", tc.query, err, tc.want)
			}
		})
	}
	if _, err := ParseQuery("lucene", "+properties.a:b"); err == nil {
		t.Fatal("an unknown syntax parsed")
	}
}

// euTicket is the other ticket the query tables judge.
var euTicket = cupid.Attributes{
	{Name: "mode", Value: cupid.String("ranked")},
	{Name: "rank", Value: cupid.Number(7)},
	{Name: "region", Value: cupid.String("europe")},
	{Name: "tags", Value: cupid.Strings("duo", "mic")},
}

// TestQueryAccepts: what each kind of clause accepts, on the behaviour
// Nakama's query documentation states (whole values, ranges, +, -, optional
// clauses, lists matched by any element).
func TestQueryAccepts(t *testing.T) {
	eu := euTicket
	tests := []struct {
		query string
		want  bool
	}{
		{"", true},
		{"*", true},
		{"+properties.region:europe", true},
		{"+properties.region:Europe", false}, // case-sensitive
		{"+properties.region:euro", false},   // whole values only
		{"+properties.mode:free", false},
		{"-properties.mode:casual", true},
		{"-properties.mode:ranked", false},
		{"-properties.missing:x", true}, // no value: nothing to exclude
		{"+properties.missing:x", false},
		{"+properties.rank:7", true},
		{"+properties.rank:7.0", true},
		{"+properties.rank:>=5 +properties.rank:<=9", true},
		{"+properties.rank:>7", false},
		{"+properties.rank:<7", false},
		{"+properties.rank:<=7", true},
		{"+properties.rank:>-1", true},
		{"+properties.region:>=5", false}, // a range never matches text
		{"+properties.tags:mic", true},
		{"+properties.tags:solo", false},
		{`+properties.region:"europe"`, true},
		{`+properties.region:euro\*pe`, false},
		// Only optional clauses: at least one must hold.
		{"properties.region:asia properties.region:europe", true},
		{"properties.region:asia properties.region:america", false},
		// Only excluding clauses: everyone not excluded.
		{"-properties.region:asia", true},
		// Beside + clauses, optional clauses only rank: none need hold.
		{"+properties.mode:ranked properties.region:asia", true},
		{"+properties.mode:ranked properties.region:asia^3 properties.voice:yes", true},
		{"+properties.mode:casual properties.region:europe", false},
		// Boosts on any clause; they change no filter.
		{"+properties.region:europe^2", true},
		{"-properties.region:europe^2", false},
		{"+properties.rank:>=5^2", true},
		{`+properties.region:"europe"^1.5`, true},
		{"properties.region:asia^2 properties.region:america^0.5", false},
		{`+properties.region:euro\^pe`, false}, // an escaped ^ is text
	}
	for _, tc := range tests {
		q, err := ParseQuery(QuerySyntaxNakama, tc.query)
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", tc.query, err)
		}
		if got := q.Accepts(eu, nil); got != tc.want {
			t.Errorf("%q accepts %v: %v, want %v (failing %q)", tc.query, eu, got, tc.want, q.Failing(eu, nil))
		}
	}
}

// TestQueryScore: the score is the sum of the boosts (1 when not written) of
// the optional clauses the ticket satisfies; + and - clauses, boosted or
// not, add nothing.
func TestQueryScore(t *testing.T) {
	eu := euTicket
	tests := []struct {
		query string
		score float64
		ranks bool
	}{
		{"", 0, false},
		{"+properties.mode:ranked", 0, false},
		{"+properties.mode:ranked^5 -properties.region:asia^3", 0, false},
		{"+properties.mode:ranked properties.region:europe", 1, true},
		{"+properties.mode:ranked properties.region:europe^2 properties.voice:yes", 2, true},
		{"+properties.mode:ranked properties.region:asia^2 properties.tags:mic", 1, true},
		{"+properties.mode:ranked properties.region:europe^2 properties.tags:mic^0.5 properties.rank:>=5^3", 5.5, true},
		{`properties.region:"europe"^4 properties.region:asia`, 4, true},
		{"+properties.mode:ranked properties.region:asia", 0, true},
	}
	for _, tc := range tests {
		q, err := ParseQuery(QuerySyntaxNakama, tc.query)
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", tc.query, err)
		}
		if got := q.Score(eu, nil); got != tc.score {
			t.Errorf("%q scores %v, want %v", tc.query, got, tc.score)
		}
		if got := q.Ranks(); got != tc.ranks {
			t.Errorf("%q ranks: %v, want %v", tc.query, got, tc.ranks)
		}
	}
}

// TestQueryBoostText: a boosted clause keeps its whole text, boost included,
// for the messages that name it.
func TestQueryBoostText(t *testing.T) {
	q, err := ParseQuery(QuerySyntaxNakama, "+properties.mode:ranked^2 properties.voice:yes")
	if err != nil {
		t.Fatal(err)
	}
	casual := cupid.Attributes{{Name: "mode", Value: cupid.String("casual")}}
	if f := q.Failing(casual, nil); f != "+properties.mode:ranked^2" {
		t.Fatalf("failing %q, want the whole boosted clause", f)
	}
}

// TestQueryReadsPlayersWhenTheTicketHasNoValue: a ticket-wide value wins; a
// ticket without one passes when one of its players' values does.
func TestQueryReadsPlayersWhenTheTicketHasNoValue(t *testing.T) {
	q, err := ParseQuery(QuerySyntaxNakama, `+properties.mode:"free for all" +properties.rank:>=5`)
	if err != nil {
		t.Fatal(err)
	}
	players := []cupid.Player{
		{ID: "a", Attributes: cupid.Attributes{{Name: "rank", Value: cupid.Number(3)}}},
		{ID: "b", Attributes: cupid.Attributes{{Name: "rank", Value: cupid.Number(6)}}},
	}
	ticket := cupid.Attributes{{Name: "mode", Value: cupid.String("free for all")}}
	if f := q.Failing(ticket, players); f != "" {
		t.Fatalf("failing %q, want a pass (player b has rank 6)", f)
	}
	ticket = cupid.Attributes{{Name: "mode", Value: cupid.String("free for all")}, {Name: "rank", Value: cupid.Number(4)}}
	if f := q.Failing(ticket, players); f != "+properties.rank:>=5" {
		t.Fatalf("failing %q, want the rank clause: the ticket-wide rank 4 wins over the players'", f)
	}
}

// TestTicketQueryRuleProblems: a bad ticket_query is a ruleset error naming
// the field.
func TestTicketQueryRuleProblems(t *testing.T) {
	tests := []struct {
		extra string
		want  string
	}{
		{`"ticket_query": {}`, "ticket_query.attribute: required"},
		{`"ticket_query": {"attribute": "role"}`, `ticket_query.attribute: "role" is a reserved ticket key`},
		{`"ticket_query": {"attribute": "q", "syntax": "lucene"}`, `ticket_query.syntax: must be one of "nakama", not "lucene"`},
		{`"ticket_query": {"attribute": "q", "direction": "both"}`, `ticket_query.direction: must be one of "one_way", "mutual", not "both"`},
		{`"ticket_query": {"attribute": "q", "weight": 1}`, `ticket_query.weight`},
	}
	for _, tc := range tests {
		got := strings.Join(problemsOf(t, with(tc.extra)), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: problems\n%s\nwant %q", tc.extra, got, tc.want)
		}
	}
	cq, err := Load([]byte(with(`"ticket_query": {"attribute": "mm_query"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if tq := cq.TicketQuery; tq == nil || tq.Attribute != "mm_query" || tq.Syntax != QuerySyntaxNakama || tq.Direction != QueryOneWay {
		t.Fatalf("compiled %+v, want mm_query with the defaults nakama, one_way", tq)
	}
}

// BenchmarkQueryAccepts: one pair judged by a four-clause query, the cost
// the engine pays per pair it considers under ticket_query.
func BenchmarkQueryAccepts(b *testing.B) {
	q, err := ParseQuery(QuerySyntaxNakama, "+properties.region:europe +properties.rank:>=5 +properties.rank:<=9 -properties.mode:casual")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if !q.Accepts(euTicket, nil) {
			b.Fatal("refused")
		}
	}
}

// BenchmarkParseQuery: compiling one query, paid once per distinct text.
func BenchmarkParseQuery(b *testing.B) {
	for b.Loop() {
		if _, err := ParseQuery(QuerySyntaxNakama, "+properties.region:europe +properties.rank:>=5 +properties.rank:<=9 -properties.mode:casual"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueryScore: the score of one candidate under a query of two
// required and three boosted optional clauses, paid once per candidate of
// an anchor whose query ranks.
func BenchmarkQueryScore(b *testing.B) {
	q, err := ParseQuery(QuerySyntaxNakama, "+properties.mode:ranked +properties.rank:>=5 properties.region:europe^2 properties.voice:yes properties.tags:mic^0.5")
	if err != nil {
		b.Fatal(err)
	}
	attrs := append(slices.Clone(euTicket), cupid.Attribute{Name: "voice", Value: cupid.String("yes")})
	for b.Loop() {
		if q.Score(attrs, nil) != 3.5 {
			b.Fatal("wrong score")
		}
	}
}

// FuzzParseQuery: any text parses or is refused with an error, never a
// panic; a parsed query judges and scores a ticket, its score between 0 and
// its best possible score.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"", "*", "+properties.mode:ranked properties.region:europe^2 properties.voice:yes",
		`properties.mode:"free for all"^1.5 -properties.rank:>=5^2`, "properties.a:b^", "properties.a:b^0",
		`+properties.a:\^x`, "properties.a:b^2~", `properties.a:"b"^`,
	} {
		f.Add(s)
	}
	attrs := cupid.Attributes{
		{Name: "a", Value: cupid.String("b")},
		{Name: "mode", Value: cupid.String("ranked")},
		{Name: "rank", Value: cupid.Number(7)},
		{Name: "region", Value: cupid.String("europe")},
	}
	f.Fuzz(func(t *testing.T, text string) {
		q, err := ParseQuery(QuerySyntaxNakama, text)
		if err != nil {
			return
		}
		q.Failing(attrs, nil)
		if s := q.Score(attrs, nil); s < 0 || s > q.MaxScore() {
			t.Fatalf("%q scores %v, outside [0, %v]", text, s, q.MaxScore())
		}
	})
}
