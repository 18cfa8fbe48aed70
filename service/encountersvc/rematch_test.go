package encountersvc

import (
	"context"
	"log/slog"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// rematchRig is the history and a real ticket service on one store.
type rematchRig struct {
	store *memstore.Store
	clock *testclock.Clock
	svc   *Service
}

func newRematchRig(t *testing.T) *rematchRig {
	t.Helper()
	st := memstore.New()
	c := testclock.At(t0)
	log := slog.New(slog.DiscardHandler)
	mm, err := ticketsvc.New(ticketsvc.Options{Store: st, Documents: st, Now: c.Now, Logger: log,
		Queues: []ticketsvc.Queue{{Name: "duel", TTL: time.Hour, Ruleset: []byte(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := mm.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mm.Close)
	svc, err := New(Options{Store: st, Docs: st, Now: c.Now, Logger: log, Matches: mm, RematchWindow: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return &rematchRig{store: st, clock: c, svc: svc}
}

// played records a duel between a and b now.
func (r *rematchRig) played(t *testing.T, ref, a, b string) {
	t.Helper()
	m := encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: ref, At: r.clock.Now(), Teams: [][]string{{a}, {b}}}
	if err := r.svc.Record(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

func (r *rematchRig) matchOf(t *testing.T, id string) *cupid.MatchRecord {
	t.Helper()
	rec, err := r.store.MatchRecord(context.Background(), id)
	if cupid.ErrorCode(err) == cupid.CodeNotFound {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestRematchAcceptedByBothForms(t *testing.T) {
	r := newRematchRig(t)
	ctx := context.Background()
	r.played(t, "m1", "ann", "bob")
	r.clock.Advance(10 * time.Second)
	v, err := r.svc.RequestRematch(ctx, "ann", "bob", "m1")
	if err != nil {
		t.Fatal(err)
	}
	if v.State != encounter.RematchPending || v.MatchID != "" {
		t.Fatalf("asked: %+v", v)
	}
	again, err := r.svc.RequestRematch(ctx, "ann", "bob", "m1")
	if err != nil || again.ID != v.ID {
		t.Fatalf("asking twice: %+v %v, want the same rematch", again, err)
	}
	if _, err := r.svc.AnswerRematch(ctx, "cat", v.ID, true); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("a stranger answering: %v", err)
	}
	r.clock.Advance(10 * time.Second)
	done, err := r.svc.AnswerRematch(ctx, "bob", v.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if done.State != encounter.RematchAccepted || done.MatchID == "" {
		t.Fatalf("accepted: %+v", done)
	}
	rec := r.matchOf(t, done.MatchID)
	if rec == nil {
		t.Fatal("the rematch's match was not formed")
	}
	if !rec.Match.InTeams("ann") || !rec.Match.InTeams("bob") || len(rec.Match.Teams) != 2 {
		t.Fatalf("the rematch's teams: %+v", rec.Match.Teams)
	}
	// Answering again finds the match formed; asking again is refused.
	if again, err := r.svc.AnswerRematch(ctx, "ann", v.ID, true); err != nil || again.MatchID != done.MatchID {
		t.Fatalf("answering an accepted rematch: %+v %v", again, err)
	}
	if _, err := r.svc.RequestRematch(ctx, "bob", "ann", "m1"); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("asking again after the rematch: %v", err)
	}
}

func TestRematchBothAskingIsAccepting(t *testing.T) {
	r := newRematchRig(t)
	ctx := context.Background()
	r.played(t, "m1", "ann", "bob")
	if _, err := r.svc.RequestRematch(ctx, "ann", "bob", "m1"); err != nil {
		t.Fatal(err)
	}
	v, err := r.svc.RequestRematch(ctx, "bob", "ann", "m1")
	if err != nil || v.State != encounter.RematchAccepted || r.matchOf(t, v.MatchID) == nil {
		t.Fatalf("both asked: %+v %v", v, err)
	}
}

func TestRematchDeclinedOrExpiredFormsNothing(t *testing.T) {
	r := newRematchRig(t)
	ctx := context.Background()
	r.played(t, "m1", "ann", "bob")
	r.played(t, "m2", "cat", "dan")
	dec, err := r.svc.RequestRematch(ctx, "ann", "bob", "m1")
	if err != nil {
		t.Fatal(err)
	}
	exp, err := r.svc.RequestRematch(ctx, "cat", "dan", "m2")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := r.svc.AnswerRematch(ctx, "bob", dec.ID, false); err != nil || v.State != encounter.RematchDeclined {
		t.Fatalf("declined: %+v %v", v, err)
	}
	if _, err := r.svc.AnswerRematch(ctx, "ann", dec.ID, true); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("accepting a declined rematch: %v", err)
	}
	r.clock.Advance(time.Minute)
	if _, err := r.svc.AnswerRematch(ctx, "dan", exp.ID, true); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("accepting an expired rematch: %v", err)
	}
	if v, err := r.svc.GetRematch(ctx, "dan", exp.ID); err != nil || v.State != encounter.RematchExpired {
		t.Fatalf("the expired rematch reads %+v %v", v, err)
	}
	for _, id := range []string{dec.ID, exp.ID} {
		if r.matchOf(t, rematchMatchID(id)) != nil {
			t.Fatalf("rematch %s formed a match", id)
		}
	}
	// Too late to ask, and not a match one played, are refused.
	if _, err := r.svc.RequestRematch(ctx, "bob", "ann", "m1"); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("asking after the window: %v", err)
	}
	if _, err := r.svc.RequestRematch(ctx, "ann", "dan", "m2"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("asking for someone else's match: %v", err)
	}
}

// TestRematchFormingFailedIsFinishedByAnsweringAgain: when the match of
// an accepted rematch cannot be formed, the rematch stays accepted and
// answering again (either player) forms it, once.
func TestRematchFormingFailedIsFinishedByAnsweringAgain(t *testing.T) {
	r := newRematchRig(t)
	ctx := context.Background()
	real := r.svc.former
	fails := 1
	r.svc.former = formerFunc(func(ctx context.Context, f ticketsvc.FormedMatch) (*cupid.MatchRecord, error) {
		if fails > 0 {
			fails--
			return nil, cupid.Errorf(cupid.CodeUnavailable, "", "the store could not do this now")
		}
		return real.CommitFormed(ctx, f)
	})
	r.played(t, "m1", "ann", "bob")
	v, err := r.svc.RequestRematch(ctx, "ann", "bob", "m1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.AnswerRematch(ctx, "bob", v.ID, true); cupid.ErrorCode(err) != cupid.CodeUnavailable {
		t.Fatalf("accepting while forming fails: %v", err)
	}
	got, err := r.svc.GetRematch(ctx, "ann", v.ID)
	if err != nil || got.State != encounter.RematchAccepted {
		t.Fatalf("after the failure: %+v %v, want accepted", got, err)
	}
	if r.matchOf(t, got.MatchID) != nil {
		t.Fatal("a match formed though forming failed")
	}
	for _, who := range []string{"ann", "bob"} {
		done, err := r.svc.AnswerRematch(ctx, who, v.ID, true)
		if err != nil || r.matchOf(t, done.MatchID) == nil {
			t.Fatalf("%s answering again: %+v %v", who, done, err)
		}
	}
	if _, err := r.svc.GetRematch(ctx, "cat", v.ID); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("a stranger reading the rematch: %v", err)
	}
}

// TestRematchesNeedTheirParts: without a way to form matches rematches
// are refused as not served; without a document store nothing can be
// kept, so asking is unavailable and there is nothing to read.
func TestRematchesNeedTheirParts(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	c := testclock.At(t0)
	log := slog.New(slog.DiscardHandler)
	noForm, err := New(Options{Store: st, Docs: st, Now: c.Now, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	former := formerFunc(func(context.Context, ticketsvc.FormedMatch) (*cupid.MatchRecord, error) {
		t.Error("a match formed without a rematch")
		return nil, nil
	})
	noDocs, err := New(Options{Store: st, Now: c.Now, Logger: log, Matches: former})
	if err != nil {
		t.Fatal(err)
	}
	if err := noDocs.Record(ctx, encounter.QueueMeeting("duel", "m1", t0, [][]string{{"ann"}, {"bob"}})); err != nil {
		t.Fatal(err)
	}
	id := rematchID("m1", "ann", "bob")
	cases := []struct {
		name string
		call func() error
		want cupid.Code
	}{
		{"asking, no former", func() error { _, err := noForm.RequestRematch(ctx, "ann", "bob", "m1"); return err }, cupid.CodeUnavailable},
		{"answering, no former", func() error { _, err := noForm.AnswerRematch(ctx, "bob", id, true); return err }, cupid.CodeUnavailable},
		{"asking, no documents", func() error { _, err := noDocs.RequestRematch(ctx, "ann", "bob", "m1"); return err }, cupid.CodeUnavailable},
		{"answering, no documents", func() error { _, err := noDocs.AnswerRematch(ctx, "bob", id, true); return err }, cupid.CodeNotFound},
		{"reading, no documents", func() error { _, err := noDocs.GetRematch(ctx, "bob", id); return err }, cupid.CodeNotFound},
	}
	for _, tc := range cases {
		if err := tc.call(); cupid.ErrorCode(err) != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
}

// TestRematchStoredBadly: a rematch document that cannot be read is an
// error for its callers, not a rematch (nor a panic), and is not
// overwritten by asking again.
func TestRematchStoredBadly(t *testing.T) {
	r := newRematchRig(t)
	ctx := context.Background()
	r.played(t, "m1", "ann", "bob")
	id := rematchID("m1", "ann", "bob")
	if err := r.store.PutDocument(ctx, cupid.Fence{}, RematchKind, id, []byte("{"), t0); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.GetRematch(ctx, "ann", id); err == nil {
		t.Error("an unreadable rematch was read")
	}
	if _, err := r.svc.AnswerRematch(ctx, "bob", id, true); err == nil {
		t.Error("an unreadable rematch was answered")
	}
	if _, err := r.svc.RequestRematch(ctx, "ann", "bob", "m1"); err == nil {
		t.Error("asking over an unreadable rematch succeeded")
	}
	docs, _ := r.store.Documents(ctx, RematchKind, "", 0)
	if len(docs) != 1 || string(docs[0].Body) != "{" {
		t.Errorf("the rematch documents: %+v", docs)
	}
}
