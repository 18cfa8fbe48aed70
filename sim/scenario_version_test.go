package sim

import (
	"strings"
	"testing"
)

// client_version, as the server reads it: the reserved ticket key goes into
// the queue key, so tickets of different versions wait in different pools and
// never meet.

const versionRuleset = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`

func TestClientVersionSplitsPools(t *testing.T) {
	s, err := ParseScenario([]byte(`{"ruleset": ` + versionRuleset + `, "tickets": [
		{"id": "old1", "at": 0, "options": {"client_version": "1.0"}},
		{"id": "new1", "at": 1, "options": {"client_version": "1.1"}},
		{"id": "new2", "at": 2, "attributes": {"client_version": "1.1"}},
		{"id": "old2", "at": 3, "client_version": "1.0"},
		{"id": "none", "at": 4}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunScenario(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Refused) != 0 {
		t.Fatalf("refused: %+v", rep.Refused)
	}
	var got []string
	for _, m := range rep.Matches {
		got = append(got, m.Version+":"+strings.Join(m.Teams[0], "")+"+"+strings.Join(m.Teams[1], ""))
	}
	if strings.Join(got, " ") != "1.1:new1+new2 1.0:old1+old2" {
		t.Errorf("matches %v", got)
	}
	if len(rep.Waiting) != 1 || rep.Waiting[0].ID != "none" || rep.Waiting[0].Compatible != 0 {
		t.Errorf("waiting %+v", rep.Waiting)
	}
	if text := rep.Text(); !strings.Contains(text, "anchor old1 at flex level 0, version 1.0") {
		t.Errorf("report does not show the version:\n%s", text)
	}
}

func TestClientVersionConflicts(t *testing.T) {
	for _, tc := range []struct{ ticket, err string }{
		{`{"id": "x", "client_version": "1.0", "options": {"client_version": "1.1"}}`, `tickets[0].client_version: "1.0", but options.client_version is "1.1"`},
		{`{"id": "x", "options": {"client_version": 3}}`, `tickets[0].options.client_version: must be a string`},
		{`{"id": "x", "players": [{"attributes": {"client_version": "1.0"}}, {"attributes": {"client_version": "1.1"}}]}`,
			`tickets[0].players[1].attributes.client_version: "1.1", but players[0] has "1.0": one ticket plays one version`},
	} {
		s, err := ParseScenario([]byte(`{"ruleset": ` + versionRuleset + `, "tickets": [` + tc.ticket + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := RunScenario(s); err == nil || err.Error() != tc.err {
			t.Errorf("%s: err = %v, want %s", tc.ticket, err, tc.err)
		}
	}
}

func TestScenarioBooleans(t *testing.T) {
	s, err := ParseScenario([]byte(`{"ruleset": {"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"filter": [{"name": "voice", "expr": "ticket.attr.voice == candidate.attr.voice"}]},
		"tickets": [
		{"id": "a", "at": 0, "options": {"new_session_only": true, "voice": true}},
		{"id": "b", "at": 1, "options": {"voice": false}},
		{"id": "c", "at": 2, "options": {"voice": true}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunScenario(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Matches) != 1 || strings.Join(rep.Matches[0].Teams[0], "")+strings.Join(rep.Matches[0].Teams[1], "") != "ac" {
		t.Errorf("matches %+v", rep.Matches)
	}
}
