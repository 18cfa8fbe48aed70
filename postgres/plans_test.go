package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestPlansProbeIndexes checks that the statements joining a batch's
// arrays with the tables plan as index probes, as they must for their cost
// not to grow with the number of waiting tickets: no reading of tickets by
// state (without statistics the planner takes 'waiting' for a rare value),
// no JIT compilation, and on a large table no sequential scan of tickets or
// of the player index. They run under the settings queueBegin gives every
// explicit transaction, on 2,000 then 20,000 waiting tickets never analysed
// (as after a bulk load, or wherever autovacuum is off), then analysed.
func TestPlansProbeIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a table")
	}
	s := openTemp(t)
	ctx := context.Background()
	fill := func(from, to int) {
		for n := from; n < to; n++ {
			ts := make([]cupid.NewTicket, 250)
			for j := range ts {
				ts[j] = cupid.NewTicket{Ticket: ticket(fmt.Sprintf("t%d-%d", n, j), fmt.Sprintf("r%d-%d", n, j), 0)}
			}
			if _, _, err := s.CreateTickets(ctx, ts); err != nil {
				t.Fatal(err)
			}
		}
	}
	var ids, qs, ps, states, empty []string
	var ats []int64
	for j := range 32 {
		id := fmt.Sprintf("t%d-%d", 4, j)
		ids, qs, ps = append(ids, id), append(qs, "duel"), append(ps, "p-"+id)
		states, empty, ats = append(states, "matched"), append(empty, ""), append(ats, 1)
	}
	for _, stats := range []string{"2,000 never analysed", "20,000 never analysed", "20,000 analysed"} {
		switch stats {
		case "2,000 never analysed":
			fill(0, 8)
		case "20,000 never analysed":
			fill(8, 80)
		case "20,000 analysed":
			if _, err := s.pool.Exec(ctx, "ANALYZE tickets, live_players"); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			name string
			sql  string
			args []any
		}{
			{"lockLiveSQL", lockLiveSQL, []any{qs, ps}},
			{"byRequestSQL", byRequestSQL, []any{ids}},
			{"takenSQL", takenSQL, []any{ids}},
			{"lockTicketsSQL", lockTicketsSQL, []any{ids}},
			{"othersSQL", othersSQL, []any{ids}},
			{"finishSQLMany", finishSQLMany, []any{ids, states, ids, empty, ats, "plan test", int64(len(ids))}},
		} {
			err := s.inTx(ctx, func(conn *pgxpool.Conn) error {
				b := &pgx.Batch{}
				queueBegin(b)
				var plan []string
				b.Queue("EXPLAIN "+c.sql, c.args...).Query(func(rows pgx.Rows) error {
					var err error
					plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
					return err
				})
				if err := send(ctx, conn, b); err != nil {
					return err
				}
				if testing.Verbose() {
					t.Logf("%s, %s:\n%s", stats, c.name, strings.Join(plan, "\n"))
				}
				for _, line := range plan {
					// A small table may be read whole: the planner knows its
					// size, and the choice changes as it grows.
					if strings.HasPrefix(stats, "20,000") && (strings.Contains(line, "Seq Scan on tickets") || strings.Contains(line, "Seq Scan on live_players")) {
						return fmt.Errorf("plan scans a whole table:\n%s", strings.Join(plan, "\n"))
					}
					// The state indexes find every waiting ticket: a plan
					// using them for a batch reads all of those.
					if strings.Contains(line, "tickets_state") || strings.Contains(line, "tickets_queue") {
						return fmt.Errorf("plan reads tickets by state:\n%s", strings.Join(plan, "\n"))
					}
					if strings.HasPrefix(strings.TrimSpace(line), "JIT:") {
						return fmt.Errorf("plan is compiled first:\n%s", strings.Join(plan, "\n"))
					}
				}
				return nil // rolled back by inTx
			})
			if err != nil && !strings.Contains(err.Error(), "transaction left open") {
				t.Errorf("%s, %s: %v", stats, c.name, err)
			}
		}
	}
}
