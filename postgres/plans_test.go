package postgres

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestPlansProbeIndexes checks that the statements joining a batch's
// arrays with the tables plan as index probes, as they must for their cost
// not to grow with the number of tickets stored: no reading of tickets by
// state (without statistics the planner takes 'waiting' for a rare value),
// no JIT compilation, no parallel workers, and on large tables no
// sequential scan of tickets, events, matches or the player indexes. They
// run under the settings queueBegin gives every explicit transaction, on
// 2,000 waiting tickets, then on 20,000 tickets of which 18,000 matched
// (the tables of a bulk intake where every pair matches), never analysed (as
// after a bulk load, or wherever autovacuum is off), then analysed; with a
// batch of 32 and with one of 2,000, the size of a commit under bulk intake.
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
	// match pairs the tickets of fill's batches from to to, 250 matches a
	// commit.
	match := func(from, to int) {
		for n := from; n < to; n += 2 {
			ms := make([]*cupid.Match, 250)
			for j := range ms {
				a, b := fmt.Sprintf("t%d-%d", n, j), fmt.Sprintf("t%d-%d", n+1, j)
				ms[j] = pair(fmt.Sprintf("m%d-%d", n, j), a, b)
				ms[j].Teams[0].PlayerIDs, ms[j].Teams[1].PlayerIDs = []string{"p-" + a}, []string{"p-" + b}
			}
			if _, _, err := s.CommitMatches(ctx, cupid.Fence{}, ms); err != nil {
				t.Fatal(err)
			}
		}
	}
	// batch lists what the statements take for the first n tickets of
	// fill's first batches, which stay waiting, and for n stored matches
	// and events.
	type batch struct {
		ids, qs, ps, states, empty, mids []string
		ats, seqs                        []int64
	}
	batchOf := func(n int) batch {
		var b batch
		for j := range n {
			id := fmt.Sprintf("t%d-%d", j/250, j%250)
			b.ids, b.qs, b.ps = append(b.ids, id), append(b.qs, "duel"), append(b.ps, "p-"+id)
			b.states, b.empty, b.ats = append(b.states, "matched"), append(b.empty, ""), append(b.ats, 1)
			b.mids, b.seqs = append(b.mids, fmt.Sprintf("m%d-%d", 80+2*(j/250), j%250)), append(b.seqs, int64(1+j))
		}
		return b
	}
	small, large := batchOf(32), batchOf(2000)
	for _, stats := range []string{"2,000 never analysed", "20,000 never analysed", "20,000 analysed"} {
		switch stats {
		case "2,000 never analysed":
			fill(0, 8)
		case "20,000 never analysed":
			fill(8, 80)
			fill(80, 152)
			match(80, 152)
		case "20,000 analysed":
			if _, err := s.pool.Exec(ctx, "ANALYZE tickets, live_players, events, matches, match_players"); err != nil {
				t.Fatal(err)
			}
		}
		type statement struct {
			name   string
			sql    string
			args   []any
			small  bool // the batch of 32
			commit bool // a statement of CommitMatches, run as it runs them
		}
		var cases []statement
		for _, b := range []batch{small, large} {
			n := len(b.ids)
			for _, c := range []statement{
				{name: "lockLiveSQL", sql: lockLiveSQL, args: []any{b.qs, b.ps}},
				{name: "byRequestSQL", sql: byRequestSQL, args: []any{b.ids}},
				{name: "takenSQL", sql: takenSQL, args: []any{b.ids}},
				{name: "lockTicketsSQL", sql: lockTicketsSQL, args: []any{b.ids}, commit: true},
				{name: "othersSQL", sql: othersSQL, args: []any{b.ids}, commit: true},
				{name: "busySQL", sql: busySQL, args: []any{b.ids}, commit: true},
				{name: "takenMatchesSQL", sql: takenMatchesSQL, args: []any{b.mids}, commit: true},
				{name: "finishSQLMany", sql: finishSQLMany, args: []any{b.ids, b.states, b.ids, b.empty, b.ats, "plan test", int64(n)}},
				{name: "eventsAtSQL", sql: eventsAtSQL, args: []any{b.seqs}},
			} {
				c.name = fmt.Sprintf("%s, a batch of %d", c.name, n)
				c.small = n == len(small.ids)
				if c.small || probesOnly[c.sql] {
					cases = append(cases, c)
				}
			}
		}
		for _, c := range cases {
			err := s.inTx(ctx, func(conn *pgxpool.Conn) error {
				b := &pgx.Batch{}
				if c.commit {
					queueCommitBegin(b)
				} else {
					queueBegin(b)
				}
				var plan []string
				b.Queue("EXPLAIN "+c.sql, c.args...).Query(func(rows pgx.Rows) error {
					var err error
					plan, err = pgx.CollectRows(rows, pgx.RowTo[string])
					return err
				})
				if err := send(ctx, conn, b); err != nil {
					return err
				}
				for i, line := range plan {
					plan[i] = arrayConstant.ReplaceAllString(line, "'{…}'")
				}
				if testing.Verbose() {
					t.Logf("%s, %s:\n%s", stats, c.name, strings.Join(plan, "\n"))
				}
				for _, line := range plan {
					// A small table may be read whole: the planner knows its
					// size, and the choice changes as it grows.
					if strings.HasPrefix(stats, "20,000") && scansWhole(line) {
						return fmt.Errorf("plan scans a whole table:\n%s", strings.Join(plan, "\n"))
					}
					// A commit's probes find a row or a few each: a bitmap
					// for each costs more than reading them.
					if c.commit && strings.Contains(line, "Bitmap") {
						return fmt.Errorf("plan builds bitmaps:\n%s", strings.Join(plan, "\n"))
					}
					if strings.Contains(line, "Gather") {
						return fmt.Errorf("plan starts parallel workers:\n%s", strings.Join(plan, "\n"))
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

// scansWhole reports whether a line of a plan reads all of one of the tables
// that grow with every ticket: a sequential scan, or a full scan of an index
// (one with no condition).
func scansWhole(line string) bool {
	for _, table := range []string{"tickets", "live_players", "events", "matches", "match_players"} {
		if strings.Contains(line, "Seq Scan on "+table+" ") || strings.HasSuffix(line, "Seq Scan on "+table) {
			return true
		}
	}
	return false
}

// probesOnly are the statements written as a probe of an index per element
// of their arrays (LATERAL subqueries the planner cannot merge into joins),
// whatever the statistics say: the test gives them a batch of 2,000 too,
// where a join would be planned as a scan of a whole table. The others may
// rightly read a table whose tenth a batch names.
var probesOnly = map[string]bool{lockTicketsSQL: true, othersSQL: true, busySQL: true, takenMatchesSQL: true, eventsAtSQL: true}

// arrayConstant matches an array the planner was given as a constant, which
// a plan's text repeats in full.
var arrayConstant = regexp.MustCompile(`'\{[^}]*\}'`)
