package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/service/partysvc"
)

// partyServer is a server with auth on, a queue of two teams of three, and
// a clock of the test's: the parties' proof of issue #23 runs on it, over
// its SQLite file (or a PostgreSQL store), restarted between steps.
type partyServer struct {
	t     *testing.T
	flags serveFlags
	clock *testclock.Clock
	s     *testServer
}

func newPartyServer(t *testing.T, store string) *partyServer {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("hs.secret", authSecret+"\n")
	write("cupid.yaml", `queues:
  - name: trios
    ticket_ttl: 1h
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 3, player_max_number: 3}
auth:
  server_keys:
`+keyLine("backend", "cupid_sk_backend", "tickets")+`  player_tokens: {audience: cupid, hs256_secret_file: hs.secret}
`)
	p := &partyServer{t: t, clock: testclock.At(time.Now())}
	p.flags = serveFlags{config: filepath.Join(dir, "cupid.yaml"), data: t.TempDir(), store: store}
	p.start()
	return p
}

// start starts the server and waits until it runs the parties: at once on
// SQLite, when it takes their lease on PostgreSQL.
func (p *partyServer) start() {
	p.t.Helper()
	running := make(chan (<-chan struct{}), 1)
	p.flags.hooks = &serveHooks{now: p.clock.Now, parties: func(s *partysvc.Service) { running <- s.Running() }}
	p.s = startServer(p.t, p.flags)
	select {
	case <-<-running:
	case <-time.After(30 * time.Second):
		p.t.Fatal("the server never ran the parties")
	}
}

// restart stops the server and starts it again on the same store.
func (p *partyServer) restart() {
	p.s.stop()
	p.start()
}

// as is a client sending player's token.
func (p *partyServer) as(player string) *client.Client {
	return client.New(p.s.url, client.WithPlayerToken(playerToken(p.t, player)))
}

