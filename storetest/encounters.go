package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// RunEncounters runs the cupid.EncounterStore contract against stores made
// by open:
//
//   - Encounters are unique by (Player, Other, Ref): adding a meeting
//     again (another node, a replay) keeps the first row and is no error.
//   - A player's encounters come newest first, equal times by Other then
//     Ref, from since (inclusive), at most limit; only his own.
//   - A list entry is unique by (Player, Kind, Other): putting it again
//     replaces its weight and time. ListEntries returns the entries of
//     the players' own lists (never who listed them), ordered by Player,
//     Kind, Other.
//   - EraseEncounters deletes the player's encounters, the others'
//     encounters with him and his own lists; others' entries naming him
//     stay.
//   - A batch larger than one statement's rows is stored whole.
func RunEncounters(t *testing.T, open func(t *testing.T) cupid.EncounterStore) {
	t.Run("AddAndRead", func(t *testing.T) { testEncountersAddAndRead(t, open(t)) })
	t.Run("Lists", func(t *testing.T) { testEncounterLists(t, open(t)) })
	t.Run("Erase", func(t *testing.T) { testEncountersErase(t, open(t)) })
	t.Run("LargeBatch", func(t *testing.T) { testEncountersLargeBatch(t, open(t)) })
}

// enc builds the two encounters of a 1v1 at T0 plus minutes.
func enc(a, b, ref string, minutes int) []cupid.Encounter {
	at := T0.Add(time.Duration(minutes) * time.Minute)
	return []cupid.Encounter{
		{Player: a, Other: b, Mode: "queue", Side: "opponent", Place: "duel", Ref: ref, At: at, Outcome: "win"},
		{Player: b, Other: a, Mode: "queue", Side: "opponent", Place: "duel", Ref: ref, At: at, Outcome: "loss"},
	}
}

// encString prints encounters as other@minutes/ref/outcome.
func encString(es []cupid.Encounter) string {
	var out []string
	for _, e := range es {
		out = append(out, fmt.Sprintf("%s>%s@%d/%s/%s/%s/%s/%s", e.Player, e.Other, int(e.At.Sub(T0)/time.Minute), e.Ref, e.Mode, e.Side, e.Place, e.Outcome))
	}
	return strings.Join(out, " ")
}

