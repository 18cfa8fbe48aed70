package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// These tests hold the ticket service's promises over the whole server: a
// player is never in two live tickets of a queue nor in two matches, every
// acknowledged ticket ends and its watchers hear it, nothing a client sends
// grows the server without bound, and misuse is refused, not mishandled.

// serviceQueues is a configuration for these tests: a 1v1 queue, a 5v5
// queue nobody fills, and a queue with a tight key limit.
const serviceQueues = `
queues:
  - name: duel
    ticket_ttl: 10m
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 100, max: 3000}
  - name: big
    ticket_ttl: 10m
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 5, player_max_number: 5}
  - name: keyed
    ticket_ttl: 10m
    max_keys: 2
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
`

// startConfigServer runs a server on a configuration text and a clock the
// test moves.
func startConfigServer(t *testing.T, data, yaml string) *clockServer {
	t.Helper()
	return startConfigServerOn(t, data, yaml, testclock.At(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)), "")
}

// startConfigServerOn is startConfigServer on a given clock, so that a
// restarted server carries on the time of the one before.
func startConfigServerOn(t *testing.T, data, yaml string, clock *testclock.Clock, store string) *clockServer {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := &clockServer{clock: clock}
	started := make(chan *ticketsvc.Service, 1)
	cs.testServer = startServer(t, serveFlags{config: cfg, data: data, store: store, hooks: &serveHooks{
		now:     cs.clock.Now,
		started: func(mm *ticketsvc.Service) { started <- mm },
	}})
	cs.mm = <-started
	cs.c = cs.connectClient()
	return cs
}

func createReq(t *testing.T, c cupidv1connect.TicketServiceClient, r *cupidv1.CreateTicketRequest) (*cupidv1.CreateTicketResponse, error) {
	t.Helper()
	res, err := c.CreateTicket(context.Background(), connect.NewRequest(r))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

func wantCode(t *testing.T, err error, code connect.Code, mention ...string) {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != code {
		t.Fatalf("error %v, want code %v", err, code)
	}
	for _, m := range mention {
		if !strings.Contains(ce.Message(), m) {
			t.Fatalf("error %q does not mention %q", ce.Message(), m)
		}
	}
}

func getTicket(t *testing.T, c cupidv1connect.TicketServiceClient, id string) *cupidv1.Ticket {
	t.Helper()
	res, err := c.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: id}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetTicket()
}

func TestOnePlayerOneLiveTicketPerQueue(t *testing.T) {
	cs := startConfigServer(t, "", serviceQueues)
	first := create(t, cs.c, "big", player("alice", 1500))
	// A retry without a request id after a lost answer: refused, naming
	// the player and the ticket he is in.
	_, err := createReq(t, cs.c, &cupidv1.CreateTicketRequest{Queue: "big", Players: []*cupidv1.Player{player("bob", 1), player("alice", 1500)}})
	wantCode(t, err, connect.CodeAlreadyExists, "players[1].id", `"alice"`, first.GetId())
	// Another key of the same queue is the same queue.
	_, err = createReq(t, cs.c, &cupidv1.CreateTicketRequest{Queue: "big", CustomKey: "eu", Players: []*cupidv1.Player{player("alice", 1500)}})
	wantCode(t, err, connect.CodeAlreadyExists, first.GetId())
	// Nothing of the refused tickets was stored: bob is free.
	create(t, cs.c, "duel", player("bob", 1))

	// Replace cancels the old ticket with a reason its watchers hear.
	res, err := createReq(t, cs.c, &cupidv1.CreateTicketRequest{Queue: "big", Replace: true, Players: []*cupidv1.Player{player("alice", 1600)}})
	if err != nil {
		t.Fatal(err)
	}
	ev := waitFinal(t, cs.c, first.GetId(), 0)
	if ev.GetKind() != "cancelled" || !strings.Contains(ev.GetReason(), res.GetTicket().GetId()) {
		t.Fatalf("replaced ticket's final event %v, want cancelled naming %s", ev, res.GetTicket().GetId())
	}
	if got := getTicket(t, cs.c, first.GetId()); got.GetReason() == "" {
		t.Fatalf("replaced ticket has no reason: %v", got)
	}
	if got := getTicket(t, cs.c, res.GetTicket().GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
		t.Fatalf("replacement %v, want waiting", got)
	}
}

