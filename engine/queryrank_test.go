package engine

import (
	"fmt"
	"testing"
)

// A ticket query's optional clauses rank (ruleset Query.Score): an anchor
// whose query has them takes its candidates best score first, oldest first
// among equal scores, as a Nakama search takes its best hits first.

// rankQuery is the brief's example: ranked required, Europe weighing 2 and
// voice 1.
const rankQuery = "+properties.mode:ranked properties.region:europe^2 properties.voice:yes"

// rankPool adds the anchor a (oldest, with query) and candidates of every
// score under rankQuery; g is refused by the required clause.
func rankPool(t *testing.T, p *Pool, anchorQuery string) {
	t.Helper()
	q("a", 0, anchorQuery, "mode", "ranked", "region", "europe").num("skill", 50).add(t, p)
	q("b", 1, "", "mode", "ranked", "region", "asia", "voice", "no").num("skill", 50).add(t, p)    // 0
	q("c", 2, "", "mode", "ranked", "region", "europe", "voice", "no").num("skill", 60).add(t, p)  // 2
	q("d", 3, "", "mode", "ranked", "region", "asia", "voice", "yes").num("skill", 50).add(t, p)   // 1
	q("e", 4, "", "mode", "ranked", "region", "europe", "voice", "yes").num("skill", 50).add(t, p) // 3
	q("f", 5, "", "mode", "ranked", "region", "europe", "voice", "no").num("skill", 51).add(t, p)  // 2
	q("g", 6, "", "mode", "casual", "region", "europe", "voice", "yes").num("skill", 50).add(t, p) // refused
}

func TestTicketQueryRanksTheAnchorsCandidates(t *testing.T) {
	const alliance = `"alliance": {"min_number": 1, "max_number": 1, "player_min_number": %d, "player_max_number": %d}`
	for _, tc := range []struct {
		name, rules string
		players     int
		query       string
		want        string
	}{
		// e scores 3, c and f 2 (c older), d 1, b 0.
		{"best score first", `"ticket_query": {"attribute": "query"}`, 3, rankQuery, "a+c+e"},
		{"equal scores oldest first", `"ticket_query": {"attribute": "query"}`, 4, rankQuery, "a+c+e+f"},
		{"then the lower scores", `"ticket_query": {"attribute": "query"}`, 5, rankQuery, "a+c+d+e+f"},
		{"mutual: the anchor's query ranks", `"ticket_query": {"attribute": "query", "direction": "mutual"}`, 3, rankQuery, "a+c+e"},
		// Without optional clauses the query only filters: oldest first.
		{"a query that does not rank", `"ticket_query": {"attribute": "query"}`, 3, "+properties.mode:ranked", "a+b+c"},
		{"boosts on required clauses do not rank", `"ticket_query": {"attribute": "query"}`, 3, "+properties.mode:ranked^4 -properties.region:mars^2", "a+b+c"},
		{"no query", `"ticket_query": {"attribute": "query"}`, 3, "", "a+b+c"},
		// Only optional clauses: they filter (b, scoring 0, is refused)
		// and rank: e 2.5, d 2, c and f 0.5.
		{"optional clauses only", `"ticket_query": {"attribute": "query"}`, 3, "properties.voice:yes^2 properties.region:europe^0.5 -properties.mode:casual", "a+d+e"},
		// The score orders first; sort rules break its ties: f is nearer
		// the anchor's skill than c.
		{"sort rules break the score's ties", `"ticket_query": {"attribute": "query"},
			"sort_rule": [{"attribute": "skill", "sort": "distance"}]`, 3, rankQuery, "a+e+f"},
		{"sort rules alone without optional clauses", `"ticket_query": {"attribute": "query"},
			"sort_rule": [{"attribute": "skill", "sort": "distance"}]`, 3, "+properties.mode:ranked", "a+b+d"},
		// With a distance rule the ranked anchor's match is not settled:
		// b, older than c and e, waits instead of taking a place.
		{"a distance rule", `"ticket_query": {"attribute": "query"},
			"matching_rule": [{"attribute": "skill", "criteria": "distance", "reference": 100}]`, 3, rankQuery, "a+c+e"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, `{`+fmt.Sprintf(alliance, tc.players, tc.players)+`, `+tc.rules+`}`)
			rankPool(t, p, tc.query)
			got := stepAll(t, p, 10)
			if len(got) == 0 || got[0] != tc.want {
				t.Fatalf("matches = %v, want %s first", got, tc.want)
			}
		})
	}
}

