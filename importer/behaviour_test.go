package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/ruleset"
)

// These tests run imported rulesets through the engine on tickets whose
// outcome the source product's documentation states: who must and must not
// end up together, and when expansions take effect.

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

// imported imports testdata/<from>/<name> and starts a pool on the result.
func imported(t *testing.T, from, name string) *engine.Pool {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", from, name))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(from, src)
	if err != nil {
		t.Fatal(err)
	}
	if res.Ruleset == nil {
		t.Fatalf("import refused: %s", res.Report.Refused)
	}
	c, err := ruleset.Load(res.Ruleset)
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.New(cupid.QueueKey{Queue: "q"}, c, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// player is one solo ticket.
type player struct {
	id      string
	created float64
	attrs   map[string]cupid.Value
	lat     map[string]int32
}

func (pl player) ticket() *cupid.Ticket {
	t := &cupid.Ticket{ID: pl.id, Key: cupid.QueueKey{Queue: "q"}, CreatedAt: at(pl.created), State: cupid.StateWaiting,
		Players: []cupid.Player{{ID: pl.id}}, Latencies: pl.lat}
	keys := make([]string, 0, len(pl.attrs))
	for k := range pl.attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Players[0].Attributes.Set(k, pl.attrs[k])
	}
	return t
}

func addAll(t *testing.T, p *engine.Pool, players ...player) {
	t.Helper()
	for _, pl := range players {
		if err := p.Add(pl.ticket()); err != nil {
			t.Fatalf("add %s: %v", pl.id, err)
		}
	}
}

// teamsOf renders each proposal's teams as sorted ticket ids.
func teamsOf(props []engine.Proposal) [][][]string {
	var out [][][]string
	for _, pr := range props {
		var m [][]string
		for _, tm := range pr.Match().Teams {
			ids := slices.Clone(tm.TicketIDs)
			slices.Sort(ids)
			m = append(m, ids)
		}
		out = append(out, m)
	}
	return out
}

func num(v float64) cupid.Value { return cupid.Number(v) }

// TestFlexMatchEvenTeams: "the average skill of players in each team is
// within 10 points from the average skill of all players", relaxed to 50 at
// 5 s and 100 at 15 s; teams of equal size. Six players of skill 0, one
// without skill (the default, 10, applies) and one of 400: the best split
// has team averages 100 and 2.5, each 48.75 from the match average, so they
// match from 5 s on, not before.
func TestFlexMatchEvenTeams(t *testing.T) {
	p := imported(t, "flexmatch", "two_even_teams.json")
	var players []player
	for i := range 6 {
		players = append(players, player{id: fmt.Sprintf("p%d", i), attrs: map[string]cupid.Value{"skill": num(0)}})
	}
	players = append(players, player{id: "star", attrs: map[string]cupid.Value{"skill": num(400)}}, player{id: "nodefault"})
	addAll(t, p, players...)
	if got := p.Step(at(4.9)); len(got) != 0 {
		t.Fatalf("at 4.9 s, before the first expansion: %v", teamsOf(got))
	}
	got := teamsOf(p.Step(at(5)))
	if len(got) != 1 || len(got[0]) != 2 || len(got[0][0]) != 4 || len(got[0][1]) != 4 {
		t.Fatalf("at 5 s: %v, want one 4v4 match", got)
	}
}

// TestFlexMatchEqualTeamSizes: nine players of one skill make a 4v4 and one
// waits; FlexMatch's EqualTeamSizes refuses 5v4.
func TestFlexMatchEqualTeamSizes(t *testing.T) {
	p := imported(t, "flexmatch", "two_even_teams.json")
	for i := range 9 {
		addAll(t, p, player{id: fmt.Sprintf("p%d", i), attrs: map[string]cupid.Value{"skill": num(50)}})
	}
	got := teamsOf(p.Step(at(1)))
	if len(got) != 1 || len(got[0][0]) != len(got[0][1]) || len(got[0][0]) != 4 {
		t.Fatalf("matches %v: want one 4v4", got)
	}
}

// TestFlexMatchThreeTeams: three teams of 3–5, sizes within one, at most 5
// medics in the game, latency 50 ms widening to 100 ms at 10 s.
func TestFlexMatchThreeTeams(t *testing.T) {
	p := imported(t, "flexmatch", "three_teams.json")
	var players []player
	for i := range 6 {
		players = append(players, player{id: fmt.Sprintf("medic%d", i), attrs: map[string]cupid.Value{"character": cupid.Strings("medic")},
			lat: map[string]int32{"eu": 80}})
	}
	for i := range 3 {
		players = append(players, player{id: fmt.Sprintf("tank%d", i), attrs: map[string]cupid.Value{"character": cupid.Strings("tank")},
			lat: map[string]int32{"eu": 80}})
	}
	addAll(t, p, players...)
	if got := p.Step(at(9.9)); len(got) != 0 {
		t.Fatalf("at 9.9 s, with 80 ms and a 50 ms limit: %v", teamsOf(got))
	}
	if got := p.Step(at(10)); len(got) != 0 {
		t.Fatalf("nine players, six of them medics, matched: %v", teamsOf(got))
	}
	// A tenth player: five medics and the four others make 3v3v3.
	addAll(t, p, player{id: "scout", created: 10, attrs: map[string]cupid.Value{"character": cupid.Strings("scout")}, lat: map[string]int32{"eu": 80}})
	got := teamsOf(p.Step(at(21)))
	if len(got) != 1 {
		t.Fatalf("at 21 s: %v, want one match", got)
	}
	medics, sizes := 0, []int{}
	for _, team := range got[0] {
		sizes = append(sizes, len(team))
		for _, id := range team {
			if strings.HasPrefix(id, "medic") {
				medics++
			}
		}
	}
	slices.Sort(sizes)
	if medics > 5 || sizes[len(sizes)-1]-sizes[0] > 1 || len(sizes) != 3 {
		t.Errorf("match %v: %d medics, team sizes %v", got[0], medics, sizes)
	}
}

// TestFlexMatchBlockList: nobody is matched with a player on his block list.
func TestFlexMatchBlockList(t *testing.T) {
	p := imported(t, "flexmatch", "block_list.json")
	var players []player
	for i := range 9 {
		players = append(players, player{id: fmt.Sprintf("p%d", i)})
	}
	players = append(players, player{id: "grumpy", attrs: map[string]cupid.Value{"BlockList": cupid.Strings("p3")}})
	addAll(t, p, players...)
	if got := p.Step(at(1)); len(got) != 0 {
		t.Fatalf("grumpy blocks p3, the only ten: %v", teamsOf(got))
	}
	addAll(t, p, player{id: "p9", created: 1})
	got := teamsOf(p.Step(at(2)))
	if len(got) != 1 {
		t.Fatalf("eleven players, one pair blocked: %v, want one match", got)
	}
	all := slices.Concat(got[0]...)
	if slices.Contains(all, "grumpy") && slices.Contains(all, "p3") {
		t.Errorf("grumpy and p3 in one match: %v", got[0])
	}
}

// TestFlexMatchExplicitSort: experience at least 10, 5 after 30 s.
func TestFlexMatchExplicitSort(t *testing.T) {
	p := imported(t, "flexmatch", "explicit_sort.json")
	var players []player
	for i := range 6 {
		players = append(players, player{id: fmt.Sprintf("p%d", i), attrs: map[string]cupid.Value{"skill": num(float64(10 * i)), "experience": num(7)}})
	}
	addAll(t, p, players...)
	if got := p.Step(at(29)); len(got) != 0 {
		t.Fatalf("experience 7 < 10 matched at 29 s: %v", teamsOf(got))
	}
	if got := p.Step(at(30)); len(got) != 1 {
		t.Fatalf("at 30 s (referenceValue 5): %v, want one match", teamsOf(got))
	}
}

// TestFlexMatchCompound: close in skill or the same character.
func TestFlexMatchCompound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		skill func(i int) float64
		char  func(i int) string
		match bool
	}{
		{"close skill, mixed characters", func(i int) float64 { return 100 + float64(i) }, func(i int) string { return fmt.Sprint("c", i) }, true},
		{"far skill, same character", func(i int) float64 { return float64(100 * i) }, func(int) string { return "knight" }, true},
		{"far skill, mixed characters", func(i int) float64 { return float64(100 * i) }, func(i int) string { return fmt.Sprint("c", i) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := imported(t, "flexmatch", "compound.json")
			for i := range 10 {
				addAll(t, p, player{id: fmt.Sprintf("p%d", i), attrs: map[string]cupid.Value{"skill": num(tc.skill(i)), "character": cupid.String(tc.char(i))}})
			}
			if got := p.Step(at(1)); (len(got) == 1) != tc.match {
				t.Errorf("matches %v, want a match: %v", teamsOf(got), tc.match)
			}
		})
	}
}

