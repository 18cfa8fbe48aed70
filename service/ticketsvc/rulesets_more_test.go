package ticketsvc

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc/rulesets"
)

// TestPutRulesetRefusalsChangeNothing: a refused replacement names the
// field, leaves the queue at its version and notes no history.
func TestPutRulesetRefusalsChangeNothing(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		queue    string
		ruleset  string
		expected int
		fail     string // a store operation that fails
		code     cupid.Code
		field    string
		mention  string
	}{
		{"unknown queue", "nope", duelRules, 0, "", cupid.CodeNotFound, "queue", "nope"},
		{"ruleset that does not load", "duel", `{"alliance": 3}`, 0, "", cupid.CodeInvalid, "ruleset", "alliance"},
		{"not JSON", "duel", `{`, 0, "", cupid.CodeInvalid, "ruleset", ""},
		{"stale version", "duel", duelRules, 2, "", cupid.CodeConflict, "expected_version", "version 1"},
		{"store refuses the write", "duel", duelRules, 1, "PutDocument", cupid.CodeUnavailable, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fail != "" {
				h.store.FailNext(tc.fail, errDiskFull)
			}
			_, err := h.Rulesets().Put(ctx, tc.queue, []byte(tc.ruleset), tc.expected, "api")
			wantErr(t, err, tc.code, tc.field, tc.mention)
			if src, v, _ := h.Rulesets().Ruleset("duel"); v != 1 || string(src) != duelRules {
				t.Fatalf("after a refused put the queue is at version %d", v)
			}
		})
	}
	hist, err := h.Rulesets().History(ctx, "duel")
	if err != nil || len(hist) != 1 || hist[0].Version != 1 {
		t.Fatalf("history after refusals: %+v %v, want version 1 alone", hist, err)
	}
	// The pool kept working under version 1.
	a := h.create(t, ticket("duel", 1000, "a"))
	h.create(t, ticket("duel", 1000, "b"))
	h.wait(0)
	if s := h.state(t, a.ID).State; s != cupid.StateMatched {
		t.Fatalf("after the refusals a pair is %s, want matched", s)
	}
}

// TestRulesetHistoryFailures: a history that cannot be noted does not undo
// the replacement (the history is the dashboard's); reading it from a
// failing store is unavailable, and works again after.
func TestRulesetHistoryFailures(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	ctx := context.Background()
	h.store.FailNext("Documents", errDiskFull) // the history's read at the put
	if v, err := h.Rulesets().Put(ctx, "duel", []byte(duelRules), 1, "api"); err != nil || v != 2 {
		t.Fatalf("put with the history failing: %d %v, want version 2", v, err)
	}
	h.store.FailNext("Documents", errDiskFull)
	_, err := h.Rulesets().History(ctx, "duel")
	wantErr(t, err, cupid.CodeUnavailable, "")
	h.store.FailNext("PutDocument", errDiskFull) // noting the current version
	_, err = h.Rulesets().History(ctx, "duel")
	wantErr(t, err, cupid.CodeUnavailable, "")
	hist, err := h.Rulesets().History(ctx, "duel")
	if err != nil || len(hist) != 1 || hist[0].Version != 2 || hist[0].Via != "seen" {
		t.Fatalf("history once the store works: %+v %v, want version 2 noted as seen", hist, err)
	}
}

// TestRestartWithAStoredRulesetThatNoLongerLoads: a run-time ruleset kept
// in the store that this server cannot load any more is passed over for
// the configured one; one for a queue no longer configured is ignored.
func TestRestartWithAStoredRulesetThatNoLongerLoads(t *testing.T) {
	store := memstore.New()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for id, body := range map[string]string{
		"duel":    `{"version": 4, "ruleset": {"alliance": 3}}`,
		"retired": `{"version": 2, "ruleset": ` + bigRules + `}`,
	} {
		if err := store.PutDocument(context.Background(), cupid.Fence{}, rulesets.Kind, id, []byte(body), at); err != nil {
			t.Fatal(err)
		}
	}
	h := start(t, store, queues(0))
	if src, v, _ := h.Rulesets().Ruleset("duel"); v != 1 || string(src) != duelRules {
		t.Fatalf("duel runs version %d: %s", v, src)
	}

	// A stored document that is not a ruleset document is set aside the
	// same way, with a warning naming the queue; the document stays.
	if err := store.PutDocument(context.Background(), cupid.Fence{}, rulesets.Kind, "big", []byte(`not json`), at); err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	svc, err := New(Options{Store: store, Documents: store, Queues: queues(0), Now: h.clock.Now, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if err := svc.Start(context.Background()); err != nil {
		t.Fatalf("start with an unreadable stored ruleset: %v", err)
	}
	if src, v, _ := svc.Rulesets().Ruleset("big"); v != 1 || string(src) != bigRules {
		t.Fatalf("big runs version %d: %s", v, src)
	}
	if !strings.Contains(logged.String(), "stored ruleset does not read") || !strings.Contains(logged.String(), "queue=big") {
		t.Fatalf("the log does not say it: %s", logged.String())
	}
	if docs, _ := store.Documents(context.Background(), rulesets.Kind, "", 0); len(docs) != 3 {
		t.Fatalf("%d stored rulesets left, want the 3 put", len(docs))
	}
}

// TestStartFailsWhenTheStoreCannotBeRead: a start that cannot read what
// it must reload says so instead of running with tickets missing.
func TestStartFailsWhenTheStoreCannotBeRead(t *testing.T) {
	for _, op := range []string{"Documents", "WaitingTickets"} {
		t.Run(op, func(t *testing.T) {
			store := memstore.New()
			store.FailNext(op, errDiskFull)
			svc, err := New(Options{Store: store, Documents: store, Queues: queues(0), Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			if err := svc.Start(context.Background()); !errors.Is(err, errDiskFull) {
				t.Fatalf("start: %v, want the store's error", err)
			}
		})
	}
}
