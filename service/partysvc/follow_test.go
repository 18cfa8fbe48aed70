package partysvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cupid-match/cupid/storetest"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/party"
)

// watchTickets stands in for the ticket service's WatchAssignment where a
// test needs it to fail on cue; everything else goes to the real service.
type watchTickets struct {
	Tickets
	watch func(ctx context.Context, id string, after int64, send func(cupid.Event) error) error
}

func (w watchTickets) WatchAssignment(ctx context.Context, id string, after int64, send func(cupid.Event) error) error {
	return w.watch(ctx, id, after, send)
}

// withWatch makes the party service's ticket watches go through watch,
// which gets the real WatchAssignment to call.
func withWatch(watch func(real Tickets, ctx context.Context, id string, after int64, send func(cupid.Event) error) error) func(*Options) {
	return func(o *Options) {
		real := o.Tickets
		o.Tickets = watchTickets{Tickets: real, watch: func(ctx context.Context, id string, after int64, send func(cupid.Event) error) error {
			return watch(real, ctx, id, after, send)
		}}
		o.Retry = time.Millisecond // the follower's pause before watching again
	}
}

// theirs queues a ticket of three players who are in no party, so that a
// queued trio party is matched with it.
func (e *env) theirs(players ...string) string {
	e.t.Helper()
	t := &cupid.Ticket{Key: cupid.QueueKey{Queue: "trios"}}
	for _, p := range players {
		t.Players = append(t.Players, cupid.Player{ID: p})
	}
	tk, _, err := e.mm.CreateTicket(context.Background(), t, false)
	if err != nil {
		e.t.Fatal(err)
	}
	return tk.ID
}

// A follower whose watch fails watches again, resuming after the last
// ticket event the party stored: the party hears its match all the same.
func TestFollowerWatchesAgain(t *testing.T) {
	var mu sync.Mutex
	calls := map[string][]int64{} // ticket → the after_seq of each watch
	e := newEnvWith(t, nil, nil, withWatch(func(real Tickets, ctx context.Context, id string, after int64, send func(cupid.Event) error) error {
		mu.Lock()
		calls[id] = append(calls[id], after)
		n := len(calls[id])
		mu.Unlock()
		if n == 1 {
			return cupid.Errorf(cupid.CodeUnavailable, "", "the ticket service is shutting down")
		}
		return real.WatchAssignment(ctx, id, after, send)
	}))
	ctx := context.Background()
	p := e.trio("ann", "bob", "cid")
	w := e.watch(p.ID, "ann", p.Seq)
	q := e.must(e.svc.Queue(ctx, p.ID, "ann", "trios"))
	e.theirs("dan", "eve", "fay")
	m := w.until(t, party.EventMatched)
	if _, err := e.mm.Handoff().AssignMatch(ctx, m.MatchID, cupid.Assignment{Server: "s1"}); err != nil {
		t.Fatal(err)
	}
	w.until(t, party.EventAssigned)
	mu.Lock()
	defer mu.Unlock()
	if got := calls[q.TicketID]; len(got) < 2 || got[0] != 0 || got[1] != 0 {
		t.Fatalf("the watches of the party's ticket resumed after %v, want a second watch after 0", got)
	}
}

