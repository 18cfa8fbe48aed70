package ticketsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
)

// The service's unit tests run on the in-memory store, which can be told to
// fail or to hold a call, and on a clock the test moves; Wake returns after
// every pool has stepped, so no test sleeps to see a decision.

// duelRules match two one-player tickets within 100 mmr, widening to 300
// after 10 s of waiting.
const duelRules = `{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100, "max": 3000}],
  "flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 300}]
}`

// bigRules need ten players: a test fills it only when it means to.
const bigRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 5, "player_max_number": 5}}`

type harness struct {
	*Service
	store *memstore.Store
	clock *testclock.Clock
	read  *atomic.Int64 // in a cluster: the events this node read back
}

func queues(maxKeys int) []Queue {
	return []Queue{
		{Name: "duel", TTL: time.Minute, Ruleset: []byte(duelRules)},
		{Name: "big", TTL: time.Minute, Ruleset: []byte(bigRules), MaxKeys: maxKeys},
	}
}

func start(t *testing.T, store *memstore.Store, qs []Queue) *harness {
	t.Helper()
	h := &harness{store: store, clock: testclock.At(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	svc, err := New(Options{Store: store, Documents: store, Queues: qs, Now: h.clock.Now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	h.Service = svc
	return h
}

// wait moves the clock and returns once every pool has looked at it.
func (h *harness) wait(d time.Duration) {
	h.clock.Advance(d)
	h.Wake()
}

func ticket(queue string, mmr float64, players ...string) *cupid.Ticket {
	t := &cupid.Ticket{Key: cupid.QueueKey{Queue: queue}}
	for _, p := range players {
		t.Players = append(t.Players, cupid.Player{ID: p, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(mmr)})})
	}
	return t
}

func (h *harness) create(t *testing.T, tk *cupid.Ticket) *cupid.Ticket {
	t.Helper()
	got, _, err := h.CreateTicket(context.Background(), tk, false)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return got
}

func (h *harness) state(t *testing.T, id string) *cupid.Ticket {
	t.Helper()
	got, err := h.store.Ticket(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func wantErr(t *testing.T, err error, code cupid.Code, field string, mention ...string) {
	t.Helper()
	var e *cupid.Error
	if !errors.As(err, &e) || e.Code != code || e.Field != field {
		t.Fatalf("error %v, want %s on %q", err, code, field)
	}
	for _, m := range mention {
		if !strings.Contains(e.Message, m) {
			t.Fatalf("error %q does not mention %q", e.Message, m)
		}
	}
}

func TestCreateRefusesBadTicketsAndStoresNothing(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	for _, c := range []struct {
		name  string
		tk    *cupid.Ticket
		code  cupid.Code
		field string
	}{
		{"no queue", &cupid.Ticket{Players: []cupid.Player{{ID: "a"}}}, cupid.CodeNotFound, "queue"},
		{"unknown queue", ticket("nope", 1, "a"), cupid.CodeNotFound, "queue"},
		{"no players", &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}}, cupid.CodeInvalid, "players"},
		{"empty player id", ticket("duel", 1, ""), cupid.CodeInvalid, "players[0].id"},
		{"player twice", ticket("big", 1, "a", "a"), cupid.CodeInvalid, "players[1].id"},
		{"party larger than a team", ticket("duel", 1, "a", "b"), cupid.CodeInvalid, "players"},
		{"missing skill", &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "a"}}}, cupid.CodeInvalid, "players[0].attributes.mmr"},
		{"long custom key", &cupid.Ticket{Key: cupid.QueueKey{Queue: "big", Custom: strings.Repeat("k", cupid.MaxIDLength+1)}, Players: []cupid.Player{{ID: "a"}}}, cupid.CodeInvalid, "custom_key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := h.CreateTicket(context.Background(), c.tk, false)
			var e *cupid.Error
			if !errors.As(err, &e) || e.Code != c.code || !strings.HasPrefix(e.Field, c.field) {
				t.Fatalf("error %v, want %s on %s", err, c.code, c.field)
			}
		})
	}
	all, err := h.store.Tickets(context.Background(), cupid.TicketFilter{})
	if err != nil || len(all) != 0 {
		t.Fatalf("store holds %d tickets after refusals (%v)", len(all), err)
	}
}

func TestOneLiveTicketPerPlayerAndQueue(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	first := h.create(t, ticket("big", 1, "alice"))
	_, _, err := h.CreateTicket(context.Background(), ticket("big", 1, "bob", "alice"), false)
	wantErr(t, err, cupid.CodeAlreadyExists, "players[1].id", "alice", first.ID)
	// Another custom key of the same queue is the same queue.
	other := ticket("big", 1, "alice")
	other.Key.Custom = "eu"
	_, _, err = h.CreateTicket(context.Background(), other, false)
	wantErr(t, err, cupid.CodeAlreadyExists, "players[0].id", first.ID)

	repl, _, err := h.CreateTicket(context.Background(), ticket("big", 2, "alice"), true)
	if err != nil {
		t.Fatal(err)
	}
	old := h.state(t, first.ID)
	if old.State != cupid.StateCancelled || !strings.Contains(old.Reason, repl.ID) {
		t.Fatalf("replaced ticket %s %q, want cancelled naming %s", old.State, old.Reason, repl.ID)
	}
	h.wait(0)
	st, _ := h.Stats(context.Background(), "big")
	waiting := 0
	for _, p := range st {
		waiting += p.Waiting
	}
	if waiting != 1 {
		t.Fatalf("stats after replace %+v, want one waiting ticket", st)
	}
}

func TestRequestIDReuse(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	a := ticket("big", 1, "alice")
	a.RequestID = "r1"
	first := h.create(t, a)
	b := ticket("big", 1, "alice")
	b.RequestID = "r1"
	again, existed, err := h.CreateTicket(context.Background(), b, false)
	if err != nil || !existed || again.ID != first.ID {
		t.Fatalf("retry: %v %v %v, want the first ticket", again, existed, err)
	}
	c := ticket("big", 7, "alice")
	c.RequestID = "r1"
	_, _, err = h.CreateTicket(context.Background(), c, false)
	wantErr(t, err, cupid.CodeConflict, "request_id", first.ID)
}

func TestMatchCancelsThePlayersOtherTickets(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	big := h.create(t, ticket("big", 1, "alice", "carol"))
	duel := h.create(t, ticket("duel", 1500, "alice"))
	h.create(t, ticket("duel", 1510, "bob"))
	h.wait(0)
	if s := h.state(t, duel.ID).State; s != cupid.StateMatched {
		t.Fatalf("duel ticket %s, want matched", s)
	}
	got := h.state(t, big.ID)
	if got.State != cupid.StateCancelled || !strings.Contains(got.Reason, `"alice"`) && !strings.Contains(got.Reason, "alice") {
		t.Fatalf("big ticket %s %q, want cancelled because alice was matched", got.State, got.Reason)
	}
	h.wait(0)
	st, _ := h.Stats(context.Background(), "big")
	if len(st) != 1 || st[0].Waiting != 0 {
		t.Fatalf("big pool still counts the cancelled ticket: %+v", st)
	}
}

// TestWakeReturnsAfterTheStep: a pair 250 apart matches exactly when the
// 10 s flexing step comes, not a millisecond before — and Wake's return
// is enough to see either.
func TestWakeReturnsAfterTheStep(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	a := h.create(t, ticket("duel", 1000, "a"))
	h.create(t, ticket("duel", 1250, "b"))
	h.wait(10*time.Second - time.Millisecond)
	if s := h.state(t, a.ID).State; s != cupid.StateWaiting {
		t.Fatalf("at 9.999 s: %s, want waiting", s)
	}
	h.wait(time.Millisecond)
	if s := h.state(t, a.ID).State; s != cupid.StateMatched {
		t.Fatalf("at 10 s, right after Wake: %s, want matched", s)
	}
}

func TestStoreFailures(t *testing.T) {
	full := errors.New("database or disk is full")

	t.Run("create answers unavailable and keeps nothing", func(t *testing.T) {
		h := start(t, memstore.New(), queues(0))
		h.store.FailNext("CreateTickets", full)
		_, _, err := h.CreateTicket(context.Background(), ticket("big", 1, "a"), false)
		wantErr(t, err, cupid.CodeUnavailable, "")
		h.create(t, ticket("big", 1, "a")) // the player is free
	})

	t.Run("cancel answers unavailable, then works", func(t *testing.T) {
		h := start(t, memstore.New(), queues(0))
		a := h.create(t, ticket("big", 1, "a"))
		h.store.FailNext("FinishTicket", full)
		_, err := h.CancelTicket(context.Background(), a.ID)
		wantErr(t, err, cupid.CodeUnavailable, "")
		if _, err := h.CancelTicket(context.Background(), a.ID); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a failed commit returns the tickets and is tried again", func(t *testing.T) {
		h := start(t, memstore.New(), queues(0))
		h.store.FailNext("CommitMatches", full)
		a := h.create(t, ticket("duel", 1000, "a"))
		h.create(t, ticket("duel", 1000, "b"))
		h.wait(0)
		if s := h.state(t, a.ID).State; s != cupid.StateWaiting {
			t.Fatalf("after a failed commit: %s, want waiting", s)
		}
		h.wait(time.Second)
		if s := h.state(t, a.ID).State; s != cupid.StateMatched {
			t.Fatalf("after the retry: %s, want matched", s)
		}
	})

	t.Run("expiry is kept through a failing store", func(t *testing.T) {
		h := start(t, memstore.New(), queues(0))
		a := h.create(t, ticket("big", 1, "a"))
		h.store.Fail("FinishTicket", full)
		h.wait(time.Minute)
		if s := h.state(t, a.ID).State; s != cupid.StateWaiting {
			t.Fatalf("with the store failing: %s, want still waiting", s)
		}
		h.store.Fail("FinishTicket", nil)
		h.wait(time.Second)
		if s := h.state(t, a.ID).State; s != cupid.StateExpired {
			t.Fatalf("once the store works: %s, want expired", s)
		}
	})

	t.Run("readiness follows writes", func(t *testing.T) {
		h := start(t, memstore.New(), queues(0))
		if err := h.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		h.store.Fail("Ping", full)
		h.clock.Advance(2 * time.Second)
		if err := h.Ready(context.Background()); err == nil {
			t.Fatal("ready while the store refuses writes")
		}
		h.store.Fail("Ping", nil)
		h.clock.Advance(2 * time.Second)
		if err := h.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		// A store that stops taking writes is seen by the next probe
		// a moment later, not a second later: a success is kept only
		// for readyFresh, so a flood of probes costs one write each
		// 100 ms at most.
		h.store.Fail("Ping", full)
		h.clock.Advance(readyFresh)
		if err := h.Ready(context.Background()); err == nil {
			t.Fatalf("ready %v after the store stopped taking writes", readyFresh)
		}
	})
}

// TestCancelDuringCommit holds a match's commit in the store while one of
// its tickets is cancelled: the match is refused and the other ticket goes
// back to the pool, where a newcomer matches it.
func TestCancelDuringCommit(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	arrived, release := h.store.Block("CommitMatches")
	a := h.create(t, ticket("duel", 1000, "a"))
	b := h.create(t, ticket("duel", 1000, "b"))
	<-arrived
	if _, err := h.CancelTicket(context.Background(), b.ID); err != nil {
		t.Fatal(err)
	}
	release()
	h.wait(0)
	if s := h.state(t, a.ID).State; s != cupid.StateWaiting {
		t.Fatalf("partner cancelled during the commit: %s, want waiting", s)
	}
	h.create(t, ticket("duel", 1000, "c"))
	h.wait(0)
	if s := h.state(t, a.ID).State; s != cupid.StateMatched {
		t.Fatalf("after a newcomer: %s, want matched", s)
	}
}

func TestRulesetReplacement(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	party := h.create(t, ticket("big", 1, "a", "b", "c"))
	solo := h.create(t, ticket("big", 1, "d"))
	_, err := h.Rulesets().Put(context.Background(), "big", []byte(bigRules), -1, "api")
	wantErr(t, err, cupid.CodeInvalid, "expected_version")
	_, err = h.Rulesets().Put(context.Background(), "big", []byte(bigRules), 7, "api")
	wantErr(t, err, cupid.CodeConflict, "expected_version")
	v, err := h.Rulesets().Put(context.Background(), "big", []byte(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2}}`), 1, "api")
	if err != nil || v != 2 {
		t.Fatalf("put: %d %v", v, err)
	}
	h.wait(0)
	got := h.state(t, party.ID)
	if got.State != cupid.StateCancelled || !strings.Contains(got.Reason, "version 2") {
		t.Fatalf("party of 3 under 2-a-side rules: %s %q, want cancelled naming the new version", got.State, got.Reason)
	}
	if s := h.state(t, solo.ID).State; s != cupid.StateWaiting {
		t.Fatalf("a ticket the new rules accept is %s", s)
	}
}