// TestFlexMatchPreferredOpponents: every character in play is on every
// player's preferred list.
func TestFlexMatchPreferredOpponents(t *testing.T) {
	p := imported(t, "flexmatch", "preferred_opponents.json")
	likes := cupid.Strings("orc", "elf", "dwarf")
	for i, c := range []string{"orc", "elf", "dwarf", "orc", "elf"} {
		addAll(t, p, player{id: fmt.Sprintf("p%d", i), attrs: map[string]cupid.Value{"myCharacter": cupid.Strings(c), "preferredOpponents": likes}})
	}
	addAll(t, p, player{id: "odd", attrs: map[string]cupid.Value{"myCharacter": cupid.Strings("troll"), "preferredOpponents": likes}})
	got := teamsOf(p.Step(at(1)))
	if len(got) != 1 || slices.Contains(got[0][0], "odd") {
		t.Fatalf("matches %v: want p0…p4 without the troll nobody asked for", got)
	}
}

// TestFlexMatchLargeMatch: 100 players, or 50 after 120 s.
func TestFlexMatchLargeMatch(t *testing.T) {
	p := imported(t, "flexmatch", "large_match.json")
	for i := range 60 {
		addAll(t, p, player{id: fmt.Sprintf("p%02d", i), attrs: map[string]cupid.Value{"skill": num(float64(i))}, lat: map[string]int32{"us": 120}})
	}
	if got := p.Step(at(119)); len(got) != 0 {
		t.Fatalf("60 of 100 players matched at 119 s")
	}
	got := teamsOf(p.Step(at(120)))
	if len(got) != 1 || len(got[0][0]) != 60 {
		t.Fatalf("at 120 s: %d matches, want one of the 60 players", len(got))
	}
}

