package api

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

func TestHealthz(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.store.Fail("Ping", errors.New("disk gone"))
	// Alive says the process answers, whatever the store does.
	if r := e.get("/healthz"); r.status != http.StatusOK || r.raw != "ok\n" {
		t.Fatalf("healthz: %d %q", r.status, r.raw)
	}
	if r := e.postTo("/healthz", "text/plain", nil); r.status != http.StatusMethodNotAllowed {
		t.Fatalf("POST /healthz: %d", r.status)
	}
}

func TestReadyzFollowsTheStore(t *testing.T) {
	e := newEnv(t, envOptions{})
	if r := e.get("/readyz"); r.status != http.StatusOK || r.raw != "ready\n" {
		t.Fatalf("readyz: %d %q", r.status, r.raw)
	}
	e.store.Fail("Ping", errors.New("disk full"))
	e.clock.Advance(2 * time.Second) // past the cached answer
	r := e.get("/readyz")
	if r.status != http.StatusServiceUnavailable || !strings.Contains(r.raw, "not ready") || !strings.Contains(r.raw, "disk full") {
		t.Fatalf("readyz with a failing store: %d %q", r.status, r.raw)
	}
	e.clock.Advance(2 * time.Second)
	if r := e.get("/readyz"); r.status != http.StatusServiceUnavailable {
		t.Fatalf("readyz with a store still failing: %d %q", r.status, r.raw)
	}
	e.store.Fail("Ping", nil)
	e.clock.Advance(2 * time.Second)
	if r := e.get("/readyz"); r.status != http.StatusOK || r.raw != "ready\n" {
		t.Fatalf("readyz after the store recovered: %d %q", r.status, r.raw)
	}
	// Not started yet (or shutting down): not ready, whatever the store.
	e.ready.Store(false)
	if r := e.get("/readyz"); r.status != http.StatusServiceUnavailable || !strings.Contains(r.raw, "starting") {
		t.Fatalf("readyz while starting: %d %q", r.status, r.raw)
	}
}

func TestMetrics(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.createJSON("alice", 1500)
	e.createJSON("bob", 1510)
	e.wait(time.Second)
	r := e.get("/metrics")
	if r.status != http.StatusOK {
		t.Fatalf("metrics: %d", r.status)
	}
	for _, want := range []string{
		`cupid_tickets_total{queue="duel",state="waiting"} 2`,
		`cupid_matches_total{queue="duel"} 1`,
		"cupid_intake_batch_tickets_count",
		"cupid_ticket_watchers 0",
	} {
		if !strings.Contains(r.raw, want) {
			t.Errorf("metrics lack %q:\n%s", want, r.raw)
		}
	}
	if r := e.postTo("/metrics", "text/plain", nil); r.status != http.StatusMethodNotAllowed {
		t.Fatalf("POST /metrics: %d", r.status)
	}

	bare := newEnv(t, envOptions{noGatherer: true})
	if r := bare.get("/metrics"); r.status != http.StatusNotFound {
		t.Fatalf("metrics without a Gatherer: %d", r.status)
	}
}

// TestRequestSizeLimit sends bodies past MaxRequestBytes: each is refused
// with resource_exhausted, the server reads no more than it must, and it
// keeps serving.
func TestRequestSizeLimit(t *testing.T) {
	e := newEnv(t, envOptions{})
	ticketWith := func(n int) string {
		return `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1,"blob":"` + strings.Repeat("x", n) + `"}}]}`
	}
	overhead := len(ticketWith(0))
	// Just under the limit: the body is read and the ticket judged on
	// its merits.
	r := e.post("CreateTicket", ticketWith(MaxRequestBytes-overhead))
	r.refused(t, connect.CodeInvalidArgument, "players[0].attributes.blob: at most 256 bytes")
	for _, size := range []int{MaxRequestBytes + 1, MaxRequestBytes + 2048, 2 * MaxRequestBytes, 10 * MaxRequestBytes} {
		r := e.post("CreateTicket", ticketWith(size-overhead))
		if r.status >= 500 {
			t.Fatalf("%d bytes: status %d %s", size, r.status, r.raw)
		}
		r.refused(t, connect.CodeResourceExhausted, "larger than configured max")
	}
	// The same over gRPC, where the limit applies to the message.
	_, err := e.clients()["grpc"].CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{
		Queue: "duel", Players: []*cupidv1.Player{{Id: "a", Attributes: map[string]*structpb.Value{
			"blob": structpb.NewStringValue(strings.Repeat("x", 2*MaxRequestBytes)),
		}}},
	}))
	if connect.CodeOf(err) != connect.CodeResourceExhausted {
		t.Fatalf("a 2 MiB gRPC message: %v", err)
	}
	// A bulk call of many tickets is bounded by bytes too.
	var b bytes.Buffer
	b.WriteString(`{"tickets":[`)
	for b.Len() < MaxRequestBytes+10 {
		b.WriteString(`{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1}}]},`)
	}
	b.WriteString(`{"queue":"duel"}]}`)
	e.postTo("/cupid.v1.TicketService/CreateTickets", "application/json", &b).refused(t, connect.CodeResourceExhausted)
	if r := e.post("ListTickets", `{}`).ok(t); strings.TrimSpace(r.raw) != "{}" {
		t.Fatalf("a refused body stored tickets: %s", r.raw)
	}
	// Still serving, on new connections and old.
	e.createJSON("after", 1500)
}

