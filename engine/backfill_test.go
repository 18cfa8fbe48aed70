package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Backfill (backfill.go): waiting tickets join open sessions before new
// matches form, each judged at its own wait against the session's players.

const (
	bf4v4 = `"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 4, "player_max_number": 4}`
	bfMMR = `"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 50}],
		"flexing_rule": [{"duration": 30, "attribute": "mmr", "criteria": "distance", "reference": 200}]`
	bfRules = `{` + bf4v4 + `, ` + bfMMR + `}`
	bfDuel  = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}, ` + bfMMR + `}`
	bfRoles = `{` + bf4v4 + `, "roles": {"quotas": [
		{"name": "tank", "min": 1, "max": 1}, {"name": "healer", "min": 1, "max": 1}, {"name": "dps", "min": 1, "max": 3}]}}`
	bfLatency = `{` + bf4v4 + `, "region_latency_initial_range_ms": 50, "region_expansion_range_ms": 50,
		"region_expansion_rate_ms": 10000, "region_latency_max_ms": 200}`
	bfOptions = `{` + bf4v4 + `, ` + bfMMR + `, "match_options": {"options": [{"name": "map", "type": "all"}]},
		"match_options_referred_for_backfill": true}`
	bfClans = `{` + bf4v4 + `, "comparison_rule": [{"attribute": "clan", "operator": "!="}]}`
)

// spl is a session player with an mmr.
func spl(id string, mmr float64) cupid.Player {
	return cupid.Player{ID: id, Attributes: cupid.Attributes{{Name: "mmr", Value: cupid.Number(mmr)}}}
}

// team makes a session team of players with the given mmrs and free seats.
func team(prefix string, free int, mmrs ...float64) SessionTeam {
	st := SessionTeam{Free: free}
	for i, v := range mmrs {
		st.Players = append(st.Players, spl(fmt.Sprintf("%s%d", prefix, i), v))
	}
	return st
}

// sess makes a session opened at sec.
func sess(id string, sec float64, teams ...SessionTeam) Session {
	return Session{ID: id, Opened: at(sec), Teams: teams}
}

// withAttr sets an attribute on every player of a session.
func withAttr(s Session, name string, v cupid.Value) Session {
	for _, tm := range s.Teams {
		for i := range tm.Players {
			tm.Players[i].Attributes.Set(name, v)
		}
	}
	return s
}

// describe renders proposals as matchIDs does, a backfill prefixed with its
// session: "S=a|b+c".
func describe(props []Proposal) []string {
	ids := matchIDs(props)
	for i, pr := range props {
		if pr.SessionID != "" {
			ids[i] = pr.SessionID + "=" + ids[i]
		}
	}
	return ids
}

type bfCase struct {
	name     string
	rules    string
	sessions []Session
	tickets  []*tb
	steps    []float64
	want     []string
}

func runBackfill(t *testing.T, tc bfCase) *Pool {
	t.Helper()
	p := newPool(t, tc.rules)
	for _, b := range tc.tickets {
		b.add(t, p)
	}
	for _, s := range tc.sessions {
		if err := p.OpenSession(s); err != nil {
			t.Fatalf("open %s: %v", s.ID, err)
		}
	}
	var got []string
	for _, s := range tc.steps {
		for _, m := range describe(p.Step(at(s))) {
			got = append(got, strconv.FormatFloat(s, 'g', -1, 64)+": "+m)
		}
	}
	if !reflect.DeepEqual(got, tc.want) {
		t.Errorf("proposals = %q, want %q", got, tc.want)
	}
	return p
}

func TestBackfill(t *testing.T) {
	// A 4v4 missing one player in its second team; mean mmr 1000.
	missingOne := sess("S", 0, team("x", 0, 990, 1000, 1010, 1000), team("y", 1, 995, 1005, 1000))
	for _, tc := range []bfCase{
		{
			name:     "the closest acceptable single fills the seat",
			rules:    bfRules,
			sessions: []Session{missingOne},
			tickets: []*tb{
				ticket("far", 0).num("mmr", 1100), // beyond 50 of the session's players
				ticket("old", 0).num("mmr", 1030),
				ticket("near", 1).num("mmr", 1002),
				ticket("mid", 1).num("mmr", 985),
			},
			steps: []float64{2},
			want:  []string{"2: S=|near"},
		},
		{
			name:     "equal distance: the older first",
			rules:    bfRules,
			sessions: []Session{missingOne},
			tickets:  []*tb{ticket("young", 1).num("mmr", 1010), ticket("old", 0).num("mmr", 990)},
			steps:    []float64{2},
			want:     []string{"2: S=|old"},
		},
		{
			name:     "never a new_session_only ticket",
			rules:    bfRules,
			sessions: []Session{missingOne},
			tickets: []*tb{
				func() *tb {
					b := ticket("fresh", 0).num("mmr", 1000)
					b.t.Attributes.Set("new_session_only", cupid.Bool(true))
					return b
				}(),
				func() *tb {
					b := ticket("ok", 0).num("mmr", 1020)
					b.t.Attributes.Set("new_session_only", cupid.Bool(false))
					return b
				}(),
			},
			steps: []float64{2},
			want:  []string{"2: S=|ok"},
		},
		{
			name:  "a party is not split across two teams with a seat each",
			rules: bfRules,
			sessions: []Session{sess("S", 0, team("x", 1, 1000, 1000, 1000),
				team("y", 1, 1000, 1000, 1000))},
			tickets: []*tb{ticket("duo", 0).party(2).num("mmr", 1000)},
			steps:   []float64{2},
		},
		{
			name:     "a party goes whole into the team with the seats",
			rules:    bfRules,
			sessions: []Session{sess("S", 0, team("x", 1, 1000, 1000, 1000), team("y", 2, 1000, 1000))},
			tickets:  []*tb{ticket("duo", 0).party(2).num("mmr", 1000), ticket("solo", 1).num("mmr", 1000)},
			steps:    []float64{2},
			want:     []string{"2: S=solo|duo"},
		},
		{
			name:     "several tickets in one step, partial fill",
			rules:    bfRules,
			sessions: []Session{sess("S", 0, team("x", 2, 1000, 1000), team("y", 2, 1000, 1000))},
			tickets:  []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 0).num("mmr", 1010), ticket("c", 0).num("mmr", 1020)},
			steps:    []float64{2},
			// Teams with the most free seats first: a to x, b to y, c to x.
			want: []string{"2: S=a+c|b"},
		},
		{
			name:     "equal seats: the team the newcomer evens out",
			rules:    bfRules,
			sessions: []Session{sess("S", 0, team("x", 1, 1050, 1050, 1050), team("y", 1, 1000, 1000, 1000))},
			// In y the averages end 1050 and 1010; in x, 1047.5 and 1000.
			tickets: []*tb{ticket("a", 0).num("mmr", 1040)},
			steps:   []float64{2},
			want:    []string{"2: S=|a"},
		},
		{
			name:  "the oldest open session first",
			rules: bfRules,
			sessions: []Session{
				sess("new", 5, team("x", 0, 1000, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1000)),
				sess("old", 1, team("x", 0, 1000, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1000)),
			},
			tickets: []*tb{ticket("a", 0).num("mmr", 1000)},
			steps:   []float64{6},
			want:    []string{"6: old=|a"},
		},
		{
			name:     "backfill before a new match",
			rules:    bfDuel,
			sessions: []Session{sess("S", 0, team("x", 0, 1000), team("y", 1))},
			tickets:  []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 0).num("mmr", 1005)},
			steps:    []float64{1, 2},
			want:     []string{"1: S=|a"},
		},
		{
			name:     "the tickets the sessions leave form new matches in the same step",
			rules:    bfDuel,
			sessions: []Session{sess("S", 0, team("x", 0, 1000), team("y", 1))},
			tickets:  []*tb{ticket("a", 0).num("mmr", 1000), ticket("b", 0).num("mmr", 1005), ticket("c", 0).num("mmr", 1010)},
			steps:    []float64{1},
			want:     []string{"1: S=|a", "1: b|c"},
		},
		{
			name:     "distance against the session's players flexes with the candidate's wait",
			rules:    bfRules,
			sessions: []Session{sess("S", 0, team("x", 0, 950, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1050))},
			// 1080 is 130 from 950: refused at 50, taken once its
			// reference reaches 200 (30 s).
			tickets: []*tb{ticket("a", 0).num("mmr", 1080)},
			steps:   []float64{1, 29, 31},
			want:    []string{"31: S=|a"},
		},
		{
			name:  "latency: the candidate must reach the session's region at its wait",
			rules: bfLatency,
			sessions: []Session{func() Session {
				s := sess("S", 0, team("x", 0, 0, 0, 0, 0), team("y", 1, 0, 0, 0))
				s.Region = "eu"
				return s
			}()},
			tickets: []*tb{
				ticket("us", 0).lat("us", 20, "eu", 120),   // eu within reach after 2 expansions (20 s)
				ticket("eu", 5).lat("eu", 40, "us", 120),   // reaches eu at once
				ticket("far", 0).lat("us", 10, "eu", 1000), // never
			},
			steps: []float64{6},
			want:  []string{"6: S=|eu"},
		},
		{
			name:  "latency: a candidate whose range grows joins later",
			rules: bfLatency,
			sessions: []Session{func() Session {
				s := sess("S", 0, team("x", 0, 0, 0, 0, 0), team("y", 1, 0, 0, 0))
				s.Region = "eu"
				return s
			}()},
			tickets: []*tb{ticket("us", 0).lat("us", 20, "eu", 120)},
			steps:   []float64{1, 15, 21},
			want:    []string{"21: S=|us"},
		},
		{
			name:  "options only: distance is not judged, options are",
			rules: bfOptions,
			sessions: []Session{func() Session {
				s := sess("S", 0, team("x", 0, 1000, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1000))
				s.OptionsOnly, s.MatchOptions = true, map[string]any{"map": "city"}
				return s
			}()},
			tickets: []*tb{
				ticket("wrongmap", 0).num("mmr", 1000).opt("map", "port"),
				ticket("far", 1).num("mmr", 2000).opt("map", "city"),
			},
			steps: []float64{2},
			want:  []string{"2: S=|far"},
		},
		{
			name:  "without options only, distance is judged too",
			rules: bfOptions,
			sessions: []Session{func() Session {
				s := sess("S", 0, team("x", 0, 1000, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1000))
				s.MatchOptions = map[string]any{"map": "city"}
				return s
			}()},
			tickets: []*tb{
				ticket("wrongmap", 0).num("mmr", 1000).opt("map", "port"),
				ticket("far", 1).num("mmr", 2000).opt("map", "city"),
				ticket("near", 1).num("mmr", 1010).opt("map", "city"),
			},
			steps: []float64{2},
			want:  []string{"2: S=|near"},
		},
		{
			name:  "options read from the players when the session names none",
			rules: bfOptions,
			sessions: []Session{func() Session {
				s := sess("S", 0, team("x", 0, 1000, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1000))
				for i := range s.Teams[0].Players {
					s.Teams[0].Players[i].Attributes.Set("map", cupid.String("port"))
				}
				return s
			}()},
			tickets: []*tb{
				ticket("city", 0).num("mmr", 1000).opt("map", "city"),
				ticket("port", 1).num("mmr", 1040).opt("map", "port"),
			},
			steps: []float64{2},
			want:  []string{"2: S=|port"},
		},
		{
			name:  "options only: a session spread wider than any distance still takes players",
			rules: bfOptions,
			sessions: []Session{func() Session {
				s := sess("S", 0, team("x", 0, 500, 1500, 500, 1500), team("y", 1, 1000, 1000, 1000))
				s.OptionsOnly, s.MatchOptions = true, map[string]any{"map": []any{"city"}}
				return s
			}()},
			tickets: []*tb{ticket("a", 0).num("mmr", 1000).opt("map", "city")},
			steps:   []float64{1},
			want:    []string{"1: S=|a"},
		},
		{
			name:     "tickets taken in one step are judged with each other",
			rules:    `{` + bf4v4 + `, "matching_rule": [{"attribute": "mmr", "criteria": "spread", "reference": 50}]}`,
			sessions: []Session{sess("S", 0, team("x", 1, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1000))},
			// Each is within 50 of the session alone; together they
			// spread 80.
			tickets: []*tb{ticket("lo", 1).num("mmr", 960), ticket("hi", 0).num("mmr", 1040)},
			steps:   []float64{2},
			want:    []string{"2: S=hi|"},
		},
		{
			name:     "= holds across the session",
			rules:    `{` + bf4v4 + `, "comparison_rule": [{"attribute": "game_version", "operator": "="}]}`,
			sessions: []Session{withAttr(sess("S", 0, team("x", 0, 0, 0, 0, 0), team("y", 1, 0, 0, 0)), "game_version", cupid.String("1.2"))},
			tickets:  []*tb{ticket("old", 0).str("game_version", "1.1"), ticket("same", 1).str("game_version", "1.2")},
			steps:    []float64{2},
			want:     []string{"2: S=|same"},
		},
		{
			name:  "cross-play both ways with the session's players",
			rules: `{` + bf4v4 + `, "cross_play": {}}`,
			sessions: []Session{withAttr(withAttr(sess("S", 0, team("x", 0, 0, 0, 0, 0), team("y", 1, 0, 0, 0)),
				"current_platform", cupid.String("pc")), "cross_platform", cupid.Strings("pc"))},
			tickets: []*tb{
				ticket("ps5", 0).str("current_platform", "ps5").list("cross_platform", "ps5", "pc"),
				ticket("pc", 1).str("current_platform", "pc").list("cross_platform", "pc", "ps5"),
			},
			steps: []float64{2},
			want:  []string{"2: S=|pc"},
		},
		{
			name:  "a collection shared with the session's players",
			rules: `{` + bf4v4 + `, "collection_rule": [{"attribute": "languages", "operation": "intersection", "min_count": 1}]}`,
			sessions: []Session{withAttr(sess("S", 0, team("x", 0, 0, 0, 0, 0), team("y", 1, 0, 0, 0)),
				"languages", cupid.Strings("en", "fr"))},
			tickets: []*tb{ticket("de", 0).list("languages", "de"), ticket("fr", 1).list("languages", "de", "fr")},
			steps:   []float64{2},
			want:    []string{"2: S=|fr"},
		},
		{
			name:  "!= across teams: a clanmate never joins the other side",
			rules: bfClans,
			sessions: []Session{func() Session {
				s := sess("S", 0, team("x", 1, 0, 0, 0), team("y", 1, 0, 0, 0))
				for i := range s.Teams[0].Players {
					s.Teams[0].Players[i].Attributes.Set("clan", cupid.String("red"))
					s.Teams[1].Players[i].Attributes.Set("clan", cupid.String("blue"))
				}
				return s
			}()},
			tickets: []*tb{ticket("r1", 0).str("clan", "red"), ticket("r2", 1).str("clan", "red")},
			steps:   []float64{2},
			// r1 goes to x (its clan's side); r2 could only go to y.
			want: []string{"2: S=r1|"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { runBackfill(t, tc) })
	}
}

func TestBackfillRoles(t *testing.T) {
	// A team with a tank and a dps and two seats: a healer is still
	// needed (min 1), so only one more dps can come.
	withRoles := func(s Session, roles ...string) Session {
		s.Roles = map[string]string{}
		i := 0
		for _, tm := range s.Teams {
			for _, pl := range tm.Players {
				s.Roles[pl.ID] = roles[i]
				i++
			}
		}
		return s
	}
	for _, tc := range []bfCase{
		{
			name: "the free seats keep room for the missing healer",
			sessions: []Session{withRoles(sess("S", 0, team("x", 2, 0, 0), team("y", 0, 0, 0, 0, 0)),
				"tank", "dps", "tank", "healer", "dps", "dps")},
			tickets: []*tb{
				ticket("d1", 0).list("role", "dps"),
				ticket("d2", 1).list("role", "dps"),
				ticket("h", 2).list("role", "healer"),
			},
			steps: []float64{3},
			want:  []string{"3: S=d1+h|"},
		},
		{
			name: "a role at its maximum takes nobody more",
			sessions: []Session{withRoles(sess("S", 0, team("x", 1, 0, 0, 0), team("y", 0, 0, 0, 0, 0)),
				"tank", "healer", "dps", "tank", "healer", "dps", "dps")},
			tickets: []*tb{
				ticket("t", 0).list("role", "tank"),
				ticket("flex", 1).list("role", "tank", "dps"),
			},
			steps: []float64{3},
			want:  []string{"3: S=flex|"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.rules = bfRoles
			p := runBackfill(t, tc)
			_ = p
		})
	}
	// The newcomer's role is in the proposal.
	p := newPool(t, bfRoles)
	ticket("flex", 0).list("role", "tank", "dps").add(t, p)
	s := withRoles(sess("S", 0, team("x", 1, 0, 0, 0), team("y", 0, 0, 0, 0, 0)), "tank", "healer", "dps", "tank", "healer", "dps", "dps")
	if err := p.OpenSession(s); err != nil {
		t.Fatal(err)
	}
	props := p.Step(at(1))
	if len(props) != 1 || props[0].Roles["flex.p0"] != "dps" || len(props[0].Roles) != 1 {
		t.Fatalf("proposals = %+v", props)
	}
}

func TestBackfillReturnAndReopen(t *testing.T) {
	p := newPool(t, bfRules)
	a := ticket("a", 0).num("mmr", 1000).add(t, p)
	s := sess("S", 0, team("x", 0, 1000, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1000))
	if err := p.OpenSession(s); err != nil {
		t.Fatal(err)
	}
	props := p.Step(at(10))
	if got := describe(props); !reflect.DeepEqual(got, []string{"S=|a"}) {
		t.Fatalf("proposals = %q", got)
	}
	pr := &props[0]
	if pr.Len() != 1 || !pr.CreatedAt(0).Equal(a.CreatedAt) || pr.Match().CreatedAt != at(10) || pr.Match().ID != "" {
		t.Fatalf("proposal = %+v", pr)
	}
	if len(pr.Match().Teams) != 2 || len(pr.Match().Teams[0].TicketIDs) != 0 || pr.Match().Teams[1].PlayerIDs[0] != "a.p0" {
		t.Fatalf("teams = %+v", pr.Match().Teams)
	}
	if q := pr.Quality; q.Score <= 0 || q.Score > 1 {
		t.Fatalf("quality = %+v", q)
	}
	// While the proposal is out, the session is not open: nothing more
	// is proposed for it.
	if p.Sessions() != 0 || p.Contains("a") {
		t.Fatalf("sessions %d, a waiting %v", p.Sessions(), p.Contains("a"))
	}
	ticket("b", 11).num("mmr", 1000).add(t, p)
	if got := describe(p.Step(at(12))); len(got) != 0 {
		t.Fatalf("proposals with the session out = %q", got)
	}
	// The commit failed: the ticket comes back with its age and the
	// service opens the session again, unchanged.
	if refused := p.Return(pr.Tickets()); len(refused) != 0 {
		t.Fatal(refused)
	}
	if created, _, ok := p.Times("a"); !ok || created != a.CreatedAt.UnixNano() {
		t.Fatalf("a back: created %d ok %v", created, ok)
	}
	if err := p.OpenSession(s); err != nil {
		t.Fatal(err)
	}
	if wake, ok := p.NextWake(at(13)); !ok || !wake.Equal(at(13)) {
		t.Fatalf("NextWake = %v %v, want now", wake, ok)
	}
	// Equal distance: a, the older, is taken again.
	if got := describe(p.Step(at(13))); !reflect.DeepEqual(got, []string{"S=|a"}) {
		t.Fatalf("proposals after Return = %q", got)
	}
}

func TestBackfillCloseSession(t *testing.T) {
	p := newPool(t, bfDuel)
	if err := p.OpenSession(sess("S", 0, team("x", 0, 1000), team("y", 1))); err != nil {
		t.Fatal(err)
	}
	if p.Sessions() != 1 || !p.CloseSession("S") || p.CloseSession("S") || p.Sessions() != 0 {
		t.Fatalf("close: sessions %d", p.Sessions())
	}
	ticket("a", 0).num("mmr", 1000).add(t, p)
	if got := describe(p.Step(at(1))); len(got) != 0 {
		t.Fatalf("proposals after close = %q", got)
	}
	// Removing a ticket and replacing a session behave as usual.
	if err := p.OpenSession(sess("S", 0, team("x", 0, 1000), team("y", 1))); err != nil {
		t.Fatal(err)
	}
	if err := p.OpenSession(sess("S", 0, team("x", 0, 5000), team("y", 1))); err != nil {
		t.Fatal(err)
	}
	if p.Sessions() != 1 {
		t.Fatalf("sessions after replace = %d", p.Sessions())
	}
	if got := describe(p.Step(at(2))); len(got) != 0 {
		t.Fatalf("the replaced session (mmr 5000) took a: %q", got)
	}
	if !p.Remove("a") {
		t.Fatal("remove")
	}
}

func TestOpenSessionErrors(t *testing.T) {
	ok := func() Session { return sess("S", 0, team("x", 0, 1000), team("y", 1)) }
	for _, tc := range []struct {
		name, rules, field, msg string
		edit                    func(*Session)
	}{
		{"no id", bfDuel, "id", "required", func(s *Session) { s.ID = "" }},
		{"one team too few", bfDuel, "teams", "1 teams", func(s *Session) { s.Teams = s.Teams[:1] }},
		{"negative free", bfDuel, "teams[1].free", "negative", func(s *Session) { s.Teams[1].Free = -1 }},
		{"no free seat", bfDuel, "teams", "no free seat", func(s *Session) { s.Teams[1].Free = 0 }},
		{"team over max", bfDuel, "teams[0]", "largest team", func(s *Session) { s.Teams[0].Free = 1 }},
		{"player without id", bfDuel, "teams[0].players[0].id", "required", func(s *Session) { s.Teams[0].Players[0].ID = "" }},
		{"player twice", bfRules, "teams[1].players[0].id", "twice", func(s *Session) {
			s.Teams[1].Players = append(s.Teams[1].Players, s.Teams[0].Players[0])
		}},
		{"mmr not a number", bfDuel, "teams[0].players[0].attributes.mmr", "finite number", func(s *Session) {
			s.Teams[0].Players[0].Attributes.Set("mmr", cupid.String("high"))
		}},
		{"no region", bfLatency, "region", "required", func(s *Session) {
			s.Teams = []SessionTeam{team("x", 0, 0, 0, 0, 0), team("y", 1, 0, 0, 0)}
		}},
		{"option not a string", bfOptions, "match_options.map", "string", func(s *Session) {
			s.Teams = []SessionTeam{team("x", 0, 0, 0, 0, 0), team("y", 1, 0, 0, 0)}
			s.MatchOptions = map[string]any{"map": 3}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, tc.rules)
			s := ok()
			tc.edit(&s)
			err := p.OpenSession(s)
			ce, isCupid := asCupidError(err)
			if !isCupid || ce.Code != cupid.CodeInvalid || ce.Field != tc.field || !strings.Contains(ce.Message, tc.msg) {
				t.Fatalf("error = %v, want field %q containing %q", err, tc.field, tc.msg)
			}
			if p.Sessions() != 0 {
				t.Fatal("a refused session is open")
			}
		})
	}
}

func TestBackfillDeterministic(t *testing.T) {
	run := func() []string {
		p := newPool(t, bfRules)
		for i := range 40 {
			ticket(fmt.Sprintf("t%02d", i), float64(i%7)).num("mmr", float64(900+(i*37)%200)).add(t, p)
		}
		for i := range 6 {
			s := sess(fmt.Sprintf("S%d", i), float64(i%3), team("x", i%3, 1000, 1000), team("y", 1+i%2, 950, 1050))
			if err := p.OpenSession(s); err != nil {
				t.Fatal(err)
			}
		}
		var out []string
		for _, sec := range []float64{10, 20, 40} {
			for _, pr := range p.Step(at(sec)) {
				out = append(out, fmt.Sprintf("%s %s %.6f", pr.SessionID, describe([]Proposal{pr})[0], pr.Quality.Score))
			}
		}
		return out
	}
	first := run()
	if len(first) == 0 {
		t.Fatal("nothing proposed")
	}
	for range 3 {
		if again := run(); !reflect.DeepEqual(again, first) {
			t.Fatalf("run differs:\n%q\n%q", again, first)
		}
	}
}

func TestBackfillSetRulesetKeepsSessions(t *testing.T) {
	p := newPool(t, bfRules)
	if err := p.OpenSession(sess("S", 0, team("x", 0, 1000, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1000))); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SetRuleset(load(t, bfRules)); err != nil {
		t.Fatal(err)
	}
	if got := p.SessionIDs(); !reflect.DeepEqual(got, []string{"S"}) {
		t.Fatalf("sessions after SetRuleset = %q", got)
	}
	// A ruleset of 1v1 cannot hold a 4v4 session: it is closed.
	if _, err := p.SetRuleset(load(t, bfDuel)); err != nil {
		t.Fatal(err)
	}
	if p.Sessions() != 0 {
		t.Fatalf("sessions after a 1v1 ruleset = %q", p.SessionIDs())
	}
}

func TestBackfillWakesAlone(t *testing.T) {
	// One player waiting is too few for a 4v4, but may join a session when
	// its distance widens: NextWake must name that moment.
	p := newPool(t, bfRules)
	ticket("a", 0).num("mmr", 1080).add(t, p)
	if _, ok := p.NextWake(at(1)); ok {
		t.Fatal("a lone player woke a pool without sessions")
	}
	if err := p.OpenSession(sess("S", 0, team("x", 0, 950, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1050))); err != nil {
		t.Fatal(err)
	}
	if got := p.Step(at(1)); len(got) != 0 {
		t.Fatalf("proposals = %q", describe(got))
	}
	if wake, ok := p.NextWake(at(1)); !ok || !wake.Equal(at(30)) {
		t.Fatalf("NextWake = %v %v, want %v", wake, ok, at(30))
	}
	if got := describe(p.Step(at(30))); !reflect.DeepEqual(got, []string{"S=|a"}) {
		t.Fatalf("proposals at 30 s = %q", got)
	}
}

// benchSessions opens n sessions of a 4v4 with one or two free seats, their
// players around mmrs spread over the population's, each team's players
// spread ±spread/2.
func benchSessions(b *testing.B, p *Pool, n int, spread float64) {
	b.Helper()
	for i := range n {
		center := 1500 + float64((i*7919)%1600) - 800
		s := Session{ID: fmt.Sprintf("s%05d", i), Opened: t0.Add(-time.Duration(i) * time.Millisecond)}
		for tm := range 2 {
			free := 0
			if tm == i%2 {
				free = 1 + i%3/2
			}
			st := SessionTeam{Free: free}
			for k := range 4 - free {
				v := center - spread/2
				if k%2 == 1 {
					v = center + spread/2
				}
				st.Players = append(st.Players, spl(fmt.Sprintf("s%05d.%d.%d", i, tm, k), v))
			}
			s.Teams = append(s.Teams, st)
		}
		if err := p.OpenSession(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBackfill1000x100k measures the backfill pass of one Step: 1,000
// sessions opened (each searched whole) over 100,000 waiting tickets, and,
// as "news-ns", a later pass in which the sessions left open are searched
// only against 100 new tickets. "near": sessions of players 30 apart, most
// find their newcomers among the nearest tickets; "young": players 200
// apart and every ticket just created (allowed 50), so no ticket could
// join, which the search sees without looking at any; "refused": as near,
// but every ticket is new_session_only, so each whole search looks at every
// ticket of its window, up to ScanLimit — the worst case.
func BenchmarkBackfill1000x100k(b *testing.B) {
	for _, shape := range []struct {
		name   string
		spread float64
		age    time.Duration // the tickets' creation spread before now
		refuse bool          // every ticket new_session_only
	}{{"near", 30, time.Minute, false}, {"young", 200, 0, false}, {"refused", 30, time.Minute, true}} {
		b.Run(shape.name, func(b *testing.B) { benchBackfill(b, shape.spread, shape.age, shape.refuse) })
	}
}

func benchBackfill(b *testing.B, spread float64, age time.Duration, refuse bool) {
	c := load(b, `{`+bf4v4+`, `+bfMMR+`}`)
	tickets := gen1v1(100_000, t0, 42)
	for k, t := range tickets {
		t.CreatedAt = t0.Add(-age + time.Duration(k)*age/time.Duration(len(tickets)))
		if refuse {
			t.Attributes = cupid.Attributes{{Name: "new_session_only", Value: cupid.Bool(true)}}
		}
	}
	fresh := gen1v1(100, t0, 7)
	var taken, seats, scanned, newsNs float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p, err := New(testKey, c, Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range tickets {
			if err := p.Add(t); err != nil {
				b.Fatal(err)
			}
		}
		p.flush()
		p.sortOrder()
		benchSessions(b, p, 1000, spread)
		seats = 0
		for _, bs := range p.bf.open {
			for _, tm := range bs.teams {
				seats += float64(tm.free)
			}
		}
		scanned0 := p.stats.Scanned
		b.StartTimer()
		props := p.backfillPass(t0, nil)
		b.StopTimer()
		scanned = float64(p.stats.Scanned - scanned0)
		taken = 0
		for k := range props {
			taken += float64(props[k].Len())
		}
		// Later: the sessions left open were searched; 100 tickets
		// arrive, and only they are tried.
		p.bf.dirty = 0
		for _, bs := range p.bf.open {
			bs.dirty = false
		}
		for _, s := range p.dirty {
			p.entries[s].dirty = dirtyNone
		}
		p.dirty = p.dirty[:0]
		for k, t := range fresh {
			t2 := *t
			t2.ID = fmt.Sprintf("n%03d", k)
			t2.CreatedAt = t0.Add(time.Second)
			if err := p.Add(&t2); err != nil {
				b.Fatal(err)
			}
		}
		p.flush()
		p.sortOrder()
		start := time.Now()
		p.backfillPass(t0.Add(2*time.Second), nil)
		newsNs += float64(time.Since(start))
	}
	b.ReportMetric(seats, "seats")
	b.ReportMetric(taken, "tickets-taken")
	b.ReportMetric(scanned/1000, "scanned/session")
	b.ReportMetric(newsNs/float64(b.N), "news-ns")
}

// TestBackfillProperty runs random sessions and tickets through several
// Steps and checks every backfill with an oracle that reads the ruleset
// directly: seats, whole parties, new_session_only, the distance of each
// newcomer (at its own wait) from every player already in the session, its
// latency to the session's region. After every Step, a session still open
// has no ticket that could have joined it alone (backfill comes before new
// matches, so the tickets those took count too). And a twin pool, in which
// every open session is opened again before each Step and so searched whole,
// proposes exactly the same: the search of a session against the news alone
// misses nothing a whole search would find.
func TestBackfillProperty(t *testing.T) {
	const rules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 3, "player_max_number": 3},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 40}],
		"flexing_rule": [{"duration": 20, "attribute": "mmr", "criteria": "distance", "reference": 120},
			{"duration": 40, "attribute": "mmr", "criteria": "distance", "reference": 300}],
		"region_latency_initial_range_ms": 40, "region_expansion_range_ms": 40, "region_expansion_rate_ms": 10000,
		"region_latency_max_ms": 160}`
	c := load(t, rules)
	regions := []string{"eu", "us"}
	backfills, later, leftOpen := 0, 0, 0
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 99))
		p, err := New(testKey, c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		twin, err := New(testKey, c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		open := map[string]Session{}
		tickets := map[string]*cupid.Ticket{}
		now := 0.0
		for step := range 20 {
			// Many tickets first, spread wide so that most wait, then a
			// few at a time: sessions left open are searched against
			// the news alone.
			arrivals, spread := 1+rng.IntN(3), 400.0
			if step == 0 {
				arrivals, spread = 80, 1000
			}
			for i := range arrivals {
				id := fmt.Sprintf("t%d.%d", step, i)
				b := ticket(id, now-rng.Float64()*30).party(1+rng.IntN(2)).num("mmr", 1000+(rng.Float64()-0.5)*spread)
				b.lat(regions[0], 10+rng.IntN(150), regions[1], 10+rng.IntN(150))
				if rng.IntN(5) == 0 {
					b.t.Attributes.Set("new_session_only", cupid.Bool(true))
				}
				b.add(t, p)
				b.add(t, twin)
				tickets[id] = b.t
			}
			for i := range rng.IntN(3) {
				s := Session{ID: fmt.Sprintf("s%d.%d", step, i), Opened: at(now), Region: regions[rng.IntN(2)]}
				for tm := range 2 {
					free := rng.IntN(3)
					if tm == 1 && s.Teams[0].Free == 0 && free == 0 {
						free = 1
					}
					st := SessionTeam{Free: free}
					for k := range 3 - free {
						st.Players = append(st.Players, spl(fmt.Sprintf("%s.%d.%d", s.ID, tm, k), 950+rng.Float64()*100))
					}
					s.Teams = append(s.Teams, st)
				}
				if err := p.OpenSession(s); err != nil {
					t.Fatal(err)
				}
				open[s.ID] = s
			}
			for _, s := range open {
				if err := twin.OpenSession(s); err != nil {
					t.Fatal(err)
				}
			}
			now += rng.Float64() * 6
			waiting := p.Tickets()
			props := p.Step(at(now))
			if got, want := describe(props), describe(twin.Step(at(now))); !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d step %d: proposals %q, searching every session whole %q", seed, step, got, want)
			}
			seen := map[string]bool{}
			backfilled := map[string]bool{}
			for _, pr := range props {
				for _, id := range pr.TicketIDs() {
					if seen[id] || p.Contains(id) {
						t.Fatalf("seed %d: ticket %s proposed twice or still waiting", seed, id)
					}
					seen[id] = true
				}
				if pr.SessionID == "" {
					continue
				}
				s, ok := open[pr.SessionID]
				if !ok {
					t.Fatalf("seed %d: proposal for %q, not open", seed, pr.SessionID)
				}
				delete(open, pr.SessionID)
				for _, id := range pr.TicketIDs() {
					backfilled[id] = true
				}
				backfills++
				if s.Opened.Before(at(now)) && !strings.HasPrefix(pr.SessionID, fmt.Sprintf("s%d.", step)) {
					later++
				}
				checkBackfill(t, seed, c, s, pr, tickets, at(now))
			}
			if p.Sessions() != len(open) {
				t.Fatalf("seed %d: %d sessions open, want %d", seed, p.Sessions(), len(open))
			}
			leftOpen += len(open)
			for _, s := range open {
				for _, w := range waiting {
					if backfilled[w.ID] {
						continue
					}
					if could, why := oracleJoins(c, s, w, at(now)); could {
						t.Fatalf("seed %d step %d: session %s stayed open, but %s could join it (%s)", seed, step, s.ID, w.ID, why)
					}
				}
			}
		}
	}
	// The streams must exercise every outcome: sessions filled when
	// opened, filled later from the news, left open.
	if backfills < 100 || later < 50 || leftOpen < 100 {
		t.Fatalf("%d backfills (%d of sessions opened before), %d sessions left open: the test checks too little", backfills, later, leftOpen)
	}
}