func TestMatchedInOneQueueCancelsTheOthers(t *testing.T) {
	cs := startConfigServer(t, "", serviceQueues)
	// alice waits in the 5v5 queue (which never fills) and in duel.
	big := create(t, cs.c, "big", player("alice", 1500), player("carol", 1500))
	duel := create(t, cs.c, "duel", player("alice", 1500))
	create(t, cs.c, "duel", player("bob", 1510))
	if ev := waitFinal(t, cs.c, duel.GetId(), 0); ev.GetKind() != "matched" {
		t.Fatalf("duel ticket ended %v, want matched", ev)
	}
	ev := waitFinal(t, cs.c, big.GetId(), 0)
	if ev.GetKind() != "cancelled" || !strings.Contains(ev.GetReason(), "alice") || !strings.Contains(ev.GetReason(), "duel") {
		t.Fatalf("other queue's ticket ended %v, want cancelled because alice was matched in duel", ev)
	}
	// carol, alice's party mate, is free again.
	create(t, cs.c, "big", player("carol", 1500))
}

func TestRequestIDReusedWithAnotherBodyIsAConflict(t *testing.T) {
	cs := startConfigServer(t, "", serviceQueues)
	req := &cupidv1.CreateTicketRequest{Queue: "big", RequestId: "r-1", Players: []*cupidv1.Player{player("alice", 1500)}}
	first, err := createReq(t, cs.c, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := createReq(t, cs.c, req)
	if err != nil || !again.GetExisted() || again.GetTicket().GetId() != first.GetTicket().GetId() {
		t.Fatalf("same request again: %v %v, want the first ticket", again, err)
	}
	other := &cupidv1.CreateTicketRequest{Queue: "big", RequestId: "r-1", Players: []*cupidv1.Player{player("alice", 1700)}}
	_, err = createReq(t, cs.c, other)
	wantCode(t, err, connect.CodeFailedPrecondition, "request_id", first.GetTicket().GetId())
}

func TestWatchPastTheFinalEventEndsAtOnce(t *testing.T) {
	cs := startConfigServer(t, "", serviceQueues)
	a := create(t, cs.c, "big", player("alice", 1500))
	if _, err := cs.c.CancelTicket(context.Background(), connect.NewRequest(&cupidv1.CancelTicketRequest{Id: a.GetId()})); err != nil {
		t.Fatal(err)
	}
	fin := waitFinal(t, cs.c, a.GetId(), 0)
	for _, after := range []int64{fin.GetSeq(), fin.GetSeq() + 1000} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		stream, err := cs.c.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: a.GetId(), AfterSeq: after}))
		if err != nil {
			t.Fatal(err)
		}
		var got []*cupidv1.TicketEvent
		for stream.Receive() {
			got = append(got, stream.Msg())
		}
		err = stream.Err()
		cancel()
		if err != nil || len(got) != 1 || got[0].GetKind() != "cancelled" || got[0].GetSeq() != fin.GetSeq() {
			t.Fatalf("watch after_seq=%d: %v, %v; want the final event at once", after, got, err)
		}
	}
}

