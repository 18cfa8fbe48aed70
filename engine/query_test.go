package engine

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

// Ticket queries through the engine, on outcomes Nakama's documentation
// states: the searching ticket's query picks whom it matches (one-way), and
// with rev_precision every ticket's query must accept the others (mutual).

func queryRules(direction string, players int) string {
	return `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": ` + itoa(players) +
		`, "player_max_number": ` + itoa(players) + `},
		"ticket_query": {"attribute": "query", "direction": "` + direction + `"}}`
}

func itoa(n int) string { return string(rune('0' + n)) }

// q builds a ticket with ticket-wide properties and, if given, a query.
func q(id string, created float64, query string, props ...string) *tb {
	b := ticket(id, created)
	for i := 0; i+1 < len(props); i += 2 {
		b.opt(props[i], props[i+1])
	}
	if query != "" {
		b.t.Attributes.Set("query", cupid.String(query))
	}
	return b
}

// TestTicketQueryOneWayTheAnchorsQueryDecides: a match forms around one
// ticket whose query accepts the others; theirs are not consulted, as in
// Nakama without rev_precision.
func TestTicketQueryOneWayTheAnchorsQueryDecides(t *testing.T) {
	p := newPool(t, queryRules("one_way", 2))
	q("a", 0, "+properties.region:europe", "region", "europe").add(t, p)
	q("asia", 1, "+properties.region:asia", "region", "asia").add(t, p)
	if got := matchIDs(p.Step(at(1))); len(got) != 0 {
		t.Fatalf("matched %v: neither query accepts the other", got)
	}
	// b's own query refuses a, but a's accepts b, and a anchors first.
	q("b", 2, "+properties.region:asia", "region", "europe").add(t, p)
	got := matchIDs(p.Step(at(2)))
	if len(got) != 1 || got[0] != "a+b" {
		t.Fatalf("matches %v, want a+b: only the anchor's query decides", got)
	}
}

// TestTicketQueryOneWayAnyTicketMayAnchor: a ticket's query does not keep it
// from being found by another's, as Nakama's one-way search does not.
func TestTicketQueryOneWayAnyTicketMayAnchor(t *testing.T) {
	for _, tc := range []struct {
		direction string
		want      int
	}{{"one_way", 1}, {"mutual", 0}} {
		t.Run(tc.direction, func(t *testing.T) {
			p := newPool(t, queryRules(tc.direction, 2))
			q("a", 0, "+properties.region:europe", "region", "europe").add(t, p)
			q("asia", 1, "", "region", "asia").add(t, p)
			if got := matchIDs(p.Step(at(1))); len(got) != tc.want {
				t.Fatalf("matches %v, want %d", got, tc.want)
			}
		})
	}
}

func TestTicketQueryMutualEveryQueryDecides(t *testing.T) {
	p := newPool(t, queryRules("mutual", 2))
	q("a", 0, "+properties.region:europe", "region", "europe").add(t, p)
	q("b", 1, "+properties.region:asia", "region", "europe").add(t, p)
	if got := matchIDs(p.Step(at(1))); len(got) != 0 {
		t.Fatalf("matched %v although b's query refuses a", got)
	}
	q("c", 2, "-properties.mode:casual", "region", "europe", "mode", "ranked").add(t, p)
	got := matchIDs(p.Step(at(2)))
	if len(got) != 1 || got[0] != "a+c" {
		t.Fatalf("matches %v, want a+c", got)
	}
}

// TestTicketQueryMutualJudgesEveryPair: the anchor accepts everyone, but two
// other tickets refuse each other; mutual keeps them apart, one_way does not.
func TestTicketQueryMutualJudgesEveryPair(t *testing.T) {
	for _, tc := range []struct {
		direction string
		want      string
	}{
		{"one_way", "a+b+c"},
		{"mutual", "a+b+d"},
	} {
		t.Run(tc.direction, func(t *testing.T) {
			p := newPool(t, queryRules(tc.direction, 3))
			q("a", 0, "", "mode", "ranked").add(t, p)
			q("b", 1, "-properties.mode:casual", "mode", "ranked").add(t, p)
			q("c", 2, "", "mode", "casual").add(t, p)
			q("d", 3, "", "mode", "ranked").add(t, p)
			got := matchIDs(p.Step(at(3)))
			if len(got) != 1 || got[0] != tc.want {
				t.Fatalf("matches %v, want %s", got, tc.want)
			}
		})
	}
}

// TestTicketQueryRanges: the documentation's example, rank 5 to 10 in
// Europe, over numeric properties.
func TestTicketQueryRanges(t *testing.T) {
	p := newPool(t, queryRules("mutual", 2))
	q("a", 0, "+properties.region:europe +properties.rank:>=5 +properties.rank:<=10", "region", "europe").num("rank", 8).add(t, p)
	q("low", 1, "", "region", "europe").num("rank", 4).add(t, p)
	q("high", 2, "", "region", "europe").num("rank", 11).add(t, p)
	if got := matchIDs(p.Step(at(2))); len(got) != 1 || got[0] != "high+low" {
		// low and high may match each other (neither has a query).
		t.Fatalf("matches %v, want only high+low", got)
	}
	q("ok", 3, "", "region", "europe").num("rank", 10).add(t, p)
	if got := matchIDs(p.Step(at(3))); len(got) != 1 || got[0] != "a+ok" {
		t.Fatalf("matches %v, want a+ok", got)
	}
}

