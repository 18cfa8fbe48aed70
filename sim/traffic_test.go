package sim

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/sqlite"
)

var day = time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)

// TestRecordAndReplay stores a morning of duel tickets in a real SQLite
// store (some cancelled by their owners, one queue beside), records the
// queue's traffic and replays it: every recorded ticket arrives at its
// second, owners who cancelled leave when they did, and the replay is the
// same twice.
func TestRecordAndReplay(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "cupid.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var news []cupid.NewTicket
	for i := range 40 {
		queue := "duel"
		if i%10 == 9 {
			queue = "other"
		}
		tk := &cupid.Ticket{
			ID: fmt.Sprintf("tk%02d", i), Key: cupid.QueueKey{Queue: queue}, State: cupid.StateWaiting,
			Players: []cupid.Player{{ID: fmt.Sprintf("pl%02d", i), Attributes: cupid.NewAttributes(map[string]cupid.Value{
				"mmr": cupid.Number(float64(1000 + 37*i%500))})}},
			Latencies: map[string]int32{"eu": int32(20 + i), "us": int32(120 - i)},
			CreatedAt: day.Add(time.Duration(i) * 3 * time.Second), ExpiresAt: day.Add(time.Hour),
		}
		news = append(news, cupid.NewTicket{Ticket: tk})
	}
	if _, _, err := st.CreateTickets(ctx, news); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"tk03", "tk04"} {
		if _, _, err := lifecycle.Finish(ctx, st, cupid.Fence{}, id, cupid.StateCancelled, "", day.Add(30*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	n, err := Record(ctx, st, "duel", day, day.Add(time.Hour), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != 36 {
		t.Fatalf("recorded %d tickets, want the 36 of queue duel", n)
	}
	tr, err := ParseTraffic(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Tickets) != 36 || tr.Header.Queue != "duel" || !tr.Header.From.Equal(day) {
		t.Fatalf("parsed %d tickets of %q from %v", len(tr.Tickets), tr.Header.Queue, tr.Header.From)
	}
	for _, tk := range tr.Tickets {
		var i int
		fmt.Sscanf(tk.ID, "tk%02d", &i)
		if tk.At != float64(3*i) {
			t.Errorf("%s arrives at %v, want %d", tk.ID, tk.At, 3*i)
		}
		cancelled := tk.ID == "tk03" || tk.ID == "tk04"
		if cancelled != (tk.Left != nil) || (cancelled && *tk.Left != float64(30-3*i)) {
			t.Errorf("%s: state %s, left %v", tk.ID, tk.State, tk.Left)
		}
	}
	rs, err := LoadRuleset("duel.json", []byte(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 60}]}`))
	if err != nil {
		t.Fatal(err)
	}
	replay := func() []byte {
		rep, err := RunTraffic("morning", tr, Config{Rulesets: []Ruleset{rs}, Baselines: true, Seed: 1, Actual: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Runs) != 4 || rep.Runs[0].Kind != "actual" {
			t.Fatalf("runs %+v, want actual, the ruleset and two baselines", rep.Runs)
		}
		if a := rep.Runs[0]; a.Arrived != 36 || a.Abandoned != 2 || a.WaitingAtEnd != 34 || a.Matches != 0 {
			t.Errorf("actual: %+v, want 36 arrived, the 2 cancelled abandoned and 34 still waiting", a)
		}
		run := rep.Runs[1]
		if run.Arrived != 36 || run.Refused != 0 || run.Returned != 0 {
			t.Errorf("replay: %d arrived, %d refused, %d returned; want 36, 0, 0", run.Arrived, run.Refused, run.Returned)
		}
		if run.Matched+run.Abandoned+run.Expired+run.WaitingAtEnd != 36 {
			t.Errorf("replay loses players: %+v", run)
		}
		if run.Ping == nil || run.SkillGap == nil {
			t.Errorf("replay reports no ping or skill: %+v", run)
		}
		data, _ := rep.JSON()
		return data
	}
	if a, b := replay(), replay(); !bytes.Equal(a, b) {
		t.Errorf("two replays differ:\n%s", firstDiff(a, b))
	}
}

// TestParseTrafficErrors names the line and the field of each mistake.
func TestParseTrafficErrors(t *testing.T) {
	head := `{"cupid_traffic":1,"queue":"duel","from":"2025-03-03T00:00:00Z","to":"2025-03-04T00:00:00Z"}` + "\n"
	ticket := func(id string, at float64) string {
		return fmt.Sprintf(`{"id":%q,"at":%v,"players":[{"id":"p"}],"state":"matched"}`+"\n", id, at)
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "empty"},
		{"version", `{"cupid_traffic":3,"queue":"duel"}`, "line 1: cupid_traffic: must be 1 or 2"},
		{"match without teams", head + ticket("a", 1) + `{"kind":"match","id":"m","at":1,"teams":[]}`, "line 3: teams: required"},
		{"match unknown field", head + ticket("a", 1) + `{"kind":"match","id":"m","at":1,"teams":[["a"]],"colour":1}`, `line 3: json: unknown field "colour"`},
		{"match negative at", head + ticket("a", 1) + `{"kind":"match","id":"m","at":-1,"teams":[["a"]]}`, "line 3: at: must be"},
		{"unknown field", head + `{"id":"a","at":1,"players":[{"id":"p"}],"colour":"red"}`, `line 2: json: unknown field "colour"`},
		{"no players", head + `{"id":"a","at":1,"players":[]}`, "line 2: players: required"},
		{"no id", head + `{"at":1,"players":[{"id":"p"}]}`, "line 2: id: required"},
		{"negative at", head + ticket("a", -1), "line 2: at: must be"},
		{"out of order", head + ticket("a", 5) + ticket("b", 4), "line 3: at: tickets must be in creation order"},
		{"negative left", head + `{"id":"a","at":1,"players":[{"id":"p"}],"left":-3}`, "line 2: left: must be"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTraffic(strings.NewReader(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestReplayRefusesBadAttributes names the ticket whose attribute cannot
// be a ticket's, before anything runs.
func TestReplayRefusesBadAttributes(t *testing.T) {
	text := `{"cupid_traffic":1,"queue":"duel","from":"2025-03-03T00:00:00Z","to":"2025-03-04T00:00:00Z"}
{"id":"a","at":1,"players":[{"id":"p","attributes":{"mmr":{"deep":1}}}],"state":"matched"}`
	tr, err := ParseTraffic(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	rs := loadRuleset(t, "testdata/loose.json")
	_, err = RunTraffic("x", tr, Config{Rulesets: []Ruleset{rs}})
	if err == nil || !strings.Contains(err.Error(), "ticket 1 (a): players[0].attributes.mmr: must be a number") {
		t.Errorf("got %v", err)
	}
}

// TestReplayBesideActual replays four tickets whose real matches the file
// gives: the actual run has the real waits and quality, and a ruleset's
// run counts the matches it shares with reality — all of them when it
// pairs as the server did, none when reality paired otherwise.
func TestReplayBesideActual(t *testing.T) {
	tickets := `{"cupid_traffic":2,"queue":"duel","from":"2025-03-03T00:00:00Z","to":"2025-03-03T00:01:00Z"}
{"id":"a","at":0,"players":[{"id":"pa","attributes":{"mmr":1000}}],"state":"matched","match":"%s"}
{"id":"b","at":5,"players":[{"id":"pb","attributes":{"mmr":1010}}],"state":"matched","match":"%s"}
{"id":"c","at":6,"players":[{"id":"pc","attributes":{"mmr":1500}}],"state":"matched","match":"%s"}
{"id":"d","at":8,"players":[{"id":"pd","attributes":{"mmr":1505}}],"state":"matched","match":"%s"}
{"id":"e","at":9,"players":[{"id":"pe","attributes":{"mmr":2500}}],"state":"cancelled","left":11}
`
	rs, err := LoadRuleset("duel.json", []byte(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
		"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 60}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		text     string
		same     int
		waitMean float64
		quality  bool
	}{
		{"as the server paired", fmt.Sprintf(tickets, "m1", "m1", "m2", "m2") +
			`{"kind":"match","id":"m1","at":5,"teams":[["a"],["b"]],"quality":{"score":0.9}}` + "\n" +
			`{"kind":"match","id":"m2","at":8,"teams":[["c"],["d"]],"quality":{"score":0.95}}` + "\n", 2, 1.75, true},
		{"otherwise", fmt.Sprintf(tickets, "m1", "m2", "m1", "m2") +
			`{"kind":"match","id":"m1","at":6,"teams":[["a"],["c"]]}` + "\n" +
			`{"kind":"match","id":"m2","at":8,"teams":[["b"],["d"]]}` + "\n", 0, 2.25, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ParseTraffic(strings.NewReader(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := RunTraffic("four", tr, Config{Rulesets: []Ruleset{rs}, Actual: true})
			if err != nil {
				t.Fatal(err)
			}
			actual, run := rep.Runs[0], rep.Runs[1]
			if actual.Kind != "actual" || actual.Matches != 2 || actual.Matched != 4 || actual.Abandoned != 1 || actual.WaitingAtEnd != 0 {
				t.Errorf("actual: %+v", actual)
			}
			if actual.Wait.Mean != tc.waitMean {
				t.Errorf("actual mean wait %v, want %v", actual.Wait.Mean, tc.waitMean)
			}
			if (actual.Quality != nil) != tc.quality {
				t.Errorf("actual quality %+v", actual.Quality)
			}
			if run.Matches != 2 || run.SameAsActual == nil || *run.SameAsActual != tc.same {
				t.Errorf("%s: %d matches, %v the same as actual; want 2, %d", run.Name, run.Matches, run.SameAsActual, tc.same)
			}
			if !strings.Contains(rep.Text(), fmt.Sprintf("%d of 2", tc.same)) {
				t.Errorf("the summary does not say %d of 2:\n%s", tc.same, rep.Text())
			}
			if rep, _ := RunTraffic("four", tr, Config{Rulesets: []Ruleset{rs}}); rep.Runs[0].Kind != "ruleset" || rep.Runs[0].SameAsActual != nil {
				t.Errorf("without Actual the report has %+v first", rep.Runs[0])
			}
			tr.Header.Version = 1
			rep, err = RunTraffic("four", tr, Config{Rulesets: []Ruleset{rs}, Actual: true})
			if err != nil || rep.Runs[0].Kind != "ruleset" || rep.Runs[0].SameAsActual != nil {
				t.Errorf("a version 1 file (no real matches) shows %+v, %v", rep.Runs[0], err)
			}
		})
	}
}
