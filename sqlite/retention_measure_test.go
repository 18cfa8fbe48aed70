package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/lifecycle"
)

// TestMeasureRetentionLevelsOff is a measurement, not a check: it runs
// simulated days through the store at accelerated time — each day
// CUPID_MEASURE_RETENTION tickets, in pairs that match, play and end
// their session, a tenth cancelled instead — with a retention pass at the
// end of each day, and prints the file's size per day. Retention keeps
// tickets 2 days and matches 4, so the level shows within a short run;
// CUPID_MEASURE_KEEP=default keeps them as the configuration's defaults
// do (7 and 30 days); CUPID_MEASURE_KEEP_MATCHES (a duration) then keeps
// the matches as long as it says, as the configuration's
// retention.matches would. CUPID_MEASURE_NOSYNC=1 turns the writer's fsyncs off
// (synchronous=OFF): the rows and pages written are the same, and a run at
// the scale of millions of tickets a day takes minutes a day instead of
// hours. docs/PERFORMANCE.md has the commands and the figures.
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
	if os.Getenv("CUPID_MEASURE_KEEP") == "default" {
		keep = map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: config.DefaultKeepTickets, cupid.RetainMatches: config.DefaultKeepMatches}
	}
	if v := os.Getenv("CUPID_MEASURE_KEEP_MATCHES"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("CUPID_MEASURE_KEEP_MATCHES: want a positive duration such as 168h, got %q", v)
		}
		keep[cupid.RetainMatches] = d
	}
	if os.Getenv("CUPID_MEASURE_NOSYNC") == "1" {
		if _, err := s.w.Exec("PRAGMA synchronous=OFF"); err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	start := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	fmt.Printf("day | tickets stored | matches stored | file MB | WAL MB | bytes per kept ticket | removed (tickets, matches) | minutes | tickets MB | matches MB | free pages\n")
	for day := range days {
		dayStart := start.Add(time.Duration(day) * 24 * time.Hour)
		const batch = 500
		for lo := 0; lo < perDay; lo += batch {
			// The batch's place in the day, spread evenly over it: the
			// day's nanoseconds divided first, as lo times them would
			// overflow from 106,752 tickets a day.
			at := dayStart.Add(time.Duration(lo) * (24 * time.Hour / time.Duration(perDay)))
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
			var cancelled []string
			for i := 0; i+1 < len(nts); i += 2 {
				a, b := nts[i].Ticket.ID, nts[i+1].Ticket.ID
				if i%20 == 0 {
					cancelled = append(cancelled, a, b)
					continue
				}
				m := &cupid.Match{ID: "m" + a, Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: at.Add(time.Second),
					Teams: []cupid.Team{{TicketIDs: []string{a}}, {TicketIDs: []string{b}}}}
				ms = append(ms, m)
			}
			if _, _, err := s.CommitMatches(ctx, cupid.Fence{}, ms); err != nil {
				t.Fatal(err)
			}
			// The batch's cancellations and session ends are the lifecycle's
			// steps as the service takes them, written in one transaction
			// (oneTx) rather than one each: the same rows, fewer commits.
			err := s.tx(ctx, func(ctx context.Context, tx *sql.Tx) error {
				u := oneTx{&sqliteTx{s: s, ctx: ctx, tx: tx}}
				for _, id := range cancelled {
					if _, _, err := lifecycle.Finish(ctx, u, cupid.Fence{}, id, cupid.StateCancelled, "", at.Add(time.Minute)); err != nil {
						return err
					}
				}
				for _, m := range ms {
					if _, _, err := lifecycle.ChangeSession(ctx, u, cupid.Fence{}, m.ID, cupid.SessionChange{Kind: cupid.MatchEventEnded}, at.Add(20*time.Minute)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
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
		var free int64
		if err := s.w.QueryRow("PRAGMA freelist_count").Scan(&free); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%d | %d | %d | %.1f | %.1f | %d | %d, %d | %.1f | %.1f | %.1f | %d\n", day+1, ret[0].Rows, ret[1].Rows, float64(file)/1e6, float64(wal)/1e6,
			file/max(ret[0].Rows, 1), removed[cupid.RetainTickets], removed[cupid.RetainMatches], time.Since(began).Minutes(),
			float64(ret[0].Bytes)/1e6, float64(ret[1].Bytes)/1e6, free)
	}
}

// oneTx runs every step it is given in the one transaction it holds.
type oneTx struct{ t *sqliteTx }

func (u oneTx) Update(_ context.Context, _ string, _ cupid.Fence, fn func(cupid.Tx) error) error {
	return fn(u.t)
}
