package ticketsvc

import (
	"context"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
)

// TestOneLiveMatchPerPlayer: a player whose match is live queues again; his
// new ticket waits, out of matching, with "why" naming the match, until the
// session ends; then it is matched. A session its backend never ends ends
// by itself max_session after the match formed.
func TestOneLiveMatchPerPlayer(t *testing.T) {
	h := start(t, memstore.New(), []Queue{{Name: "duel", TTL: time.Hour, Ruleset: []byte(duelRules), MaxSession: 10 * time.Minute}})
	ctx := context.Background()
	_, _, m1 := h.matched(t, "alice", "bob")

	again := h.create(t, ticket("duel", 1500, "alice"))
	carol := h.create(t, ticket("duel", 1505, "carol"))
	h.wait(time.Second)
	if a, c := h.state(t, again.ID), h.state(t, carol.ID); a.State != cupid.StateWaiting || c.State != cupid.StateWaiting {
		t.Fatalf("alice was matched again while in %s: %s, carol %s", m1, a.State, c.State)
	}
	v, err := h.GetTicket(ctx, again.ID)
	if err != nil || v.Why == nil || !strings.Contains(v.Why.Summary, "alice is in match "+m1) {
		t.Fatalf("why alice waits: %+v %v", v, err)
	}
	if _, err := h.Handoff().EndSession(ctx, m1); err != nil {
		t.Fatal(err)
	}
	h.wait(3 * time.Second) // past the hold: alice is tried again
	a, c := h.state(t, again.ID), h.state(t, carol.ID)
	if a.State != cupid.StateMatched || c.MatchID != a.MatchID {
		t.Fatalf("after the session ended: alice %s, carol %s in %q", a.State, c.State, c.MatchID)
	}

	// The backend never ends this one: max_session does.
	m2 := a.MatchID
	third := h.create(t, ticket("duel", 1500, "carol"))
	dave := h.create(t, ticket("duel", 1495, "dave"))
	h.wait(time.Second)
	if d := h.state(t, dave.ID); d.State != cupid.StateWaiting {
		t.Fatalf("carol was matched again while in %s", m2)
	}
	h.clock.Advance(10 * time.Minute)
	h.Handoff().ReleaseDue(ctx)
	if r := h.record(t, m2); r.State != cupid.MatchEnded {
		t.Fatalf("%s past max_session: %s", m2, r.State)
	}
	h.wait(3 * time.Second)
	if c, d := h.state(t, third.ID), h.state(t, dave.ID); c.State != cupid.StateMatched || d.MatchID != c.MatchID {
		t.Fatalf("after max_session: carol %s, dave %s", c.State, d.State)
	}
}
