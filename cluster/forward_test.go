package cluster

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// echo answers with who served the call, its path and the node that
// forwarded it.
func echo(who string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, who+" "+r.URL.Path+" from="+r.Header.Get(ForwardedHeader))
	})
}

func TestForwarderSendsPairingCallsToTheOwner(t *testing.T) {
	owner := httptest.NewServer(echo("owner"))
	defer owner.Close()
	ownerAddr := strings.TrimPrefix(owner.URL, "http://")
	// A port nothing listens on: a node that died with the lease.
	gone := httptest.NewServer(echo("gone"))
	goneAddr := strings.TrimPrefix(gone.URL, "http://")
	gone.Close()

	const pairingCall = "/cupid.v1.PairingService/JoinEvent"
	tests := []struct {
		name     string
		joined   bool
		addr     string
		local    bool
		ok       bool
		path     string
		header   string
		status   int
		wantBody string
	}{
		{name: "a node of its own serves everything", path: pairingCall, status: 200, wantBody: "local " + pairingCall + " from="},
		{name: "other calls stay here", joined: true, addr: ownerAddr, ok: true, path: "/cupid.v1.TicketService/CreateTicket", status: 200, wantBody: "local /cupid.v1.TicketService/CreateTicket from="},
		{name: "events run here", joined: true, local: true, ok: true, path: pairingCall, status: 200, wantBody: "local " + pairingCall + " from="},
		{name: "events run elsewhere", joined: true, addr: ownerAddr, ok: true, path: pairingCall, status: 200, wantBody: "owner " + pairingCall + " from=n1"},
		{name: "the event WebSocket follows", joined: true, addr: ownerAddr, ok: true, path: "/v1/events/e1/ws", status: 200, wantBody: "owner /v1/events/e1/ws from=n1"},
		{name: "a forwarded call is served where it lands", joined: true, addr: ownerAddr, ok: true, path: pairingCall, header: "n2", status: 200, wantBody: "local " + pairingCall + " from=n2"},
		{name: "no owner for the moment", joined: true, path: pairingCall, status: http.StatusServiceUnavailable, wantBody: "moving to another node"},
		{name: "the owner does not answer", joined: true, addr: goneAddr, ok: true, path: pairingCall, status: http.StatusBadGateway, wantBody: "did not answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewForwarder(echo("local"), quiet, false)
			if tc.joined {
				f.join("n1", func(context.Context) (string, bool, bool) { return tc.addr, tc.local, tc.ok })
			}
			here := httptest.NewServer(f)
			defer here.Close()
			req, _ := http.NewRequest("POST", here.URL+tc.path, strings.NewReader("{}"))
			if tc.header != "" {
				req.Header.Set(ForwardedHeader, tc.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.wantBody) {
				t.Errorf("got %d %q, want %d with %q", resp.StatusCode, body, tc.status, tc.wantBody)
			}
			if tc.status == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
				t.Error("a refusal while the events move says no Retry-After")
			}
		})
	}
}

// A singleton's calls (the parties) go to the node that holds its lease,
// by their own owner, whatever the speed-dating events' owner says.
func TestForwarderSendsSingletonCallsToTheirOwner(t *testing.T) {
	owner := httptest.NewServer(echo("owner"))
	defer owner.Close()
	ownerAddr := strings.TrimPrefix(owner.URL, "http://")
	f := NewForwarder(echo("local"), quiet, false)
	f.join("n1", func(context.Context) (string, bool, bool) { return "", true, true }) // the events run here
	f.route("parties", []string{"/cupid.v1.PartyService/", "/v1/parties/"}, func(context.Context) (string, bool, bool) { return ownerAddr, false, true })
	here := httptest.NewServer(f)
	defer here.Close()
	for path, want := range map[string]string{
		"/cupid.v1.PartyService/Invite":      "owner /cupid.v1.PartyService/Invite from=n1",
		"/v1/parties/p1/ws":                  "owner /v1/parties/p1/ws from=n1",
		"/cupid.v1.PairingService/JoinEvent": "local /cupid.v1.PairingService/JoinEvent from=",
		"/cupid.v1.TicketService/GetTicket":  "local /cupid.v1.TicketService/GetTicket from=",
	} {
		resp, err := http.Post(here.URL+path, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != want {
			t.Errorf("%s: %d %q, want %q", path, resp.StatusCode, body, want)
		}
	}
}