// A party whose ticket the ticket service no longer knows stops following
// it and is idle again, saying why; when the store cannot take that at
// first, the follower tries again rather than leave the party queued.
func TestFollowerTicketGone(t *testing.T) {
	for _, storeFails := range []bool{false, true} {
		t.Run(fmt.Sprintf("store fails %v", storeFails), func(t *testing.T) {
			var store *memstore.Store
			var mu sync.Mutex
			watches := 0
			e := newEnvWith(t, nil, nil, func(o *Options) {
				store = o.Docs.(*memstore.Store)
				withWatch(func(real Tickets, ctx context.Context, id string, after int64, send func(cupid.Event) error) error {
					mu.Lock()
					defer mu.Unlock()
					if watches++; watches == 1 && storeFails {
						store.FailNext("PutDocument", errors.New("disk full"))
					}
					return cupid.NotFound("id", "no ticket %s", id)
				})(o)
			})
			ctx := context.Background()
			p := e.trio("ann", "bob", "cid")
			w := e.watch(p.ID, "bob", p.Seq)
			e.must(e.svc.Queue(ctx, p.ID, "ann", "trios"))
			if ev := w.until(t, party.EventCancelled); ev.Reason != "the ticket was not found" {
				t.Fatalf("cancelled because %q", ev.Reason)
			}
			if got := e.must(e.svc.Get(ctx, p.ID, "")); got.Phase != party.Idle || got.TicketID != "" {
				t.Fatalf("after its ticket was lost: %+v", got)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := map[bool]int{false: 1, true: 2}[storeFails]; watches != want {
				t.Fatalf("%d watches, want %d", watches, want)
			}
		})
	}
}

// A ticket event the party could not store is not lost: the follower
// watches again after the last event stored, and the party hears it once
// the store takes it, whether it was the match or the watch's last event
// (the assignment).
func TestTicketEventStoreFailure(t *testing.T) {
	for _, kind := range []cupid.EventKind{cupid.EventMatched, cupid.EventAssigned} {
		t.Run(string(kind), func(t *testing.T) {
			var store *memstore.Store
			var once sync.Once
			reg := prometheus.NewRegistry()
			e := newEnvWith(t, nil, nil, func(o *Options) {
				store = o.Docs.(*memstore.Store)
				o.Registry = reg
				withWatch(func(real Tickets, ctx context.Context, id string, after int64, send func(cupid.Event) error) error {
					return real.WatchAssignment(ctx, id, after, func(ev cupid.Event) error {
						if ev.Kind == kind {
							once.Do(func() { store.FailNext("PutDocument", errors.New("disk full")) })
						}
						return send(ev)
					})
				})(o)
			})
			ctx := context.Background()
			p := e.trio("ann", "bob", "cid")
			w := e.watch(p.ID, "ann", p.Seq)
			e.must(e.svc.Queue(ctx, p.ID, "ann", "trios"))
			e.theirs("dan", "eve", "fay")
			m := w.until(t, party.EventMatched)
			if _, err := e.mm.Handoff().AssignMatch(ctx, m.MatchID, cupid.Assignment{Server: "s1"}); err != nil {
				t.Fatal(err)
			}
			if as := w.until(t, party.EventAssigned); as.MatchID != m.MatchID || as.Assignment == nil || as.Assignment.Server != "s1" {
				t.Fatalf("assigned %+v after matched %+v", as, m)
			}
			if got := e.must(e.svc.Get(ctx, p.ID, "")); got.Phase != party.Idle || got.TicketID != "" {
				t.Fatalf("after the assignment: %+v", got)
			}
			if n := value(t, e.svc.metrics.storeErrors); n != 1 {
				t.Fatalf("%v store errors, want the one asked for", n)
			}
		})
	}
}

// Invites expire on their own: the sweeper expires one that fell due even
// when nobody touches its party, and the invitee holds it no more.
func TestSweepExpiresInvites(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	p := e.must(e.svc.Create(ctx, party.Member{ID: "ann"}))
	w := e.watch(p.ID, "ann", 0)
	w.until(t, party.EventCreated) // the watch is open
	e.must(e.svc.Invite(ctx, p.ID, "ann", "bob"))
	e.clock.Advance(party.DefaultInviteTTL)
	// Another party's invite wakes the sweeper, which finds ann's due.
	q := e.must(e.svc.Create(ctx, party.Member{ID: "cid"}))
	e.must(e.svc.Invite(ctx, q.ID, "cid", "dan"))
	if ev := w.until(t, party.EventInviteExpired); ev.Player != "bob" || ev.By != "ann" {
		t.Fatalf("expired %+v", ev)
	}
	e.svc.mu.Lock()
	held := len(e.svc.invites["bob"])
	e.svc.mu.Unlock()
	if held != 0 {
		t.Fatalf("bob still holds %d invites", held)
	}
}

// opened starts a watch and returns once it is open (its first event, the
// party's creation, arrived).
func (e *env) opened(id, player string) *events {
	e.t.Helper()
	w := e.watch(id, player, 0)
	w.until(e.t, party.EventCreated)
	return w
}

// A watch ends after the last event its player hears: he left, was
// removed, declined or let his invite expire, or the party ended. It ends
// too when its context does or its send fails, and every ended watch is
// let go.
func TestWatchEnds(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, player string
		then         func(e *env, p *party.Party)
		last         party.EventKind
	}{
		{"he left", "bob", func(e *env, p *party.Party) { e.must(e.svc.Leave(ctx, p.ID, "bob")) }, party.EventLeft},
		{"he was removed", "bob", func(e *env, p *party.Party) { e.must(e.svc.Remove(ctx, p.ID, "ann", "bob")) }, party.EventRemoved},
		{"he declined", "cid", func(e *env, p *party.Party) { e.must(e.svc.Answer(ctx, p.ID, party.Member{ID: "cid"}, false)) }, party.EventDeclined},
		{"his invite expired", "cid", func(e *env, p *party.Party) {
			e.clock.Advance(party.DefaultInviteTTL)
			e.must(e.svc.Get(ctx, p.ID, ""))
		}, party.EventInviteExpired},
		{"the party ended", "", func(e *env, p *party.Party) {
			e.must(e.svc.Leave(ctx, p.ID, "bob"))
			e.must(e.svc.Leave(ctx, p.ID, "ann"))
		}, party.EventDisbanded},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			e := newEnvWith(t, nil, nil, func(o *Options) { o.Registry = reg })
			p := e.pair("ann", "bob")
			e.must(e.svc.Invite(ctx, p.ID, "ann", "cid"))
			w := e.opened(p.ID, c.player)
			// Someone else's leaving ends nobody's watch but his.
			other := e.opened(p.ID, "ann")
			c.then(e, p)
			w.until(t, c.last)
			if err := <-w.done; err != nil {
				t.Fatalf("the watch ended with %v", err)
			}
			if c.last != party.EventDisbanded {
				select {
				case err := <-other.done:
					t.Fatalf("ann's watch ended too: %v", err)
				default:
				}
			}
		})
	}

	t.Run("send fails", func(t *testing.T) {
		reg := prometheus.NewRegistry()
		e := newEnvWith(t, nil, nil, func(o *Options) { o.Registry = reg })
		p := e.pair("ann", "bob")
		boom := errors.New("the connection closed")
		if err := e.svc.Watch(ctx, p.ID, "ann", 0, func(party.Event) error { return boom }); err != boom {
			t.Fatalf("a watch whose send fails ends with %v", err)
		}
		if n := value(t, e.svc.metrics.watchers); n != 0 {
			t.Fatalf("%v watchers after the watch ended", n)
		}
		// A live event's send fails the same way.
		open := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			sent := 0
			done <- e.svc.Watch(ctx, p.ID, "ann", p.Seq-1, func(party.Event) error {
				if sent++; sent == 1 {
					close(open) // the last stored event: the watch is open
					return nil
				}
				return boom
			})
		}()
		<-open
		e.must(e.svc.SetReady(ctx, p.ID, "bob", true))
		if err := <-done; err != boom {
			t.Fatalf("a watch whose live send fails ends with %v", err)
		}
	})

	t.Run("its context ends", func(t *testing.T) {
		e := newEnv(t, nil, nil)
		p := e.pair("ann", "bob")
		wctx, cancel := context.WithCancel(ctx)
		open := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- e.svc.Watch(wctx, p.ID, "ann", p.Seq-1, func(party.Event) error { close(open); return nil })
		}()
		<-open
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("a cancelled watch ends with %v", err)
		}
	})
}