// TestFlexMatchUnevenLatency: maxLatency 50, 100 at 10 s, 300 at 25 s.
func TestFlexMatchUnevenLatency(t *testing.T) {
	p := imported(t, "flexmatch", "uneven_latency.json")
	addAll(t, p, player{id: "a", lat: map[string]int32{"eu": 150}}, player{id: "b", lat: map[string]int32{"eu": 150}})
	if got := p.Step(at(24.9)); len(got) != 0 {
		t.Fatalf("150 ms matched at 24.9 s, under a 100 ms limit: %v", teamsOf(got))
	}
	if got := p.Step(at(25)); len(got) != 1 {
		t.Fatalf("at 25 s (300 ms): %v, want a match", teamsOf(got))
	}
}

// nkTicket is a Nakama client's ticket as the imported queue takes it: the
// properties ticket-wide, the query in attributes.query.
func nkTicket(id string, created float64, query string, props map[string]cupid.Value) *cupid.Ticket {
	t := &cupid.Ticket{ID: id, Key: cupid.QueueKey{Queue: "q"}, CreatedAt: at(created), State: cupid.StateWaiting,
		Players: []cupid.Player{{ID: id}}}
	for k, v := range props {
		t.Attributes.Set(k, v)
	}
	if query != "" {
		t.Attributes.Set(QueryAttribute, cupid.String(query))
	}
	return t
}