func TestRulesetReplacementCancelsWhatItCannotMatch(t *testing.T) {
	cs := startConfigServer(t, "", serviceQueues)
	a := create(t, cs.c, "big", player("alice", 1500), player("carol", 1500), player("dan", 1500))
	rs := cupidv1connect.NewRulesetServiceClient(h2cClient(), cs.url)
	_, err := rs.PutRuleset(context.Background(), connect.NewRequest(&cupidv1.PutRulesetRequest{
		Queue: "big", ExpectedVersion: -1,
		Ruleset: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2}}`,
	}))
	wantCode(t, err, connect.CodeInvalidArgument, "expected_version")
	_, err = rs.PutRuleset(context.Background(), connect.NewRequest(&cupidv1.PutRulesetRequest{
		Queue:   "big",
		Ruleset: `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2}}`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	ev := waitFinal(t, cs.c, a.GetId(), 0)
	if ev.GetKind() != "cancelled" || !strings.Contains(ev.GetReason(), "ruleset") {
		t.Fatalf("party of 3 under a 2-a-side ruleset ended %v, want cancelled with the ruleset as reason", ev)
	}
}

func TestRestartWithAnotherConfigurationEndsOrphans(t *testing.T) {
	data := t.TempDir()
	cs := startConfigServer(t, data, serviceQueues)
	gone := create(t, cs.c, "keyed", player("alice", 1500))
	party := create(t, cs.c, "big", player("bob", 1), player("carol", 1), player("dan", 1))
	stays := create(t, cs.c, "big", player("erin", 1))
	cs.stop()

	// The new configuration drops "keyed" and makes "big" 2 a side.
	next := strings.Replace(serviceQueues, "player_min_number: 5, player_max_number: 5", "player_min_number: 1, player_max_number: 2", 1)
	next = next[:strings.Index(next, "  - name: keyed")]
	cs = startConfigServer(t, data, next)
	for _, c := range []struct {
		id, reason string
	}{{gone.GetId(), "no longer configured"}, {party.GetId(), "ruleset"}} {
		ev := waitFinal(t, cs.c, c.id, 0)
		if ev.GetKind() != "cancelled" || !strings.Contains(ev.GetReason(), c.reason) {
			t.Fatalf("ticket %s after restart ended %v, want cancelled: %s", c.id, ev, c.reason)
		}
	}
	if got := getTicket(t, cs.c, stays.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
		t.Fatalf("a ticket the new rules accept is %v, want waiting", got.GetState())
	}
}

func TestQueueKeysAreBoundedAndIdlePoolsFreed(t *testing.T) {
	cs := startConfigServer(t, "", serviceQueues)
	var ids []string
	for i := range 2 {
		res, err := createReq(t, cs.c, &cupidv1.CreateTicketRequest{Queue: "keyed", CustomKey: fmt.Sprint("k", i), Players: []*cupidv1.Player{player(fmt.Sprint("p", i), 1)}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.GetTicket().GetId())
	}
	_, err := createReq(t, cs.c, &cupidv1.CreateTicketRequest{Queue: "keyed", CustomKey: "k2", Players: []*cupidv1.Player{player("p2", 1)}})
	wantCode(t, err, connect.CodeResourceExhausted, "custom_key")
	// An existing key still takes tickets.
	if _, err := createReq(t, cs.c, &cupidv1.CreateTicketRequest{Queue: "keyed", CustomKey: "k0", Players: []*cupidv1.Player{player("p3", 1)}}); err != nil {
		t.Fatal(err)
	}
	// Once a key empties and idles, its pool is freed and a new key fits.
	if _, err := cs.c.CancelTicket(context.Background(), connect.NewRequest(&cupidv1.CancelTicketRequest{Id: ids[1]})); err != nil {
		t.Fatal(err)
	}
	// Let the pools see the match and the cancel at this time, so both
	// idle from the same moment and retire in the same step.
	cs.wait(0)
	deadline := time.Now().Add(30 * time.Second)
	for {
		cs.wait(2 * ticketsvc.DefaultIdlePool)
		_, err = createReq(t, cs.c, &cupidv1.CreateTicketRequest{Queue: "keyed", CustomKey: "k2", Players: []*cupidv1.Player{player("p2", 1)}})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle pool was never freed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, err := cs.c.QueueStats(context.Background(), connect.NewRequest(&cupidv1.QueueStatsRequest{Queue: "keyed"}))
	if err != nil {
		t.Fatal(err)
	}
	// k0's two tickets matched each other and k1's was cancelled: both
	// pools idled and were freed, only k2's is left.
	if ps := st.Msg.GetPools(); len(ps) != 1 || ps[0].GetCustomKey() != "k2" {
		t.Fatalf("keyed has pools %v, want only k2's", ps)
	}
}

func TestBulkCreateHasOneResultPerTicket(t *testing.T) {
	cs := startConfigServer(t, "", serviceQueues)
	res, err := cs.c.CreateTickets(context.Background(), connect.NewRequest(&cupidv1.CreateTicketsRequest{Tickets: []*cupidv1.CreateTicketRequest{
		{Queue: "duel", Players: []*cupidv1.Player{player("a", 1500)}},
		{Queue: "duel", Players: []*cupidv1.Player{player("a", 1500)}},
		{Queue: "nope", Players: []*cupidv1.Player{player("b", 1500)}},
		{Queue: "duel", Players: []*cupidv1.Player{{Id: ""}}},
		{Queue: "duel", Players: []*cupidv1.Player{player("c", 1510)}},
	}}))
	if err != nil {
		t.Fatal(err)
	}
	rs := res.Msg.GetResults()
	if len(rs) != 5 {
		t.Fatalf("%d results for 5 tickets", len(rs))
	}
	want := []struct{ code, field string }{{"", ""}, {"already_exists", "tickets[1].players[0].id"}, {"not_found", "tickets[2].queue"}, {"invalid_argument", "tickets[3].players[0].id"}, {"", ""}}
	for i, w := range want {
		r := rs[i]
		if r.GetErrorCode() != w.code || r.GetErrorField() != w.field || (w.code == "") != (r.GetTicket() != nil) {
			t.Errorf("result %d: %v, want code %q field %q", i, r, w.code, w.field)
		}
	}
	if ev := waitFinal(t, cs.c, rs[0].GetTicket().GetId(), 0); ev.GetKind() != "matched" {
		t.Fatalf("bulk-created tickets did not match: %v", ev)
	}
}

// TestBulkCancelHasOneResultPerTicket: CancelTickets cancels what waits,
// names each id it could not cancel, and the cancelled tickets' watchers
// hear it.
func TestBulkCancelHasOneResultPerTicket(t *testing.T) {
	cs := startConfigServer(t, "", serviceQueues)
	ctx := context.Background()
	created, err := cs.c.CreateTickets(ctx, connect.NewRequest(&cupidv1.CreateTicketsRequest{Tickets: []*cupidv1.CreateTicketRequest{
		{Queue: "duel", Players: []*cupidv1.Player{player("x", 0)}},
		{Queue: "duel", Players: []*cupidv1.Player{player("y", 2900)}},
	}}))
	if err != nil {
		t.Fatal(err)
	}
	x, y := created.Msg.GetResults()[0].GetTicket().GetId(), created.Msg.GetResults()[1].GetTicket().GetId()
	res, err := cs.c.CancelTickets(ctx, connect.NewRequest(&cupidv1.CancelTicketsRequest{Ids: []string{x, "nope", y, x, ""}}))
	if err != nil {
		t.Fatal(err)
	}
	rs := res.Msg.GetResults()
	want := []struct{ code, field string }{{"", ""}, {"not_found", "ids[1]"}, {"", ""}, {"failed_precondition", "ids[3]"}, {"invalid_argument", "ids[4]"}}
	if len(rs) != len(want) {
		t.Fatalf("%d results for %d ids", len(rs), len(want))
	}
	for i, w := range want {
		r := rs[i]
		// The field is the id itself, ids[i]: a cancel has no other.
		if r.GetErrorCode() != w.code || r.GetErrorField() != w.field || (w.code == "") != (r.GetTicket() != nil) {
			t.Errorf("result %d: %v, want code %q field %q", i, r, w.code, w.field)
		}
	}
	for _, id := range []string{x, y} {
		if ev := waitFinal(t, cs.c, id, 0); ev.GetKind() != "cancelled" {
			t.Errorf("ticket %s: final event %v, want cancelled", id, ev)
		}
	}
	if _, err := cs.c.CancelTickets(ctx, connect.NewRequest(&cupidv1.CancelTicketsRequest{})); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Errorf("an empty CancelTickets: %v, want invalid_argument", err)
	}
}

// raceQueues are two queues whose tickets cannot match until they have
// waited 10 s, so that a test can create everything first and then let
// both queues form their matches at the same moment.
const raceQueues = `
queues:
  - name: duel
    ticket_ttl: 10m
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 10, max: 100000}
      flexing_rule:
        - {duration: 10, attribute: mmr, criteria: distance, reference: 100000}
  - name: pairs
    ticket_ttl: 10m
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 2, player_max_number: 2}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 10, max: 100000}
      flexing_rule:
        - {duration: 10, attribute: mmr, criteria: distance, reference: 100000}
