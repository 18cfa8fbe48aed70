package encountersvc

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// errDown is a store failure that is none of the contract's errors: the
// service must hide it behind "unavailable".
var errDown = errors.New("disk on fire")

// faulty is the in-memory store whose encounter methods fail on demand.
// memstore's own Fail and FailNext cover its document methods (used as
// they are: "Documents", "PutDocument", "DeleteDocument") but not the
// encounter ones, so those are wrapped here.
type faulty struct {
	*memstore.Store
	mu   sync.Mutex
	fail map[string]failure // by method name
}

type failure struct {
	err   error
	times int // calls left to fail; < 0: every call
}

func newFaulty() *faulty { return &faulty{Store: memstore.New(), fail: map[string]failure{}} }

// failNext makes the next call of op return err, changing nothing.
func (f *faulty) failNext(op string, err error) { f.failTimes(op, err, 1) }

// failTimes makes the next n calls of op (every call when n < 0) return err.
func (f *faulty) failTimes(op string, err error, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[op] = failure{err: err, times: n}
}

func (f *faulty) check(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl, ok := f.fail[op]
	if !ok {
		return nil
	}
	switch {
	case fl.times == 1:
		delete(f.fail, op)
	case fl.times > 1:
		fl.times--
		f.fail[op] = fl
	}
	return fl.err
}

func (f *faulty) AddEncounters(ctx context.Context, es []cupid.Encounter) error {
	if err := f.check("AddEncounters"); err != nil {
		return err
	}
	return f.Store.AddEncounters(ctx, es)
}

func (f *faulty) Encounters(ctx context.Context, player string, since time.Time, limit int) ([]cupid.Encounter, error) {
	if err := f.check("Encounters"); err != nil {
		return nil, err
	}
	return f.Store.Encounters(ctx, player, since, limit)
}

func (f *faulty) PutListEntry(ctx context.Context, e cupid.ListEntry) error {
	if err := f.check("PutListEntry"); err != nil {
		return err
	}
	return f.Store.PutListEntry(ctx, e)
}

func (f *faulty) DeleteListEntry(ctx context.Context, player, kind, other string) error {
	if err := f.check("DeleteListEntry"); err != nil {
		return err
	}
	return f.Store.DeleteListEntry(ctx, player, kind, other)
}

func (f *faulty) ListEntries(ctx context.Context, players []string) ([]cupid.ListEntry, error) {
	if err := f.check("ListEntries"); err != nil {
		return nil, err
	}
	return f.Store.ListEntries(ctx, players)
}

func (f *faulty) EraseEncounters(ctx context.Context, player string) error {
	if err := f.check("EraseEncounters"); err != nil {
		return err
	}
	return f.Store.EraseEncounters(ctx, player)
}

// fail makes the next call of op fail, whichever store holds it.
func (f *faulty) failOp(op string) {
	switch op {
	case "Documents", "PutDocument", "DeleteDocument":
		f.Store.FailNext(op, errDown)
	default:
		f.failNext(op, errDown)
	}
}

// formerFunc forms a rematch's match with a function.
type formerFunc func(ctx context.Context, f ticketsvc.FormedMatch) (*cupid.MatchRecord, error)

func (f formerFunc) CommitFormed(ctx context.Context, fm ticketsvc.FormedMatch) (*cupid.MatchRecord, error) {
	return f(ctx, fm)
}

// faultRig is a service with everything configured over a faulty store,
// holding: a blocks b; a and c played the duel m1 a minute ago; d
// attacked a at raids; a met e in the "fridays" series.
type faultRig struct {
	st  *faulty
	c   *testclock.Clock
	svc *Service
}

