package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
)

// Authentication as the server applies it to plain HTTP: the profiler,
// /metrics, the bearer header's form, a WebSocket's token parameter, and
// the ticket rules of player tokens over JSON with nothing changed by a
// refusal.

func TestProtectDebug(t *testing.T) {
	keys := []ServerKey{
		{Name: "ops", Hash: HashKey(keyAdmin), Scopes: []Scope{ScopeAdmin}},
		{Name: "backend", Hash: HashKey(keyTickets), Scopes: []Scope{ScopeTickets}},
	}
	profiler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("profile")) })
	open, err := NewAuth(AuthOptions{Keys: keys, MetricsOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		auth   *Auth
		header string
		status int
		want   string
	}{
		{"no auth", nil, "", 200, "profile"},
		{"metrics open", open, "", 200, "profile"},
		{"an admin key", testAuth(t, keys...), "Bearer " + keyAdmin, 200, "profile"},
		{"no credential", testAuth(t, keys...), "", 401, "server key or player token is required"},
		{"not a bearer", testAuth(t, keys...), "Basic " + keyAdmin, 401, "Bearer"},
		{"a tickets key", testAuth(t, keys...), "Bearer " + keyTickets, 403, "admin scope; server key backend has not"},
		{"a player token", testAuth(t, keys...), "Bearer " + playerToken(t, "ann"), 403, "admin scope; the token's player ann"},
		{"an unknown key", testAuth(t, keys...), "Bearer cupid_sk_guess", 401, "not a known server key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/debug/pprof/", nil)
			if c.header != "" {
				req.Header.Set("Authorization", c.header)
			}
			w := httptest.NewRecorder()
			c.auth.ProtectDebug(profiler).ServeHTTP(w, req)
			if w.Code != c.status || !strings.Contains(w.Body.String(), c.want) {
				t.Fatalf("status %d %q, want %d with %q", w.Code, w.Body.String(), c.status, c.want)
			}
		})
	}
	if got := testAuth(t, keys...).KeyNames(); !slices.Equal(got, []string{"backend", "ops"}) {
		t.Fatalf("key names %q", got)
	}
}

func TestMetricsNeedAKey(t *testing.T) {
	e := newEnv(t, envOptions{options: func(o *Options) {
		o.Auth = testAuth(t, ServerKey{Name: "backend", Hash: HashKey(keyTickets), Scopes: []Scope{ScopeTickets}})
	}})
	for _, c := range []struct {
		name, cred string
		status     int
	}{
		{"no credential", "", 401},
		{"a player token", playerToken(t, "ann"), 403},
		{"a server key", keyTickets, 200},
	} {
		req, _ := http.NewRequest(http.MethodGet, e.url+"/metrics", nil)
		if c.cred != "" {
			req.Header.Set("Authorization", "Bearer "+c.cred)
		}
		if r := e.do(req); r.status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, r.status, c.status, r.raw)
		}
	}
	// Health checks stay open.
	for _, p := range []string{"/healthz", "/readyz"} {
		if r := e.get(p); r.status != 200 {
			t.Errorf("%s: %d", p, r.status)
		}
	}
}

