package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// exportTicket is a solo ticket in queue created at t0 plus sec seconds.
func exportTicket(id, queue string, sec int) *cupid.Ticket {
	return &cupid.Ticket{
		ID: id, Key: cupid.QueueKey{Queue: queue}, State: cupid.StateWaiting,
		Players:   []cupid.Player{{ID: "p-" + id, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1500)})}},
		CreatedAt: t0.Add(time.Duration(sec) * time.Second), ExpiresAt: t0.Add(time.Hour),
	}
}

// TestTicketsCreatedPagesInCreationOrder stores tickets out of order, two
// created at the same instant, one in another queue and one after the
// range, and reads the range back two at a time: every ticket of the queue
// and range comes once, oldest first, ties by id, with its final state.
func TestTicketsCreatedPagesInCreationOrder(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	in := []*cupid.Ticket{
		exportTicket("e", "duel", 4), exportTicket("a", "duel", 0), exportTicket("c", "duel", 2),
		exportTicket("b", "duel", 2), exportTicket("x", "squad", 1), exportTicket("late", "duel", 100),
		exportTicket("d", "duel", 3), exportTicket("early", "duel", -1),
	}
	if _, _, err := s.CreateTickets(ctx, nts(in...)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, "c", cupid.StateCancelled, "", t0.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	var got []string
	var afterAt time.Time
	afterID := ""
	for pages := 0; pages < 10; pages++ {
		page, err := s.TicketsCreated(ctx, "duel", t0, t0.Add(time.Minute), afterAt, afterID, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, tk := range page {
			got = append(got, tk.ID)
			if tk.ID == "c" && (tk.State != cupid.StateCancelled || !tk.UpdatedAt.Equal(t0.Add(30*time.Second))) {
				t.Errorf("c: state %s updated %v, want cancelled at t0+30s", tk.State, tk.UpdatedAt)
			}
		}
		last := page[len(page)-1]
		afterAt, afterID = last.CreatedAt, last.ID
	}
	if want := []string{"a", "b", "c", "d", "e"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := s.TicketsCreated(ctx, "duel", t0, t0.Add(time.Minute), time.Time{}, "", 0); cupid.ErrorCode(err) != cupid.CodeInvalid {
		t.Errorf("limit 0: got %v, want invalid", err)
	}
}
