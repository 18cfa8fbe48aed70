package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/sim"
	"github.com/cupid-match/cupid/sqlite"
)

var simExamples = filepath.Join("..", "..", "docs", "examples", "sim")

// TestSimExamplesRun runs every shipped population through its ruleset,
// small (the examples are a day of a million players; the flags shrink
// them): the text names the runs, the JSON report parses with every
// player accounted for, the HTML holds its plots.
func TestSimExamplesRun(t *testing.T) {
	for _, name := range []string{"1v1", "5v5"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			jsonOut, htmlOut := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
			out, err := run("sim", "run", filepath.Join(simExamples, name+".yaml"), "--ruleset", filepath.Join(simExamples, name+".json"),
				"--players", "1500", "--hours", "2", "--json", jsonOut, "--html", htmlOut)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, want := range []string{name + ".json", "FIFO", "greedy", "wait p50 / p90"} {
				if !strings.Contains(out, want) {
					t.Errorf("the summary lacks %q:\n%s", want, out)
				}
			}
			rep := readReport(t, jsonOut)
			if len(rep.Runs) != 3 {
				t.Fatalf("%d runs, want the ruleset and two baselines", len(rep.Runs))
			}
			for _, r := range rep.Runs {
				if r.Arrived-r.Returned != 1500 || r.Matched+r.Abandoned+r.Expired+r.Refused+r.WaitingAtEnd != r.Arrived {
					t.Errorf("%s: the books do not balance: %+v", r.Name, r)
				}
				if r.Refused != 0 {
					t.Errorf("%s refused %d players of its own example: %v", r.Name, r.Refused, r.Refusals)
				}
			}
			page, err := os.ReadFile(htmlOut)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(page), "<svg"); n < 8 {
				t.Errorf("the HTML report has %d plots", n)
			}
		})
	}
}

func readReport(t *testing.T, path string) *sim.Report {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep sim.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// TestSimErrors checks that each mistake is named, with its file.
func TestSimErrors(t *testing.T) {
	dir := t.TempDir()
	badPop := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badPop, []byte("players: 10\narrivals: {table: [1]}\n"), 0o644)
	badRuleset := filepath.Join(dir, "bad.json")
	os.WriteFile(badRuleset, []byte(`{"alliance": {"min_number": 2}}`), 0o644)
	pop, rs := filepath.Join(simExamples, "1v1.yaml"), filepath.Join(simExamples, "1v1.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no ruleset", []string{"sim", "run", pop}, "--ruleset: required"},
		{"bad population", []string{"sim", "run", badPop, "--ruleset", rs}, "bad.yaml: arrivals.table: must hold 24 weights"},
		{"bad players", []string{"sim", "run", pop, "--ruleset", rs, "--players", "-3"}, "1v1.yaml: players: must be between 1"},
		{"bad ruleset", []string{"sim", "run", pop, "--ruleset", badRuleset}, "bad.json: "},
		{"missing population", []string{"sim", "run", filepath.Join(dir, "none.yaml"), "--ruleset", rs}, "no such file"},
		{"bad ttl", []string{"sim", "run", pop, "--ruleset", rs, "--ttl", "1ms", "--players", "10"}, "ttl: must be at least 1s"},
		{"record without queue", []string{"sim", "record", "--data", dir, "-o", filepath.Join(dir, "t.jsonl")}, "--queue: required"},
		{"record bad time", []string{"sim", "record", "--data", dir, "--queue", "duel", "--from", "yesterday", "-o", filepath.Join(dir, "t.jsonl")}, "--from: "},
		{"record without data", []string{"sim", "record", "--data", filepath.Join(dir, "nowhere"), "--queue", "duel", "-o", filepath.Join(dir, "t.jsonl")}, "--data: no database at"},
		{"replay missing", []string{"sim", "replay", filepath.Join(dir, "none.jsonl"), "--ruleset", rs}, "no such file"},
		{"replay of nothing", []string{"sim", "replay", "--ruleset", rs}, "a traffic file, or --queue"},
		{"replay of both", []string{"sim", "replay", filepath.Join(dir, "t.jsonl"), "--queue", "duel", "--ruleset", rs}, "--queue: give a traffic file or --queue"},
		{"replay without data", []string{"sim", "replay", "--data", filepath.Join(dir, "nowhere"), "--queue", "duel", "--ruleset", rs}, "--data: no database at"},
		{"replay bad time", []string{"sim", "replay", "--data", dir, "--queue", "duel", "--to", "soon", "--ruleset", rs}, "--to: "},
		{"replay without export", []string{"sim", "replay", "--export", filepath.Join(dir, "nowhere"), "--queue", "duel", "--ruleset", rs}, "--export " + filepath.Join(dir, "nowhere") + ": the export's tickets: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v (output %q), want an error containing %q", err, out, tc.want)
			}
		})
	}
}

