package engine

import (
	"strings"
	"testing"
)

// Named teams of their own sizes and the rules aimed at them (named.go),
// run on tickets whose outcome the rules state.

// huntersVsMonster is FlexMatch's "uneven teams" example in Cupid's words:
// five hunters and one monster; only who wants to be the monster is the
// monster, nobody who does hunts, and the monster's skill is at least what
// every hunter asks of it.
const huntersVsMonster = `{
	"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 5},
	"teams": [
		{"name": "players", "player_min_number": 5, "player_max_number": 5},
		{"name": "monster", "player_min_number": 1, "player_max_number": 1}
	],
	"attribute_defaults": [
		{"name": "skill", "value": 10},
		{"name": "desiredSkillOfMonster", "value": 10},
		{"name": "wantsToBeMonster", "value": 0}
	],
	"team_comparison": [
		{"team": "monster", "attribute": "wantsToBeMonster", "operator": "=", "value": 1},
		{"team": "players", "attribute": "wantsToBeMonster", "operator": "=", "value": 0},
		{"team": "monster", "attribute": "skill", "aggregate": "avg", "operator": ">=",
		 "reference": {"team": "players", "attribute": "desiredSkillOfMonster", "aggregate": "max"}}
	]
}`

func TestNamedTeamsHuntersVsMonster(t *testing.T) {
	for _, tc := range []struct {
		name    string
		add     func(t *testing.T, p *Pool)
		want    string // "" for no match
		waiting int
	}{
		{
			// Seven hunters, the oldest first, and one monster who came
			// last: the six oldest hunters are not a match; five of
			// them and the monster are, with the monster on team 1.
			name: "the monster joins the oldest hunters",
			add: func(t *testing.T, p *Pool) {
				for i, id := range []string{"h1", "h2", "h3", "h4", "h5", "h6", "h7"} {
					ticket(id, float64(i)).add(t, p)
				}
				ticket("m", 10).num("wantsToBeMonster", 1).num("skill", 20).add(t, p)
			},
			want:    "h1+h2+h3+h4+h5|m",
			waiting: 2,
		},
		{
			name: "no monster, no match",
			add: func(t *testing.T, p *Pool) {
				for i, id := range []string{"h1", "h2", "h3", "h4", "h5", "h6"} {
					ticket(id, float64(i)).add(t, p)
				}
			},
			waiting: 6,
		},
		{
			// A hunter asks for a monster of skill 30: the monster of
			// 20 is too weak for him, so the five others hunt.
			name: "the monster must be as strong as every hunter asks",
			add: func(t *testing.T, p *Pool) {
				ticket("picky", 0).num("desiredSkillOfMonster", 30).add(t, p)
				for i, id := range []string{"h2", "h3", "h4", "h5", "h6"} {
					ticket(id, float64(i+1)).add(t, p)
				}
				ticket("m", 10).num("wantsToBeMonster", 1).num("skill", 20).add(t, p)
			},
			want:    "h2+h3+h4+h5+h6|m",
			waiting: 1,
		},
		{
			name: "two monsters: one waits",
			add: func(t *testing.T, p *Pool) {
				ticket("m1", 0).num("wantsToBeMonster", 1).add(t, p)
				ticket("m2", 1).num("wantsToBeMonster", 1).add(t, p)
				for i, id := range []string{"h1", "h2", "h3", "h4", "h5"} {
					ticket(id, float64(i+2)).add(t, p)
				}
			},
			want:    "h1+h2+h3+h4+h5|m1",
			waiting: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, huntersVsMonster)
			tc.add(t, p)
			got := stepAll(t, p, 20)
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("matches = %v, want none", got)
			case tc.want != "" && (len(got) != 1 || got[0] != tc.want):
				t.Errorf("matches = %v, want [%s]", got, tc.want)
			}
			if p.Len() != tc.waiting {
				t.Errorf("%d tickets wait, want %d", p.Len(), tc.waiting)
			}
		})
	}
}

func TestNamedTeamsCheck(t *testing.T) {
	p := newPool(t, huntersVsMonster)
	// Neither a hunter (wants 0) nor a monster (wants 1): no team takes it.
	err := p.Check(ticket("x", 0).num("wantsToBeMonster", 0.5).t)
	if err == nil || !strings.Contains(err.Error(), "fits no team") || !strings.Contains(err.Error(), "wantsToBeMonster") {
		t.Errorf("Check = %v, want a refusal naming wantsToBeMonster", err)
	}
	// A party of two monsters fits no team either: the monster team
	// holds one, and the hunters take nobody who wants to be one.
	err = p.Check(ticket("pp", 0).party(2).num("wantsToBeMonster", 1, 1).t)
	if err == nil {
		t.Errorf("Check of two would-be monsters in a party = nil, want a refusal")
	}
	if err := p.Check(ticket("ok", 0).num("wantsToBeMonster", 1).t); err != nil {
		t.Errorf("Check of a monster = %v", err)
	}
}