// A watch that falls behind is dropped with unavailable, naming the
// after_seq to resume from; resuming there loses nothing.
func TestWatchFallsBehind(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	p := e.pair("ann", "bob")
	first, release := make(chan struct{}), make(chan struct{})
	var seqs []int64
	done := make(chan error, 1)
	go func() {
		done <- e.svc.Watch(ctx, p.ID, "ann", p.Seq-1, func(ev party.Event) error {
			if len(seqs) == 0 {
				close(first)
				<-release // a slow client
			}
			seqs = append(seqs, ev.Seq)
			return nil
		})
	}()
	<-first
	for i := range watchBuffer + 4 {
		e.must(e.svc.SetReady(ctx, p.ID, "bob", i%2 == 0))
	}
	close(release)
	err := <-done
	last := seqs[len(seqs)-1]
	if cupid.ErrorCode(err) != cupid.CodeUnavailable || !strings.Contains(err.Error(), fmt.Sprintf("after_seq=%d", last)) {
		t.Fatalf("a watch that fell behind ended with %v (last seen %d)", err, last)
	}
	rest := make(chan party.Event, historyLen)
	rctx, cancel := context.WithCancel(ctx)
	go func() {
		_ = e.svc.Watch(rctx, p.ID, "ann", last, func(ev party.Event) error { rest <- ev; return nil })
	}()
	final := e.must(e.svc.Get(ctx, p.ID, ""))
	for seqs[len(seqs)-1] < final.Seq {
		seqs = append(seqs, (<-rest).Seq)
	}
	cancel()
	for i, s := range seqs {
		if s != p.Seq+int64(i) {
			t.Fatalf("the events seen across the two watches: %v", seqs)
		}
	}
}