`

// TestNoPlayerInTwoMatchesUnderConcurrency: 200 players each send, at
// once, a ticket to two queues and a retry of the first; then both queues
// form their matches at the same moment, racing to commit. Every player
// ends in at most one match, the retries were refused, and every ticket a
// matched player had elsewhere was cancelled, naming the match.
func TestNoPlayerInTwoMatchesUnderConcurrency(t *testing.T) {
	raceTwoQueues(t, "")
}

func raceTwoQueues(t *testing.T, store string) {
	cs := startConfigServerOn(t, "", raceQueues, testclock.At(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)), store)
	const players = 200
	type sent struct {
		player, queue, id string
		err               error
	}
	results := make(chan sent, 3*players)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range players {
		id := fmt.Sprintf("racer-%03d", i)
		for _, q := range []string{"duel", "duel", "pairs"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				res, err := createReq(t, cs.c, &cupidv1.CreateTicketRequest{Queue: q, Players: []*cupidv1.Player{player(id, float64(i)*100)}})
				s := sent{player: id, queue: q, err: err}
				if err == nil {
					s.id = res.GetTicket().GetId()
				}
				results <- s
			}()
		}
	}
	wg.Wait()
	close(results)
	acked := map[string]sent{}
	refused := 0
	for s := range results {
		if s.err != nil {
			wantCode(t, s.err, connect.CodeAlreadyExists, s.player)
			refused++
			continue
		}
		acked[s.id] = s
	}
	if refused != players || len(acked) != 2*players {
		t.Fatalf("%d refused and %d acknowledged, want %d and %d", refused, len(acked), players, 2*players)
	}
	cs.wait(10 * time.Second)

	matchesOf := map[string][]string{}
	for id, s := range acked {
		tk := getTicket(t, cs.c, id)
		switch tk.GetState() {
		case cupidv1.TicketState_TICKET_STATE_MATCHED:
			matchesOf[s.player] = append(matchesOf[s.player], tk.GetMatchId())
		case cupidv1.TicketState_TICKET_STATE_CANCELLED:
			if !strings.Contains(tk.GetReason(), "was matched in queue") {
				t.Errorf("ticket %s of %s cancelled for %q", id, s.player, tk.GetReason())
			}
		case cupidv1.TicketState_TICKET_STATE_WAITING:
			// A player left without a partner in one queue may wait, but
			// then he was matched nowhere.
		default:
			t.Errorf("ticket %s is %v", id, tk.GetState())
		}
	}
	matched := 0
	for p, ms := range matchesOf {
		if len(ms) > 1 {
			t.Errorf("player %s is in %d matches: %v", p, len(ms), ms)
		}
		matched++
	}
	for id, s := range acked {
		if tk := getTicket(t, cs.c, id); tk.GetState() == cupidv1.TicketState_TICKET_STATE_WAITING && len(matchesOf[s.player]) > 0 {
			t.Errorf("player %s is matched and still waits in %s", s.player, s.queue)
		}
	}
	if matched < players*9/10 {
		t.Fatalf("only %d of %d players matched", matched, players)
	}
}

// TestNoDistanceRuleStrandsNobody: 30,000 one-player tickets wait in a 1v1
// queue whose distance rule keeps them all apart; the server restarts with
// the distance rule gone, so one pass over all 30,000 reloaded tickets must
// match every one of them, leaving no compatible pair waiting.
func TestNoDistanceRuleStrandsNobody(t *testing.T) {
	if testing.Short() {
		t.Skip("30,000 tickets")
	}
	const apart = `