// A player token acts for its own player only: it queues itself (a group
// is queued by a backend's key, or through a party), reads and cancels its own tickets, watches only them;
// what it may not do changes nothing.
func TestTicketPermissionsOverHTTP(t *testing.T) {
	e := newEnv(t, envOptions{options: func(o *Options) {
		o.Auth = testAuth(t,
			ServerKey{Name: "backend", Hash: HashKey(keyTickets), Scopes: []Scope{ScopeTickets}},
			ServerKey{Name: "organiser", Hash: HashKey(keyEvents), Scopes: []Scope{ScopeEvents}})
	}})
	ann, bob := playerToken(t, "ann"), playerToken(t, "bob")
	annTicket := e.rpc("TicketService/CreateTicket", keyTickets, `{"queue":"squad","players":[{"id":"ann","attributes":{"mmr":1}},{"id":"cid","attributes":{"mmr":1}}]}`).ok(t).str("ticket.id")
	bobTicket := e.rpc("TicketService/CreateTicket", keyTickets, `{"queue":"squad","players":[{"id":"bob","attributes":{"mmr":1}}]}`).ok(t).str("ticket.id")
	const denied = connect.CodePermissionDenied
	e.check(t, []access{
		{"ann queues bob", "TicketService/CreateTicket", ann, `{"queue":"duel","players":[{"id":"bob","attributes":{"mmr":1}}]}`, denied, "players[0].id: the token's player ann may queue only himself, not bob"},
		{"ann queues bob in bulk", "TicketService/CreateTickets", ann, `{"tickets":[{"queue":"duel","players":[{"id":"ann","attributes":{"mmr":1}}]},{"queue":"duel","players":[{"id":"bob","attributes":{"mmr":1}}]}]}`, denied, "tickets[1].players[0].id"},
		{"ann reads bob's ticket", "TicketService/GetTicket", ann, `{"id":"` + bobTicket + `"}`, denied, "not in ticket " + bobTicket},
		{"ann cancels bob's ticket", "TicketService/CancelTicket", ann, `{"id":"` + bobTicket + `"}`, denied, "not in ticket"},
		{"ann cancels hers and bob's", "TicketService/CancelTickets", ann, `{"ids":["` + annTicket + `","` + bobTicket + `"]}`, denied, "not in ticket " + bobTicket},
		{"ann reads a ticket of nobody", "TicketService/GetTicket", ann, `{"id":"nope"}`, connect.CodeNotFound, "nope"},
		{"ann reads without an id", "TicketService/GetTicket", ann, `{}`, connect.CodeInvalidArgument, "id"},
		{"ann lists tickets", "TicketService/ListTickets", ann, `{"queue":"squad"}`, denied, "needs a server key with the tickets scope"},
		{"ann reads the stats", "TicketService/QueueStats", ann, `{"queue":"squad"}`, denied, "tickets scope"},
		{"an events key creates", "TicketService/CreateTicket", keyEvents, `{"queue":"duel","players":[{"id":"x","attributes":{"mmr":1}}]}`, denied, "needs the tickets scope; server key organiser has events"},
		{"bob reads his own ticket", "TicketService/GetTicket", bob, `{"id":"` + bobTicket + `"}`, 0, ""},
		{"cid reads the party's ticket", "TicketService/GetTicket", playerToken(t, "cid"), `{"id":"` + annTicket + `"}`, 0, ""},
		{"ann puts a ruleset", "RulesetService/PutRuleset", ann, `{"queue":"duel","ruleset":"{}"}`, denied, "rulesets scope"},
		{"ann validates a ruleset", "RulesetService/ValidateRuleset", ann, `{"ruleset":"{}"}`, 0, ""},
	})
	for _, id := range []string{annTicket, bobTicket} {
		if r := e.rpc("TicketService/GetTicket", keyTickets, `{"id":"`+id+`"}`).ok(t); r.str("ticket.state") != "TICKET_STATE_WAITING" {
			t.Fatalf("a refused call changed ticket %s: %s", id, r.raw)
		}
	}
	if r := e.rpc("TicketService/ListTickets", keyTickets, `{"queue":"duel"}`).ok(t); len(r.list("tickets")) != 0 {
		t.Fatalf("refused creates queued someone: %s", r.raw)
	}

	// A WebSocket carries its credential in ?token= (browsers cannot set
	// the header): ann watches her own ticket, not bob's.
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	base := "ws" + strings.TrimPrefix(e.url, "http") + "/v1/tickets/"
	ws, _, err := websocket.Dial(ctx, base+annTicket+"/ws?token="+ann, nil)
	if err != nil {
		t.Fatalf("ann's own ticket: %v", err)
	}
	if n := readNotification(t, ws); n["kind"] != "created" {
		t.Fatalf("first event %v", n)
	}
	ws.CloseNow()
	for name, c := range map[string]struct {
		url    string
		status int
	}{
		"bob's ticket with ann's token": {base + bobTicket + "/ws?token=" + ann, http.StatusForbidden},
		"no token":                      {base + annTicket + "/ws", http.StatusUnauthorized},
		"an events key":                 {base + annTicket + "/ws?token=" + keyEvents, http.StatusForbidden},
	} {
		_, res, err := websocket.Dial(ctx, c.url, nil)
		if err == nil || res == nil || res.StatusCode != c.status {
			t.Errorf("%s: %v %v, want status %d", name, err, res, c.status)
		}
	}
}
