package partysvc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/party"
)

// field is the request field an error names.
func field(err error) string {
	var e *cupid.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// value reads a gauge or a counter.
func value(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	if m.Gauge != nil {
		return m.Gauge.GetValue()
	}
	return m.Counter.GetValue()
}

// stored is every party document as the store holds it, to show a
// refused call changed nothing.
func (e *env) stored() string {
	e.t.Helper()
	docs, err := e.store.Documents(context.Background(), DocumentKind, "", 0)
	if err != nil {
		e.t.Fatal(err)
	}
	var b bytes.Buffer
	for _, d := range docs {
		fmt.Fprintf(&b, "%s %s\n", d.ID, d.Body)
	}
	return b.String()
}

func TestNew(t *testing.T) {
	store := memstore.New()
	if _, err := New(Options{Docs: store}); err == nil {
		t.Fatal("a service without the ticket service")
	}
	if _, err := New(Options{Tickets: stubTickets{}}); err == nil {
		t.Fatal("a service without a store")
	}
	for _, c := range []struct {
		name   string
		queues map[string]party.QueueRules
		limits party.Limits
		want   party.Limits
	}{
		{"the largest party a queue takes", map[string]party.QueueRules{"duel": {MaxParty: 1}, "trios": {MaxParty: 3}, "any": {}}, party.Limits{},
			party.Limits{MaxMembers: 3, MaxInvites: party.DefaultMaxInvites, MaxInvitesPerPlayer: party.DefaultMaxInvitesPerPlayer, InviteTTL: party.DefaultInviteTTL}},
		{"no queue says: the ticket's cap", nil, party.Limits{},
			party.Limits{MaxMembers: party.MaxMembersCap, MaxInvites: party.DefaultMaxInvites, MaxInvitesPerPlayer: party.DefaultMaxInvitesPerPlayer, InviteTTL: party.DefaultInviteTTL}},
		{"set limits win", map[string]party.QueueRules{"trios": {MaxParty: 3}}, party.Limits{MaxMembers: 2, MaxInvites: 1, MaxInvitesPerPlayer: 4, InviteTTL: 7},
			party.Limits{MaxMembers: 2, MaxInvites: 1, MaxInvitesPerPlayer: 4, InviteTTL: 7}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(Options{Docs: store, Tickets: stubTickets{}, Queues: c.queues, Limits: c.limits})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.Limits(); got != c.want {
				t.Fatalf("limits %+v, want %+v", got, c.want)
			}
		})
	}
}

// stubTickets is a ticket service that is never called.
type stubTickets struct{ Tickets }