func (p *partyServer) backend() *client.Client {
	return client.New(p.s.url, client.WithServerKey("cupid_sk_backend"))
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// heard collects what one member hears of his party, from a sequence
// number, until the watch ends or the test does.
type heard struct {
	mu     sync.Mutex
	events []*cupidv1.PartyEvent
	grew   chan struct{}
}

func (p *partyServer) listen(player, partyID string, after int64) *heard {
	h := &heard{grew: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	p.s.cleanups = append(p.s.cleanups, func() { cancel(); <-done })
	go func() {
		defer close(done)
		p.as(player).Party(partyID, player).Watch(ctx, after, func(ev *cupidv1.PartyEvent) error {
			h.mu.Lock()
			h.events = append(h.events, ev)
			h.mu.Unlock()
			select {
			case h.grew <- struct{}{}:
			default:
			}
			return nil
		})
	}()
	return h
}

// wait returns the first event of kind heard, failing after a deadline
// that only guards against a hang.
func (h *heard) wait(t *testing.T, who string, kind string) *cupidv1.PartyEvent {
	t.Helper()
	guard := time.After(30 * time.Second)
	for {
		h.mu.Lock()
		for _, ev := range h.events {
			if ev.GetKind() == kind {
				h.mu.Unlock()
				return ev
			}
		}
		h.mu.Unlock()
		select {
		case <-h.grew:
		case <-guard:
			t.Fatalf("%s never heard %s", who, kind)
		}
	}
}

// The proof of issue #23's party half through a real server on SQLite,
// restarted in the middle of each step: a party of three formed by an
// invite and a join code, a declined and an expired invite, the consent
// rule, queued by its leader, matched and assigned with every member
// hearing it, and a member leaving while queued cancelling the ticket.
func TestPartiesEndToEnd(t *testing.T) {
	partiesEndToEnd(t, "")
}

func TestPartiesEndToEndOnPostgres(t *testing.T) {
	partiesEndToEnd(t, postgresURL(t))
}

func partiesEndToEnd(t *testing.T, store string) {
	p := newPartyServer(t, store)
	ctx := context.Background()
	okParty := must[*cupidv1.Party](t)

	// The consent rule: mallory's token may not queue a stranger.
	_, err := p.as("mallory").Tickets.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{
		Queue: "trios", Players: []*cupidv1.Player{{Id: "mallory"}, {Id: "victim"}}}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "players[1].id: the token's player mallory may queue only himself, not victim")

	// ann creates a party and invites bob and dan (a party of at most
	// three, the queue's largest: pending invites count).
	annParty, created, err := p.as("ann").CreateParty(ctx, "ann", map[string]any{"mmr": 1500}, map[string]int32{"eu": 30})
	if err != nil {
		t.Fatal(err)
	}
	id, code := annParty.ID(), created.GetCode()
	okParty(annParty.Invite(ctx, "bob"))
	okParty(annParty.Invite(ctx, "dan"))
	_, err = annParty.Invite(ctx, "eve")
	wantAuthCode(t, err, connect.CodeResourceExhausted, "a party holds at most 3 players")
	p.restart() // with two invites pending

	// member is a player's calls on the server running now.
	member := func(who string) *client.Party { return p.as(who).Party(id, who) }
	okParty(member("bob").Answer(ctx, true, map[string]any{"mmr": 1540}, map[string]int32{"eu": 50}))
	okParty(p.as("dan").Party(id, "dan").Answer(ctx, false, nil, nil))
	okParty(member("ann").Invite(ctx, "eve"))
	p.clock.Advance(6 * time.Minute)
	_, err = p.as("eve").Party(id, "eve").Answer(ctx, true, nil, nil)
	wantAuthCode(t, err, connect.CodeNotFound, "eve has no pending invite")
	p.restart() // before cid joins

	_, _, err = p.as("cid").JoinByCode(ctx, code, "cid", map[string]any{"mmr": 1480}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every member hears the party from its start.
	hears := map[string]*heard{"ann": p.listen("ann", id, 0), "bob": p.listen("bob", id, 0), "cid": p.listen("cid", id, 0)}
	for who, h := range hears {
		h.wait(t, who, "joined")
		h.wait(t, who, "declined")
		h.wait(t, who, "invite_expired")
	}
	// bob, not the leader, may not queue.
	_, err = member("bob").Queue(ctx, "trios")
	wantAuthCode(t, err, connect.CodePermissionDenied, "only the party's leader (ann) may queue the party")

	queued := okParty(member("ann").Queue(ctx, "trios"))
	if queued.GetPhase() != "queued" || queued.GetTicketId() == "" {
		t.Fatalf("queued: %v", queued)
	}
	// cid may watch the party's ticket: he is one of its players.
	tk := must[*connect.Response[cupidv1.GetTicketResponse]](t)(p.as("cid").Tickets.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: queued.GetTicketId()})))
	if n := len(tk.Msg.GetTicket().GetPlayers()); n != 3 {
		t.Fatalf("the party's ticket names %d players", n)
	}
	p.restart() // while queued
	seq := queued.GetSeq()
	hears = map[string]*heard{"ann": p.listen("ann", id, seq), "bob": p.listen("bob", id, seq), "cid": p.listen("cid", id, seq)}
	// Another team, a backend's group, queues; the match forms.
	_, err = p.backend().Tickets.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{
		Queue: "trios", Players: []*cupidv1.Player{{Id: "dan"}, {Id: "eve"}, {Id: "fay"}}}))
	if err != nil {
		t.Fatal(err)
	}
	var matchID string
	for who, h := range hears {
		matchID = h.wait(t, who, "matched").GetMatchId()
	}
	p.restart() // matched, not yet assigned
	hears = map[string]*heard{"ann": p.listen("ann", id, seq), "bob": p.listen("bob", id, seq), "cid": p.listen("cid", id, seq)}
	// cid hears his ticket too, on the ticket's own watch (he is in it).
	ticketDone := make(chan *cupidv1.TicketEvent, 1)
	go func() {
		var last *cupidv1.TicketEvent
		p.as("cid").WatchUntilAssigned(ctx, queued.GetTicketId(), 0, func(ev *cupidv1.TicketEvent) error { last = ev; return nil })
		ticketDone <- last
	}()
	if _, err := p.backend().Matches.AssignMatch(ctx, connect.NewRequest(&cupidv1.AssignMatchRequest{Id: matchID, Assignment: &cupidv1.Assignment{Server: "10.0.0.7:7777"}})); err != nil {
		t.Fatal(err)
	}
	for who, h := range hears {
		if a := h.wait(t, who, "assigned").GetAssignment(); a.GetServer() != "10.0.0.7:7777" {
			t.Fatalf("%s heard the assignment %v", who, a)
		}
	}
	select {
	case last := <-ticketDone:
		if last.GetKind() != "assigned" {
			t.Fatalf("cid's own ticket watch ended with %v", last)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cid's ticket watch never ended")
	}
	// The party is told after it stored the change: idle, together.
	after := okParty(member("ann").Get(ctx))
	if after.GetPhase() != "idle" || len(after.GetMembers()) != 3 {
		t.Fatalf("the party after its match: %v", after)
	}

	// Queued again, with the first match's session ended; bob leaves while
	// the party waits, after a restart: every member hears why.
	if _, err := p.backend().Matches.EndSession(ctx, connect.NewRequest(&cupidv1.EndSessionRequest{Id: matchID})); err != nil {
		t.Fatal(err)
	}
	again := okParty(member("ann").Queue(ctx, "trios"))
	p.restart()
	hears = map[string]*heard{"ann": p.listen("ann", id, again.GetSeq()), "cid": p.listen("cid", id, again.GetSeq())}
	okParty(member("bob").Leave(ctx))
	for who, h := range hears {
		if ev := h.wait(t, who, "cancelled"); ev.GetReason() != "bob left the party" {
			t.Fatalf("%s heard the cancel with reason %q", who, ev.GetReason())
		}
	}
	ticket := must[*connect.Response[cupidv1.GetTicketResponse]](t)(p.backend().Tickets.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: again.GetTicketId()})))
	if st := ticket.Msg.GetTicket().GetState(); st != cupidv1.TicketState_TICKET_STATE_CANCELLED {
		t.Fatalf("the party's ticket is %v after bob left", st)
	}
	p.restart()
	final := okParty(member("cid").Get(ctx))
	if final.GetPhase() != "idle" || len(final.GetMembers()) != 2 || final.GetLeader() != "ann" {
		t.Fatalf("the party at the end: %v", final)
	}
}
