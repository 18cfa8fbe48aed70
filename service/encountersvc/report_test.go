package encountersvc

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
)

// marks records the low-priority marks the service asked for.
type marks struct {
	mu  sync.Mutex
	got []string
}

func (m *marks) mark(_ context.Context, player, reason string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.got = append(m.got, player+": "+reason)
	return nil
}

func (m *marks) list() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.got...)
}

func TestReportsOverTheThresholdMarkLowPriority(t *testing.T) {
	st := memstore.New()
	c := testclock.At(t0)
	var mk marks
	svc, err := New(Options{Store: st, Docs: st, Now: c.Now, Logger: slog.New(slog.DiscardHandler),
		Reports:         encounter.ReportRules{Thresholds: map[string]int{"cheating": 3, "griefing": 2}, Within: 24 * time.Hour},
		MarkLowPriority: mk.mark})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// zed plays four matches, against ann, bob, cat and dan.
	for i, p := range []string{"ann", "bob", "cat", "dan"} {
		m := encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: "m" + p, At: c.Now(), Teams: [][]string{{p}, {"zed"}}}
		if err := svc.Record(ctx, m); err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Duration(i+1) * time.Minute)
	}
	report := func(who, reason string) {
		t.Helper()
		if _, err := svc.ReportPlayer(ctx, who, "zed", "m"+who, reason, ""); err != nil {
			t.Fatal(err)
		}
	}
	report("ann", "cheating")
	report("ann", "cheating") // the same report again counts once
	report("bob", "cheating")
	report("cat", "griefing")
	if got := mk.list(); len(got) != 0 {
		t.Fatalf("marked below every threshold: %v", got)
	}
	report("dan", "cheating")
	if got := mk.list(); len(got) != 1 || got[0] != "zed: reported for cheating by 3 players" {
		t.Fatalf("marks %v, want zed for cheating", got)
	}
	rs, err := svc.Reports(ctx, "zed")
	if err != nil || len(rs) != 4 {
		t.Fatalf("zed's reports: %+v %v", rs, err)
	}
	// Refusals: a match one did not play, a reason not configured.
	if _, err := svc.ReportPlayer(ctx, "ann", "zed", "mbob", "cheating", ""); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("a report from someone else's match: %v", err)
	}
	if _, err := svc.ReportPlayer(ctx, "ann", "zed", "mann", "rudeness", ""); cupid.ErrorCode(err) != cupid.CodeInvalid {
		t.Fatalf("an unknown reason: %v", err)
	}
	// A day later the reports have aged out: they count for nothing and
	// are deleted on the next read that prunes.
	c.Advance(25 * time.Hour)
	if rs, err := svc.Reports(ctx, "zed"); err != nil || len(rs) != 0 {
		t.Fatalf("zed's reports a day later: %+v %v", rs, err)
	}
}

