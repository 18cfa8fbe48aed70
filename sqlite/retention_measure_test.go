package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// TestMeasureRetentionLevelsOff is a measurement, not a check: it runs
// simulated days through the store at accelerated time — each day
// CUPID_MEASURE_RETENTION tickets, in pairs that match, play and end
// their session, a tenth cancelled instead — with a retention pass at the
// end of each day (tickets kept 2 days, matches 4, so the level shows
// within the run), and prints the file's size per day. docs/PERFORMANCE.md
// has the command and the figures.
func TestMeasureRetentionLevelsOff(t *testing.T) {
	perDay, _ := strconv.Atoi(os.Getenv("CUPID_MEASURE_RETENTION"))
	if perDay <= 0 {
		t.Skip("a measurement: set CUPID_MEASURE_RETENTION to the tickets per simulated day")
	}
	days := 10
	if d, _ := strconv.Atoi(os.Getenv("CUPID_MEASURE_DAYS")); d > 0 {
		days = d
	}
	path := filepath.Join(t.TempDir(), "cupid.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	keep := map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: 48 * time.Hour, cupid.RetainMatches: 96 * time.Hour}
	start := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	fmt.Printf("day | tickets stored | file MB | WAL MB | bytes per kept ticket | removed (tickets, matches)\n")
	for day := range days {
		dayStart := start.Add(time.Duration(day) * 24 * time.Hour)
		const batch = 500
		for lo := 0; lo < perDay; lo += batch {
			at := dayStart.Add(time.Duration(lo) * 24 * time.Hour / time.Duration(perDay))
			var nts []cupid.NewTicket
			for i := 0; i < batch && lo+i < perDay; i++ {
				tk := ticket(fmt.Sprintf("t%08d", n), "", 0)
				tk.Players[0].ID = fmt.Sprintf("p%08d", n)
				tk.CreatedAt, tk.ExpiresAt = at, at.Add(10*time.Minute)
				nts = append(nts, cupid.NewTicket{Ticket: tk})
				n++
			}
			if _, _, err := s.CreateTickets(ctx, nts); err != nil {
				t.Fatal(err)
			}
			var ms []*cupid.Match
			for i := 0; i+1 < len(nts); i += 2 {
				a, b := nts[i].Ticket.ID, nts[i+1].Ticket.ID
				if i%20 == 0 {
					for _, id := range []string{a, b} {
						if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, id, cupid.StateCancelled, "", at.Add(time.Minute)); err != nil {
							t.Fatal(err)
						}
					}
					continue
				}
				m := &cupid.Match{ID: "m" + a, Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: at.Add(time.Second),
					Teams: []cupid.Team{{TicketIDs: []string{a}}, {TicketIDs: []string{b}}}}
				ms = append(ms, m)
			}
			if _, _, err := s.CommitMatches(ctx, cupid.Fence{}, ms); err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				if _, _, err := lifecycle.ChangeSession(ctx, s, cupid.Fence{}, m.ID, cupid.SessionChange{Kind: cupid.MatchEventEnded}, at.Add(20*time.Minute)); err != nil {
					t.Fatal(err)
				}
			}
		}
		now := dayStart.Add(24 * time.Hour)
		removed := map[cupid.RetentionKind]int{}
		for _, k := range []cupid.RetentionKind{cupid.RetainTickets, cupid.RetainMatches} {
			cursor := ""
			for {
				r, err := s.Prune(ctx, cupid.Fence{}, cupid.PruneRequest{Kind: k, Before: now.Add(-keep[k]), Limit: 500, After: cursor})
				if err != nil {
					t.Fatal(err)
				}
				removed[k] += r.Removed
				if r.Next == "" {
					break
				}
				cursor = r.Next
			}
		}
		if err := s.Compact(ctx); err != nil {
			t.Fatal(err)
		}
		ret, err := s.Retained(ctx)
		if err != nil {
			t.Fatal(err)
		}
		file, wal := fileSize(t, path), int64(0)
		if fi, err := os.Stat(path + "-wal"); err == nil {
			wal = fi.Size()
		}
		fmt.Printf("%d | %d | %.1f | %.1f | %d | %d, %d\n", day+1, ret[0].Rows, float64(file)/1e6, float64(wal)/1e6,
			file/max(ret[0].Rows, 1), removed[cupid.RetainTickets], removed[cupid.RetainMatches])
	}
}
