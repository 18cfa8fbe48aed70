package encounter

import (
	"errors"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

func TestRematch(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	m := Meeting{Mode: ModeQueue, Place: "duel", Ref: "m1", At: t0, Teams: [][]string{{"ann"}, {"bob"}}}
	es, err := m.Encounters()
	if err != nil {
		t.Fatal(err)
	}
	annH := []cupid.Encounter{es[0]}
	w := time.Minute

	for _, tc := range []struct {
		name              string
		asker, other, ref string
		at                time.Duration
		code              cupid.Code
		field             string
	}{
		{"not that match", "ann", "bob", "m2", 0, cupid.CodeNotFound, "ref"},
		{"not that opponent", "ann", "cat", "m1", 0, cupid.CodeNotFound, "ref"},
		{"too late", "ann", "bob", "m1", 2 * time.Minute, cupid.CodeConflict, "ref"},
		{"himself", "ann", "ann", "m1", 0, cupid.CodeInvalid, "other_id"},
		{"no ref", "ann", "bob", "", 0, cupid.CodeInvalid, "ref"},
	} {
		_, err := AskRematch(annH, tc.asker, tc.other, tc.ref, w, t0.Add(tc.at))
		var ce *cupid.Error
		if !errors.As(err, &ce) || ce.Code != tc.code || ce.Field != tc.field {
			t.Errorf("%s: %v, want %s on %s", tc.name, err, tc.code, tc.field)
		}
	}

	r, err := AskRematch(annH, "ann", "bob", "m1", w, t0.Add(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if r.Place != "duel" || r.StateAt(t0.Add(30*time.Second)) != RematchPending || r.StateAt(t0.Add(90*time.Second)) != RematchExpired {
		t.Fatalf("asked rematch %+v", r)
	}
	if _, err := r.Answer("ann", true, t0.Add(31*time.Second)); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Errorf("the asker answering again: %v", err)
	}
	if _, err := r.Answer("cat", true, t0.Add(31*time.Second)); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Errorf("a stranger answering: %v", err)
	}
	if _, err := r.Answer("bob", true, t0.Add(90*time.Second)); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Errorf("answering an expired rematch: %v", err)
	}
	acc, err := r.Answer("bob", true, t0.Add(40*time.Second))
	if err != nil || acc.State != RematchAccepted {
		t.Fatalf("both accepted: %+v %v", acc, err)
	}
	if r.State != RematchPending || len(r.Answers) != 1 {
		t.Fatalf("Answer changed the rematch it was given: %+v", r)
	}
	dec, err := r.Answer("bob", false, t0.Add(40*time.Second))
	if err != nil || dec.State != RematchDeclined {
		t.Fatalf("declined: %+v %v", dec, err)
	}
	if _, err := dec.Answer("ann", true, t0.Add(41*time.Second)); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Errorf("answering a declined rematch: %v", err)
	}
}