func testEncountersAddAndRead(t *testing.T, s cupid.EncounterStore) {
	ctx := context.Background()
	var all []cupid.Encounter
	all = append(all, enc("a", "b", "m1", 0)...)
	all = append(all, enc("a", "c", "m2", 5)...)
	all = append(all, enc("a", "b", "m3", 5)...)
	all = append(all, enc("d", "e", "m4", 9)...)
	if err := s.AddEncounters(ctx, all); err != nil {
		t.Fatal(err)
	}
	// The same meeting again, with another outcome: the first row stays.
	again := enc("a", "b", "m1", 0)
	again[0].Outcome = "draw"
	if err := s.AddEncounters(ctx, again); err != nil {
		t.Fatalf("adding a meeting again: %v", err)
	}
	if err := s.AddEncounters(ctx, nil); err != nil {
		t.Fatalf("adding nothing: %v", err)
	}
	got, err := s.Encounters(ctx, "a", T0, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := "a>b@5/m3/queue/opponent/duel/win a>c@5/m2/queue/opponent/duel/win a>b@0/m1/queue/opponent/duel/win"
	if encString(got) != want {
		t.Errorf("a's encounters:\n got %s\nwant %s", encString(got), want)
	}
	if got[0].At.Location() != time.UTC {
		t.Errorf("times come back in %v, want UTC", got[0].At.Location())
	}
	got, _ = s.Encounters(ctx, "a", T0.Add(time.Minute), 10)
	if len(got) != 2 {
		t.Errorf("since excludes older: %s", encString(got))
	}
	got, _ = s.Encounters(ctx, "a", T0, 1)
	if encString(got) != "a>b@5/m3/queue/opponent/duel/win" {
		t.Errorf("limit 1: %s", encString(got))
	}
	got, _ = s.Encounters(ctx, "b", T0, 10)
	if encString(got) != "b>a@5/m3/queue/opponent/duel/loss b>a@0/m1/queue/opponent/duel/loss" {
		t.Errorf("b's encounters: %s", encString(got))
	}
	got, _ = s.Encounters(ctx, "nobody", T0, 10)
	if len(got) != 0 {
		t.Errorf("unknown player: %s", encString(got))
	}
}

func listString(es []cupid.ListEntry) string {
	var out []string
	for _, e := range es {
		out = append(out, fmt.Sprintf("%s %s %s %g @%d", e.Player, e.Kind, e.Other, e.Weight, int(e.At.Sub(T0)/time.Minute)))
	}
	return strings.Join(out, ", ")
}

func testEncounterLists(t *testing.T, s cupid.EncounterStore) {
	ctx := context.Background()
	put := func(player, kind, other string, w float64, minutes int) {
		t.Helper()
		e := cupid.ListEntry{Player: player, Kind: kind, Other: other, Weight: w, At: T0.Add(time.Duration(minutes) * time.Minute)}
		if err := s.PutListEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "block", "b", 0, 0)
	put("c", "block", "a", 0, 1)
	put("a", "avoid", "d", 0.5, 2)
	put("a", "avoid", "d", 0.25, 3) // replaces
	put("x", "block", "y", 0, 4)
	got, err := s.ListEntries(ctx, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	want := "a avoid d 0.25 @3, a block b 0 @0"
	if listString(got) != want {
		t.Errorf("a's entries:\n got %s\nwant %s", listString(got), want)
	}
	got, _ = s.ListEntries(ctx, []string{"x", "a", "b", "c"})
	want = "a avoid d 0.25 @3, a block b 0 @0, c block a 0 @1, x block y 0 @4"
	if listString(got) != want {
		t.Errorf("entries of x, a, b, c:\n got %s\nwant %s", listString(got), want)
	}
	if err := s.DeleteListEntry(ctx, "a", "block", "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteListEntry(ctx, "a", "block", "nobody"); err != nil {
		t.Fatalf("deleting a missing entry: %v", err)
	}
	got, _ = s.ListEntries(ctx, []string{"a"})
	if listString(got) != "a avoid d 0.25 @3" {
		t.Errorf("after the unblock, a's entries: %s", listString(got))
	}
	got, _ = s.ListEntries(ctx, nil)
	if len(got) != 0 {
		t.Errorf("entries naming nobody: %s", listString(got))
	}
}

func testEncountersErase(t *testing.T, s cupid.EncounterStore) {
	ctx := context.Background()
	var all []cupid.Encounter
	all = append(all, enc("a", "b", "m1", 0)...)
	all = append(all, enc("b", "c", "m2", 1)...)
	if err := s.AddEncounters(ctx, all); err != nil {
		t.Fatal(err)
	}
	for _, e := range []cupid.ListEntry{
		{Player: "a", Kind: "block", Other: "c", At: T0},
		{Player: "c", Kind: "block", Other: "a", At: T0},
		{Player: "b", Kind: "avoid", Other: "c", Weight: 1, At: T0},
	} {
		if err := s.PutListEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.EraseEncounters(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Encounters(ctx, "a", T0, 10); len(got) != 0 {
		t.Errorf("a's encounters after the erase: %s", encString(got))
	}
	if got, _ := s.Encounters(ctx, "b", T0, 10); encString(got) != "b>c@1/m2/queue/opponent/duel/win" {
		t.Errorf("b's encounters after a's erase: %s", encString(got))
	}
	got, _ := s.ListEntries(ctx, []string{"a", "b", "c"})
	if want := "b avoid c 1 @0, c block a 0 @0"; listString(got) != want {
		t.Errorf("entries after a's erase:\n got %s\nwant %s", listString(got), want)
	}
}

func testEncountersLargeBatch(t *testing.T, s cupid.EncounterStore) {
	ctx := context.Background()
	var all []cupid.Encounter
	for i := range 700 {
		all = append(all, enc("a", fmt.Sprint("p", i), fmt.Sprint("m", i), i%60)...)
	}
	if err := s.AddEncounters(ctx, all); err != nil {
		t.Fatal(err)
	}
	got, err := s.Encounters(ctx, "a", T0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 700 {
		t.Errorf("read %d of a's 700 encounters", len(got))
	}
}
