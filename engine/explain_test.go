package engine

import (
	"strings"
	"testing"
)

// "Why am I still waiting?" when what is missing is not a candidate but a
// smaller team layout: the alliance flexes while players wait, and that
// relaxation is what forms the match.

const twoVTwoThenOne = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
	"alliance_flexing_rule": [{"duration": 30, "player_min_number": 1}],
	"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 200}]}`

func TestExplainAllianceRelaxationFormsTheMatch(t *testing.T) {
	p := newPool(t, twoVTwoThenOne)
	ticket("a", 0).num("mmr", 1500).add(t, p)
	ticket("b", 1).num("mmr", 1550).add(t, p)
	ticket("c", 2).num("mmr", 1450).add(t, p)
	if got := matchIDs(p.Step(at(2))); len(got) != 0 {
		t.Fatalf("matched before the relaxation: %v", got)
	}
	x, _ := p.Explain("a", at(10))
	if x.PlayersAvailable != 3 || x.PlayersMinimum != 4 {
		t.Fatalf("available %d of minimum %d", x.PlayersAvailable, x.PlayersMinimum)
	}
	if !x.NextRelaxation.Equal(at(30)) || x.NextAdds != 0 || x.NextForms != 3 {
		t.Errorf("next relaxation at %v adds %d forms %d; want at 30 s, 0 more and a match of 3", x.NextRelaxation, x.NextAdds, x.NextForms)
	}
	if len(x.Relaxes) != 1 || x.Relaxes[0] != "teams 2-2 of 2-2 players → 2-2 of 1-2" {
		t.Errorf("relaxes %q", x.Relaxes)
	}
	want := "only 3 of 4 players available; in 20s the teams relax to 2-2 of 1-2 players and a match of 3 players can start"
	if x.Summary != want {
		t.Errorf("summary\n  %q\nwant\n  %q", x.Summary, want)
	}
	// And the engine does what the explanation said.
	if got := matchIDs(p.Step(at(29.9))); len(got) != 0 {
		t.Fatalf("matched early: %v", got)
	}
	props := p.Step(at(30))
	if len(props) != 1 || len(props[0].Tickets()) != 3 {
		t.Fatalf("at 30 s: %v", matchIDs(props))
	}
}

func TestExplainLaterAllianceRelaxationFormsTheMatch(t *testing.T) {
	// The next relaxation (skill at 10 s) changes nothing; the alliance at
	// 30 s forms the match, and the explanation points there.
	rules := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2},
		"alliance_flexing_rule": [{"duration": 30, "player_min_number": 1}],
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 200}],
		"flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 300}]}`
	p := newPool(t, rules)
	ticket("a", 0).num("mmr", 1500).add(t, p)
	ticket("b", 0).num("mmr", 1550).add(t, p)
	p.Step(at(0))
	x, _ := p.Explain("a", at(5))
	if !x.NextRelaxation.Equal(at(10)) || x.NextAdds != 0 || x.NextForms != 0 {
		t.Errorf("next relaxation at %v adds %d forms %d", x.NextRelaxation, x.NextAdds, x.NextForms)
	}
	if !x.FirstAdmit.Equal(at(30)) || x.FirstAdmitAdds != 0 || x.FirstAdmitForms != 2 {
		t.Errorf("first admit at %v adds %d forms %d; want at 30 s a match of 2", x.FirstAdmit, x.FirstAdmitAdds, x.FirstAdmitForms)
	}
	if !strings.HasSuffix(x.Summary, "; in 25s the rules relax enough for a match of 2 players to start") {
		t.Errorf("summary %q", x.Summary)
	}
	if props := p.Step(at(30)); len(props) != 1 {
		t.Fatalf("at 30 s: %v", matchIDs(props))
	}
}

func TestExplainAllianceRelaxationThatDoesNotSuffice(t *testing.T) {
	// One player alone: even two teams of one need two, so the relaxation
	// forms nothing and the explanation must not promise a match.
	p := newPool(t, twoVTwoThenOne)
	ticket("a", 0).num("mmr", 1500).add(t, p)
	x, _ := p.Explain("a", at(10))
	if x.NextForms != 0 || x.FirstAdmitForms != 0 || strings.Contains(x.Summary, "match of") {
		t.Errorf("%+v", x)
	}
}