queues:
  - name: flood
    ticket_ttl: 1h
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 1, max: 1000000}
`
	const together = `
queues:
  - name: flood
    ticket_ttl: 1h
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
`
	data := t.TempDir()
	cs := startConfigServer(t, data, apart)
	const n = 30_000
	for lo := 0; lo < n; lo += 1000 {
		var reqs []*cupidv1.CreateTicketRequest
		for i := lo; i < lo+1000; i++ {
			reqs = append(reqs, &cupidv1.CreateTicketRequest{Queue: "flood", Players: []*cupidv1.Player{player(fmt.Sprint("s", i), float64(i)*10)}})
		}
		res, err := cs.c.CreateTickets(context.Background(), connect.NewRequest(&cupidv1.CreateTicketsRequest{Tickets: reqs}))
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res.Msg.GetResults() {
			if r.GetError() != "" {
				t.Fatalf("ticket %d: %s", lo+i, r.GetError())
			}
		}
	}
	cs.stop()
	cs = startConfigServer(t, data, together)
	cs.wait(0)
	st, err := cs.c.QueueStats(context.Background(), connect.NewRequest(&cupidv1.QueueStatsRequest{Queue: "flood"}))
	if err != nil {
		t.Fatal(err)
	}
	var waiting, formed int64
	for _, p := range st.Msg.GetPools() {
		waiting += p.GetWaiting()
		formed += p.GetMatchesFormed()
	}
	if waiting != 0 || formed != n/2 {
		t.Fatalf("%d tickets still waiting and %d matches formed after one pass, want 0 and %d", waiting, formed, n/2)
	}
}

// TestRestartKeepsTheOldestFirst: tickets wait under a ruleset that keeps
// them apart; the server restarts with one that relaxes with waiting, and
// reloads them with their ages. A (20 s old, allows 400) could take B (8 s
// old, 300 away) or C1 (1 s old, same skill); only one can join, and it must
// be the older B — C1 pairs with C2. Preferring the nearest would leave B
// waiting, and after a restart that happens to whoever is second oldest.
func TestRestartKeepsTheOldestFirst(t *testing.T) {
	const apart = `
