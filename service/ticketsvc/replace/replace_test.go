package replace

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/ticketsvc/rulesets"
)

// The replacement's unit tests run over the in-memory document store with
// a stand-in for the queues that parses rulesets for real (package
// ruleset is pure) and records what it installs.

const (
	duelRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`
	trioRules = `{"alliance": {"min_number": 3, "max_number": 3, "player_min_number": 1, "player_max_number": 1}}`
)

var (
	t0          = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	errDiskFull = errors.New("disk full")
)

type current struct {
	src     string
	version int
}

// fakeQueues holds the duel queue's ruleset.
type fakeQueues struct {
	mu       sync.Mutex
	queues   map[string]current
	installs []current
}

func (f *fakeQueues) Current(queue string) ([]byte, int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.queues[queue]
	return []byte(c.src), c.version, ok
}

func (f *fakeQueues) Check(_ string, src []byte) (*ruleset.Compiled, ruleset.Problems) {
	rs, err := ruleset.Load(src)
	if err != nil {
		var ps ruleset.Problems
		if errors.As(err, &ps) {
			return nil, ps
		}
		return nil, ruleset.Problems{{Message: err.Error()}}
	}
	return rs, nil
}

func (f *fakeQueues) Install(queue string, src []byte, rules *ruleset.Compiled, version int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if rules == nil {
		panic("installed without compiled rules")
	}
	f.queues[queue] = current{string(src), version}
	f.installs = append(f.installs, current{string(src), version})
}

func newService(t *testing.T, docs *memstore.Store) (*Service, *fakeQueues) {
	t.Helper()
	q := &fakeQueues{queues: map[string]current{"duel": {duelRules, 1}}}
	o := Options{Queues: q, Names: []string{"duel"}, Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return t0 }}
	if docs != nil {
		o.Store = rulesets.New(docs)
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, q
}

func wantCode(t *testing.T, err error, code cupid.Code, field string) {
	t.Helper()
	var e *cupid.Error
	if !errors.As(err, &e) || e.Code != code || e.Field != field {
		t.Fatalf("error %v, want %s on %q", err, code, field)
	}
}

func TestNewNeedsTheQueues(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Fatal("New took no queues")
	}
}

func TestPutNotesTheHistory(t *testing.T) {
	docs := memstore.New()
	s, q := newService(t, docs)
	ctx := context.Background()
	v, err := s.Put(ctx, "duel", []byte(trioRules), 1, "editor")
	if err != nil || v != 2 || len(q.installs) != 1 || q.installs[0] != (current{trioRules, 2}) {
		t.Fatalf("put: %d %v, installed %+v", v, err, q.installs)
	}
	if src, v, err := s.Ruleset("duel"); err != nil || v != 2 || string(src) != trioRules {
		t.Fatalf("ruleset now %d %s (%v)", v, src, err)
	}
	hist, err := s.History(ctx, "duel")
	if err != nil || len(hist) != 2 || hist[0].Version != 1 || hist[0].Via != "seen" || hist[1].Version != 2 || hist[1].Via != "editor" {
		t.Fatalf("history %+v (%v)", hist, err)
	}
	s.NoteDecision(ctx, "duel", "shadow-start", []byte(duelRules), "try it")
	s.NoteDecision(ctx, "solo", "shadow-start", nil, "no such queue: nothing noted")
	hist, _ = s.History(ctx, "duel")
	if last := hist[len(hist)-1]; last.Via != "shadow-start" || last.Reason != "try it" || last.Version != 2 {
		t.Fatalf("the decision noted as %+v", last)
	}
	// Without a store the replacement still runs; the history is the
	// current version alone.
	s2, q2 := newService(t, nil)
	if v, err := s2.Put(ctx, "duel", []byte(trioRules), 0, "api"); err != nil || v != 2 || len(q2.installs) != 1 {
		t.Fatalf("put without a store: %d %v", v, err)
	}
	s2.NoteDecision(ctx, "duel", "shadow-start", nil, "")
	if hist, err := s2.History(ctx, "duel"); err != nil || len(hist) != 1 || hist[0].Version != 2 {
		t.Fatalf("history without a store %+v (%v)", hist, err)
	}
	if probs := s2.Validate([]byte(`{"alliance": 3}`)); len(probs) == 0 {
		t.Fatal("a bad ruleset validated")
	}
	if probs := s2.Validate([]byte(duelRules)); len(probs) != 0 {
		t.Fatalf("a good ruleset has problems %v", probs)
	}
}

func TestPutRefusalsChangeNothing(t *testing.T) {
	docs := memstore.New()
	s, q := newService(t, docs)
	ctx := context.Background()
	for _, c := range []struct {
		name, queue, ruleset string
		expected             int
		fail                 string
		code                 cupid.Code
		field                string
	}{
		{"negative version", "duel", trioRules, -1, "", cupid.CodeInvalid, "expected_version"},
		{"unknown queue", "solo", trioRules, 0, "", cupid.CodeNotFound, "queue"},
		{"does not load", "duel", `{"alliance": 3}`, 0, "", cupid.CodeInvalid, "ruleset"},
		{"stale version", "duel", trioRules, 2, "", cupid.CodeConflict, "expected_version"},
		{"store refuses", "duel", trioRules, 1, "PutDocument", cupid.CodeUnavailable, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.fail != "" {
				docs.FailNext(c.fail, errDiskFull)
			}
			_, err := s.Put(ctx, c.queue, []byte(c.ruleset), c.expected, "api")
			wantCode(t, err, c.code, c.field)
			if len(q.installs) != 0 {
				t.Fatalf("a refused put installed %+v", q.installs)
			}
		})
	}
	_, _, err := s.Ruleset("solo")
	wantCode(t, err, cupid.CodeNotFound, "queue")
	_, err = s.History(ctx, "solo")
	wantCode(t, err, cupid.CodeNotFound, "queue")
	docs.FailNext("Documents", errDiskFull)
	_, err = s.History(ctx, "duel")
	wantCode(t, err, cupid.CodeUnavailable, "")
	// A history that cannot be noted does not undo the replacement.
	docs.FailNext("Documents", errDiskFull)
	if v, err := s.Put(ctx, "duel", []byte(trioRules), 1, "api"); err != nil || v != 2 {
		t.Fatalf("put with the history failing: %d %v", v, err)
	}
}

// TestChangedInstallsWhatAnotherNodeStored: a newer stored replacement is
// installed, an older or equal one is not.
func TestChangedInstallsWhatAnotherNodeStored(t *testing.T) {
	docs := memstore.New()
	a, qa := newService(t, docs)
	b, qb := newService(t, docs)
	ctx := context.Background()
	if _, err := a.Put(ctx, "duel", []byte(trioRules), 0, "api"); err != nil {
		t.Fatal(err)
	}
	if err := b.Changed(ctx, "duel"); err != nil || len(qb.installs) != 1 || qb.installs[0] != (current{trioRules, 2}) {
		t.Fatalf("b installed %+v (%v)", qb.installs, err)
	}
	if err := a.Changed(ctx, "duel"); err != nil || len(qa.installs) != 1 {
		t.Fatalf("a installed its own version again: %+v (%v)", qa.installs, err)
	}
	if err := b.Changed(ctx, "solo"); err != nil {
		t.Fatalf("an unknown queue: %v", err)
	}
	s, _ := newService(t, nil)
	if err := s.Changed(ctx, "duel"); err != nil {
		t.Fatalf("without a store: %v", err)
	}
	docs.FailNext("Documents", errDiskFull)
	if err := b.Changed(ctx, "duel"); err == nil {
		t.Fatal("a failing store was not reported")
	}
	for _, body := range []string{`not json`, `{"version": 9, "ruleset": {"alliance": 3}}`} {
		if err := docs.PutDocument(ctx, cupid.Fence{}, rulesets.Kind, "duel", []byte(body), t0); err != nil {
			t.Fatal(err)
		}
		if err := b.Changed(ctx, "duel"); err == nil || !strings.Contains(err.Error(), "stored ruleset of duel") {
			t.Fatalf("%s: %v", body, err)
		}
	}
}

// TestLoadFollowsPrecedence: at start a stored replacement wins over the
// configuration it replaced, loses once the configuration changed, and is
// set aside when it does not read or compile.
func TestLoadFollowsPrecedence(t *testing.T) {
	ctx := context.Background()
	docs := memstore.New()
	a, _ := newService(t, docs)
	if _, err := a.Put(ctx, "duel", []byte(trioRules), 0, "api"); err != nil {
		t.Fatal(err)
	}
	// A restart under the same configuration runs the replacement.
	_, q := newService(t, docs)
	if len(q.installs) != 1 || q.installs[0] != (current{trioRules, 2}) {
		t.Fatalf("restart installed %+v", q.installs)
	}
	// Under a changed configuration the configuration's runs.
	changed := &fakeQueues{queues: map[string]current{"duel": {`{"alliance": {"min_number": 2, "max_number": 2}}`, 1}}}
	s, err := New(Options{Queues: changed, Names: []string{"duel"}, Store: rulesets.New(docs), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(ctx); err != nil || len(changed.installs) != 0 {
		t.Fatalf("a changed configuration installed %+v (%v)", changed.installs, err)
	}
	for _, body := range []string{`not json`, `{"version": 4, "ruleset": {"alliance": 3}}`} {
		if err := docs.PutDocument(ctx, cupid.Fence{}, rulesets.Kind, "duel", []byte(body), t0); err != nil {
			t.Fatal(err)
		}
		if _, q := newService(t, docs); len(q.installs) != 0 {
			t.Fatalf("%s was installed: %+v", body, q.installs)
		}
	}
	docs.FailNext("Documents", errDiskFull)
	s, _ = New(Options{Queues: &fakeQueues{queues: map[string]current{}}, Store: rulesets.New(docs)})
	if err := s.Load(ctx); err == nil {
		t.Fatal("a failing store was not reported")
	}
}
