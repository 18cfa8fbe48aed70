package rulesets

import (
	"context"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestPrecedence(t *testing.T) {
	configured := []byte(`{"teams": 2}`)
	for _, c := range []struct {
		name, stored string
		wins         bool
		why          string
	}{
		{"before the hash was kept", `{"version": 3, "ruleset": {"teams": 3}}`, true, "stored before Cupid recorded"},
		{"over this configuration", `{"version": 3, "ruleset": {"teams": 3}, "over": "` + Hash([]byte("{ \"teams\" : 2 }")) + `"}`, true, "has not changed since"},
		{"over another configuration", `{"version": 3, "ruleset": {"teams": 3}, "over": "abc"}`, false, "set aside"},
	} {
		t.Run(c.name, func(t *testing.T) {
			wins, why, err := Precedence(configured, []byte(c.stored))
			if err != nil || wins != c.wins || !strings.Contains(why, c.why) || !strings.Contains(why, "version 3") {
				t.Fatalf("got %v %q %v", wins, why, err)
			}
		})
	}
	for _, bad := range []string{`not json`, `{"version": 2}`} {
		if _, _, err := Precedence(configured, []byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// A replacement is read back as it was put, spacing and all, so every
// node serves the same text; one stored before the text was kept reads as
// its compact form.
func TestPutKeepsTheText(t *testing.T) {
	ctx := context.Background()
	docs := memstore.New()
	s := New(docs)
	text := "{\n  \"teams\": 2\n}"
	if err := s.Put(ctx, "duel", 2, []byte(text), "h", t0); err != nil {
		t.Fatal(err)
	}
	old := `{"version": 1, "ruleset": {"teams": 3}}`
	if err := docs.PutDocument(ctx, cupid.Fence{}, Kind, "old", []byte(old), t0); err != nil {
		t.Fatal(err)
	}
	all, err := s.All(ctx)
	if err != nil || len(all) != 2 {
		t.Fatalf("%d stored, %v", len(all), err)
	}
	if d := all[0]; d.Queue != "duel" || d.Version != 2 || string(d.Source()) != text || d.Over != "h" {
		t.Fatalf("duel: %+v", d)
	}
	if d := all[1]; d.Queue != "old" || string(d.Source()) != `{"teams": 3}` {
		t.Fatalf("old: %+v source %s", d, d.Source())
	}
}

// The history notes the replaced version once, the new one, and keeps the
// last Kept of each queue, oldest first.
func TestHistoryIsBounded(t *testing.T) {
	ctx := context.Background()
	s := New(memstore.New())
	for v := 2; v <= Kept+5; v++ {
		err := s.NoteReplacement(ctx, "duel", Version{Version: v - 1, At: t0, Via: "seen"}, Version{Version: v, At: t0, Via: "api"})
		if err != nil {
			t.Fatal(err)
		}
	}
	hist, err := s.History(ctx, "duel")
	if err != nil || len(hist) != Kept || hist[0].Version != 6 || hist[len(hist)-1].Version != Kept+5 {
		t.Fatalf("%d versions (%v), first %d", len(hist), err, hist[0].Version)
	}
	if hist[1].Via != "api" {
		t.Fatalf("a replaced version noted again: %+v", hist[1])
	}
	other, err := s.NoteCurrent(ctx, "duel2", Version{Version: 1, At: t0, Via: "seen"})
	if err != nil || len(other) != 1 {
		t.Fatalf("another queue's history: %+v %v", other, err)
	}
}
