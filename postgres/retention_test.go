package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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

// TestMigrateFromEveryVersion: a database left at each released schema
// version, with a waiting ticket, a cancelled one and their events
// written as that version's code would (raw SQL on the columns every
// version has), reaches the last version at Open, keeps its waiting
// ticket, and is pruned like a new one.
func TestMigrateFromEveryVersion(t *testing.T) {
	ctx := context.Background()
	for v := 1; v < len(migrations); v++ {
		url := newSchema(t)
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if err := migrate(ctx, pool, migrations[:v]); err != nil {
			t.Fatalf("to version %d: %v", v, err)
		}
		for _, tk := range []*cupid.Ticket{ticket("w", "", time.Minute), ticket("c", "", 2*time.Minute)} {
			tk.Players[0].ID = "p" + tk.ID
			body, _ := json.Marshal(tk)
			state := "waiting"
			if tk.ID == "c" {
				state = "cancelled"
			}
			at := tk.CreatedAt.UnixNano()
			for _, q := range []struct {
				sql  string
				args []any
			}{
				{`INSERT INTO tickets (id, queue, state, created_at, updated_at, body) VALUES ($1, $2, $3, $4, $4, $5)`, []any{tk.ID, tk.Key.Queue, state, at, string(body)}},
				{`INSERT INTO events (ticket_id, kind, at) VALUES ($1, 'created', $2)`, []any{tk.ID, at}},
			} {
				if _, err := pool.Exec(ctx, q.sql, q.args...); err != nil {
					t.Fatalf("version %d: %v", v, err)
				}
			}
			if state == "waiting" {
				if _, err := pool.Exec(ctx, `INSERT INTO live_players (queue, player_id, ticket_id) VALUES ($1, $2, $3)`, tk.Key.Queue, tk.Players[0].ID, tk.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		pool.Close()
		s := openAt(t, url)
		w, err := s.WaitingTickets(ctx)
		if err != nil || len(w) != 1 || w[0].ID != "w" {
			t.Fatalf("from version %d: waiting %v, %v", v, w, err)
		}
		r, err := s.Prune(ctx, cupid.Fence{}, cupid.PruneRequest{Kind: cupid.RetainTickets, Before: t0.Add(time.Hour), Limit: 10})
		if err != nil || r.Removed != 1 {
			t.Fatalf("from version %d: prune %+v, %v", v, r, err)
		}
	}
}
