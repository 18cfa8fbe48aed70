package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The engine's golden scenarios (engine/enginetest) run these functions
// too; the tests here are of the scenario's own reading and checking.

func TestParseScenarioRefusesUnknownFields(t *testing.T) {
	_, err := ParseScenario([]byte(`{"ruleset": {}, "tickets": [], "tickest": []}`))
	if err == nil || !strings.Contains(err.Error(), "tickest") {
		t.Fatalf("err = %v", err)
	}
}

const duelScenarioRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`

// Times a scenario cannot run are refused naming the field, before
// anything runs.
func TestScenarioRefusesBadTimes(t *testing.T) {
	for _, tc := range []struct{ tickets, until, err string }{
		{`{"id": "a", "at": -1}`, "0", "tickets[0].at: between 0 and 1e+08 seconds, got -1"},
		{`{"id": "a", "at": 1e300}`, "0", "tickets[0].at: between 0 and 1e+08 seconds, got 1e+300"},
		{`{"id": "a", "waited": -2}`, "0", "tickets[0].waited: between 0 and 1e+08 seconds, got -2"},
		{`{"id": "a"}, {"id": "b", "at": 5, "cancel": 3}`, "0", "tickets[1].cancel: 3 is before the ticket arrives (at 5)"},
		{`{"id": "a"}`, "1e12", "until: between 0 and 1e+08 seconds, got 1e+12"},
		{`{"at": 1}`, "0", "tickets[0].id: required"},
	} {
		s, err := ParseScenario([]byte(`{"ruleset": ` + duelScenarioRules + `, "until": ` + tc.until + `, "tickets": [` + tc.tickets + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := RunScenario(s); err == nil || err.Error() != tc.err {
			t.Errorf("%s: err = %v, want %s", tc.tickets, err, tc.err)
		}
	}
}

// A scenario's moments are the simulator's: a ticket cancelled at the
// second it arrives never meets anyone, a cancellation after the match
// cancels nothing, and the run ends at until even when nothing happens
// then.
func TestScenarioMoments(t *testing.T) {
	s, err := ParseScenario([]byte(`{"ruleset": ` + duelScenarioRules + `, "until": 30, "tickets": [
		{"id": "gone", "at": 2, "cancel": 2},
		{"id": "a", "at": 2},
		{"id": "late", "at": 4, "cancel": 20},
		{"id": "b", "at": 5, "cancel": 9},
		{"id": "c", "at": 25}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := RunScenario(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Matches) != 1 || rep.Matches[0].At != 4 || rep.Matches[0].Teams[0][0] != "a" || rep.Matches[0].Teams[1][0] != "late" {
		t.Errorf("matches %+v, want a with late at 4s", rep.Matches)
	}
	if strings.Join(rep.Cancelled, ",") != "gone,b" {
		t.Errorf("cancelled %v, want gone,b (late was matched before its cancel)", rep.Cancelled)
	}
	if rep.End != 30 || len(rep.Waiting) != 1 || rep.Waiting[0].ID != "c" || rep.Waiting[0].Waited != 5 {
		t.Errorf("end %v, waiting %+v: want c waiting 5s at 30", rep.End, rep.Waiting)
	}
}

// FuzzParseScenario feeds arbitrary documents to ParseScenario and, when
// one parses, turns its tickets into cupid tickets: neither may panic.
func FuzzParseScenario(f *testing.F) {
	files, _ := filepath.Glob("../engine/enginetest/testdata/*.json")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"ruleset": {}, "tickets": [{"id": "x", "attributes": {"a": [1]}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScenario(data)
		if err != nil {
			return
		}
		for i, tk := range s.Tickets {
			_, _ = tk.toTicket(i)
		}
	})
}
