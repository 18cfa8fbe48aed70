package partysvc

import (
	"context"
	"log/slog"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/party"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// trios: two teams of three, so two parties of three make a match.
const trios = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 3, "player_max_number": 3}}`

type env struct {
	t     *testing.T
	store *memstore.Store
	clock *testclock.Clock
	mm    *ticketsvc.Service
	svc   *Service
}

// newEnv runs the ticket service and the party service on store (a new
// one when nil), as a restarted server would.
func newEnv(t *testing.T, store *memstore.Store, c *testclock.Clock) *env {
	t.Helper()
	return newEnvWith(t, store, c, nil)
}

// newEnvWith is newEnv with setup changing the party service's options
// first (a stand-in for the ticket service, limits, a registry).
func newEnvWith(t *testing.T, store *memstore.Store, c *testclock.Clock, setup func(*Options)) *env {
	t.Helper()
	if store == nil {
		store = memstore.New()
	}
	if c == nil {
		c = testclock.At(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	}
	log := slog.New(slog.DiscardHandler)
	mm, err := ticketsvc.New(ticketsvc.Options{Store: store, Documents: store, Logger: log, Now: c.Now, Seed: 1,
		Queues: []ticketsvc.Queue{{Name: "trios", TTL: time.Hour, Ruleset: []byte(trios)}, {Name: "ready-trios", TTL: time.Hour, Ruleset: []byte(trios)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := mm.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	o := Options{Docs: store, Tickets: mm, Logger: log, Now: c.Now,
		Queues: map[string]party.QueueRules{"trios": {MaxParty: 3}, "ready-trios": {MaxParty: 3, AllReady: true}}}
	if setup != nil {
		setup(&o)
	}
	svc, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, store: store, clock: c, mm: mm, svc: svc}
	t.Cleanup(e.stop)
	return e
}

func (e *env) stop() {
	e.svc.Close()
	e.mm.Close()
}

func (e *env) must(p *party.Party, err error) *party.Party {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// trio forms a party of three: leader invites the second, the third
// joins by code.
func (e *env) trio(leader, second, third string) *party.Party {
	e.t.Helper()
	ctx := context.Background()
	p := e.must(e.svc.Create(ctx, party.Member{ID: leader}))
	e.must(e.svc.Invite(ctx, p.ID, leader, second))
	e.must(e.svc.Answer(ctx, p.ID, party.Member{ID: second}, true))
	return e.must(e.svc.JoinByCode(ctx, p.Code, party.Member{ID: third}))
}

// watch collects a party's events as player sees them, until the party
// reaches kind.
func (e *env) watch(id, player string, after int64) *events {
	ctx, cancel := context.WithCancel(context.Background())
	w := &events{ch: make(chan party.Event, 256), done: make(chan error, 1)}
	go func() {
		w.done <- e.svc.Watch(ctx, id, player, after, func(ev party.Event) error { w.ch <- ev; return nil })
	}()
	e.t.Cleanup(cancel)
	return w
}

type events struct {
	ch   chan party.Event
	done chan error
}

// until reads events until one of kind, failing after a generous deadline
// (a guard against a hang, not a timing assertion).
func (w *events) until(t *testing.T, kind party.EventKind) party.Event {
	t.Helper()
	guard := time.After(30 * time.Second)
	for {
		select {
		case ev := <-w.ch:
			if ev.Kind == kind {
				return ev
			}
		case err := <-w.done:
			// The watch may have ended right after sending kind.
			w.done <- err
			for len(w.ch) > 0 {
				if ev := <-w.ch; ev.Kind == kind {
					return ev
				}
			}
			t.Fatalf("the watch ended before %s: %v", kind, err)
		case <-guard:
			t.Fatalf("no %s event", kind)
		}
	}
}

func TestQueueMatchAssign(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	a := e.trio("ann", "bob", "cid")
	b := e.trio("dan", "eve", "fay")
	wa, wc := e.watch(a.ID, "ann", 0), e.watch(a.ID, "cid", 0)
	e.must(e.svc.Queue(ctx, a.ID, "ann", "trios"))
	e.must(e.svc.Queue(ctx, b.ID, "dan", "trios"))
	m := wa.until(t, party.EventMatched)
	if m.MatchID == "" {
		t.Fatalf("matched without a match id: %+v", m)
	}
	wc.until(t, party.EventMatched)
	if _, err := e.mm.Handoff().AssignMatch(ctx, m.MatchID, cupid.Assignment{Server: "10.0.0.1:7777"}); err != nil {
		t.Fatal(err)
	}
	as := wc.until(t, party.EventAssigned)
	if as.Assignment == nil || as.Assignment.Server != "10.0.0.1:7777" {
		t.Fatalf("assigned without the server: %+v", as)
	}
	wa.until(t, party.EventAssigned)
	// Together still, idle, ready to queue again.
	p := e.must(e.svc.Get(ctx, a.ID, "bob"))
	if p.Phase != party.Idle || len(p.Members) != 3 || p.TicketID != "" {
		t.Fatalf("after the match: %+v", p)
	}
}

func TestLeavingWhileQueuedCancels(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	a := e.trio("ann", "bob", "cid")
	w := e.watch(a.ID, "ann", 0)
	q := e.must(e.svc.Queue(ctx, a.ID, "ann", "trios"))
	e.must(e.svc.Leave(ctx, a.ID, "bob"))
	ev := w.until(t, party.EventCancelled)
	if ev.Reason != "bob left the party" {
		t.Fatalf("reason %q", ev.Reason)
	}
	tk, err := e.mm.GetTicket(ctx, q.TicketID)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Ticket.State != cupid.StateCancelled || tk.Ticket.Reason != "bob left the party" {
		t.Fatalf("the party's ticket is %s (%q): its own watchers hear the reason too", tk.Ticket.State, tk.Ticket.Reason)
	}
}

func TestAllReady(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	a := e.trio("ann", "bob", "cid")
	if _, err := e.svc.Queue(ctx, a.ID, "ann", "ready-trios"); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("queued with nobody ready: %v", err)
	}
	for _, m := range []string{"ann", "bob", "cid"} {
		e.must(e.svc.SetReady(ctx, a.ID, m, true))
	}
	e.must(e.svc.Queue(ctx, a.ID, "ann", "ready-trios"))
	w := e.watch(a.ID, "bob", 0)
	e.must(e.svc.SetReady(ctx, a.ID, "cid", false))
	if ev := w.until(t, party.EventCancelled); ev.Reason != "cid is no longer ready" {
		t.Fatalf("reason %q", ev.Reason)
	}
}

func TestInviteExpires(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	p := e.must(e.svc.Create(ctx, party.Member{ID: "ann"}))
	e.must(e.svc.Invite(ctx, p.ID, "ann", "bob"))
	q := e.must(e.svc.Create(ctx, party.Member{ID: "cid"}))
	e.must(e.svc.Invite(ctx, q.ID, "cid", "bob"))
	got, err := e.svc.Invites(ctx, "bob")
	if err != nil || len(got) != 2 || got[0].PartyID > got[1].PartyID || got[0].By == "" {
		t.Fatalf("bob's invites: %+v %v", got, err)
	}
	e.must(e.svc.Answer(ctx, q.ID, party.Member{ID: "bob"}, false))
	e.clock.Advance(party.DefaultInviteTTL)
	if _, err := e.svc.Answer(ctx, p.ID, party.Member{ID: "bob"}, true); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("bob accepts an expired invite: %v", err)
	}
	w := e.watch(p.ID, "ann", 0)
	w.until(t, party.EventInviteExpired)
	if got, err := e.svc.Invites(ctx, "bob"); err != nil || len(got) != 0 {
		t.Fatalf("bob's invites after the expiry: %v %v", got, err)
	}
	// bob may be invited again, and holds no invite meanwhile.
	e.must(e.svc.Invite(ctx, p.ID, "ann", "bob"))
}

// A restarted server has its parties back, with their codes, and follows
// the tickets of the queued ones.
func TestRestart(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	a := e.trio("ann", "bob", "cid")
	e.must(e.svc.Queue(ctx, a.ID, "ann", "trios"))
	e.stop()

	e = newEnv(t, e.store, e.clock)
	p := e.must(e.svc.Get(ctx, a.ID, "cid"))
	if p.Phase != party.Queued || len(p.Members) != 3 || p.Code != a.Code {
		t.Fatalf("after the restart: %+v", p)
	}
	if _, err := e.svc.Create(ctx, party.Member{ID: "bob"}); cupid.ErrorCode(err) != cupid.CodeAlreadyExists {
		t.Fatalf("bob makes a second party after the restart: %v", err)
	}
	w := e.watch(a.ID, "ann", p.Seq)
	b := e.trio("dan", "eve", "fay")
	e.must(e.svc.Queue(ctx, b.ID, "dan", "trios"))
	w.until(t, party.EventMatched)
}