func newFaultRig(t *testing.T) *faultRig {
	t.Helper()
	st := newFaulty()
	c := testclock.At(t0)
	svc, err := New(Options{Store: st, Docs: st, Now: c.Now, Logger: slog.New(slog.DiscardHandler),
		Queues: []Queue{{Name: "duel", MetWithin: time.Hour}},
		Matches: formerFunc(func(context.Context, ticketsvc.FormedMatch) (*cupid.MatchRecord, error) {
			return &cupid.MatchRecord{}, nil
		}),
		Reports: encounter.ReportRules{Thresholds: map[string]int{"cheating": 3}, Within: 24 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := svc.Put(ctx, "a", encounter.KindBlock, "b", 0); err != nil {
		t.Fatal(err)
	}
	for _, m := range []encounter.Meeting{
		{Mode: encounter.ModeQueue, Place: "duel", Ref: "m1", At: t0.Add(-time.Minute), Teams: [][]string{{"a"}, {"c"}}},
		{Mode: encounter.ModeOpponent, Place: "raids", Ref: "r1", At: t0.Add(-time.Hour), Teams: [][]string{{"d"}, {"a"}}},
		{Mode: encounter.ModePairing, Place: "fridays", Ref: "w1/1", At: t0.Add(-time.Hour), Teams: [][]string{{"a", "e"}}},
	} {
		if err := svc.Record(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	return &faultRig{st: st, c: c, svc: svc}
}

// TestStoreFailuresAreUnavailable: every call whose store read or write
// fails answers "unavailable" without the store's own words (they are
// logged, not shown), and changes nothing.
func TestStoreFailuresAreUnavailable(t *testing.T) {
	ctx := context.Background()
	type call func(r *faultRig) error
	cases := []struct {
		name, op string
		call     call
		// same checks, after the failure, that nothing changed.
		same func(t *testing.T, r *faultRig)
	}{
		{"Put reading the list", "ListEntries", func(r *faultRig) error {
			_, err := r.svc.Put(ctx, "a", encounter.KindBlock, "x", 0)
			return err
		}, listIs("a", "b")},
		{"Put writing", "PutListEntry", func(r *faultRig) error {
			_, err := r.svc.Put(ctx, "a", encounter.KindBlock, "x", 0)
			return err
		}, listIs("a", "b")},
		{"Remove", "DeleteListEntry", func(r *faultRig) error {
			return r.svc.Remove(ctx, "a", encounter.KindBlock, "b")
		}, listIs("a", "b")},
		{"List", "ListEntries", func(r *faultRig) error { _, err := r.svc.List(ctx, "a", ""); return err }, nil},
		{"Blocked", "ListEntries", func(r *faultRig) error { _, _, _, err := r.svc.Blocked(ctx, []string{"a", "b"}); return err }, nil},
		{"Erase", "EraseEncounters", func(r *faultRig) error { return r.svc.Erase(ctx, "a") }, func(t *testing.T, r *faultRig) {
			listIs("a", "b")(t, r)
			historyIs("a", "c/opponent", "d/defender", "e/opponent")(t, r)
		}},
		{"Record", "AddEncounters", func(r *faultRig) error {
			return r.svc.Record(ctx, encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: "m2", At: t0, Teams: [][]string{{"a"}, {"f"}}})
		}, historyIs("f")},
		{"RecordMeetings", "AddEncounters", func(r *faultRig) error {
			return r.svc.RecordMeetings(ctx, []encounter.Meeting{{Mode: encounter.ModePairing, Place: "fridays", Ref: "w2/1", At: t0, Teams: [][]string{{"f", "g"}}}})
		}, historyIs("f")},
		{"History", "Encounters", func(r *faultRig) error { _, err := r.svc.History(ctx, "a", 0); return err }, nil},
		{"Met", "Encounters", func(r *faultRig) error { _, err := r.svc.Met(ctx, "a", "c", encounter.Query{}); return err }, nil},
		{"Revenge", "Encounters", func(r *faultRig) error { _, err := r.svc.Revenge(ctx, "a", time.Hour, 0); return err }, nil},
		{"Exclusions reading the lists", "ListEntries", func(r *faultRig) error {
			_, err := r.svc.Exclusions(ctx, "d", "raids", time.Hour)
			return err
		}, nil},
		{"Exclusions reading the history", "Encounters", func(r *faultRig) error {
			_, err := r.svc.Exclusions(ctx, "d", "raids", time.Hour)
			return err
		}, nil},
		{"Barred reading the lists", "ListEntries", func(r *faultRig) error { _, err := r.svc.Barred(ctx, "a", "fridays", 0); return err }, nil},
		{"Barred reading the series", "Encounters", func(r *faultRig) error { _, err := r.svc.Barred(ctx, "a", "fridays", 0); return err }, nil},
		{"PrepareTicket reading the lists", "ListEntries", prepare, nil},
		{"PrepareTicket reading met", "Encounters", prepare, nil},
		{"RequestRematch reading the history", "Encounters", func(r *faultRig) error {
			_, err := r.svc.RequestRematch(ctx, "a", "c", "m1")
			return err
		}, noRematch},
		{"RequestRematch reading the rematch", "Documents", func(r *faultRig) error {
			_, err := r.svc.RequestRematch(ctx, "a", "c", "m1")
			return err
		}, noRematch},
		{"RequestRematch writing", "PutDocument", func(r *faultRig) error {
			_, err := r.svc.RequestRematch(ctx, "a", "c", "m1")
			return err
		}, noRematch},
		{"AnswerRematch", "Documents", func(r *faultRig) error {
			_, err := r.svc.AnswerRematch(ctx, "c", rematchID("m1", "a", "c"), true)
			return err
		}, nil},
		{"GetRematch", "Documents", func(r *faultRig) error {
			_, err := r.svc.GetRematch(ctx, "c", rematchID("m1", "a", "c"))
			return err
		}, nil},
		{"ReportPlayer reading the history", "Encounters", report, noReport},
		{"ReportPlayer reading the reports", "Documents", report, noReport},
		{"ReportPlayer writing", "PutDocument", report, noReport},
		{"Reports", "Documents", func(r *faultRig) error { _, err := r.svc.Reports(ctx, "c"); return err }, nil},
		{"AllReports", "Documents", func(r *faultRig) error { _, err := r.svc.AllReports(ctx, "", 0); return err }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newFaultRig(t)
			r.st.failOp(tc.op)
			err := tc.call(r)
			if cupid.ErrorCode(err) != cupid.CodeUnavailable {
				t.Fatalf("with %s failing: %v, want unavailable", tc.op, err)
			}
			if strings.Contains(err.Error(), errDown.Error()) {
				t.Errorf("the store's own words reached the caller: %v", err)
			}
			if tc.same != nil {
				tc.same(t, r)
			}
		})
	}
}

func prepare(r *faultRig) error {
	tk := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "a"}}}
	err := r.svc.PrepareTicket(context.Background(), tk)
	if len(tk.Players[0].Attributes) != 0 {
		return errors.New("a ticket refused was filled anyway")
	}
	return err
}

