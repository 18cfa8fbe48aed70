package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
	"github.com/cupid-match/cupid/storetest"
)

func TestRetentionContract(t *testing.T) {
	needServer(t)
	storetest.RunRetention(t, func(t *testing.T) cupid.Store { return openTemp(t) })
}

// TestPruneFenced: a node that lost the retention lease removes nothing;
// the node holding it does.
func TestPruneFenced(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	if _, _, err := s.CreateTickets(ctx, nts(ticket("t1", "", 0))); err != nil {
		t.Fatal(err)
	}
	if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, "t1", cupid.StateCancelled, "", t0); err != nil {
		t.Fatal(err)
	}
	old, _, _ := s.AcquireLease(ctx, "retention", "a", time.Minute)
	if err := s.ReleaseLease(ctx, "retention", "a", old); err != nil {
		t.Fatal(err)
	}
	cur, ok, err := s.AcquireLease(ctx, "retention", "b", time.Minute)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	req := cupid.PruneRequest{Kind: cupid.RetainTickets, Before: t0.Add(time.Hour), Limit: 10}
	if _, err := s.Prune(ctx, cupid.Fence{Lease: "retention", Holder: "a", Token: old}, req); !errors.Is(err, cupid.ErrFenced) {
		t.Fatalf("prune under a lost lease: %v", err)
	}
	if _, err := s.Ticket(ctx, "t1"); err != nil {
		t.Fatalf("a fenced prune removed t1: %v", err)
	}
	r, err := s.Prune(ctx, cupid.Fence{Lease: "retention", Holder: "b", Token: cur}, req)
	if err != nil || r.Removed != 1 || r.Related != 2 {
		t.Fatalf("prune under the lease: %+v, %v", r, err)
	}
}