// A party holds at most maxWatchers watches; a watch that ends makes room.
func TestMaxWatchers(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	p := e.must(e.svc.Create(ctx, party.Member{ID: "ann"}))
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for range maxWatchers {
		open := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			var once sync.Once
			_ = e.svc.Watch(wctx, p.ID, "", 0, func(party.Event) error { once.Do(func() { close(open) }); return nil })
		}()
		<-open
	}
	err := e.svc.Watch(ctx, p.ID, "ann", 0, nil)
	if cupid.ErrorCode(err) != cupid.CodeExhausted || field(err) != "party_id" {
		t.Fatalf("watch %d: %v", maxWatchers+1, err)
	}
	cancel()
	wg.Wait()
	open := make(chan struct{})
	wctx, cancel = context.WithCancel(ctx)
	defer cancel()
	go func() { _ = e.svc.Watch(wctx, p.ID, "ann", 0, func(party.Event) error { close(open); return nil }) }()
	<-open
}

// A node of several runs the parties while it holds their lease: every
// write carries the lease's fence; once it lets go, every call answers
// unavailable (not "no such party": the parties are elsewhere), watches
// end asking to reconnect, and the gauges are zero; taking the lease again
// brings the parties back from the store.
func TestLease(t *testing.T) {
	store := memstore.New()
	docs := &storetest.FenceLog{DocumentStore: store}
	reg := prometheus.NewRegistry()
	e := newEnv(t, store, nil) // the ticket service, and a node of its own to stop
	e.svc.Close()
	svc, err := New(Options{Docs: docs, Tickets: e.mm, Now: e.clock.Now, Registry: reg, Logger: slog.New(slog.DiscardHandler), Queues: map[string]party.QueueRules{"trios": {MaxParty: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	select {
	case <-svc.Running():
		t.Fatal("running before it took the lease")
	default:
	}
	ctx := context.Background()
	if err := svc.RunParties(ctx, cupid.Fence{Token: 1}); err != nil {
		t.Fatal(err)
	}
	<-svc.Running()
	p := e.trio("ann", "bob", "cid")
	if f := docs.Last(); f.Token != 1 {
		t.Fatalf("a write carries fence %+v, want the lease's", f)
	}
	w := e.opened(p.ID, "ann")

	svc.StopParties()
	if err := <-w.done; cupid.ErrorCode(err) != cupid.CodeUnavailable || !strings.Contains(err.Error(), "after_seq=") {
		t.Fatalf("a watch when the parties stopped: %v", err)
	}
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"get", func() error { _, err := svc.Get(ctx, p.ID, "ann"); return err }},
		{"party of", func() error { _, err := svc.PartyOf(ctx, "ann"); return err }},
		{"join by code", func() error { _, err := svc.JoinByCode(ctx, p.Code, party.Member{ID: "dan"}); return err }},
		{"create", func() error { _, err := svc.Create(ctx, party.Member{ID: "dan"}); return err }},
		{"invites", func() error { _, err := svc.Invites(ctx, "dan"); return err }},
		{"leave", func() error { _, err := svc.Leave(ctx, p.ID, "bob"); return err }},
		{"queue", func() error { _, err := svc.Queue(ctx, p.ID, "ann", "trios"); return err }},
		{"watch", func() error { return svc.Watch(ctx, p.ID, "ann", 0, nil) }},
	} {
		if err := c.call(); cupid.ErrorCode(err) != cupid.CodeUnavailable {
			t.Errorf("%s while the parties run elsewhere: %v", c.name, err)
		}
	}
	if n := len(svc.List("", 0)); n != 0 {
		t.Fatalf("%d parties listed on a node that runs none", n)
	}
	for name, g := range map[string]prometheus.Gauge{"parties": svc.metrics.parties, "members": svc.metrics.members, "queued": svc.metrics.queued} {
		if v := value(t, g); v != 0 {
			t.Fatalf("%s gauge %v on a node that runs none", name, v)
		}
	}

	if err := svc.RunParties(ctx, cupid.Fence{Token: 2}); err != nil {
		t.Fatal(err)
	}
	got := e.must(svc.PartyOf(ctx, "cid"))
	if got.ID != p.ID || len(got.Members) != 3 {
		t.Fatalf("after taking the lease again: %+v", got)
	}
	e.must(svc.SetReady(ctx, p.ID, "bob", true))
	if f := docs.Last(); f.Token != 2 {
		t.Fatalf("a write carries fence %+v, want the new lease's", f)
	}
	if v, m := value(t, svc.metrics.parties), value(t, svc.metrics.members); v != 1 || m != 3 {
		t.Fatalf("gauges: %v parties, %v members", v, m)
	}
}

// A restarted server runs every readable stored party, reading them in
// pages, and leaves an unreadable document in the store untouched.
func TestLoad(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	const parties = 300 // more than a page
	for i := range parties {
		e.must(e.svc.Create(ctx, party.Member{ID: fmt.Sprintf("p%03d", i)}))
	}
	bad := map[string]string{
		"bad-json":    `{"version":`,
		"bad-version": `{"version": 2, "party": {"id": "bad-version", "members": [{"id": "x"}]}}`,
		"bad-id":      `{"version": 1, "party": {"id": "another", "members": [{"id": "y"}]}}`,
		"bad-empty":   `{"version": 1, "party": {"id": "bad-empty", "members": []}}`,
		"bad-none":    `{"version": 1}`,
	}
	for id, body := range bad {
		if err := e.store.PutDocument(ctx, cupid.Fence{}, DocumentKind, id, []byte(body), e.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	e.stop()
	e = newEnv(t, e.store, e.clock)
	if n := len(e.svc.List("", 0)); n != parties {
		t.Fatalf("%d parties run after the restart, want %d", n, parties)
	}
	if got := e.must(e.svc.PartyOf(ctx, "p299")); got.Leader != "p299" {
		t.Fatalf("the last page's party: %+v", got)
	}
	for id, body := range bad {
		if _, err := e.svc.Get(ctx, id, ""); cupid.ErrorCode(err) != cupid.CodeNotFound {
			t.Errorf("unreadable %s runs: %v", id, err)
		}
		if !strings.Contains(e.stored(), id+" "+body+"\n") {
			t.Errorf("unreadable %s was changed or removed", id)
		}
	}

	// A store that cannot list the parties fails the start.
	s, err := New(Options{Docs: e.store, Tickets: stubTickets{}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e.store.FailNext("Documents", errors.New("disk gone"))
	if err := s.Start(ctx); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("a start whose store fails: %v", err)
	}
}