func addNk(t *testing.T, p *engine.Pool, tickets ...*cupid.Ticket) {
	t.Helper()
	for _, tk := range tickets {
		if err := p.Add(tk); err != nil {
			t.Fatalf("add %s: %v", tk.ID, err)
		}
	}
}

func nkProps(region string, rank float64, mode string) map[string]cupid.Value {
	return map[string]cupid.Value{"region": cupid.String(region), "rank": num(rank), "mode": cupid.String(mode)}
}

// TestNakamaRanked: every client sends its own "my region, my rank ± 2, not
// casual" query; one way, as Nakama by default, the query of the ticket a
// match forms around decides.
func TestNakamaRanked(t *testing.T) {
	p := imported(t, "nakama", "ranked.json")
	around := func(region string, rank int) string {
		return fmt.Sprintf("+properties.region:%s +properties.rank:>=%d +properties.rank:<=%d -properties.mode:casual", region, rank-2, rank+2)
	}
	addNk(t, p,
		nkTicket("a", 0, around("europe", 7), nkProps("europe", 7, "ranked")),
		nkTicket("far", 0.5, around("europe", 10), nkProps("europe", 10, "ranked")),
		nkTicket("us", 0.7, around("us", 7), nkProps("us", 7, "ranked")))
	if got := p.Step(at(1)); len(got) != 0 {
		t.Fatalf("rank 10 is 3 from 7, us is not europe, yet %v", teamsOf(got))
	}
	addNk(t, p, nkTicket("b", 1, around("europe", 9), nkProps("europe", 9, "ranked")))
	// a anchors first (the oldest): its query accepts b (rank 9) and not
	// far (10), although b's own query would accept far.
	got := teamsOf(p.Step(at(2)))
	if len(got) != 1 || !slices.Equal(got[0][0], []string{"a", "b"}) {
		t.Fatalf("matches %v: want a with b", got)
	}
	// A query Cupid would not honour is refused when the ticket is
	// created, naming it.
	err := p.Check(nkTicket("wild", 3, around("europe", 7)+" properties.voice:y*", nkProps("europe", 7, "ranked")))
	if err == nil || !strings.Contains(err.Error(), "attributes.query") {
		t.Fatalf("a wildcard query: %v, want a refusal naming attributes.query", err)
	}
}

// TestNakamaRankedBoost: the sample's optional properties.voice:yes^2 ranks:
// the ticket a match forms around takes the candidates with voice first,
// though younger, and the oldest of the others for the last place.
func TestNakamaRankedBoost(t *testing.T) {
	p := imported(t, "nakama", "ranked.json")
	const query = "+properties.region:europe +properties.rank:>=5 +properties.rank:<=9 -properties.mode:casual properties.voice:yes^2"
	voice := func(yes bool) map[string]cupid.Value {
		m := nkProps("europe", 7, "ranked")
		if yes {
			m["voice"] = cupid.String("yes")
		}
		return m
	}
	addNk(t, p,
		nkTicket("a", 0, query, voice(true)),
		nkTicket("n1", 1, "", voice(false)),
		nkTicket("n2", 2, "", voice(false)),
		nkTicket("n3", 3, "", voice(false)),
		nkTicket("v1", 4, "", voice(true)),
		nkTicket("v2", 5, "", voice(true)))
	got := teamsOf(p.Step(at(6)))
	if len(got) == 0 || !slices.Equal(got[0][0], []string{"a", "n1", "v1", "v2"}) {
		t.Fatalf("matches %v: want a with v1, v2 (voice) and n1 (the oldest without)", got)
	}
}