queues:
  - name: q
    ticket_ttl: 1h
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 0.001, max: 100000}
`
	const relaxing = `
queues:
  - name: q
    ticket_ttl: 1h
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 100, max: 100000}
      flexing_rule:
        - {duration: 10, attribute: mmr, criteria: distance, reference: 200}
        - {duration: 20, attribute: mmr, criteria: distance, reference: 400}
`
	data := t.TempDir()
	cs := startConfigServer(t, data, apart)
	start := cs.clock.Now()
	ids := map[string]string{}
	for _, c := range []struct {
		name string
		at   time.Duration
		mmr  float64
	}{{"A", 0, 1000}, {"B", 12 * time.Second, 1300}, {"C1", 19 * time.Second, 1000.2}, {"C2", 19500 * time.Millisecond, 1000.4}} {
		cs.clock.Advance(start.Add(c.at).Sub(cs.clock.Now()))
		ids[c.name] = create(t, cs.c, "q", player(c.name, c.mmr)).GetId()
	}
	cs.stop()
	cs.clock.Advance(start.Add(20 * time.Second).Sub(cs.clock.Now()))
	cs = startConfigServerOn(t, data, relaxing, cs.clock, "")
	cs.wait(0)
	partner := func(name string) string {
		tk := getTicket(t, cs.c, ids[name])
		if tk.GetState() != cupidv1.TicketState_TICKET_STATE_MATCHED {
			return ""
		}
		for _, team := range tk.GetMatch().GetTeams() {
			for _, p := range team.GetPlayerIds() {
				if p != name {
					return p
				}
			}
		}
		return ""
	}
	if got := partner("A"); got != "B" {
		t.Fatalf("A was matched with %q, want B (the older candidate)", got)
	}
	if got := partner("C1"); got != "C2" {
		t.Fatalf("C1 was matched with %q, want C2", got)
	}
}

// TestRulesMeanWhatAccelByteSays, through the real server and JSON as curl
// sends it: an "any" option must be carried by both tickets with a value in
// common; documented booleans are JSON booleans; "why" counts a team-size
// relaxation that will start the match.
func TestRulesMeanWhatAccelByteSays(t *testing.T) {
	const rules = `
