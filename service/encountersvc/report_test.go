package encountersvc

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
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
	c := &clock{t: t0}
	var mk marks
	svc, err := New(Options{Store: st, Docs: st, Now: c.now, Logger: slog.New(slog.DiscardHandler),
		Reports:         encounter.ReportRules{Thresholds: map[string]int{"cheating": 3, "griefing": 2}, Within: 24 * time.Hour},
		MarkLowPriority: mk.mark})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// zed plays four matches, against ann, bob, cat and dan.
	for i, p := range []string{"ann", "bob", "cat", "dan"} {
		m := encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: "m" + p, At: c.now(), Teams: [][]string{{p}, {"zed"}}}
		if err := svc.Record(ctx, m); err != nil {
			t.Fatal(err)
		}
		c.add(time.Duration(i+1) * time.Minute)
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
	c.add(25 * time.Hour)
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
	c := &clock{t: t0}
	svc, err := New(Options{Store: st, Docs: st, Now: c.now, Logger: slog.New(slog.DiscardHandler),
		Reports: encounter.ReportRules{Thresholds: map[string]int{"cheating": 2, "griefing": 5}, Within: 24 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, p := range []string{"ann", "bob", "cat"} {
		for _, o := range []string{"yan", "zed"} {
			m := encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: "m" + p + o, At: c.now(), Teams: [][]string{{p}, {o}}}
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
	c.add(25 * time.Hour) // out of the window: nothing counts
	if all, _ := svc.AllReports(ctx, "", 0); len(all.Reports) != 0 || len(all.Summary.Over) != 0 {
		t.Fatalf("after the window: %+v", all)
	}
}
