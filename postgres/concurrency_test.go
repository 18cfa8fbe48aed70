package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lifecycle"
)

// The tests here race many goroutines through several Stores — several
// connection pools on one database, as several server processes would be —
// and then check the rules that no interleaving may break.

// nodes opens n stores on one new schema: the first creates the schema,
// the others open it together.
func nodes(t *testing.T, n int) []*Store {
	t.Helper()
	url := newSchema(t)
	stores := []*Store{openAt(t, url)}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n - 1 {
		wg.Go(func() {
			s, err := Open(context.Background(), url)
			if err != nil {
				t.Error(err)
				return
			}
			t.Cleanup(func() { s.Close() })
			mu.Lock()
			stores = append(stores, s)
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Cleanup(func() { checkIndex(t, stores[0]) })
	return stores
}

// history reads every ticket with its events.
func history(t *testing.T, s *Store) (map[string]*cupid.Ticket, map[string][]cupid.Event) {
	t.Helper()
	ctx := context.Background()
	all, err := s.Tickets(ctx, cupid.TicketFilter{})
	if err != nil {
		t.Fatal(err)
	}
	tickets := map[string]*cupid.Ticket{}
	events := map[string][]cupid.Event{}
	for _, tk := range all {
		tickets[tk.ID] = tk
		evs, err := s.Events(ctx, tk.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		events[tk.ID] = evs
		// created first, at most one end, and the end is the state.
		if len(evs) == 0 || evs[0].Kind != cupid.EventCreated || len(evs) > 2 {
			t.Fatalf("ticket %s (%s) has events %+v", tk.ID, tk.State, evs)
		}
		if len(evs) == 2 && string(evs[1].Kind) != string(tk.State) {
			t.Fatalf("ticket %s is %s but its last event is %s", tk.ID, tk.State, evs[1].Kind)
		}
		if (len(evs) == 1) != (tk.State == cupid.StateWaiting) {
			t.Fatalf("ticket %s is %s with events %+v", tk.ID, tk.State, evs)
		}
	}
	return tickets, events
}

// TestConcurrentCreatesOnePlayer races creates of tickets for one player
// in one queue through four nodes: without replace exactly one is stored
// and the others are told which; with replace every one is stored, each
// replacing the one before it, and one is left waiting.
func TestConcurrentCreatesOnePlayer(t *testing.T) {
	stores := nodes(t, 4)
	ctx := context.Background()
	const n = 32
	for _, replace := range []bool{false, true} {
		t.Run(fmt.Sprintf("replace=%v", replace), func(t *testing.T) {
			queue := fmt.Sprintf("q-%v", replace)
			results := make([]cupid.Created, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					tk := inQueue(ticket(fmt.Sprintf("%s-%d", queue, i), "", 0, "p1", fmt.Sprint("mate", i)), queue)
					out, _, err := stores[i%len(stores)].CreateTickets(ctx, []cupid.NewTicket{{Ticket: tk, Replace: replace}})
					if err != nil {
						t.Error(err)
						return
					}
					results[i] = out[0]
				})
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			waiting, err := stores[0].Tickets(ctx, cupid.TicketFilter{Queue: queue, State: cupid.StateWaiting})
			if err != nil {
				t.Fatal(err)
			}
			if len(waiting) != 1 {
				t.Fatalf("%d waiting tickets for p1, want 1", len(waiting))
			}
			stored, replaced := 0, 0
			for i, r := range results {
				switch {
				case r.Err == nil:
					stored++
					replaced += len(r.Replaced)
				case cupid.ErrorCode(r.Err) == cupid.CodeAlreadyExists && !replace:
					if !strings.Contains(r.Err.Error(), waiting[0].ID) {
						t.Fatalf("ticket %d refused naming another ticket than %s: %v", i, waiting[0].ID, r.Err)
					}
				default:
					t.Fatalf("ticket %d: %v", i, r.Err)
				}
			}
			if want := map[bool]int{false: 1, true: n}[replace]; stored != want || replaced != want-1 {
				t.Fatalf("%d stored, %d replaced; want %d and %d", stored, replaced, want, want-1)
			}
		})
	}
}

// TestConcurrentCreatesMixed races batches of random tickets — shared
// players, two queues, replaces, request ids reused across goroutines —
// through four nodes, then checks every rule against the final state and
// against what each call was told.
func TestConcurrentCreatesMixed(t *testing.T) {
	stores := nodes(t, 4)
	ctx := context.Background()
	const goroutines, rounds = 16, 25
	type call struct {
		in  []cupid.NewTicket
		out []cupid.Created
	}
	calls := make([][]call, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for r := range rounds {
				var batch []cupid.NewTicket
				for k := range 1 + rng.IntN(6) {
					var players []string
					for _, p := range rng.Perm(12)[:1+rng.IntN(3)] {
						players = append(players, fmt.Sprint("p", p))
					}
					rid := ""
					if rng.IntN(5) == 0 {
						rid = fmt.Sprint("r", rng.IntN(30))
					}
					tk := inQueue(ticket(fmt.Sprintf("g%d-%d-%d", g, r, k), rid, time.Duration(rng.IntN(1000))*time.Millisecond, players...),
						[]string{"duel", "squad"}[rng.IntN(2)])
					batch = append(batch, cupid.NewTicket{Ticket: tk, Replace: rng.IntN(3) == 0})
				}
				out, _, err := stores[rng.IntN(len(stores))].CreateTickets(ctx, batch)
				if err != nil {
					t.Error(err)
					return
				}
				calls[g] = append(calls[g], call{batch, out})
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	tickets, _ := history(t, stores[0])

	// One live ticket per player and queue.
	live := map[string]string{}
	for _, tk := range tickets {
		if tk.State != cupid.StateWaiting {
			continue
		}
		for _, p := range tk.Players {
			k := tk.Key.Queue + "/" + p.ID
			if other, dup := live[k]; dup {
				t.Fatalf("player %s waits in %s with tickets %s and %s", p.ID, tk.Key.Queue, other, tk.ID)
			}
			live[k] = tk.ID
		}
	}
	// A request id stands for one stored ticket, which every answer about
	// it names.
	byRequest := map[string]string{}
	for _, tk := range tickets {
		if tk.RequestID == "" {
			continue
		}
		if other, dup := byRequest[tk.RequestID]; dup {
			t.Fatalf("request id %s stored twice: %s and %s", tk.RequestID, other, tk.ID)
		}
		byRequest[tk.RequestID] = tk.ID
	}
	created := 0
	for _, cs := range calls {
		for _, c := range cs {
			for i, r := range c.out {
				in := c.in[i].Ticket
				switch {
				case r.Err != nil:
					if cupid.ErrorCode(r.Err) != cupid.CodeAlreadyExists || c.in[i].Replace {
						t.Fatalf("ticket %s: %v", in.ID, r.Err)
					}
					if _, stored := tickets[in.ID]; stored {
						t.Fatalf("refused ticket %s was stored", in.ID)
					}
				case r.Existed:
					if r.Ticket.ID != byRequest[in.RequestID] {
						t.Fatalf("ticket %s: request %s answered with %s, stored as %s", in.ID, in.RequestID, r.Ticket.ID, byRequest[in.RequestID])
					}
				default:
					created++
					if tickets[in.ID] == nil {
						t.Fatalf("ticket %s reported stored, is not", in.ID)
					}
					for _, old := range r.Replaced {
						got := tickets[old.ID]
						if got.State != cupid.StateCancelled || got.Reason != "replaced by ticket "+in.ID || got.Key.Queue != in.Key.Queue {
							t.Fatalf("%s replaced %s, which is %s (%q) in %s", in.ID, old.ID, got.State, got.Reason, got.Key.Queue)
						}
					}
				}
			}
		}
	}
	if created != len(tickets) {
		t.Fatalf("%d tickets reported created, %d stored", created, len(tickets))
	}
	// Every cancelled ticket was replaced by a stored ticket of its queue
	// that shares a player with it.
	for _, tk := range tickets {
		if tk.State != cupid.StateCancelled {
			continue
		}
		by := tickets[strings.TrimPrefix(tk.Reason, "replaced by ticket ")]
		if by == nil || by.Key.Queue != tk.Key.Queue || !slices.ContainsFunc(by.Players, func(p cupid.Player) bool {
			return slices.ContainsFunc(tk.Players, func(q cupid.Player) bool { return q.ID == p.ID })
		}) {
			t.Fatalf("%s cancelled: %q", tk.ID, tk.Reason)
		}
	}
	t.Logf("%d tickets stored, %d waiting", len(tickets), len(live))
}

// TestConcurrentCommits races match commits — random pairs within a
// queue, every player waiting in two queues, so that commits in different
// queues share players — and owners' cancels through four nodes, then
// checks that no ticket is in two matches, no player in two matches, and
// that every answer agrees with what was stored. Each wave starts from a
// new database schema with every player waiting again.
func TestConcurrentCommits(t *testing.T) {
	for wave := range 3 {
		t.Run(fmt.Sprint("wave", wave), func(t *testing.T) { testCommitWave(t, uint64(wave)) })
	}
}

func testCommitWave(t *testing.T, seed uint64) {
	stores := nodes(t, 4)
	ctx := context.Background()
	const players = 48
	queues := []string{"duel", "squad"}
	var batch []cupid.NewTicket
	for _, q := range queues {
		for p := range players {
			batch = append(batch, cupid.NewTicket{Ticket: inQueue(ticket(fmt.Sprintf("%s-%d", q, p), "", 0, fmt.Sprint("p", p)), q)})
		}
	}
	if _, _, err := stores[0].CreateTickets(ctx, batch); err != nil {
		t.Fatal(err)
	}

	const goroutines, rounds = 16, 20
	type result struct {
		m   *cupid.Match
		res cupid.Committed
	}
	results := make([][]result, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 11+seed))
			s := stores[g%len(stores)]
			for r := range rounds {
				if g%4 == 3 { // an owner cancelling now and then
					id := fmt.Sprintf("%s-%d", queues[rng.IntN(2)], rng.IntN(players))
					if _, _, err := lifecycle.Finish(ctx, s, cupid.Fence{}, id, cupid.StateCancelled, "", t0); err != nil && cupid.ErrorCode(err) != cupid.CodeConflict {
						t.Error(err)
						return
					}
					continue
				}
				var ms []*cupid.Match
				for k := range 1 + rng.IntN(3) {
					q := queues[rng.IntN(2)]
					ab := rng.Perm(players)[:2]
					ms = append(ms, pair(fmt.Sprintf("g%d-%d-%d", g, r, k), fmt.Sprintf("%s-%d", q, ab[0]), fmt.Sprintf("%s-%d", q, ab[1])))
				}
				out, _, err := s.CommitMatches(ctx, cupid.Fence{}, ms)
				if err != nil {
					t.Error(err)
					return
				}
				for i := range ms {
					results[g] = append(results[g], result{ms[i], out[i]})
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	tickets, _ := history(t, stores[0])

	inMatch := map[string]string{}  // ticket → the match that took it
	playerIn := map[string]string{} // player → the match that took him
	ok := 0
	for _, rs := range results {
		for _, r := range rs {
			if !r.res.OK {
				if len(r.res.NotWaiting) == 0 {
					t.Fatalf("match %s refused without naming a ticket", r.m.ID)
				}
				if _, err := stores[0].Match(ctx, r.m.ID); cupid.ErrorCode(err) != cupid.CodeNotFound {
					t.Fatalf("refused match %s stored: %v", r.m.ID, err)
				}
				continue
			}
			ok++
			for _, id := range r.m.TicketIDs() {
				if other, dup := inMatch[id]; dup {
					t.Fatalf("ticket %s is in matches %s and %s", id, other, r.m.ID)
				}
				inMatch[id] = r.m.ID
				if tk := tickets[id]; tk.State != cupid.StateMatched || tk.MatchID != r.m.ID {
					t.Fatalf("ticket %s of match %s is %s/%s", id, r.m.ID, tk.State, tk.MatchID)
				}
				for _, p := range tickets[id].Players {
					if other, dup := playerIn[p.ID]; dup {
						t.Fatalf("player %s is in matches %s and %s", p.ID, other, r.m.ID)
					}
					playerIn[p.ID] = r.m.ID
				}
			}
			for _, c := range r.res.Cancelled {
				if tk := tickets[c.ID]; tk.State != cupid.StateCancelled || !strings.HasSuffix(tk.Reason, "(match "+r.m.ID+")") {
					t.Fatalf("%s cancelled by %s is %s (%q)", c.ID, r.m.ID, tk.State, tk.Reason)
				}
			}
		}
	}
	for id, tk := range tickets {
		if tk.State == cupid.StateMatched && inMatch[id] != tk.MatchID {
			t.Fatalf("ticket %s is matched in %s, which no caller was told", id, tk.MatchID)
		}
		// A player matched in one queue has no live ticket left in another.
		if tk.State == cupid.StateWaiting {
			for _, p := range tk.Players {
				if m, taken := playerIn[p.ID]; taken {
					t.Fatalf("player %s was matched in %s but still waits with %s", p.ID, m, id)
				}
			}
		}
	}
	if ok == 0 {
		t.Fatal("no match committed: the test raced nothing")
	}
	t.Logf("%d matches committed, %d players matched", ok, len(playerIn))
}