// TestSimRecordReplay stores tickets in a SQLite data directory as the
// server would, records their queue with cupid sim record and replays the
// file through two rulesets with cupid sim replay --compare.
func TestSimRecordReplay(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.Open(filepath.Join(dir, "cupid.db"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC)
	var news []cupid.NewTicket
	for i := range 60 {
		news = append(news, cupid.NewTicket{Ticket: &cupid.Ticket{
			ID: fmt.Sprintf("t%02d", i), Key: cupid.QueueKey{Queue: "duel"}, State: cupid.StateWaiting,
			Players: []cupid.Player{{ID: fmt.Sprintf("p%02d", i), Attributes: cupid.NewAttributes(map[string]cupid.Value{
				"mmr": cupid.Number(float64(1200 + (i*53)%600))})}},
			Latencies: map[string]int32{"eu-west": int32(20 + i%50), "us-east": int32(90 - i%40)},
			CreatedAt: start.Add(time.Duration(i) * 7 * time.Second), ExpiresAt: start.Add(time.Hour),
		}})
	}
	if _, _, err := st.CreateTickets(context.Background(), news); err != nil {
		t.Fatal(err)
	}
	st.Close()
	traffic := filepath.Join(dir, "traffic.jsonl")
	out, err := run("sim", "record", "--data", dir, "--queue", "duel", "--from", start.Format(time.RFC3339),
		"--to", start.Add(time.Hour).Format(time.RFC3339), "-o", traffic)
	if err != nil || !strings.Contains(out, "recorded 60 tickets") {
		t.Fatalf("record: %v\n%s", err, out)
	}
	f, err := os.Open(traffic)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
	}
	f.Close()
	if lines != 61 {
		t.Errorf("the traffic file has %d lines, want a header and 60 tickets", lines)
	}
	jsonOut, htmlOut := filepath.Join(dir, "replay.json"), filepath.Join(dir, "replay.html")
	out, err = run("sim", "replay", traffic, "--ruleset", filepath.Join(simExamples, "1v1.json"),
		"--compare", filepath.Join("..", "..", "sim", "testdata", "loose.json"), "--json", jsonOut, "--html", htmlOut)
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	if page, err := os.ReadFile(htmlOut); err != nil || strings.Count(string(page), "<svg") < 8 {
		t.Errorf("the replay's HTML report: %v, %d plots", err, strings.Count(string(page), "<svg"))
	}
	rep := readReport(t, jsonOut)
	var names []string
	for _, r := range rep.Runs {
		names = append(names, r.Name)
		if r.Arrived != 60 {
			t.Errorf("%s: %d players replayed, want 60", r.Name, r.Arrived)
		}
	}
	if got := strings.Join(names, ","); got != "actual,1v1.json,loose.json,FIFO,greedy" {
		t.Errorf("runs %s", got)
	}
}

// TestSimExport: cupid sim replay reads a queue's window from retention's
// export (the documentation's example, which a retentionsvc test exports
// from a real store), and cupid sim record turns it into a traffic file
// that replays the same.
func TestSimExport(t *testing.T) {
	dir := t.TempDir()
	export := filepath.Join("..", "..", "docs", "examples", "export")
	window := []string{"--export", export, "--queue", "duel", "--from", "2026-03-01T12:00:00Z", "--to", "2026-03-01T13:00:00Z"}
	direct := filepath.Join(dir, "direct.json")
	if out, err := run(append(append([]string{"sim", "replay"}, window...), "--ruleset", filepath.Join(simExamples, "1v1.json"), "--json", direct)...); err != nil {
		t.Fatalf("replay --export: %v\n%s", err, out)
	}
	traffic := filepath.Join(dir, "traffic.jsonl")
	out, err := run(append(append([]string{"sim", "record"}, window...), "-o", traffic)...)
	if err != nil || !strings.Contains(out, "recorded 6 tickets of queue \"duel\"") || !strings.Contains(out, "(export "+export+")") {
		t.Fatalf("record --export: %v\n%s", err, out)
	}
	viaFile := filepath.Join(dir, "file.json")
	if out, err := run("sim", "replay", traffic, "--ruleset", filepath.Join(simExamples, "1v1.json"), "--json", viaFile); err != nil {
		t.Fatalf("replay of the recorded export: %v\n%s", err, out)
	}
	a, b := readReport(t, direct), readReport(t, viaFile)
	if len(a.Runs) == 0 || a.Runs[0].Kind != "actual" || a.Runs[0].Arrived != 6 || a.Runs[0].Matches != 2 {
		t.Fatalf("the export's actual run: %+v", a.Runs)
	}
	for i := range a.Runs {
		if a.Runs[i].Matches != b.Runs[i].Matches || a.Runs[i].Arrived != b.Runs[i].Arrived || a.Runs[i].Name != b.Runs[i].Name {
			t.Errorf("run %d: from the export %+v, from its traffic file %+v", i, a.Runs[i], b.Runs[i])
		}
	}
}
