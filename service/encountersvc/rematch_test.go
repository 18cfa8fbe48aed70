package encountersvc

import (
	"context"
	"log/slog"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// rematchRig is the history and a real ticket service on one store.
type rematchRig struct {
	store *memstore.Store
	clock *clock
	svc   *Service
}

func newRematchRig(t *testing.T) *rematchRig {
	t.Helper()
	st := memstore.New()
	c := &clock{t: t0}
	log := slog.New(slog.DiscardHandler)
	mm, err := ticketsvc.New(ticketsvc.Options{Store: st, Documents: st, Now: c.now, Logger: log,
		Queues: []ticketsvc.Queue{{Name: "duel", TTL: time.Hour, Ruleset: []byte(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := mm.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mm.Close)
	svc, err := New(Options{Store: st, Docs: st, Now: c.now, Logger: log, Matches: mm, RematchWindow: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return &rematchRig{store: st, clock: c, svc: svc}
}

// played records a duel between a and b now.
func (r *rematchRig) played(t *testing.T, ref, a, b string) {
	t.Helper()
	m := encounter.Meeting{Mode: encounter.ModeQueue, Place: "duel", Ref: ref, At: r.clock.now(), Teams: [][]string{{a}, {b}}}
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
	r.clock.add(10 * time.Second)
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
	r.clock.add(10 * time.Second)
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
	r.clock.add(time.Minute)
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
