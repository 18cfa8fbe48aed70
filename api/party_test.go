package api

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/party"
	"github.com/cupid-match/cupid/service/partysvc"
)

// newPartyEnv serves the ticket and party services with auth on.
func newPartyEnv(t *testing.T) *env {
	t.Helper()
	store := memstore.New()
	return newEnv(t, envOptions{store: store, options: func(o *Options) {
		o.Parties = newParties(t, store, o)
		o.Auth = testAuth(t,
			ServerKey{Name: "backend", Hash: HashKey(keyTickets), Scopes: []Scope{ScopeTickets}},
			ServerKey{Name: "organiser", Hash: HashKey(keyEvents), Scopes: []Scope{ScopeEvents}})
	}})
}

// newParties runs a party service over the handler's ticket service.
func newParties(t *testing.T, store *memstore.Store, o *Options) *partysvc.Service {
	t.Helper()
	ps, err := partysvc.New(partysvc.Options{Docs: store, Tickets: o.Matchmaker, Now: o.Now, Logger: slog.New(slog.DiscardHandler),
		Queues: map[string]party.QueueRules{"squad": {MaxParty: 5}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ps.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ps.Close)
	return ps
}

// Players act in parties as themselves; the leader alone does the
// leader's part; a party is read by its members and invitees only.
func TestPartyPermissions(t *testing.T) {
	e := newPartyEnv(t)
	ann, bob, cid := playerToken(t, "ann"), playerToken(t, "bob"), playerToken(t, "cid")
	r := e.rpc("PartyService/CreateParty", ann, `{"player":"ann","attributes":{"mmr":1500}}`).ok(t)
	id, code := r.str("party.id"), r.str("party.code")
	if id == "" || len(code) != 8 {
		t.Fatalf("party %s", r.raw)
	}
	e.rpc("PartyService/Invite", ann, `{"partyId":"`+id+`","player":"ann","invitee":"bob"}`).ok(t)
	const denied = connect.CodePermissionDenied
	e.check(t, []access{
		{"ann creates a party as bob", "PartyService/CreateParty", ann, `{"player":"bob"}`, denied, "only as himself, not as player bob"},
		{"cid accepts bob's invite", "PartyService/AnswerInvite", cid, `{"partyId":"` + id + `","player":"bob","accept":true}`, denied, "not as player bob"},
		{"cid reads the party", "PartyService/GetParty", cid, `{"partyId":"` + id + `","player":"cid"}`, denied, "neither a member of party"},
		{"cid lists bob's invites", "PartyService/ListInvites", cid, `{"player":"bob"}`, denied, "not as player bob"},
		{"bob lists his invites", "PartyService/ListInvites", bob, `{"player":"bob"}`, 0, ""},
		{"bob, invited, reads it", "PartyService/GetParty", bob, `{"partyId":"` + id + `","player":"bob"}`, 0, ""},
		{"an events key", "PartyService/GetParty", keyEvents, `{"partyId":"` + id + `"}`, denied, "tickets scope"},
		{"a tickets key reads it", "PartyService/GetParty", keyTickets, `{"partyId":"` + id + `"}`, 0, ""},
		{"bob accepts", "PartyService/AnswerInvite", bob, `{"partyId":"` + id + `","player":"bob","accept":true,"attributes":{"mmr":1510}}`, 0, ""},
		{"bob queues the party", "PartyService/Queue", bob, `{"partyId":"` + id + `","player":"bob","queue":"squad"}`, denied, "only the party's leader (ann) may queue the party"},
		{"bob removes ann", "PartyService/Remove", bob, `{"partyId":"` + id + `","player":"bob","member":"ann"}`, denied, "only the party's leader"},
		{"cid joins with a bad attribute", "PartyService/JoinByCode", cid, `{"code":"` + code + `","player":"cid","attributes":{"mmr":{"a":"x"}}}`, connect.CodeInvalidArgument, "attributes.mmr.a"},
		{"cid guesses a code", "PartyService/JoinByCode", cid, `{"code":"AAAAAAAA","player":"cid"}`, connect.CodeNotFound, "code"},
		{"cid joins by code", "PartyService/JoinByCode", cid, `{"code":"` + code + `","player":"cid"}`, 0, ""},
		{"ann queues", "PartyService/Queue", ann, `{"partyId":"` + id + `","player":"ann","queue":"squad"}`, 0, ""},
	})
	p := e.rpc("PartyService/GetParty", cid, `{"player":"cid"}`).ok(t)
	if p.str("party.phase") != "queued" || len(p.list("party.members")) != 3 {
		t.Fatalf("the party after the calls: %s", p.raw)
	}
	// cid, a member, reads the party's ticket (a ticket he is in).
	tk := e.rpc("TicketService/GetTicket", cid, `{"id":"`+p.str("party.ticketId")+`"}`).ok(t)
	if got := len(tk.list("ticket.players")); got != 3 {
		t.Fatalf("the party's ticket names %d players: %s", got, tk.raw)
	}

	// The party's WebSocket: a player as himself, a key with the tickets
	// scope.
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	base := "ws" + strings.TrimPrefix(e.url, "http") + "/v1/parties/" + id + "/ws"
	ws, _, err := websocket.Dial(ctx, base+"?player=cid&token="+cid, nil)
	if err != nil {
		t.Fatalf("cid's party: %v", err)
	}
	if n := readNotification(t, ws); n["kind"] != "created" {
		t.Fatalf("first event %v", n)
	}
	ws.CloseNow()
	for name, c := range map[string]struct {
		url    string
		status int
	}{
		"as someone else":   {base + "?player=ann&token=" + cid, http.StatusForbidden},
		"no token":          {base + "?player=cid", http.StatusUnauthorized},
		"an events key":     {base + "?token=" + keyEvents, http.StatusForbidden},
		"a stranger":        {base + "?player=dan&token=" + playerToken(t, "dan"), http.StatusForbidden},
		"a party of no one": {strings.Replace(base, id, "nope", 1) + "?player=cid&token=" + cid, http.StatusNotFound},
	} {
		_, res, err := websocket.Dial(ctx, c.url, nil)
		if err == nil || res == nil || res.StatusCode != c.status {
			t.Errorf("%s: %v %v, want status %d", name, err, res, c.status)
		}
	}
}