func TestReportsOffWithoutReasons(t *testing.T) {
	st := memstore.New()
	svc, err := New(Options{Store: st, Docs: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ReportPlayer(context.Background(), "ann", "zed", "m", "x", ""); cupid.ErrorCode(err) != cupid.CodeUnavailable {
		t.Fatalf("a report on a server without reasons: %v", err)
	}
}

// TestAllReportsPages lists every player's reports a page at a time, with
// the counts per reason and the players over a threshold.
func TestAllReportsPages(t *testing.T) {
	st := memstore.New()
	c := testclock.At(t0)
	svc, err := New(Options{Store: st, Docs: st, Now: c.Now, Logger: slog.New(slog.DiscardHandler),
		Reports: encounter.ReportRules{Thresholds: map[string]int{"cheating": 2, "griefing": 5}, Within: 24 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []string{"ann", "bob", "cat"} {
		for _, o := range []string{"yan", "zed"} {
			m := encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: "m" + p + o, At: c.Now(), Teams: [][]string{{p}, {o}}}
			if err := svc.Record(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, r := range []struct{ who, other, reason string }{
		{"ann", "zed", "cheating"}, {"bob", "zed", "cheating"}, {"cat", "zed", "griefing"}, {"ann", "yan", "griefing"},
	} {
		if _, err := svc.ReportPlayer(ctx, r.who, r.other, "m"+r.who+r.other, r.reason, ""); err != nil {
			t.Fatal(err)
		}
	}
	all, err := svc.AllReports(ctx, "", 0)
	if err != nil || len(all.Reports) != 4 || all.Next != "" {
		t.Fatalf("one page of everything: %+v %v", all, err)
	}
	if s := all.Summary; s.ByReason["cheating"] != 2 || s.ByReason["griefing"] != 2 || len(s.Over) != 1 ||
		s.Over[0] != (encounter.OverThreshold{Player: "zed", Reason: "cheating", Reporters: 2, Threshold: 2}) {
		t.Fatalf("summary %+v", s)
	}
	var paged []encounter.Report
	after := ""
	for range 10 {
		p, err := svc.AllReports(ctx, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, p.Reports...)
		if after = p.Next; after == "" {
			break
		}
	}
	if len(paged) != 4 {
		t.Fatalf("pages of 3 gave %d reports, want 4", len(paged))
	}
	c.Advance(25 * time.Hour) // out of the window: nothing counts
	if all, _ := svc.AllReports(ctx, "", 0); len(all.Reports) != 0 || len(all.Summary.Over) != 0 {
		t.Fatalf("after the window: %+v", all)
	}
}

// TestReportMarkRetriedAfterAFailure: a report that makes a reason reach
// its threshold is kept even when marking the player fails, and the mark
// is tried again by the next report of that reason for him (he is still
// over the threshold); once marked, further reports do not mark again.
func TestReportMarkRetriedAfterAFailure(t *testing.T) {
	st := memstore.New()
	c := testclock.At(t0)
	var calls []string
	fail := true
	mark := func(_ context.Context, player, reason string) error {
		calls = append(calls, player+": "+reason)
		if fail {
			return errDown
		}
		return nil
	}
	svc, err := New(Options{Store: st, Docs: st, Now: c.Now, Logger: slog.New(slog.DiscardHandler),
		Reports:         encounter.ReportRules{Thresholds: map[string]int{"cheating": 2, "griefing": 1}, Within: 24 * time.Hour},
		MarkLowPriority: mark})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []string{"ann", "bob", "cat", "dan", "eve"} {
		m := encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: "m" + p, At: c.Now(), Teams: [][]string{{p}, {"zed"}}}
		if err := svc.Record(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		who, reason string
		fail        bool
		marks       int // mark calls so far
	}{
		{"ann", "cheating", true, 0},
		{"bob", "cheating", true, 1},  // reaches 2: the mark fails
		{"cat", "griefing", false, 2}, // another reason: marked for it
		{"dan", "cheating", false, 3}, // still over: tried again
		{"eve", "cheating", false, 3}, // marked already: not again
	}
	for _, s := range steps {
		fail = s.fail
		if _, err := svc.ReportPlayer(ctx, s.who, "zed", "m"+s.who, s.reason, ""); err != nil {
			t.Fatalf("%s's report: %v", s.who, err)
		}
		if len(calls) != s.marks {
			t.Fatalf("after %s's report: marks %v, want %d", s.who, calls, s.marks)
		}
	}
	want := []string{"zed: reported for cheating by 2 players", "zed: reported for griefing by 1 players", "zed: reported for cheating by 3 players"}
	if !slices.Equal(calls, want) {
		t.Errorf("marks %v, want %v", calls, want)
	}
	if rs, _ := svc.Reports(ctx, "zed"); len(rs) != 5 {
		t.Errorf("zed has %d reports, want 5 (the one whose mark failed is kept)", len(rs))
	}
}

// TestReportsStoredBadlyOrOld: a stored report that cannot be read is
// skipped (and logged), never failing the list; an old report that
// cannot be deleted is left for a later read, and the report still taken.
func TestReportsStoredBadlyOrOld(t *testing.T) {
	st := memstore.New()
	c := testclock.At(t0)
	svc, err := New(Options{Store: st, Docs: st, Now: c.Now, Logger: slog.New(slog.DiscardHandler),
		Reports: encounter.ReportRules{Thresholds: map[string]int{"cheating": 5}, Within: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	played := func(p string) {
		t.Helper()
		m := encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: "m" + p, At: c.Now(), Teams: [][]string{{p}, {"zed"}}}
		if err := svc.Record(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	played("ann")
	if _, err := svc.ReportPlayer(ctx, "ann", "zed", "mann", "cheating", "old"); err != nil {
		t.Fatal(err)
	}
	if err := st.PutDocument(ctx, cupid.Fence{}, ReportKind, digest("zed")+"/garbage", []byte("{"), t0); err != nil {
		t.Fatal(err)
	}
	rs, err := svc.Reports(ctx, "zed")
	if err != nil || len(rs) != 1 {
		t.Fatalf("with a report unreadable: %+v %v", rs, err)
	}
	if p, err := svc.AllReports(ctx, "", 0); err != nil || len(p.Reports) != 1 {
		t.Fatalf("all reports with one unreadable: %+v %v", p, err)
	}
	ids := func() int {
		docs, err := st.Documents(ctx, ReportKind, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(docs)
	}
	// ann's report is now older than the window; bob's report prunes it,
	// but the delete fails: the report is taken all the same.
	c.Advance(70 * time.Minute)
	played("bob")
	st.FailNext("DeleteDocument", errDown)
	if _, err := svc.ReportPlayer(ctx, "bob", "zed", "mbob", "cheating", ""); err != nil {
		t.Fatalf("a report while pruning fails: %v", err)
	}
	if n := ids(); n != 3 {
		t.Fatalf("%d report documents, want 3 (the old one could not go)", n)
	}
	if rs, _ := svc.Reports(ctx, "zed"); len(rs) != 1 || rs[0].Reporter != "bob" {
		t.Fatalf("zed's reports: %+v, want bob's only", rs)
	}
	// Bob reporting again changes nothing and prunes the old one.
	if _, err := svc.ReportPlayer(ctx, "bob", "zed", "mbob", "cheating", "again"); err != nil {
		t.Fatal(err)
	}
	if n := ids(); n != 2 {
		t.Fatalf("%d report documents after a prune, want 2", n)
	}
}

// TestReportsNeedDocuments: reports are kept as documents; without a
// document store they are refused as unavailable, never a panic.
func TestReportsNeedDocuments(t *testing.T) {
	st := memstore.New()
	svc, err := New(Options{Store: st, Logger: slog.New(slog.DiscardHandler), Now: testclock.At(t0).Now,
		Reports: encounter.ReportRules{Thresholds: map[string]int{"cheating": 1}, Within: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := svc.Record(ctx, encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: "m1", At: t0, Teams: [][]string{{"ann"}, {"zed"}}}); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"ReportPlayer": func() error { _, err := svc.ReportPlayer(ctx, "ann", "zed", "m1", "cheating", ""); return err },
		"Reports":      func() error { _, err := svc.Reports(ctx, "zed"); return err },
		"AllReports":   func() error { _, err := svc.AllReports(ctx, "", 0); return err },
	} {
		if err := call(); cupid.ErrorCode(err) != cupid.CodeUnavailable {
			t.Errorf("%s without documents: %v", name, err)
		}
	}
}