func TestRestartEndsWhatTheNewConfigurationRefuses(t *testing.T) {
	store := memstore.New()
	h := start(t, store, queues(0))
	party := h.create(t, ticket("big", 1, "a", "b", "c"))
	duel := h.create(t, ticket("duel", 1000, "d"))
	solo := h.create(t, ticket("big", 1, "e"))
	h.Close()

	h = start(t, store, []Queue{{Name: "big", TTL: time.Minute, Ruleset: []byte(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 2}}`)}})
	h.wait(0)
	for id, want := range map[string]string{party.ID: "ruleset", duel.ID: "no longer configured"} {
		got := h.state(t, id)
		if got.State != cupid.StateCancelled || !strings.Contains(got.Reason, want) {
			t.Errorf("ticket %s after restart: %s %q, want cancelled: %s", id, got.State, got.Reason, want)
		}
	}
	if s := h.state(t, solo.ID).State; s != cupid.StateWaiting {
		t.Fatalf("accepted ticket after restart: %s", s)
	}
	// Expiry still counts from creation.
	h.wait(time.Minute)
	if s := h.state(t, solo.ID).State; s != cupid.StateExpired {
		t.Fatalf("after its time to live: %s, want expired", s)
	}
}

func TestKeysAreBoundedAndIdlePoolsFreed(t *testing.T) {
	h := start(t, memstore.New(), queues(50))
	before := runtime.NumGoroutine()
	var ids []string
	for i := range 50 {
		tk := ticket("big", 1, fmt.Sprint("p", i))
		tk.Key.Custom = fmt.Sprint("k", i)
		ids = append(ids, h.create(t, tk).ID)
	}
	tk := ticket("big", 1, "late")
	tk.Key.Custom = "k50"
	_, _, err := h.CreateTicket(context.Background(), tk, false)
	wantErr(t, err, cupid.CodeExhausted, "custom_key", "50")
	if n := runtime.NumGoroutine() - before; n < 50 {
		t.Fatalf("%d more goroutines for 50 pools", n)
	}
	for _, id := range ids {
		if _, err := h.CancelTicket(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	h.wait(0) // the pools see the cancels
	h.wait(DefaultIdlePool - time.Second)
	if st, _ := h.Stats(context.Background(), "big"); len(st) != 50 {
		t.Fatalf("%d pools before their idle time is up, want 50", len(st))
	}
	h.wait(time.Second)
	st, _ := h.Stats(context.Background(), "big")
	if len(st) != 1 || st[0].Key.Custom != "" {
		t.Fatalf("%d pools after every key emptied and idled, want only the empty queue row", len(st))
	}
	// Pools end asynchronously after retiring; give them a moment.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine()-before > 5 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine() - before; n > 5 {
		t.Fatalf("%d goroutines left after the pools were freed", n)
	}
	h.create(t, tk) // a new key fits again
}

func TestWatchOfAnEndedTicketEndsAtOnce(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	a := h.create(t, ticket("big", 1, "a"))
	if _, err := h.CancelTicket(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	var final int64
	for _, after := range []int64{0, -1, 1 << 40} {
		if after == -1 {
			after = final
		}
		var got []cupid.Event
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := h.Watch(ctx, a.ID, after, func(ev cupid.Event) error { got = append(got, ev); return nil })
		cancel()
		if err != nil || len(got) == 0 || got[len(got)-1].Kind != cupid.EventCancelled {
			t.Fatalf("watch after %d: %v %v, want to end with the cancel", after, got, err)
		}
		final = got[len(got)-1].Seq
	}
	err := h.Watch(context.Background(), "no-such-ticket", 0, func(cupid.Event) error { return nil })
	wantErr(t, err, cupid.CodeNotFound, "id")
}

func TestBatchResultsAreEachTheirOwn(t *testing.T) {
	h := start(t, memstore.New(), queues(0))
	res := h.CreateTickets(context.Background(), []NewTicket{
		{Ticket: ticket("duel", 1000, "a")},
		{Ticket: ticket("duel", 1000, "a")},
		{Ticket: ticket("nope", 1, "b")},
		{Ticket: ticket("duel", 1000, "c")},
	})
	if res[0].Err != nil || res[3].Err != nil {
		t.Fatalf("good tickets refused: %v %v", res[0].Err, res[3].Err)
	}
	wantErr(t, res[1].Err, cupid.CodeAlreadyExists, "players[0].id")
	wantErr(t, res[2].Err, cupid.CodeNotFound, "queue")
	h.wait(0)
	if s := h.state(t, res[0].Ticket.ID).State; s != cupid.StateMatched {
		t.Fatalf("batch tickets: %s, want matched", s)
	}
}

// TestConfigurationChangeWinsOverAReplacedRuleset: a ruleset replaced at
// run time is kept across a restart while the configuration's ruleset is
// the one it replaced; once the configuration's changes, the file wins.
func TestConfigurationChangeWinsOverAReplacedRuleset(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	twoAside := `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2}}`
	h := start(t, store, queues(0))
	if _, err := h.Rulesets().Put(ctx, "big", []byte(twoAside), 0, "api"); err != nil {
		t.Fatal(err)
	}
	h.Close()

	// Same configuration: the replacement is kept.
	h = start(t, store, queues(0))
	if src, v, _ := h.Rulesets().Ruleset("big"); v != 2 || !bytes.Equal(compact(src), compact([]byte(twoAside))) {
		t.Fatalf("after a restart on the same configuration: version %d %s, want the replacement", v, src)
	}
	h.Close()

	// The configuration's ruleset changed since: the file wins.
	changed := queues(0)
	changed[1].Ruleset = []byte(`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 3}}`)
	h = start(t, store, changed)
	if src, _, _ := h.Rulesets().Ruleset("big"); !bytes.Equal(compact(src), compact(changed[1].Ruleset)) {
		t.Fatalf("after the configuration changed: %s, want the configuration's", src)
	}
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}
