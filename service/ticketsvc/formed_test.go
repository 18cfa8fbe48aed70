package ticketsvc

import (
	"context"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
)

// TestCommitFormed: a formed match is in the queue's match log with its
// teams, its players' tickets are matched to it, a retry returns it, and a
// player in another live match refuses a second one, naming him; the
// tickets made for the refused match are cancelled with that reason.
func TestCommitFormed(t *testing.T) {
	h := start(t, memstore.New(), []Queue{{Name: "duel", TTL: time.Hour, Ruleset: []byte(duelRules)}})
	ctx := context.Background()
	waiting := h.create(t, ticket("duel", 1500, "ann")) // replaced by the formed match's ticket
	f := FormedMatch{ID: "M1", Queue: "duel", RequestID: "lobby/L1",
		Teams: [][]cupid.Player{{{ID: "ann"}}, {{ID: "bob"}}}, Seats: []int{2, 2}}
	rec, err := h.CommitFormed(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != cupid.MatchFormed || len(rec.Match.Teams) != 2 || rec.Match.Teams[1].PlayerIDs[0] != "bob" || rec.Match.Seats[0] != 2 {
		t.Fatalf("formed: %+v", rec.Match)
	}
	evs, err := h.store.MatchEvents(ctx, "duel", 0, 10)
	if err != nil || len(evs) != 1 || evs[0].Kind != cupid.MatchEventFormed || evs[0].MatchID != "M1" {
		t.Fatalf("match log: %+v %v", evs, err)
	}
	for _, id := range rec.Match.TicketIDs() {
		if tk := h.state(t, id); tk.State != cupid.StateMatched || tk.MatchID != "M1" {
			t.Fatalf("ticket %s: %s %s", id, tk.State, tk.MatchID)
		}
	}
	if old := h.state(t, waiting.ID); old.State != cupid.StateCancelled {
		t.Fatalf("ann's queue ticket: %s", old.State)
	}
	again, err := h.CommitFormed(ctx, f)
	if err != nil || again.Match.ID != "M1" {
		t.Fatalf("retry: %+v %v", again, err)
	}

	_, err = h.CommitFormed(ctx, FormedMatch{ID: "M2", Queue: "duel", RequestID: "lobby/L2",
		Teams: [][]cupid.Player{{{ID: "cat"}}, {{ID: "bob"}}}})
	if cupid.ErrorCode(err) != cupid.CodeConflict || !strings.Contains(err.Error(), "player bob is in match M1") {
		t.Fatalf("bob in two live matches: %v", err)
	}
	if _, err := h.store.MatchRecord(ctx, "M2"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("refused match stored: %v", err)
	}
	live, _ := h.store.Tickets(ctx, cupid.TicketFilter{Queue: "duel", State: cupid.StateWaiting})
	if len(live) != 0 {
		t.Fatalf("tickets of the refused match still wait: %+v", live[0])
	}

	if _, err := h.CommitFormed(ctx, FormedMatch{ID: "M3", Queue: "nope", RequestID: "x", Teams: [][]cupid.Player{{{ID: "a"}}}}); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("unknown queue: %v", err)
	}
	_, err = h.CommitFormed(ctx, FormedMatch{ID: "M4", Queue: "duel", RequestID: "y", Teams: [][]cupid.Player{{{ID: ""}}}})
	if e, ok := err.(*cupid.Error); !ok || e.Field != "teams[0][0].players[0].id" {
		t.Fatalf("empty player id: %v", err)
	}
}
