package ticketsvc

import (
	"context"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
)

// fullSquad forms a squad session and fills its four seats.
func (h *harness) fullSquad(t *testing.T) string {
	t.Helper()
	id := h.squadSession(t, "ann", "ben").Match.ID
	for _, p := range []string{"cat", "dan"} {
		h.create(t, ticket("squad", 1500, p))
	}
	h.wait(0)
	if rec := h.record(t, id); count(rec.Match) != 4 || rec.Match.Backfill {
		t.Fatalf("session: %s backfill=%v, want four players and closed", players(rec.Match), rec.Match.Backfill)
	}
	return id
}

// TestLeaverWindow: whether a leaver's seat reopens, by the queue's window
// and the session's assignment. A session not yet assigned is always
// within the window; a queue without a window never reopens seats.
func TestLeaverWindow(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window time.Duration
		assign bool
		after  time.Duration // from the assignment, or from forming
		reopen bool
	}{
		{"no window", 0, true, 0, false},
		{"within the window", 30 * time.Second, true, 30 * time.Second, true},
		{"after the window", 30 * time.Second, true, 31 * time.Second, false},
		{"not yet assigned, long after", 30 * time.Second, false, time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := start(t, memstore.New(), squadQueues(tc.window))
			ctx := context.Background()
			id := h.fullSquad(t)
			if tc.assign {
				if _, err := h.Handoff().AssignMatch(ctx, id, cupid.Assignment{Server: "10.0.0.9:7777"}); err != nil {
					t.Fatal(err)
				}
			}
			h.clock.Advance(tc.after)
			rec, err := h.Handoff().ReportLeavers(ctx, id, []string{"ann"})
			if err != nil {
				t.Fatal(err)
			}
			if rec.Match.Backfill != tc.reopen || len(rec.Match.Left) != 1 || rec.Match.Left[0].Replaced != tc.reopen {
				t.Fatalf("after ann left: backfill=%v left=%+v, want reopened=%v", rec.Match.Backfill, rec.Match.Left, tc.reopen)
			}
			eve := h.create(t, ticket("squad", 1500, "eve"))
			h.wait(0)
			if got := h.state(t, eve.ID); (got.MatchID == id) != tc.reopen {
				t.Fatalf("eve: %s in %q; want her in ann's seat: %v", got.State, got.MatchID, tc.reopen)
			}
		})
	}
}
