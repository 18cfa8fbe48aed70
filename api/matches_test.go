package api

import (
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/golang-jwt/jwt/v5"
)

// TestMatchPermissions: the hand-off is the backend's (the tickets scope);
// a player reads only a match he plays in, and no player follows a queue's
// matches.
func TestMatchPermissions(t *testing.T) {
	backend := ServerKey{Name: "backend", Hash: HashKey("cupid_sk_backend"), Scopes: []Scope{ScopeTickets}}
	events := ServerKey{Name: "events", Hash: HashKey("cupid_sk_events"), Scopes: []Scope{ScopeEvents}}
	e := newEnv(t, envOptions{options: func(o *Options) { o.Auth = testAuth(t, backend, events) }})
	token := func(p string) string {
		return sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"sub": p}))
	}
	call := func(method, body, cred string) reply {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, e.url+"/cupid.v1."+method, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+cred)
		return e.do(req)
	}
	for _, p := range []string{"alice", "bob"} {
		call("TicketService/CreateTicket", `{"queue":"duel","players":[{"id":"`+p+`","attributes":{"mmr":1500}}]}`, "cupid_sk_backend").ok(t)
	}
	e.wait(0)
	list := call("MatchService/ListMatches", `{"queue":"duel"}`, "cupid_sk_backend").ok(t)
	matches := list.list("matches")
	if len(matches) != 1 {
		t.Fatalf("matches %s", list.raw)
	}
	id := matches[0].(map[string]any)["match"].(map[string]any)["id"].(string)
	get := `{"id":"` + id + `"}`

	call("MatchService/GetMatch", get, token("alice")).ok(t)
	call("MatchService/GetMatch", get, "cupid_sk_backend").ok(t)
	call("MatchService/GetMatch", get, token("carol")).refused(t, connect.CodePermissionDenied, "carol", id)
	call("MatchService/GetMatch", get, "cupid_sk_events").refused(t, connect.CodePermissionDenied, "tickets scope")
	call("MatchService/ListMatches", `{"queue":"duel"}`, token("alice")).refused(t, connect.CodePermissionDenied)
	assign := `{"id":"` + id + `","assignment":{"server":"gs:1"}}`
	call("MatchService/AssignMatch", assign, token("alice")).refused(t, connect.CodePermissionDenied)
	call("MatchService/AssignMatch", assign, "cupid_sk_events").refused(t, connect.CodePermissionDenied)
	if r := call("MatchService/GetMatch", get, "cupid_sk_backend").ok(t); r.str("match.state") != "MATCH_STATE_FORMED" {
		t.Fatalf("refused assignments changed the match: %s", r.raw)
	}
	call("MatchService/AssignMatch", assign, "cupid_sk_backend").ok(t)

	for cred, want := range map[string]int{token("alice"): http.StatusForbidden, "cupid_sk_events": http.StatusForbidden} {
		req, _ := http.NewRequest(http.MethodGet, e.url+"/v1/queues/duel/matches/ws", nil)
		req.Header.Set("Authorization", "Bearer "+cred)
		if r := e.do(req); r.status != want {
			t.Fatalf("match socket: %d, want %d: %s", r.status, want, r.raw)
		}
	}
}
