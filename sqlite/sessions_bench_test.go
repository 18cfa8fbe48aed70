package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// BenchmarkCommitBackfill measures one backfill of one ticket into a live
// session: the store's whole transaction (read the ticket and the
// session, rewrite the match, mark the ticket, free its player, log the
// match and ticket events, one fsync). The session and the ticket are
// made outside the timer.
func BenchmarkCommitBackfill(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		a, n := fmt.Sprintf("a%d", i), fmt.Sprintf("n%d", i)
		if _, _, err := s.CreateTickets(ctx, nts(ticket(a, "", 0), ticket(n, "", 0))); err != nil {
			b.Fatal(err)
		}
		m := &cupid.Match{ID: "m" + a, Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: t0, Seats: []int{2, 2}, Backfill: true,
			Teams: []cupid.Team{{TicketIDs: []string{a}, PlayerIDs: []string{"p-" + a}}, {}}}
		if out, _, err := s.CommitMatches(ctx, cupid.Fence{}, []*cupid.Match{m}); err != nil || !out[0].OK {
			b.Fatal(err, out)
		}
		b.StartTimer()
		out, _, err := lifecycle.Backfill(ctx, s, cupid.Fence{}, []cupid.Backfill{{MatchID: m.ID, At: t0,
			Teams: []cupid.Team{{}, {TicketIDs: []string{n}, PlayerIDs: []string{"p-" + n}}}}})
		if err != nil || !out[0].OK {
			b.Fatal(err, out)
		}
	}
}
