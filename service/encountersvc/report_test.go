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
