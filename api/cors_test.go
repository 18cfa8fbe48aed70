package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

func corsEnv(t *testing.T, allowed ...string) *env {
	return newEnv(t, envOptions{options: func(o *Options) { o.AllowedOrigins = allowed }})
}

func (e *env) request(t *testing.T, method, path, origin string, header map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

func TestCORSPreflight(t *testing.T) {
	e := corsEnv(t, "https://game.example.com")
	preflight := map[string]string{
		"Access-Control-Request-Method":  "POST",
		"Access-Control-Request-Headers": "content-type,connect-protocol-version,connect-timeout-ms,x-grpc-web,x-user-agent,authorization",
	}
	res := e.request(t, http.MethodOptions, "/cupid.v1.TicketService/CreateTicket", "https://game.example.com", preflight, "")
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("preflight from an allowed origin: %d", res.StatusCode)
	}
	if got := res.Header.Get("Access-Control-Allow-Origin"); got != "https://game.example.com" {
		t.Fatalf("Allow-Origin %q", got)
	}
	if m := res.Header.Get("Access-Control-Allow-Methods"); !strings.Contains(m, "POST") || !strings.Contains(m, "GET") {
		t.Fatalf("Allow-Methods %q", m)
	}
	allowed := strings.ToLower(res.Header.Get("Access-Control-Allow-Headers"))
	for _, h := range []string{"content-type", "connect-protocol-version", "connect-timeout-ms", "x-grpc-web", "x-user-agent", "authorization"} {
		if !strings.Contains(allowed, h) {
			t.Errorf("Allow-Headers %q lacks %s", allowed, h)
		}
	}
	if !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Origin") {
		t.Errorf("no Vary: Origin")
	}
	// Another origin's preflight is refused, with no CORS headers.
	res = e.request(t, http.MethodOptions, "/cupid.v1.TicketService/CreateTicket", "https://evil.example", preflight, "")
	if res.StatusCode != http.StatusForbidden || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("preflight from another origin: %d %v", res.StatusCode, res.Header)
	}
}

func TestCORSCalls(t *testing.T) {
	e := corsEnv(t, "https://game.example.com", "http://localhost:3000")
	body := `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1500}}]}`
	ct := map[string]string{"Content-Type": "application/json"}
	res := e.request(t, http.MethodPost, "/cupid.v1.TicketService/CreateTicket", "http://localhost:3000", ct, body)
	if res.StatusCode != http.StatusOK || res.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Fatalf("a call from an allowed origin: %d %v", res.StatusCode, res.Header)
	}
	exposed := res.Header.Get("Access-Control-Expose-Headers")
	for _, h := range []string{"Grpc-Status", "Grpc-Message", "Cupid-Field"} {
		if !strings.Contains(exposed, h) {
			t.Errorf("Expose-Headers %q lacks %s", exposed, h)
		}
	}
	// From another origin the call gets no CORS headers: the browser keeps
	// the answer from the page.
	res = e.request(t, http.MethodPost, "/cupid.v1.TicketService/GetTicket", "https://evil.example", ct, `{"id":"x"}`)
	if res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("a call from another origin got %v", res.Header)
	}
	// No Origin (curl, game servers): untouched.
	res = e.request(t, http.MethodPost, "/cupid.v1.TicketService/GetTicket", "", ct, `{"id":"x"}`)
	if res.Header.Get("Access-Control-Allow-Origin") != "" || res.StatusCode != http.StatusNotFound {
		t.Fatalf("a call without Origin: %d %v", res.StatusCode, res.Header)
	}
	// "*" allows any origin.
	any := corsEnv(t, "*")
	res = any.request(t, http.MethodOptions, "/cupid.v1.TicketService/GetTicket", "https://anyone.example", map[string]string{"Access-Control-Request-Method": "POST"}, "")
	if res.StatusCode != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "https://anyone.example" {
		t.Fatalf("preflight with *: %d %v", res.StatusCode, res.Header)
	}
}

func TestWebSocketOrigins(t *testing.T) {
	e := corsEnv(t, "https://game.example.com")
	id := e.createJSON("alice", 1500)
	u := strings.Replace(e.url, "http", "ws", 1) + "/v1/tickets/" + id + "/ws"
	dial := func(origin string) (*websocket.Conn, *http.Response, error) {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		return websocket.Dial(context.Background(), u, &websocket.DialOptions{HTTPHeader: h})
	}
	for _, origin := range []string{"https://game.example.com", "", e.url} {
		c, _, err := dial(origin)
		if err != nil {
			t.Fatalf("origin %q: %v", origin, err)
		}
		readEvent(t, c, "created")
		c.CloseNow()
	}
	_, res, err := dial("https://evil.example")
	if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("a socket from another origin: %v %v", res, err)
	}
	// With no list, only the server's own origin.
	plain := newEnv(t, envOptions{})
	id = plain.createJSON("bob", 1500)
	u = strings.Replace(plain.url, "http", "ws", 1) + "/v1/tickets/" + id + "/ws"
	if _, res, err := dial("https://game.example.com"); err == nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("a socket from another origin with no list: %v %v", res, err)
	}
}