func TestTeamComparisonFlexes(t *testing.T) {
	// Each team's average level at least 10, 5 after 30 s: two players of
	// level 6 and two of 4 make no match before 30 s, and one at 30 s.
	p := newPool(t, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
		"team_comparison": [{"attribute": "level", "aggregate": "avg", "operator": ">=", "value": 10,
			"flexing": [{"duration": 30, "value": 5}]}]}`)
	ticket("a", 0).num("level", 6).add(t, p)
	ticket("b", 0).num("level", 4).add(t, p)
	ticket("c", 0).num("level", 6).add(t, p)
	ticket("d", 0).num("level", 4).add(t, p)
	if got := stepAll(t, p, 29); len(got) != 0 {
		t.Fatalf("at 29 s: %v, want none", got)
	}
	got := stepAll(t, p, 30)
	if len(got) != 1 {
		t.Fatalf("at 30 s: %v, want one match", got)
	}
	// Averages of 5 each: a level-6 player with a level-4 one.
	for _, team := range strings.Split(got[0], "|") {
		if strings.Count(team, "a")+strings.Count(team, "c") != 1 {
			t.Errorf("match %s: each team must pair a 6 with a 4", got[0])
		}
	}
}

func TestTeamRuleAgainstMatch(t *testing.T) {
	// Three teams of one, each within 10 of the match's average: 0, 10
	// and 20 (average 10) match; 0, 10 and 40 (average 16.7) do not.
	const rules = `{"alliance": {"min_number": 3, "max_number": 3, "player_min_number": 1, "player_max_number": 1},
		"team_rule": [{"attribute": "skill", "aggregate": "avg", "against": "match", "max_difference": 10}]}`
	p := newPool(t, rules)
	ticket("a", 0).num("skill", 0).add(t, p)
	ticket("b", 0).num("skill", 10).add(t, p)
	ticket("c", 0).num("skill", 40).add(t, p)
	if got := stepAll(t, p, 1); len(got) != 0 {
		t.Fatalf("0, 10, 40: %v, want none", got)
	}
	p = newPool(t, rules)
	ticket("a", 0).num("skill", 0).add(t, p)
	ticket("b", 0).num("skill", 10).add(t, p)
	ticket("c", 0).num("skill", 20).add(t, p)
	if got := stepAll(t, p, 1); len(got) != 1 {
		t.Fatalf("0, 10, 20: %v, want one match", got)
	}
}

func TestComparisonPartyAggregate(t *testing.T) {
	// Experience at least 10, a party judged by its average: a party of
	// 14 and 8 (average 11) passes; without party_aggregate it is refused.
	p := newPool(t, `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 2, "player_max_number": 2},
		"comparison_rule": [{"attribute": "experience", "operator": ">=", "value": 10, "party_aggregate": "avg"}]}`)
	ticket("p", 0).party(2).num("experience", 14, 8).add(t, p)
	if got := stepAll(t, p, 1); len(got) != 1 {
		t.Fatalf("matches = %v, want the party alone", got)
	}
	q := newPool(t, `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 2, "player_max_number": 2},
		"comparison_rule": [{"attribute": "experience", "operator": ">=", "value": 10}]}`)
	if err := q.Check(ticket("p", 0).party(2).num("experience", 14, 8).t); err == nil {
		t.Errorf("without party_aggregate a player of 8 passes: Check = nil")
	}
	if err := p.Check(ticket("p", 0).party(2).num("experience", 10, 8).t); err == nil || !strings.Contains(err.Error(), "party's avg 9") {
		t.Errorf("a party averaging 9: Check = %v, want a refusal naming its avg", err)
	}
}

func TestNamedTeamsNoBackfill(t *testing.T) {
	p := newPool(t, huntersVsMonster)
	err := p.OpenSession(Session{ID: "s", Teams: []SessionTeam{{Free: 1}, {Free: 1}}})
	if err == nil || !strings.Contains(err.Error(), "team_comparison") {
		t.Errorf("OpenSession = %v, want a refusal naming team_comparison", err)
	}
}