// checkBackfill checks one backfill proposal against its session.
func checkBackfill(t *testing.T, seed uint64, c *ruleset.Compiled, s Session, pr Proposal, tickets map[string]*cupid.Ticket, now time.Time) {
	t.Helper()
	if len(pr.Match().Teams) != len(s.Teams) || pr.Region != s.Region || !pr.Match().CreatedAt.Equal(now) {
		t.Fatalf("seed %d: proposal %+v for session %+v", seed, pr.Match(), s)
	}
	for ti, tm := range pr.Match().Teams {
		players := 0
		for _, id := range tm.TicketIDs {
			tk := tickets[id]
			players += len(tk.Players)
			for _, pl := range tk.Players {
				if !slices.Contains(tm.PlayerIDs, pl.ID) {
					t.Fatalf("seed %d: party %s split", seed, id)
				}
			}
			if ok, why := oracleJoins(c, SessionWithFree(s, ti, len(tk.Players)), tk, now); !ok {
				t.Fatalf("seed %d: %s joined %s but %s", seed, id, s.ID, why)
			}
		}
		if players != len(tm.PlayerIDs) || players > s.Teams[ti].Free {
			t.Fatalf("seed %d: team %d of %s got %d players for %d seats", seed, ti, s.ID, players, s.Teams[ti].Free)
		}
	}
}