// TestNakamaMutual: with rev_precision every ticket's query must accept the
// others. A query of optional clauses only accepts a ticket that satisfies
// one of them.
func TestNakamaMutual(t *testing.T) {
	p := imported(t, "nakama", "mutual.json")
	const sample = "properties.region:europe properties.region:asia -properties.mode:casual"
	addNk(t, p,
		nkTicket("a", 0, sample, nkProps("europe", 7, "ranked")),
		nkTicket("casual", 1, "", nkProps("asia", 7, "casual")),                      // a refuses it (casual)
		nkTicket("asia", 2, "+properties.region:asia", nkProps("asia", 7, "ranked"))) // a accepts it, it refuses a
	if got := teamsOf(p.Step(at(2))); len(got) != 1 || !slices.Equal(got[0][0], []string{"asia", "casual"}) {
		t.Fatalf("matches %v, want only asia with casual (neither has a query refusing the other)", got)
	}
	addNk(t, p,
		nkTicket("us", 3, "", nkProps("us", 7, "ranked")), // in neither region a's query asks for
		nkTicket("b", 4, "properties.region:europe", nkProps("asia", 7, "ranked")))
	got := teamsOf(p.Step(at(4)))
	if len(got) != 1 || !slices.Equal(got[0][0], []string{"a", "b"}) {
		t.Fatalf("matches %v, want a with b", got)
	}
}