// Bad input and refused changes answer with the code and the field, and
// leave the store as it was.
func TestRefusedCallsChangeNothing(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	p := e.trio("ann", "bob", "cid")
	solo := e.must(e.svc.Create(ctx, party.Member{ID: "dan"}))
	e.must(e.svc.Invite(ctx, solo.ID, "dan", "eve"))
	if _, _, err := e.mm.CreateTicket(ctx, &cupid.Ticket{Key: cupid.QueueKey{Queue: "trios"}, Players: []cupid.Player{{ID: "fay"}, {ID: "gus"}, {ID: "dan"}}}, false); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", cupid.MaxIDLength+1)
	for _, c := range []struct {
		name  string
		call  func() error
		code  cupid.Code
		field string
	}{
		{"get without an id", func() error { _, err := e.svc.Get(ctx, "", ""); return err }, cupid.CodeInvalid, "party_id"},
		{"get a too long id", func() error { _, err := e.svc.Get(ctx, long, ""); return err }, cupid.CodeInvalid, "party_id"},
		{"get an unknown party", func() error { _, err := e.svc.Get(ctx, "nope", ""); return err }, cupid.CodeNotFound, "party_id"},
		{"a stranger reads a party", func() error { _, err := e.svc.Get(ctx, p.ID, "eve"); return err }, cupid.CodeDenied, "player"},
		{"the party of nobody", func() error { _, err := e.svc.PartyOf(ctx, ""); return err }, cupid.CodeInvalid, "player"},
		{"the party of a player in none", func() error { _, err := e.svc.PartyOf(ctx, "eve"); return err }, cupid.CodeNotFound, "player"},
		{"the invites of nobody", func() error { _, err := e.svc.Invites(ctx, ""); return err }, cupid.CodeInvalid, "player"},
		{"join without a code", func() error { _, err := e.svc.JoinByCode(ctx, "", party.Member{ID: "eve"}); return err }, cupid.CodeInvalid, "code"},
		{"join with a too long code", func() error { _, err := e.svc.JoinByCode(ctx, long, party.Member{ID: "eve"}); return err }, cupid.CodeInvalid, "code"},
		{"join with an unknown code", func() error { _, err := e.svc.JoinByCode(ctx, "NOPE2345", party.Member{ID: "eve"}); return err }, cupid.CodeNotFound, "code"},
		{"join a second party", func() error { _, err := e.svc.JoinByCode(ctx, solo.Code, party.Member{ID: "ann"}); return err }, cupid.CodeAlreadyExists, "player"},
		{"create without a player", func() error { _, err := e.svc.Create(ctx, party.Member{}); return err }, cupid.CodeInvalid, "player"},
		{"create a second party", func() error { _, err := e.svc.Create(ctx, party.Member{ID: "bob"}); return err }, cupid.CodeAlreadyExists, "player"},
		{"watch from a negative seq", func() error { return e.svc.Watch(ctx, p.ID, "ann", -1, nil) }, cupid.CodeInvalid, "after_seq"},
		{"a stranger watches a party", func() error { return e.svc.Watch(ctx, p.ID, "eve", 0, nil) }, cupid.CodeDenied, "player"},
		{"watch an unknown party", func() error { return e.svc.Watch(ctx, "nope", "", 0, nil) }, cupid.CodeNotFound, "party_id"},
		{"a member removes", func() error { _, err := e.svc.Remove(ctx, p.ID, "bob", "cid"); return err }, cupid.CodeDenied, "player"},
		{"the leader removes himself", func() error { _, err := e.svc.Remove(ctx, p.ID, "ann", "ann"); return err }, cupid.CodeInvalid, "member"},
		{"the leader removes a stranger", func() error { _, err := e.svc.Remove(ctx, p.ID, "ann", "eve"); return err }, cupid.CodeNotFound, "member"},
		{"hand over to nobody", func() error { _, err := e.svc.HandOver(ctx, p.ID, "ann", ""); return err }, cupid.CodeInvalid, "to"},
		{"hand over to himself", func() error { _, err := e.svc.HandOver(ctx, p.ID, "ann", "ann"); return err }, cupid.CodeInvalid, "to"},
		{"hand over to a stranger", func() error { _, err := e.svc.HandOver(ctx, p.ID, "ann", "eve"); return err }, cupid.CodeNotFound, "to"},
		{"a stranger's values", func() error { _, err := e.svc.SetMember(ctx, p.ID, party.Member{ID: "eve"}); return err }, cupid.CodeDenied, "player"},
		{"a stranger is ready", func() error { _, err := e.svc.SetReady(ctx, p.ID, "eve", true); return err }, cupid.CodeDenied, "player"},
		{"cancel the queue of an idle party", func() error { _, err := e.svc.CancelQueue(ctx, p.ID, "ann"); return err }, cupid.CodeConflict, "party_id"},
		{"a member queues", func() error { _, err := e.svc.Queue(ctx, p.ID, "bob", "trios"); return err }, cupid.CodeDenied, "player"},
		{"queue nowhere", func() error { _, err := e.svc.Queue(ctx, p.ID, "ann", ""); return err }, cupid.CodeInvalid, "queue"},
		// The ticket service's field stays "queue": it is the caller's.
		{"queue in an unknown queue", func() error { _, err := e.svc.Queue(ctx, p.ID, "ann", "nope"); return err }, cupid.CodeNotFound, "queue"},
		{"queue with nobody ready", func() error { _, err := e.svc.Queue(ctx, p.ID, "ann", "ready-trios"); return err }, cupid.CodeConflict, "party_id"},
		// Other fields of the ticket service are about the ticket the
		// party made: dan has a ticket of his own in trios.
		{"queue a member with a live ticket", func() error { _, err := e.svc.Queue(ctx, solo.ID, "dan", "trios"); return err }, cupid.CodeAlreadyExists, "ticket.players[0].id"},
		{"invite a member", func() error { _, err := e.svc.Invite(ctx, p.ID, "ann", "bob"); return err }, cupid.CodeAlreadyExists, "invitee"},
		{"answer an invite never sent", func() error { _, err := e.svc.Answer(ctx, p.ID, party.Member{ID: "eve"}, true); return err }, cupid.CodeNotFound, "party_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := e.stored()
			err := c.call()
			if cupid.ErrorCode(err) != c.code || field(err) != c.field {
				t.Fatalf("got %v (code %s, field %q); want code %s naming %q", err, cupid.ErrorCode(err), field(err), c.code, c.field)
			}
			if after := e.stored(); after != before {
				t.Fatalf("the store changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// The leader's calls, each stored and told to the watchers in order; a
// restarted server has the party as they left it.
func TestLeaderCalls(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	p := e.trio("ann", "bob", "cid")
	w := e.watch(p.ID, "", p.Seq)
	if got := e.must(e.svc.PartyOf(ctx, "cid")); got.ID != p.ID {
		t.Fatalf("cid's party is %s", got.ID)
	}
	e.must(e.svc.HandOver(ctx, p.ID, "ann", "bob"))
	if ev := w.until(t, party.EventLeader); ev.Player != "bob" || ev.By != "ann" {
		t.Fatalf("leader event %+v", ev)
	}
	if _, err := e.svc.Remove(ctx, p.ID, "ann", "cid"); cupid.ErrorCode(err) != cupid.CodeDenied {
		t.Fatalf("ann removes after handing over: %v", err)
	}
	e.must(e.svc.SetMember(ctx, p.ID, party.Member{ID: "cid", Latencies: map[string]int32{"eu": 30}}))
	if ev := w.until(t, party.EventMember); ev.Player != "cid" {
		t.Fatalf("member event %+v", ev)
	}
	e.must(e.svc.Remove(ctx, p.ID, "bob", "cid"))
	if ev := w.until(t, party.EventRemoved); ev.Player != "cid" || ev.By != "bob" {
		t.Fatalf("removed event %+v", ev)
	}
	// cid is free: his index entry went with him.
	if _, err := e.svc.PartyOf(ctx, "cid"); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("cid's party after his removal: %v", err)
	}
	e.must(e.svc.Create(ctx, party.Member{ID: "cid"}))

	// Queued, then cancelled by the leader: the ticket is cancelled too.
	e.must(e.svc.Invite(ctx, p.ID, "bob", "dan"))
	e.must(e.svc.JoinByCode(ctx, p.Code, party.Member{ID: "dan"}))
	q := e.must(e.svc.Queue(ctx, p.ID, "bob", "trios"))
	if _, err := e.svc.SetMember(ctx, p.ID, party.Member{ID: "dan"}); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("values changed while queued: %v", err)
	}
	if _, err := e.svc.CancelQueue(ctx, p.ID, "ann"); cupid.ErrorCode(err) != cupid.CodeDenied {
		t.Fatalf("a member cancels the queue: %v", err)
	}
	e.must(e.svc.CancelQueue(ctx, p.ID, "bob"))
	if ev := w.until(t, party.EventCancelled); ev.Reason != "the leader bob cancelled the queue" || ev.TicketID != q.TicketID {
		t.Fatalf("cancelled event %+v", ev)
	}
	tk, err := e.mm.GetTicket(ctx, q.TicketID)
	if err != nil || tk.Ticket.State != cupid.StateCancelled {
		t.Fatalf("the party's ticket after the leader cancelled: %+v %v", tk, err)
	}

	e.stop()
	e = newEnv(t, e.store, e.clock)
	got := e.must(e.svc.Get(ctx, p.ID, "dan"))
	if got.Leader != "bob" || strings.Join(got.MemberIDs(), ",") != "ann,bob,dan" || got.Phase != party.Idle || got.TicketID != "" {
		t.Fatalf("after the restart: %+v", got)
	}
	if m, _ := got.Member("dan"); m.ID != "dan" {
		t.Fatalf("dan: %+v", m)
	}
}

// An invitee may read the party that invited him; Invites lists his
// pending invites with their party's leader, and an answered one is gone.
func TestInviteeReads(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	p := e.must(e.svc.Create(ctx, party.Member{ID: "ann"}))
	e.must(e.svc.Invite(ctx, p.ID, "ann", "bob"))
	if got := e.must(e.svc.Get(ctx, p.ID, "bob")); !got.Invited("bob") {
		t.Fatalf("bob reads %+v", got)
	}
	inv, err := e.svc.Invites(ctx, "bob")
	if err != nil || len(inv) != 1 || inv[0].PartyID != p.ID || inv[0].Leader != "ann" || inv[0].By != "ann" {
		t.Fatalf("bob's invites %+v %v", inv, err)
	}
	e.must(e.svc.Answer(ctx, p.ID, party.Member{ID: "bob"}, false))
	if _, err := e.svc.Get(ctx, p.ID, "bob"); cupid.ErrorCode(err) != cupid.CodeDenied {
		t.Fatalf("bob reads after declining: %v", err)
	}
	if inv, err := e.svc.Invites(ctx, "bob"); err != nil || len(inv) != 0 {
		t.Fatalf("bob's invites after declining: %+v %v", inv, err)
	}
}

// The server holds at most MaxParties; a party that ends makes room, and
// its document leaves the store.
func TestMaxParties(t *testing.T) {
	e := newEnvWith(t, nil, nil, func(o *Options) { o.MaxParties = 2 })
	ctx := context.Background()
	a := e.must(e.svc.Create(ctx, party.Member{ID: "ann"}))
	e.must(e.svc.Create(ctx, party.Member{ID: "bob"}))
	before := e.stored()
	_, err := e.svc.Create(ctx, party.Member{ID: "cid"})
	if cupid.ErrorCode(err) != cupid.CodeExhausted {
		t.Fatalf("a third party: %v", err)
	}
	if e.stored() != before {
		t.Fatal("a refused party was stored")
	}
	e.must(e.svc.Leave(ctx, a.ID, "ann"))
	if _, err := e.svc.Get(ctx, a.ID, ""); cupid.ErrorCode(err) != cupid.CodeNotFound {
		t.Fatalf("a disbanded party reads: %v", err)
	}
	if strings.Contains(e.stored(), a.ID) {
		t.Fatal("a disbanded party is still stored")
	}
	e.must(e.svc.Create(ctx, party.Member{ID: "cid"}))
}

// List pages through the parties in id order, for the operator.
func TestList(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	var ids []string
	for _, p := range []string{"ann", "bob", "cid", "dan", "eve"} {
		ids = append(ids, e.must(e.svc.Create(ctx, party.Member{ID: p})).ID)
	}
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		page := e.svc.List(after, 2)
		if len(page) == 0 {
			if pages != 3 {
				t.Fatalf("%d pages of 2 for 5 parties", pages)
			}
			break
		}
		for _, p := range page {
			got = append(got, p.ID)
		}
		after = page[len(page)-1].ID
	}
	if fmt.Sprint(got) != fmt.Sprint(ids) { // uuid v7: ids grow with time
		t.Fatalf("listed %v, want %v", got, ids)
	}
	if all := e.svc.List("", 0); len(all) != 5 {
		t.Fatalf("no limit: %d parties", len(all))
	}
}

// A change the store refuses is not made: the party, its indexes and its
// watchers stay as they were, and the next change goes through.
func TestStoreFailureChangesNothing(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		op   string
		err  error
		call func(e *env, p *party.Party) (*party.Party, error)
		then func(e *env, p *party.Party) // the same change, now stored
		msg  string
		kind party.EventKind // the first event of then
	}{
		{"invite", "PutDocument", errors.New("disk full"),
			func(e *env, p *party.Party) (*party.Party, error) { return e.svc.Invite(ctx, p.ID, "ann", "dan") },
			func(e *env, p *party.Party) {
				if inv, err := e.svc.Invites(ctx, "dan"); err != nil || len(inv) != 0 {
					t.Fatalf("dan's invites after a failed invite: %+v %v", inv, err)
				}
				e.must(e.svc.Invite(ctx, p.ID, "ann", "dan"))
			}, "could not be stored", party.EventInvited},
		{"join", "PutDocument", errors.New("disk full"),
			func(e *env, p *party.Party) (*party.Party, error) {
				return e.svc.JoinByCode(ctx, p.Code, party.Member{ID: "dan"})
			},
			func(e *env, p *party.Party) {
				if _, err := e.svc.PartyOf(ctx, "dan"); cupid.ErrorCode(err) != cupid.CodeNotFound {
					t.Fatalf("dan is indexed after a failed join: %v", err)
				}
				e.must(e.svc.JoinByCode(ctx, p.Code, party.Member{ID: "dan"}))
			}, "could not be stored", party.EventJoined},
		{"hand over, fenced", "PutDocument", fmt.Errorf("put: %w", cupid.ErrFenced),
			func(e *env, p *party.Party) (*party.Party, error) { return e.svc.HandOver(ctx, p.ID, "ann", "bob") },
			func(e *env, p *party.Party) { e.must(e.svc.HandOver(ctx, p.ID, "ann", "bob")) },
			"moved to another node", party.EventLeader},
		{"the last member leaves", "DeleteDocument", errors.New("disk full"),
			func(e *env, p *party.Party) (*party.Party, error) {
				e.must(e.svc.Leave(ctx, p.ID, "bob"))
				return e.svc.Leave(ctx, p.ID, "ann")
			},
			func(e *env, p *party.Party) {
				if got := e.must(e.svc.PartyOf(ctx, "ann")); got.ID != p.ID {
					t.Fatalf("ann's party %s", got.ID)
				}
				e.must(e.svc.Leave(ctx, p.ID, "ann"))
			}, "could not be stored", party.EventLeft},
		{"create", "PutDocument", errors.New("disk full"),
			func(e *env, p *party.Party) (*party.Party, error) { return e.svc.Create(ctx, party.Member{ID: "dan"}) },
			func(e *env, p *party.Party) {
				if n := len(e.svc.List("", 0)); n != 1 {
					t.Fatalf("%d parties after a failed create", n)
				}
				e.must(e.svc.Create(ctx, party.Member{ID: "dan"}))
			}, "could not be stored", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			e := newEnvWith(t, nil, nil, func(o *Options) { o.Registry = reg })
			p := e.pair("ann", "bob")
			w := e.watch(p.ID, "", p.Seq-1)
			if ev := <-w.ch; ev.Seq != p.Seq { // the watch is open
				t.Fatalf("first event %+v", ev)
			}
			e.store.FailNext(c.op, c.err)
			_, err := c.call(e, p)
			if cupid.ErrorCode(err) != cupid.CodeUnavailable || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("while the store fails: %v", err)
			}
			if n := value(t, e.svc.metrics.storeErrors); n != 1 {
				t.Fatalf("%v store errors counted", n)
			}
			before := e.must(e.svc.Get(ctx, p.ID, ""))
			c.then(e, p)
			if c.name == "create" {
				return // another party: nothing for p's watcher
			}
			// The watcher's next events are the stored change's, numbered
			// after the last stored one: the refused one was never told.
			guard := time.After(30 * time.Second) // a hang guard
			for {
				select {
				case ev := <-w.ch:
					if ev.Seq <= before.Seq {
						continue // told before the failure
					}
					if ev.Seq != before.Seq+1 || ev.Kind != c.kind {
						t.Fatalf("the watcher's next event %+v, want %s numbered %d", ev, c.kind, before.Seq+1)
					}
				case err := <-w.done:
					if len(w.ch) > 0 { // it ended after its last event
						w.done <- err
						continue
					}
					t.Fatalf("the watch ended: %v", err)
				case <-guard:
					t.Fatal("no event")
				}
				break
			}
		})
	}
}

