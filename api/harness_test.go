package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cupid-match/cupid/dashboard"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// The api tests run the real ticket service over the in-memory store, which
// can be told to fail, behind the real handler served by httptest (HTTP/1.1
// and HTTP/2 cleartext on one port, as cmd/cupid serves it). The clock is
// the test's: it moves only when a test moves it, and Wake returns once
// every pool has looked at it, so no test sleeps to see a decision.

// duelRules match two one-player tickets within 100 mmr, widening to 300
// after 10 s of waiting.
const duelRules = `{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100, "max": 100000}],
  "flexing_rule": [{"duration": 10, "attribute": "mmr", "criteria": "distance", "reference": 300}]
}`

// squadRules need ten players in two teams of five; parties of up to five
// keep together.
const squadRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 5, "player_max_number": 5}}`

// ttl is every test queue's ticket time to live.
const ttl = time.Minute

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// env is one server under test.
type env struct {
	t     *testing.T
	store *memstore.Store
	clock *testclock.Clock
	svc   *ticketsvc.Service
	reg   *prometheus.Registry
	ready *atomic.Bool
	srv   *httptest.Server
	url   string
	h2c   *http.Client
}

type envOptions struct {
	// store is reused when set (a restart); a new one otherwise.
	store *memstore.Store
	// noGatherer leaves /metrics out.
	noGatherer bool
	// options, when set, changes the handler's options; server, the HTTP
	// server's settings (timeouts), before it starts.
	options func(*Options)
	server  func(*http.Server)
	// queues are served besides duel and squad.
	queues []ticketsvc.Queue
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	e := &env{t: t, store: o.store, clock: testclock.At(epoch), reg: prometheus.NewRegistry(), ready: new(atomic.Bool)}
	if e.store == nil {
		e.store = memstore.New()
	}
	log := slog.New(slog.DiscardHandler)
	svc, err := ticketsvc.New(ticketsvc.Options{
		Store: e.store, Documents: e.store, Logger: log, Now: e.clock.Now, Registry: e.reg, Seed: 1,
		Queues: append([]ticketsvc.Queue{
			{Name: "duel", TTL: ttl, Ruleset: []byte(duelRules)},
			{Name: "squad", TTL: ttl, Ruleset: []byte(squadRules)},
		}, o.queues...),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	e.ready.Store(true)
	opts := Options{Matchmaker: svc, Logger: log, Now: e.clock.Now, Ready: e.ready}
	if !o.noGatherer {
		opts.Gatherer = e.reg
	}
	if o.options != nil {
		o.options(&opts)
	}
	mountDashboard(&opts)
	e.srv = httptest.NewUnstartedServer(Handler(opts))
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	e.srv.Config.Protocols = p
	if o.server != nil {
		o.server(e.srv.Config)
	}
	e.srv.Start()
	e.url = e.srv.URL
	e.h2c = h2cClient()
	// Cleanups run last in, first out: the connections go, then the
	// server, then the service.
	t.Cleanup(svc.Close)
	t.Cleanup(e.srv.Close)
	t.Cleanup(e.h2c.CloseIdleConnections)
	return e
}

// h2cClient speaks HTTP/2 without TLS, as gRPC needs on a plain port (as
// cmd/cupid's client does).
func h2cClient() *http.Client {
	tr := &http.Transport{DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	tr.Protocols = p
	return &http.Client{Transport: tr}
}

// with returns the env for a subtest, whose failures must end the subtest.
func (e *env) with(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

// wait moves the clock and returns once every pool has looked at it.
func (e *env) wait(d time.Duration) {
	e.clock.Advance(d)
	e.svc.Wake()
}

// protocols are the three ways a client may speak to the ticket service.
func (e *env) clients() map[string]cupidv1connect.TicketServiceClient {
	return map[string]cupidv1connect.TicketServiceClient{
		"connect-json": cupidv1connect.NewTicketServiceClient(http.DefaultClient, e.url, connect.WithProtoJSON()),
		"grpc":         cupidv1connect.NewTicketServiceClient(e.h2c, e.url, connect.WithGRPC()),
		"grpc-web":     cupidv1connect.NewTicketServiceClient(e.h2c, e.url, connect.WithGRPCWeb()),
	}
}

func (e *env) client() cupidv1connect.TicketServiceClient {
	return cupidv1connect.NewTicketServiceClient(http.DefaultClient, e.url, connect.WithProtoJSON())
}

// reply is an HTTP answer with its body decoded as JSON when it is JSON.
type reply struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
}

// post sends a body as curl -H 'Content-Type: application/json' -d would,
// to a procedure of TicketService.
func (e *env) post(method, body string) reply {
	e.t.Helper()
	return e.postTo("/cupid.v1.TicketService/"+method, "application/json", strings.NewReader(body))
}

func (e *env) postTo(path, contentType string, body io.Reader) reply {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.url+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	return e.do(req)
}

func (e *env) get(path string) reply {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.url+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.do(req)
}

func (e *env) do(req *http.Request) reply {
	e.t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	r := reply{status: res.StatusCode, header: res.Header, raw: string(b)}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(b, &r.body); err != nil {
			e.t.Fatalf("%s %s: body %q is not JSON: %v", req.Method, req.URL.Path, b, err)
		}
	}
	return r
}

// ok fails unless the reply is a 200.
func (r reply) ok(t *testing.T) reply {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", r.status, r.raw)
	}
	return r
}

// refused fails unless the reply is a Connect error with this code whose
// message mentions each of mention; it returns the message.
func (r reply) refused(t *testing.T, code connect.Code, mention ...string) string {
	t.Helper()
	serverFault := code == connect.CodeUnavailable || code == connect.CodeInternal
	if r.status == http.StatusOK || (r.status >= 500 && !serverFault) {
		t.Fatalf("status %d, want an error %s: %s", r.status, code, r.raw)
	}
	if got := r.str("code"); got != code.String() {
		t.Fatalf("code %q (status %d), want %q: %s", got, r.status, code, r.raw)
	}
	msg := r.str("message")
	for _, m := range mention {
		if !strings.Contains(msg, m) {
			t.Fatalf("message %q does not mention %q", msg, m)
		}
	}
	return msg
}

// path reads a value from the decoded body: "ticket.players.0.id".
func (r reply) path(p string) any {
	var v any = r.body
	for _, k := range strings.Split(p, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i := 0
			for _, c := range k {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func (r reply) str(p string) string {
	s, _ := r.path(p).(string)
	return s
}

func (r reply) list(p string) []any {
	l, _ := r.path(p).([]any)
	return l
}

// createJSON creates a one-player duel ticket over HTTP and returns its id.
func (e *env) createJSON(player string, mmr int) string {
	e.t.Helper()
	r := e.post("CreateTicket", `{"queue":"duel","players":[{"id":"`+player+`","attributes":{"mmr":`+itoa(mmr)+`}}]}`).ok(e.t)
	id := r.str("ticket.id")
	if id == "" {
		e.t.Fatalf("create answered no ticket id: %s", r.raw)
	}
	return id
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func player(id string, mmr float64) *cupidv1.Player {
	return &cupidv1.Player{Id: id, Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(mmr)}}
}

func (e *env) create(c cupidv1connect.TicketServiceClient, queue string, players ...*cupidv1.Player) *cupidv1.Ticket {
	e.t.Helper()
	res, err := c.CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{Queue: queue, Players: players}))
	if err != nil {
		e.t.Fatalf("create: %v", err)
	}
	return res.Msg.GetTicket()
}

// wantConnectErr fails unless err is a Connect error of code whose
// Cupid-Field is field and whose message names the field.
func wantConnectErr(t *testing.T, err error, code connect.Code, field string) *connect.Error {
	t.Helper()
	var ce *connect.Error
	if !asConnect(err, &ce) {
		t.Fatalf("error %v, want a Connect error %s", err, code)
	}
	if ce.Code() != code {
		t.Fatalf("code %s (%v), want %s", ce.Code(), err, code)
	}
	if got := ce.Meta().Get("Cupid-Field"); got != field {
		t.Fatalf("Cupid-Field %q, want %q (%v)", got, field, err)
	}
	if field != "" && !strings.HasPrefix(ce.Message(), field+": ") {
		t.Fatalf("message %q does not start with the field %q", ce.Message(), field)
	}
	return ce
}

func asConnect(err error, out **connect.Error) bool {
	return errors.As(err, out)
}

// mountDashboard mounts the operator dashboard as cmd/cupid does: its data
// endpoints behind authentication for admin keys, its pages in front.
func mountDashboard(o *Options) {
	d := dashboard.New(dashboard.Options{
		Tickets: o.Matchmaker, Pairing: o.Pairing, Opponents: o.Opponents,
		Logger: o.Logger, Now: o.Now, AuthOn: o.Auth != nil, Authorize: o.Auth.Admin,
	})
	o.Mounts = append(o.Mounts, Mount{Pattern: dashboard.APIPrefix, Handler: d})
	o.Pages = Pages{Match: dashboard.IsAsset, Handler: dashboard.Assets()}
}