// TestRulesetService covers the rest of the handler's procedures briefly:
// the ruleset service over the same ticket service.
func TestRulesetService(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := cupidv1connect.NewRulesetServiceClient(http.DefaultClient, e.url, connect.WithProtoJSON())
	ctx := context.Background()
	got, err := c.GetRuleset(ctx, connect.NewRequest(&cupidv1.GetRulesetRequest{Queue: "duel"}))
	if err != nil {
		t.Fatal(err)
	}
	if got.Msg.GetVersion() != 1 || got.Msg.GetRuleset() != duelRules || got.Msg.GetQueue() != "duel" {
		t.Fatalf("ruleset %v", got.Msg)
	}
	_, err = c.GetRuleset(ctx, connect.NewRequest(&cupidv1.GetRulesetRequest{Queue: "nope"}))
	wantConnectErr(t, err, connect.CodeNotFound, "queue")

	v, err := c.ValidateRuleset(ctx, connect.NewRequest(&cupidv1.ValidateRulesetRequest{Ruleset: "{\n  \"alliance\": 5\n}"}))
	if err != nil {
		t.Fatal(err)
	}
	if v.Msg.GetValid() || len(v.Msg.GetProblems()) == 0 || v.Msg.GetProblems()[0].GetLine() == 0 {
		t.Fatalf("validate: %v", v.Msg)
	}
	if v, err := c.ValidateRuleset(ctx, connect.NewRequest(&cupidv1.ValidateRulesetRequest{Ruleset: duelRules})); err != nil || !v.Msg.GetValid() {
		t.Fatalf("validate a good ruleset: %v %v", v, err)
	}

	_, err = c.PutRuleset(ctx, connect.NewRequest(&cupidv1.PutRulesetRequest{Queue: "duel", Ruleset: duelRules, ExpectedVersion: 7}))
	wantConnectErr(t, err, connect.CodeFailedPrecondition, "expected_version")
	_, err = c.PutRuleset(ctx, connect.NewRequest(&cupidv1.PutRulesetRequest{Queue: "duel", Ruleset: "{"}))
	wantConnectErr(t, err, connect.CodeInvalidArgument, "ruleset")
	put, err := c.PutRuleset(ctx, connect.NewRequest(&cupidv1.PutRulesetRequest{Queue: "duel", Ruleset: duelRules, ExpectedVersion: 1}))
	if err != nil || put.Msg.GetVersion() != 2 {
		t.Fatalf("put: %v %v", put, err)
	}
	e.store.Fail("PutDocument", errors.New("disk full"))
	_, err = c.PutRuleset(ctx, connect.NewRequest(&cupidv1.PutRulesetRequest{Queue: "duel", Ruleset: duelRules}))
	wantConnectErr(t, err, connect.CodeUnavailable, "")
}

// TestPanicsBecomeInternalErrors serves a handler with no ticket service:
// every call panics inside it, and the client gets a bare internal error
// while the log gets the panic.
func TestPanicsBecomeInternalErrors(t *testing.T) {
	log, logged := captureLog()
	srv := httptest.NewServer(Handler(Options{Logger: log}))
	defer srv.Close()
	c := cupidv1connect.NewTicketServiceClient(http.DefaultClient, srv.URL, connect.WithProtoJSON())
	_, err := c.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: "x"}))
	ce := wantConnectErr(t, err, connect.CodeInternal, "")
	if ce.Message() != "internal error" {
		t.Fatalf("message %q", ce.Message())
	}
	if !strings.Contains(logged.String(), "panic in handler") || !strings.Contains(logged.String(), "GetTicket") {
		t.Fatalf("the panic was not logged: %s", logged)
	}
}

// TestOpenAPIServed: /openapi.json is the committed document, byte for
// byte, open without credentials even with auth on (it describes the
// public API; internal/openapi keeps the file current).
func TestOpenAPIServed(t *testing.T) {
	want, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{options: func(o *Options) {
		o.Auth = testAuth(t, ServerKey{Name: "backend", Hash: HashKey("backend-key"), Scopes: []Scope{ScopeTickets}})
	}})
	r := e.get("/openapi.json")
	if r.status != http.StatusOK || r.raw != string(want) {
		t.Fatalf("/openapi.json: %d, %d bytes; want 200 and the %d bytes of api/openapi.json", r.status, len(r.raw), len(want))
	}
	// Everything else still needs a credential.
	if r := e.get("/metrics"); r.status != http.StatusUnauthorized {
		t.Fatalf("/metrics without a key: %d", r.status)
	}
}