// TestOpenMatchPool: the veterans pool takes level above 30 up to 100.
func TestOpenMatchPool(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "openmatch", "mode_profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	res := OpenMatch(src)
	c, err := ruleset.Load(res.Ruleset)
	if err != nil {
		t.Fatal(err)
	}
	p, err := engine.New(cupid.QueueKey{Queue: "q"}, c, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := func(id string, mmr float64, mode string, tags ...string) player {
		return player{id: id, attrs: map[string]cupid.Value{"mmr": num(mmr), "mode": cupid.String(mode), "tags": cupid.Strings(tags...)}}
	}
	for _, out := range []player{in("low", 999, "demo", "beta"), in("other", 1500, "ranked", "beta"), in("untagged", 1500, "demo")} {
		if err := p.Check(out.ticket()); err == nil {
			t.Errorf("%s is outside the pool, yet accepted", out.id)
		}
	}
	addAll(t, p, in("x", 1000, "demo", "beta"), in("y", 2000, "demo", "beta", "vip"))
	if got := p.Step(at(1)); len(got) != 1 {
		t.Fatalf("two tickets of the pool: %v, want a match", teamsOf(got))
	}
}

// TestFlexMatchBatchDistance: a large match of 50 to 60, everyone within
// 500 skill (800 after 30 s), a party judged by its best player, one game
// mode, batched by fastest region: a player whose lowest latency is
// elsewhere is not grouped with them, though every other rule would take
// him.
func TestFlexMatchBatchDistance(t *testing.T) {
	p := imported(t, "flexmatch", "batch_distance.json")
	eu := map[string]int32{"eu-west-1": 30, "us-east-1": 90}
	var players []player
	for i := range 49 {
		players = append(players, player{id: fmt.Sprintf("p%02d", i), lat: eu, attrs: map[string]cupid.Value{"SkillRating": num(1000 + float64(i))}})
	}
	// The fiftieth is 700 above the others: too far until 30 s.
	players = append(players, player{id: "pro", lat: eu, attrs: map[string]cupid.Value{"SkillRating": num(1748)}})
	// Another game mode never joins.
	players = append(players, player{id: "duo", lat: eu, attrs: map[string]cupid.Value{"SkillRating": num(1000), "GameMode": cupid.String("duo")}})
	// Fastest in us, though eu is within reach: batched with the us players.
	players = append(players, player{id: "west", lat: map[string]int32{"eu-west-1": 60, "us-east-1": 20}, attrs: map[string]cupid.Value{"SkillRating": num(1010)}})
	addAll(t, p, players...)
	if got := p.Step(at(29)); len(got) != 0 {
		t.Fatalf("a spread of 700 matched at 29 s")
	}
	props := p.Step(at(30))
	got := teamsOf(props)
	if len(got) != 1 || len(got[0][0]) != 50 || slices.Contains(got[0][0], "duo") || slices.Contains(got[0][0], "west") || props[0].Region != "eu-west-1" {
		t.Fatalf("at 30 s: %d matches (%v), want the 50 solo-mode players fastest in eu-west-1, hosted there", len(got), got)
	}
}

// TestFlexMatchHuntersVsMonster: five hunters against one monster. "Only
// users that request playing as monster are assigned to the monster team",
// "do not place people who want to be monsters in the players team",
// "monsters must meet the skill requested by all players". Six would-be
// hunters make no match; a would-be monster too weak for one hunter's
// request is not his monster; a strong enough one is, on team 1.
func TestFlexMatchHuntersVsMonster(t *testing.T) {
	p := imported(t, "flexmatch", "hunters_vs_monster.json")
	var players []player
	for i := range 6 {
		players = append(players, player{id: fmt.Sprintf("h%d", i), created: float64(i)})
	}
	addAll(t, p, players...)
	if got := p.Step(at(10)); len(got) != 0 {
		t.Fatalf("six hunters and no monster matched: %v", teamsOf(got))
	}
	// h0 asks for a monster of skill 30; this one has 20: the five
	// others hunt it.
	p = imported(t, "flexmatch", "hunters_vs_monster.json")
	players[0].attrs = map[string]cupid.Value{"desiredSkillOfMonster": num(30)}
	addAll(t, p, players...)
	addAll(t, p, player{id: "monster", created: 6, attrs: map[string]cupid.Value{"wantsToBeMonster": num(1), "skill": num(20)}})
	got := teamsOf(p.Step(at(10)))
	want := [][][]string{{{"h1", "h2", "h3", "h4", "h5"}, {"monster"}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("matches %v, want %v", got, want)
	}
}

// TestFlexMatchThreeTeamsFair: "the average skill of players in each team
// is within 10 points from the average skill of players in the match".
// Nine players, three teams of three: skills that can be split into three
// teams each within 10 of the match average match; with one player far
// away they cannot.
func TestFlexMatchThreeTeamsFair(t *testing.T) {
	for _, tc := range []struct {
		skills []float64
		match  bool
	}{
		{[]float64{0, 10, 20, 0, 10, 20, 0, 10, 20}, true},
		{[]float64{0, 0, 0, 0, 0, 0, 0, 0, 120}, false}, // a team with him averages 40, the match 13.3
	} {
		p := imported(t, "flexmatch", "three_teams.json")
		for i, s := range tc.skills {
			addAll(t, p, player{id: fmt.Sprintf("p%d", i), attrs: map[string]cupid.Value{"skill": num(s)}, lat: map[string]int32{"eu": 20}})
		}
		if got := p.Step(at(1)); (len(got) == 1) != tc.match {
			t.Errorf("skills %v: matches %v, want a match: %v", tc.skills, teamsOf(got), tc.match)
		}
	}
}

// TestFlexMatchMentorDuel: mentor_duel.json, one against one on a key of a
// map attribute. Each sword skill at least 150 and at most 500 from the
// match average is the two at least 300 and at most 1000 apart; at 20 s the
// smallest distance falls to 50 (100 apart), at 30 s the largest rises to
// 750 (1500 apart). A player without the map gets the default (0 each, so no
// bow: refused at create, as FlexMatch never matches him).
func TestFlexMatchMentorDuel(t *testing.T) {
	skills := func(sword, bow float64) map[string]cupid.Value {
		return map[string]cupid.Value{"skills": cupid.Numbers(map[string]float64{"sword": sword, "bow": bow})}
	}
	for _, tc := range []struct {
		name    string
		players []player
		steps   []float64
		want    string // the step at which a and b meet; "" never
	}{
		{"far enough at once", []player{{id: "a", attrs: skills(100, 20)}, {id: "b", created: 1, attrs: skills(450, 20)}}, []float64{1}, "1"},
		{"too close until 20 s", []player{{id: "a", attrs: skills(100, 20)}, {id: "b", created: 1, attrs: skills(250, 20)}}, []float64{1, 19.9, 20}, "20"},
		{"still too close", []player{{id: "a", attrs: skills(100, 20)}, {id: "b", attrs: skills(150, 20)}}, []float64{1, 20, 100}, ""},
		{"too far until 30 s", []player{{id: "a", attrs: skills(0, 20)}, {id: "b", created: 1, attrs: skills(1200, 20)}}, []float64{1, 29.9, 30}, "30"},
		{"beyond every step", []player{{id: "a", attrs: skills(0, 20)}, {id: "b", attrs: skills(1600, 20)}}, []float64{1, 100}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := imported(t, "flexmatch", "mentor_duel.json")
			addAll(t, p, tc.players...)
			got := ""
			for _, s := range tc.steps {
				if props := p.Step(at(s)); len(props) > 0 {
					if got != "" || len(props) != 1 {
						t.Fatalf("at %v s: %v", s, teamsOf(props))
					}
					got = fmt.Sprint(s)
				}
			}
			if got != tc.want {
				t.Errorf("met at %q, want %q", got, tc.want)
			}
		})
	}
	p := imported(t, "flexmatch", "mentor_duel.json")
	err := p.Add(player{id: "nobow"}.ticket())
	if err == nil || !strings.Contains(err.Error(), "attributes.skills.bow") {
		t.Errorf("a player with the default map (bow 0): %v, want refused naming skills.bow", err)
	}
}

// TestFlexMatchMultiMapGame: multi_map_game.json, the explicit sorting
// example. The anchor's favourite map is the castle: the players who rate
// the castle highest come first, ties go to the nearest experience, and a
// player who rates no castle (or shares no map) comes last or not at all —
// though f, rating the forest, waited longest of the candidates.
func TestFlexMatchMultiMapGame(t *testing.T) {
	p := imported(t, "flexmatch", "multi_map_game.json")
	in := func(id string, created, exp float64, maps map[string]float64) player {
		return player{id: id, created: created, attrs: map[string]cupid.Value{
			"experience": num(exp), "gameMode": cupid.Strings("coop"), "mapPreference": cupid.Numbers(maps)}}
	}
	addAll(t, p,
		in("a", 0, 50, map[string]float64{"castle": 90, "forest": 10}),
		in("f", 1, 50, map[string]float64{"forest": 100, "castle": 5}),
		in("e", 2, 90, map[string]float64{"castle": 50}),
		in("b", 3, 50, map[string]float64{"castle": 80}),
		in("h", 4, 50, map[string]float64{"desert": 100}),
		in("c", 5, 50, map[string]float64{"castle": 70}),
		in("d", 6, 50, map[string]float64{"castle": 60}),
		in("g", 7, 50, map[string]float64{"castle": 55}),
		in("i", 8, 50, map[string]float64{"castle": 50}),
	)
	got := teamsOf(p.Step(at(10)))
	if len(got) != 1 {
		t.Fatalf("%d matches, want one", len(got))
	}
	var ids []string
	for _, team := range got[0] {
		ids = append(ids, team...)
	}
	slices.Sort(ids)
	if want := []string{"a", "b", "c", "d", "g", "i"}; !slices.Equal(ids, want) {
		t.Fatalf("match %v, want %v: the castle's best raters, i before e on experience", ids, want)
	}
}