func TestTicketQueryCheckRefusesBadQueries(t *testing.T) {
	p := newPool(t, queryRules("one_way", 2))
	tests := []struct {
		name  string
		build func() *tb
		field string
		want  string
	}{
		{"malformed", func() *tb { return q("x", 0, "+properties.region:eu*") }, "attributes.query", "wildcards are not supported"},
		{"bad boost", func() *tb { return q("x", 0, "properties.voice:yes^0") }, "attributes.query", `the boost "0" is not a positive number`},
		{"not a string", func() *tb { return ticket("x", 0).num("unused", 1).optNum("query", 3) }, "attributes.query", "must be a string"},
		{"on a player", func() *tb { return ticket("x", 0).str("query", "+properties.a:b") }, "players[0].attributes.query", "the query is the ticket's"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := p.Check(tc.build().t)
			var ce *cupid.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Check: %v, want a *cupid.Error", err)
			}
			if ce.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check: field %q, %v; want field %q saying %q", ce.Field, err, tc.field, tc.want)
			}
		})
	}
	if p.Len() != 0 {
		t.Fatalf("refused tickets changed the pool: %d waiting", p.Len())
	}
}

func TestTicketQueryExplainNamesTheClause(t *testing.T) {
	p := newPool(t, queryRules("mutual", 2))
	q("a", 0, "+properties.region:europe -properties.mode:casual", "region", "europe").add(t, p)
	q("b", 1, "", "region", "europe", "mode", "casual").add(t, p)
	p.Step(at(1))
	x, ok := p.Explain("a", at(1))
	if !ok {
		t.Fatal("no explanation")
	}
	if len(x.Blocks) != 1 || x.Blocks[0].Rule != "ticket_query query" ||
		x.Blocks[0].Nearest != "the anchor's query refuses it (-properties.mode:casual)" {
		t.Fatalf("blocks %+v", x.Blocks)
	}
}

// TestDocTicketQuery runs the ticket_query example of docs/rulesets.md: its
// ruleset, its ticket, and tickets the ticket's query accepts and refuses.
func TestDocTicketQuery(t *testing.T) {
	data, err := os.ReadFile("../docs/rulesets.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	_, sec, ok := strings.Cut(doc, "### `ticket_query`")
	if !ok {
		t.Fatal("docs/rulesets.md has no ticket_query section")
	}
	blocks := jsonBlocks(sec)
	if len(blocks) < 2 {
		t.Fatalf("ticket_query section: %d json blocks, want the ruleset and a ticket", len(blocks))
	}
	p, err := New(testKey, load(t, blocks[0]), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Players []struct {
			ID         string         `json:"id"`
			Attributes map[string]any `json:"attributes"`
		} `json:"players"`
		Attributes map[string]any `json:"attributes"`
	}
	if err := decodeJSON(blocks[1], &page); err != nil {
		t.Fatalf("the ticket does not decode: %v", err)
	}
	tk := ticket("doc", 0).t
	tk.Players = nil
	for _, pl := range page.Players {
		tk.Players = append(tk.Players, cupid.Player{ID: pl.ID, Attributes: plainAttrs(t, pl.Attributes)})
	}
	tk.Attributes = plainAttrs(t, page.Attributes)
	if err := p.Add(tk); err != nil {
		t.Fatalf("the page's ticket is refused: %v", err)
	}
	q("casual", 1, "", "region", "europe", "mode", "casual").num("rank", 7).add(t, p)
	q("asia", 2, "", "region", "asia", "mode", "ranked").num("rank", 7).add(t, p)
	if got := matchIDs(p.Step(at(2))); len(got) != 1 || got[0] != "asia+casual" {
		t.Fatalf("matches %v, want only asia+casual: the page's query refuses both", got)
	}
	q("fit", 3, "", "region", "europe", "mode", "ranked").num("rank", 9).add(t, p)
	if got := matchIDs(p.Step(at(3))); len(got) != 1 || got[0] != "doc+fit" {
		t.Fatalf("matches %v, want doc+fit", got)
	}
	// The query's optional voice clause ranks: of five tickets it
	// accepts, the two with voice come first though younger, then the
	// oldest of the others, up to the four players of a match.
	tk.State = cupid.StateWaiting
	if err := p.Add(tk); err != nil {
		t.Fatalf("the page's ticket again: %v", err)
	}
	for i, id := range []string{"f1", "f2", "f3"} {
		q(id, float64(4+i), "", "region", "europe", "mode", "ranked").num("rank", 6).add(t, p)
	}
	for i, id := range []string{"v1", "v2"} {
		q(id, float64(7+i), "", "region", "europe", "mode", "ranked", "voice", "yes").num("rank", 6).add(t, p)
	}
	if got := matchIDs(p.Step(at(9))); len(got) == 0 || got[0] != "doc+f1+v1+v2" {
		t.Fatalf("matches %v, want doc+f1+v1+v2 first: voice ranks first", got)
	}
}

// jsonBlocks returns the ```json blocks of a Markdown text.
func jsonBlocks(md string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(md, "```json\n")
		if !ok {
			return out
		}
		body, after, _ := strings.Cut(rest, "```")
		out = append(out, body)
		md = after
	}
}

// optNum sets a ticket-wide number.
func (b *tb) optNum(name string, v float64) *tb {
	b.t.Attributes.Set(name, cupid.Number(v))
	return b
}

// plainAttrs converts a page's plain JSON attributes (strings and numbers).
func plainAttrs(t *testing.T, m map[string]any) cupid.Attributes {
	t.Helper()
	var out cupid.Attributes
	for k, v := range m {
		switch v := v.(type) {
		case string:
			out.Set(k, cupid.String(v))
		case float64:
			out.Set(k, cupid.Number(v))
		default:
			t.Fatalf("attribute %s: %T", k, v)
		}
	}
	return out
}

func decodeJSON(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