queues:
  - name: maps
    ticket_ttl: 1h
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      match_options:
        options: [{name: map, type: any}]
  - name: shrink
    ticket_ttl: 1h
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 2, player_max_number: 2}
      alliance_flexing_rule:
        - {duration: 20, min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 2}
`
	cs := startConfigServer(t, "", rules)
	code, out := postJSON(t, cs.url, "CreateTicket", `{"queue": "maps", "players": [{"id": "nomap"}]}`)
	if code != 400 || !strings.Contains(fmt.Sprint(out["message"]), "map") {
		t.Fatalf("a ticket without the any-option: %d %v, want 400 naming map", code, out)
	}
	code, out = postJSON(t, cs.url, "CreateTicket", `{"queue": "maps", "players": [{"id": "a"}], "attributes": {"map": ["dust", "nuke"], "new_session_only": true}}`)
	if code != 200 {
		t.Fatalf("a JSON boolean for new_session_only: %d %v", code, out)
	}
	a := out["ticket"].(map[string]any)["id"].(string)
	if code, out = postJSON(t, cs.url, "CreateTicket", `{"queue": "maps", "players": [{"id": "b"}], "attributes": {"map": ["mirage"]}}`); code != 200 {
		t.Fatalf("create b: %d %v", code, out)
	}
	if code, out = postJSON(t, cs.url, "CreateTicket", `{"queue": "maps", "players": [{"id": "c"}], "attributes": {"map": ["nuke", "inferno"]}}`); code != 200 {
		t.Fatalf("create c: %d %v", code, out)
	}
	cs.wait(0)
	tk := getTicket(t, cs.c, a)
	if tk.GetState() != cupidv1.TicketState_TICKET_STATE_MATCHED || !strings.Contains(fmt.Sprint(tk.GetMatch().GetTeams()), `"c"`) {
		t.Fatalf("a (dust, nuke) should match c (nuke, inferno), not b (mirage): %v", tk)
	}
	if v := tk.GetAttributes()["new_session_only"]; v.GetBoolValue() != true {
		t.Fatalf("new_session_only came back as %v, want true", v)
	}

	lone := create(t, cs.c, "shrink", player("x", 1))
	create(t, cs.c, "shrink", player("y", 1))
	cs.wait(time.Second)
	why := getTicket(t, cs.c, lone.GetId()).GetWhy()
	if !strings.Contains(why.GetSummary(), "match of 2") && !strings.Contains(why.GetSummary(), "2 players") {
		t.Fatalf("why: %q; want it to say the relaxation in 19 s starts a match of the 2 players here", why.GetSummary())
	}
	cs.wait(19 * time.Second)
	if s := getTicket(t, cs.c, lone.GetId()).GetState(); s != cupidv1.TicketState_TICKET_STATE_MATCHED {
		t.Fatalf("after the relaxation: %v, want matched", s)
	}
}