func report(r *faultRig) error {
	_, err := r.svc.ReportPlayer(context.Background(), "a", "c", "m1", "cheating", "")
	return err
}

func listIs(player string, want ...string) func(t *testing.T, r *faultRig) {
	return func(t *testing.T, r *faultRig) {
		t.Helper()
		l, err := r.svc.List(context.Background(), player, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range l {
			got = append(got, e.Other)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s's list is %v, want %v", player, got, want)
		}
	}
}

func historyIs(player string, want ...string) func(t *testing.T, r *faultRig) {
	return func(t *testing.T, r *faultRig) {
		t.Helper()
		if got := others(t, r.svc, player); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s met %v, want %v", player, got, want)
		}
	}
}

func noRematch(t *testing.T, r *faultRig) {
	t.Helper()
	if _, err := r.svc.GetRematch(context.Background(), "a", rematchID("m1", "a", "c")); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Errorf("a rematch asked while the store failed: %v", err)
	}
}

func noReport(t *testing.T, r *faultRig) {
	t.Helper()
	if rs, err := r.svc.Reports(context.Background(), "c"); err != nil || len(rs) != 0 {
		t.Errorf("reports after a failed report: %+v %v", rs, err)
	}
}

// TestStoreContractErrorsPass: the contract's own errors (a cupid.Error,
// a context ended) reach the caller as they are; only a store's other
// failures are hidden behind "unavailable".
func TestStoreContractErrorsPass(t *testing.T) {
	cases := []struct {
		name string
		err  error
		is   func(error) bool
	}{
		{"a cupid error", cupid.Conflict("x", "changed meanwhile"), func(err error) bool { return cupid.ErrorCode(err) == cupid.CodeConflict }},
		{"canceled", context.Canceled, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"deadline", context.DeadlineExceeded, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"anything else", errDown, func(err error) bool { return cupid.ErrorCode(err) == cupid.CodeUnavailable }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newFaultRig(t)
			r.st.failNext("Encounters", tc.err)
			if _, err := r.svc.History(context.Background(), "a", 0); !tc.is(err) {
				t.Errorf("the store said %v; the caller got %v", tc.err, err)
			}
		})
	}
}

// TestRematchAnswerNotWritten: an answer the store could not write is
// unavailable and leaves the rematch waiting for it.
func TestRematchAnswerNotWritten(t *testing.T) {
	ctx := context.Background()
	r := newFaultRig(t)
	v, err := r.svc.RequestRematch(ctx, "a", "c", "m1")
	if err != nil {
		t.Fatal(err)
	}
	r.st.failOp("PutDocument")
	if _, err := r.svc.AnswerRematch(ctx, "c", v.ID, true); cupid.ErrorCode(err) != cupid.CodeUnavailable {
		t.Fatalf("answering while the store fails: %v", err)
	}
	if got, err := r.svc.GetRematch(ctx, "c", v.ID); err != nil || got.State != encounter.RematchPending || len(got.Answers) != 1 {
		t.Fatalf("after the failed answer: %+v %v", got, err)
	}
	if got, err := r.svc.AnswerRematch(ctx, "c", v.ID, true); err != nil || got.State != encounter.RematchAccepted {
		t.Fatalf("answering again: %+v %v", got, err)
	}
}