// pair forms a party of two: leader invites the second.
func (e *env) pair(leader, second string) *party.Party {
	e.t.Helper()
	ctx := context.Background()
	p := e.must(e.svc.Create(ctx, party.Member{ID: leader}))
	e.must(e.svc.Invite(ctx, p.ID, leader, second))
	return e.must(e.svc.Answer(ctx, p.ID, party.Member{ID: second}, true))
}

// A party that cannot record its new ticket takes it back: no ticket
// names the members without the party knowing.
func TestQueueStoreFailureCancelsTheTicket(t *testing.T) {
	e := newEnv(t, nil, nil)
	ctx := context.Background()
	p := e.trio("ann", "bob", "cid")
	e.store.FailNext("PutDocument", errors.New("disk full"))
	if _, err := e.svc.Queue(ctx, p.ID, "ann", "trios"); cupid.ErrorCode(err) != cupid.CodeUnavailable {
		t.Fatalf("queue while the store fails: %v", err)
	}
	if got := e.must(e.svc.Get(ctx, p.ID, "")); got.Phase != party.Idle || got.TicketID != "" {
		t.Fatalf("after a failed queue: %+v", got)
	}
	// The members have no live ticket: the party queues again, and a
	// ticket of ann's own is accepted.
	q := e.must(e.svc.Queue(ctx, p.ID, "ann", "trios"))
	e.must(e.svc.CancelQueue(ctx, q.ID, "ann"))
	if _, _, err := e.mm.CreateTicket(ctx, &cupid.Ticket{Key: cupid.QueueKey{Queue: "trios"}, Players: []cupid.Player{{ID: "ann"}, {ID: "bob"}, {ID: "cid"}}}, false); err != nil {
		t.Fatalf("a ticket of the members after the failed queue: %v", err)
	}
}