// SessionWithFree is s with only team ti open, n seats.
func SessionWithFree(s Session, ti, n int) Session {
	out := s
	out.Teams = slices.Clone(s.Teams)
	for i := range out.Teams {
		out.Teams[i].Free = 0
	}
	out.Teams[ti].Free = n
	return out
}

// oracleJoins says whether ticket w alone could join session s at now,
// reading the compiled ruleset: not new_session_only, a team with the
// seats, its party's mean mmr within its own flexed distance of every
// session player, the session's region within its own latency range.
func oracleJoins(c *ruleset.Compiled, s Session, w *cupid.Ticket, now time.Time) (bool, string) {
	if v, ok := w.Attributes.Get("new_session_only"); ok && v.Bool {
		return false, "it is new_session_only"
	}
	fits := false
	for _, tm := range s.Teams {
		fits = fits || tm.Free >= len(w.Players)
	}
	if !fits {
		return false, "no team has the seats"
	}
	wait := now.Sub(w.CreatedAt)
	ref := c.ReferenceAt(0, wait)
	mean := 0.0
	for _, pl := range w.Players {
		mean += attrOf(pl.Attributes, "mmr").Number
	}
	mean /= float64(len(w.Players))
	for _, tm := range s.Teams {
		for _, pl := range tm.Players {
			if d := math.Abs(attrOf(pl.Attributes, "mmr").Number - mean); d > ref {
				return false, fmt.Sprintf("mmr %.1f is %.1f from %s, allowed %.0f", mean, d, pl.ID, ref)
			}
		}
	}
	if ms, ok := w.Latencies[s.Region]; !ok || int(ms) > c.Latency.RangeAt(wait) {
		return false, fmt.Sprintf("latency %d to %s beyond %d", ms, s.Region, c.Latency.RangeAt(wait))
	}
	return true, "it fits"
}

