package retentionsvc

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid/internal/pgtest"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/postgres"
	"github.com/cupid-match/cupid/sim"
	"github.com/cupid-match/cupid/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// exportStore is what the export scenario needs of a store.
type exportStore interface {
	cupid.Store
	cupid.Pruner
	cupid.RatingStore
	sim.TicketPager
}

// week is how long the scenario's kinds are kept.
const week = 7 * 24 * time.Hour

var allExported = []cupid.RetentionKind{cupid.RetainTickets, cupid.RetainMatches, cupid.RetainRatingResults}

// exportScenario stores a small day of queue duel (and one ticket of
// another queue) from t0: two matches played and ended (the second ends
// the next day), a cancel, an expiry, a ticket still waiting, a result.
func exportScenario(t *testing.T, s exportStore) {
	t.Helper()
	ctx := context.Background()
	tk := func(i int, queue, player string, mmr float64) cupid.NewTicket {
		return cupid.NewTicket{Ticket: &cupid.Ticket{
			ID: fmt.Sprintf("t%02d", i), Key: cupid.QueueKey{Queue: queue}, State: cupid.StateWaiting,
			CreatedAt: t0.Add(time.Duration(i) * time.Second), ExpiresAt: t0.Add(time.Hour),
			Latencies: map[string]int32{"eu-west": int32(20 + i)},
			Players:   []cupid.Player{{ID: player, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(mmr)})}},
		}}
	}
	if _, _, err := s.CreateTickets(ctx, []cupid.NewTicket{
		tk(0, "duel", "ann", 1500), tk(1, "duel", "ben", 1510), tk(2, "duel", "cat", 1800), tk(3, "duel", "dan", 1200),
		tk(4, "duel", "eve", 1600), tk(5, "duel", "fay", 1620), tk(6, "duel", "gus", 2900), tk(7, "squad", "hal", 1500),
	}); err != nil {
		t.Fatal(err)
	}
	match := func(id string, at time.Time, a, pa, b, pb string) *cupid.Match {
		return &cupid.Match{ID: id, Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: at, Region: "eu-west",
			Quality: cupid.Quality{Score: 0.9, Parts: []cupid.QualityPart{{Name: "skill_gap", Score: 0.95}}},
			Teams:   []cupid.Team{{TicketIDs: []string{a}, PlayerIDs: []string{pa}}, {TicketIDs: []string{b}, PlayerIDs: []string{pb}}}}
	}
	res, _, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{
		match("m1", t0.Add(10*time.Second), "t00", "ann", "t01", "ben"), match("m2", t0.Add(20*time.Second), "t04", "eve", "t05", "fay")})
	if err != nil || !res[0].OK || !res[1].OK {
		t.Fatalf("commit: %+v %v", res, err)
	}
	for id, end := range map[string]time.Time{"m1": t0.Add(30 * time.Minute), "m2": time.Date(2026, 3, 2, 1, 0, 0, 0, time.UTC)} {
		if _, _, err := lifecycle.ChangeSession(ctx, s, cupid.Fence{}, id, cupid.SessionChange{Kind: cupid.MatchEventEnded}, end); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []struct {
		id     string
		state  cupid.TicketState
		reason string
		at     time.Duration
	}{{"t02", cupid.StateCancelled, "", 2 * time.Minute}, {"t03", cupid.StateExpired, "", 5 * time.Minute}, {"t07", cupid.StateCancelled, "the ruleset changed", time.Minute}} {
		if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, f.id, f.state, f.reason, t0.Add(f.at)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveResult(ctx, cupid.ResultRecord{MatchID: "m1", At: t0.Add(31 * time.Minute), Body: []byte(`{"team_places":[1,2]}`)}, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// TestExportThenReplay exports from a real store (SQLite, PostgreSQL),
// compares the files with the golden ones (the same for both stores),
// checks that the rows went and the waiting ticket stayed, reads the
// export back as the queue's traffic — the same as cupid sim record read
// from the store before the pass, less the ticket still waiting — and
// replays it, beside what really happened.
func TestExportThenReplay(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(filepath.Join(t.TempDir(), "cupid.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		exportThenReplay(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := postgres.Open(context.Background(), postgresURL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		exportThenReplay(t, st)
	})
}

func exportThenReplay(t *testing.T, st exportStore) {
	ctx := context.Background()
	exportScenario(t, st)
	from, to := t0, t0.Add(time.Hour)
	before, err := sim.Read(ctx, st, "duel", from, to)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var logs bytes.Buffer
	s, err := New(Options{Store: st, Batch: 2,
		Keep:   map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: week, cupid.RetainMatches: week, cupid.RetainRatingResults: week},
		Export: &Export{Dir: dir, Kinds: allExported},
		Now:    func() time.Time { return t0.Add(9 * 24 * time.Hour) }, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Pass(ctx, cupid.Fence{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range rep.Kinds {
		want := map[cupid.RetentionKind]int{cupid.RetainTickets: 7, cupid.RetainMatches: 2, cupid.RetainRatingResults: 1}[k.Kind]
		if k.Removed != want || k.Exported != want || k.Failed != "" {
			t.Errorf("%s: removed %d, exported %d (%s), want %d", k.Kind, k.Removed, k.Exported, k.Failed, want)
		}
	}
	if _, err := st.Ticket(ctx, "t06"); err != nil {
		t.Errorf("the waiting ticket: %v", err)
	}
	golden(t, dir, "testdata/export")
	// The documentation's example export (docs/configuration.md replays
	// it) is this one, kept current.
	golden(t, dir, "../../docs/examples/export")
	for _, f := range []string{"tickets/2026-03-01.jsonl", "matches/2026-03-01.jsonl", "matches/2026-03-02.jsonl", "rating_results/2026-03-01.jsonl"} {
		if !strings.Contains(logs.String(), "file="+filepath.Join(dir, f)+" ") {
			t.Errorf("no log line for %s in\n%s", f, logs.String())
		}
	}

	got, err := sim.ReadExport(dir, "duel", from, to)
	if err != nil {
		t.Fatal(err)
	}
	before.Tickets = slices.DeleteFunc(before.Tickets, func(tt sim.TrafficTicket) bool { return tt.State == string(cupid.StateWaiting) })
	for i := range got.Matches {
		if got.Matches[i].State != string(cupid.MatchEnded) || got.Matches[i].Ended == nil {
			t.Errorf("match line %+v: how it ended", got.Matches[i])
		}
		got.Matches[i].State, got.Matches[i].Ended = "", nil
	}
	if !reflect.DeepEqual(got, before) {
		t.Errorf("the export read back:\n%+v\nthe store's traffic before the pass:\n%+v", got, before)
	}
	data, err := os.ReadFile("../../sim/testdata/loose.json")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := sim.LoadRuleset("loose.json", data)
	if err != nil {
		t.Fatal(err)
	}
	report, err := sim.RunTraffic("export", got, sim.Config{Rulesets: []sim.Ruleset{rs}, Actual: true})
	if err != nil {
		t.Fatal(err)
	}
	if a := report.Runs[0]; a.Kind != "actual" || a.Arrived != 6 || a.Matches != 2 || a.Abandoned != 1 || a.Expired != 1 {
		t.Errorf("the actual run: %+v", a)
	}
}

// golden compares the files under dir with those under want (or writes
// them with -update).
func golden(t *testing.T, dir, want string) {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		os.RemoveAll(want)
		for rel, text := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(want, rel)), 0o755)
			if err := os.WriteFile(filepath.Join(want, rel), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	wanted := map[string]string{}
	filepath.WalkDir(want, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(want, path)
			wanted[rel] = string(b)
		}
		return nil
	})
	if !reflect.DeepEqual(files, wanted) {
		t.Errorf("the export differs from %s (go test -update rewrites it):\n%v\nwant\n%v", want, files, wanted)
	}
}

// failingDelete is a store whose deleting batches fail while fail is set,
// as if the server stopped between the export's sync and the delete.
type failingDelete struct {
	*memstore.Store
	fail bool
}

func (f *failingDelete) Prune(ctx context.Context, fence cupid.Fence, req cupid.PruneRequest) (cupid.Pruned, error) {
	if f.fail && !req.Select {
		return cupid.Pruned{}, errors.New("the server stopped")
	}
	return f.Store.Prune(ctx, fence, req)
}

// TestExportBeforeDelete: rows are deleted only once their lines are
// written; a stop between the write and the delete writes them again at
// the next pass, and the reader keeps one line per ticket; a last line a
// crash cut short is cut off before the next write.
func TestExportBeforeDelete(t *testing.T) {
	st := &failingDelete{Store: memstore.New(), fail: true}
	seed(t, st.Store, 6, 4)
	dir := t.TempDir()
	reg := prometheus.NewRegistry()
	s, err := New(Options{Store: st, Batch: 3, Keep: map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: week},
		Export: &Export{Dir: dir, Kinds: []cupid.RetentionKind{cupid.RetainTickets}}, Registry: reg,
		Now: func() time.Time { return t0.Add(8 * 24 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "tickets", "2026-03-01.jsonl")
	if _, err := s.Pass(context.Background(), cupid.Fence{}); err == nil {
		t.Fatal("a pass whose delete failed reported no error")
	}
	if n := ticketCount(t, st.Store); n != 6 {
		t.Fatalf("%d tickets after a failed delete, want all 6", n)
	}
	first := lines(t, file)
	if len(first) != 3 {
		t.Fatalf("%d lines written before the failed delete, want the first batch's 3", len(first))
	}
	// A crash in the middle of a later write left half a line.
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"t009","at":17`)
	f.Close()

	st.fail = false
	rep, err := s.Pass(context.Background(), cupid.Fence{})
	if err != nil {
		t.Fatal(err)
	}
	if k := rep.Kinds[0]; k.Removed != 4 || k.Exported != 4 {
		t.Errorf("the next pass: %+v", k)
	}
	all := lines(t, file)
	if len(all) != 7 || !slices.Equal(all[:3], first) {
		t.Errorf("the file holds %d lines, want the first 3 again, then the 4 of the pass (the half line cut off):\n%s", len(all), strings.Join(all, "\n"))
	}
	tr, err := sim.ReadExport(dir, "duel", t0, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tt := range tr.Tickets {
		ids = append(ids, tt.ID)
	}
	if want := []string{"t000", "t001", "t002", "t003"}; !slices.Equal(ids, want) {
		t.Errorf("read back %v, want each ticket once: %v", ids, want)
	}
	if got := counter(s.metrics.exportedRows.WithLabelValues("tickets")); got != 7 {
		t.Errorf("exported rows %v, want 7 (3 written twice)", got)
	}
	if got := counter(s.metrics.exportedBytes.WithLabelValues("tickets")); int64(got) != fileSize(t, file) {
		t.Errorf("exported bytes %v, the file has %d", got, fileSize(t, file))
	}
}

// TestExportNotWritable: where the export cannot be written, the kind's
// pass stops and deletes nothing, says so (report, error, log, metric),
// and the other kinds go on.
func TestExportNotWritable(t *testing.T) {
	st := memstore.New()
	seed(t, st, 6, 4)
	dir := t.TempDir()
	// A file where the tickets' directory should be: not writable, even
	// for root.
	if err := os.WriteFile(filepath.Join(dir, "tickets"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveResult(context.Background(), cupid.ResultRecord{MatchID: "m", At: t0, Body: []byte(`{}`)}, nil, nil); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	s, err := New(Options{Store: st, Batch: 3, Registry: reg, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Keep:   map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: week, cupid.RetainRatingResults: week},
		Export: &Export{Dir: dir, Kinds: []cupid.RetentionKind{cupid.RetainTickets, cupid.RetainRatingResults}},
		Now:    func() time.Time { return t0.Add(8 * 24 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Pass(context.Background(), cupid.Fence{})
	if err == nil || !strings.Contains(err.Error(), "retention of tickets: export: export to "+filepath.Join(dir, "tickets")) {
		t.Fatalf("the pass's error: %v", err)
	}
	if n := ticketCount(t, st); n != 6 {
		t.Errorf("%d tickets left, want all 6: nothing deleted without its export", n)
	}
	tk, res := rep.Kinds[0], rep.Kinds[1]
	if tk.Removed != 0 || tk.Exported != 0 || !strings.Contains(tk.Failed, "not a directory") {
		t.Errorf("the tickets' report: %+v", tk)
	}
	if res.Removed != 1 || res.Exported != 1 || res.Failed != "" {
		t.Errorf("the results' report (they go on): %+v", res)
	}
	if !strings.Contains(rep.Failed, "retention of tickets: export") {
		t.Errorf("the pass's report says %q", rep.Failed)
	}
	if !strings.Contains(logs.String(), "level=ERROR msg=\"retention: writing the export failed") || !strings.Contains(logs.String(), "kind=tickets") {
		t.Errorf("the log says:\n%s", logs.String())
	}
	if got := counter(s.metrics.exportErrors.WithLabelValues("tickets")); got != 1 {
		t.Errorf("export errors %v", got)
	}
	if got := counter(s.metrics.passes.WithLabelValues("failed")); got != 1 {
		t.Errorf("failed passes %v", got)
	}
}

// TestExportOptions refuses an export the service cannot write.
func TestExportOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		e    *Export
		err  string
	}{
		{"no directory", &Export{Kinds: allExported}, "no directory"},
		{"a kind not exported", &Export{Dir: "x", Kinds: []cupid.RetentionKind{cupid.RetainEncounters}}, "encounters cannot be exported"},
		{"nothing to export", &Export{Dir: "x"}, ""},
		{"every kind", &Export{Dir: "x", Kinds: allExported}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(Options{Store: memstore.New(), Export: c.e})
			if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Fatalf("New: %v, want %q", err, c.err)
			}
		})
	}
}

func ticketCount(t *testing.T, st *memstore.Store) int64 {
	t.Helper()
	r, err := st.Retained(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r[0].Rows
}

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// postgresURL is a fresh PostgreSQL database for the test (pgtest.URL).
func postgresURL(t *testing.T) string { return pgtest.URL(t, "cupid_retentionsvc") }

func counter(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}