// TestTicketQueryRankedMatchIsNotSettled: under a distance rule, settling
// would hand a younger member's place to an older waiting ticket; a ranked
// anchor's match keeps the candidates it preferred.
func TestTicketQueryRankedMatchIsNotSettled(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{rankQuery, []string{"a+c+e"}},
		// Without ranking, oldest first: a takes b and c.
		{"+properties.mode:ranked", []string{"a+b+c"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			p := newPool(t, `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 3},
				"ticket_query": {"attribute": "query"},
				"matching_rule": [{"attribute": "skill", "criteria": "distance", "reference": 100}]}`)
			q("a", 0, tc.query, "mode", "ranked", "region", "europe").num("skill", 50).add(t, p)
			q("b", 1, "+properties.mode:casual", "mode", "ranked", "region", "asia").num("skill", 50).add(t, p)
			q("c", 2, "", "mode", "ranked", "region", "europe").num("skill", 50).add(t, p)
			q("d", 3, "+properties.mode:casual", "mode", "ranked", "region", "asia").num("skill", 50).add(t, p)
			q("e", 4, "", "mode", "ranked", "region", "europe", "voice", "yes").num("skill", 50).add(t, p)
			got := stepAll(t, p, 10)
			if len(got) != len(tc.want) || got[0] != tc.want[0] {
				t.Fatalf("matches = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTicketQueryRankStopsAtTheBestScore: a ranking anchor stops gathering
// once candidates of its query's best possible score hold what it wants
// (Options.Candidates times the players it needs): no ticket found later
// could come before them. When they cannot form a match it gathers further,
// as any anchor does.
func TestTicketQueryRankStopsAtTheBestScore(t *testing.T) {
	t.Run("stops", func(t *testing.T) {
		p := newPool(t, `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 3},
			"ticket_query": {"attribute": "query"}}`)
		q("a", 0, "+properties.mode:ranked properties.voice:yes", "mode", "ranked").add(t, p)
		for i, id := range []string{"n1", "n2", "n3"} {
			q(id, float64(1+i), "+properties.mode:casual", "mode", "ranked").add(t, p)
		}
		for i := range 10 {
			q(fmt.Sprintf("v%02d", i), float64(4+i), "+properties.mode:casual", "mode", "ranked", "voice", "yes").add(t, p)
		}
		got := stepAll(t, p, 20)
		if len(got) != 1 || got[0] != "a+v00+v01" {
			t.Fatalf("matches = %v, want only a+v00+v01", got)
		}
		// The anchor's one gather looks at 7 tickets: the three
		// without voice, then four with voice (2 candidates × 2
		// players needed), not all 13. The 11 left, whose queries
		// refuse everyone, look at the 10 others each.
		if st := p.Stats(); st.Scanned != 7+11*10 {
			t.Fatalf("scanned %d tickets, want %d", st.Scanned, 7+11*10)
		}
	})
	t.Run("gathers further", func(t *testing.T) {
		p := newPool(t, `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 4, "player_max_number": 4},
			"ticket_query": {"attribute": "query"}}`)
		q("a", 0, "+properties.mode:ranked properties.voice:yes", "mode", "ranked").add(t, p)
		// Three duos with voice hold the 6 players wanted, but two
		// duos make 4 with the anchor: one duo and a solo fit.
		for i, id := range []string{"v1", "v2", "v3"} {
			q(id, float64(1+i), "+properties.mode:casual", "mode", "ranked", "voice", "yes").party(2).add(t, p)
		}
		q("s1", 4, "+properties.mode:casual", "mode", "ranked").add(t, p)
		q("s2", 5, "+properties.mode:casual", "mode", "ranked").add(t, p)
		got := stepAll(t, p, 20)
		if len(got) != 1 || got[0] != "a+s1+v1" {
			t.Fatalf("matches = %v, want only a+s1+v1", got)
		}
	})
}