func TestBackfillQuality(t *testing.T) {
	// The score judges the teams as they will play: the session's players
	// and the newcomer together. Team y's average becomes 1010 against x's
	// 1000: a gap of a fifth of the reference (50).
	p := newPool(t, bfRules)
	ticket("a", 0).num("mmr", 1040).add(t, p)
	if err := p.OpenSession(sess("S", 0, team("x", 0, 1000, 1000, 1000, 1000), team("y", 1, 1000, 1000, 1000))); err != nil {
		t.Fatal(err)
	}
	props := p.Step(at(10))
	if len(props) != 1 {
		t.Fatalf("proposals = %q", describe(props))
	}
	q := props[0].Quality
	gap, ok := q.Parts.Get("skill_gap")
	if !ok || math.Abs(gap-0.8) > 1e-9 || q.Score <= 0 || q.Score >= 1 {
		t.Fatalf("quality = %+v, want skill_gap 0.8", q)
	}
	if st := p.Stats(); st.Formed != 1 || st.Backfills != 1 || st.QualitySum != q.Score {
		t.Fatalf("stats = %+v", st)
	}
}

func TestSessionPlayers(t *testing.T) {
	tk := ticket("a", 0).party(2).num("mmr", 1000, 1100).opt("map", "city").t
	tk.Players[1].Attributes.Set("map", cupid.String("port"))
	got := SessionPlayers(tk)
	if m := attrOf(got[0].Attributes, "map"); m.String != "city" {
		t.Errorf("player 0 map = %+v, want the ticket's city", m)
	}
	if m := attrOf(got[1].Attributes, "map"); m.String != "port" {
		t.Errorf("player 1 map = %+v, want its own port", m)
	}
	if attrOf(got[1].Attributes, "mmr").Number != 1100 {
		t.Errorf("player 1 lost its mmr: %+v", got[1].Attributes)
	}
	if _, ok := tk.Players[0].Attributes.Get("map"); ok {
		t.Error("the ticket's player was modified")
	}
	// A session of such players compares the options the tickets had.
	p := newPool(t, bfOptions)
	s := sess("S", 0, SessionTeam{Players: SessionPlayers(ticket("b", 0).party(3).num("mmr", 1000).opt("map", "city").t)},
		SessionTeam{Free: 1, Players: SessionPlayers(ticket("c", 0).party(3).num("mmr", 1000).opt("map", "city").t)})
	if err := p.OpenSession(s); err != nil {
		t.Fatal(err)
	}
	ticket("port", 0).num("mmr", 1000).opt("map", "port").add(t, p)
	ticket("city", 1).num("mmr", 1000).opt("map", "city").add(t, p)
	if got := describe(p.Step(at(2))); !reflect.DeepEqual(got, []string{"S=|city"}) {
		t.Fatalf("proposals = %q", got)
	}
}

// TestBackfillNewsFindWhatWholeFinds holds the search against the news to
// the whole search under many rules at once — roles, "any" options, "!="
// between teams, cross-play, a spread rule: a twin pool opens every session
// again before each Step, so it searches them all whole, and must propose
// exactly the same.
func TestBackfillNewsFindWhatWholeFinds(t *testing.T) {
	const rules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 4, "player_max_number": 4},
		"matching_rule": [{"attribute": "mmr", "criteria": "spread", "reference": 60, "is_for_balancing": true}],
		"flexing_rule": [{"duration": 15, "attribute": "mmr", "criteria": "spread", "reference": 200}],
		"match_options": {"options": [{"name": "map", "type": "any"}]},
		"comparison_rule": [{"attribute": "clan", "operator": "!="}],
		"cross_play": {},
		"roles": {"quotas": [{"name": "tank", "min": 1, "max": 1}, {"name": "dps", "min": 1, "max": 3}]}}`
	c := load(t, rules)
	maps := []string{"a", "b", "c"}
	clans := []string{"red", "blue", "green", "gold"}
	platforms := []string{"pc", "ps5"}
	roleSets := [][]string{{"tank"}, {"dps"}, {"dps", "tank"}}
	later := 0
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 7))
		p, err := New(testKey, c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		twin, err := New(testKey, c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		open := map[string]Session{}
		now := 0.0
		for step := range 20 {
			arrivals := rng.IntN(3)
			if step == 0 {
				arrivals = 60
			}
			for i := range arrivals {
				b := ticket(fmt.Sprintf("t%d.%d", step, i), now-rng.Float64()*20).party(1+rng.IntN(2)).
					num("mmr", 1000+(rng.Float64()-0.5)*600).
					list("map", maps[rng.IntN(3)], maps[rng.IntN(3)]).
					str("clan", clans[rng.IntN(len(clans))]).
					str("current_platform", platforms[rng.IntN(2)]).
					list("role", roleSets[rng.IntN(3)]...)
				if rng.IntN(2) == 0 {
					b.list("cross_platform", platforms...)
				} else {
					b.list("cross_platform", attrOf(b.t.Players[0].Attributes, "current_platform").String)
				}
				if p.Check(b.t) != nil {
					continue // a party the roles could never staff
				}
				b.add(t, p)
				b.add(t, twin)
			}
			for i := range rng.IntN(3) {
				s := Session{ID: fmt.Sprintf("s%d.%d", step, i), Opened: at(now), Roles: map[string]string{}}
				for tm := range 2 {
					free := 1 + rng.IntN(2)
					st := SessionTeam{Free: free}
					for k := range 4 - free {
						pl := spl(fmt.Sprintf("%s.%d.%d", s.ID, tm, k), 1000+(rng.Float64()-0.5)*150)
						pl.Attributes.Set("map", cupid.Strings(maps[rng.IntN(3)], "a"))
						pl.Attributes.Set("clan", cupid.String(clans[tm*2+rng.IntN(2)]))
						pl.Attributes.Set("current_platform", cupid.String("pc"))
						pl.Attributes.Set("cross_platform", cupid.Strings(platforms...))
						s.Roles[pl.ID] = []string{"tank", "dps"}[min(k, 1)]
						st.Players = append(st.Players, pl)
					}
					s.Teams = append(s.Teams, st)
				}
				if err := p.OpenSession(s); err != nil {
					t.Fatal(err)
				}
				open[s.ID] = s
			}
			for _, s := range open {
				if err := twin.OpenSession(s); err != nil {
					t.Fatal(err)
				}
			}
			now += rng.Float64() * 5
			props := p.Step(at(now))
			got, want := describe(props), describe(twin.Step(at(now)))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d step %d: proposals %q, searching every session whole %q", seed, step, got, want)
			}
			for _, pr := range props {
				if pr.SessionID != "" {
					if !strings.HasPrefix(pr.SessionID, fmt.Sprintf("s%d.", step)) {
						later++
					}
					delete(open, pr.SessionID)
				}
			}
		}
	}
	if later < 30 {
		t.Fatalf("only %d sessions filled after the Step that opened them: the test checks too little", later)
	}
}

// TestBackfillKeepsBlockLists: a block list holds in a running game as in
// a new match — a newcomer listed by one of the session's players, or who
// lists one of them, or who lists (or is listed by) a newcomer taken in the
// same fill stays out; a list flexed off by disable_after no longer does,
// and match_options_referred_for_backfill does not waive it.
func TestBackfillKeepsBlockLists(t *testing.T) {
	lists := `"collection_rule": [
		{"attribute": "blocked", "operation": "player_ids", "max_count": 0},
		{"attribute": "met", "operation": "player_ids", "max_count": 0, "disable_after": 20}]`
	rules := `{` + bf4v4 + `, ` + bfMMR + `, ` + lists + `}`
	optionsOnly := `{` + bf4v4 + `, ` + bfMMR + `, "match_options": {"options": [{"name": "map", "type": "all"}]},
		"match_options_referred_for_backfill": true, ` + lists + `}`
	// A 4v4 missing one player in its second team; x0 blocked "near.p0".
	blocker := func() Session {
		s := sess("S", 0, team("x", 0, 990, 1000, 1010, 1000), team("y", 1, 995, 1005, 1000))
		s.Teams[0].Players[0].Attributes.Set("blocked", cupid.Strings("near.p0"))
		return s
	}
	// The same, x0 met "near.p0" lately.
	met := func() Session {
		s := sess("S", 0, team("x", 0, 990, 1000, 1010, 1000), team("y", 1, 995, 1005, 1000))
		s.Teams[0].Players[0].Attributes.Set("met", cupid.Strings("near.p0"))
		return s
	}
	twoSeats := sess("T", 0, team("x", 1, 990, 1000, 1010), team("y", 1, 995, 1005, 1000))
	withMap := func(s Session) Session { s.MatchOptions = map[string]any{"map": "dust"}; return s }
	for _, tc := range []bfCase{
		{
			name:     "without lists the nearest joins",
			rules:    rules,
			sessions: []Session{sess("S", 0, team("x", 0, 990, 1000, 1010, 1000), team("y", 1, 995, 1005, 1000))},
			tickets:  []*tb{ticket("near", 1).num("mmr", 1002), ticket("mid", 1).num("mmr", 985)},
			steps:    []float64{2},
			want:     []string{"2: S=|near"},
		},
		{
			name:     "a session player blocked the nearest: the next joins",
			rules:    rules,
			sessions: []Session{blocker()},
			tickets:  []*tb{ticket("near", 1).num("mmr", 1002), ticket("mid", 1).num("mmr", 985)},
			steps:    []float64{2},
			want:     []string{"2: S=|mid"},
		},
		{
			name:     "the nearest blocked a session player: the next joins",
			rules:    rules,
			sessions: []Session{sess("S", 0, team("x", 0, 990, 1000, 1010, 1000), team("y", 1, 995, 1005, 1000))},
			tickets:  []*tb{ticket("near", 1).num("mmr", 1002).list("blocked", "y1"), ticket("mid", 1).num("mmr", 985)},
			steps:    []float64{2},
			want:     []string{"2: S=|mid"},
		},
		{
			name:     "two newcomers of one fill: the second blocked the first and stays out",
			rules:    rules,
			sessions: []Session{twoSeats},
			tickets: []*tb{ticket("a", 1).num("mmr", 1001), ticket("b", 1).num("mmr", 1003).list("blocked", "a.p0"),
				ticket("c", 1).num("mmr", 970)},
			steps: []float64{2},
			want:  []string{"2: T=a|c"},
		},
		{
			name:     "met lately: kept out until the rule flexes off",
			rules:    rules,
			sessions: []Session{met()},
			tickets:  []*tb{ticket("near", 1).num("mmr", 1002)},
			steps:    []float64{2, 25},
			want:     []string{"25: S=|near"},
		},
		{
			name:     "options only does not waive a block",
			rules:    optionsOnly,
			sessions: []Session{withMap(blocker())},
			tickets: []*tb{ticket("near", 1).num("mmr", 1002).opt("map", "dust"),
				ticket("mid", 1).num("mmr", 985).opt("map", "dust")},
			steps: []float64{2},
			want:  []string{"2: S=|mid"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { runBackfill(t, tc) })
	}
}
