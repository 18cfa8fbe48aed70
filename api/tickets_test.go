package api

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// The tickets of these tests are sent as curl sends them: JSON bodies to
// Connect's unary endpoints over HTTP/1.1.

func TestTicketLifecycleOverJSON(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.post("CreateTicket", `{"queue":"duel","players":[{"id":"alice","attributes":{"mmr":1500,"tags":["eu","mic"],"ranked":true,"mode":"solo"}}],
		"latencies":{"eu":20},"requestId":"r-alice"}`).ok(t)
	alice := r.str("ticket.id")
	for path, want := range map[string]any{
		"ticket.queue": "duel", "ticket.state": "TICKET_STATE_WAITING", "ticket.players.0.id": "alice",
		"ticket.players.0.attributes.mmr": 1500.0, "ticket.players.0.attributes.tags.1": "mic",
		"ticket.players.0.attributes.ranked": true, "ticket.players.0.attributes.mode": "solo",
		"ticket.latencies.eu": 20.0, "ticket.requestId": "r-alice", "ticket.waited": "0s",
		"ticket.createdAt": "2026-01-02T03:04:05Z", "ticket.expiresAt": "2026-01-02T03:05:05Z",
	} {
		if got := r.path(path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	if r.path("existed") != nil {
		t.Errorf("a new ticket says it existed: %s", r.raw)
	}

	// A waiting ticket has waited until now, and says why it waits.
	e.wait(5 * time.Second)
	r = e.post("GetTicket", `{"id":"`+alice+`"}`).ok(t)
	if r.str("ticket.state") != "TICKET_STATE_WAITING" || r.str("ticket.waited") != "5s" {
		t.Fatalf("waiting ticket: %s", r.raw)
	}
	if r.str("ticket.why.summary") == "" {
		t.Fatalf("a waiting ticket should say why it waits: %s", r.raw)
	}

	// A retry with the request id returns the first ticket.
	r = e.post("CreateTicket", `{"queue":"duel","players":[{"id":"alice","attributes":{"mode":"solo","ranked":true,"mmr":1500,"tags":["eu","mic"]}}],
		"latencies":{"eu":20},"requestId":"r-alice"}`).ok(t)
	if r.str("ticket.id") != alice || r.path("existed") != true {
		t.Fatalf("retry: %s", r.raw)
	}
	// The same request id with another body is refused.
	r = e.post("CreateTicket", `{"queue":"duel","players":[{"id":"alice","attributes":{"mmr":1600}}],"requestId":"r-alice"}`)
	r.refused(t, connect.CodeFailedPrecondition, "request_id: ", "r-alice", alice)
	if r.header.Get("Cupid-Field") != "request_id" {
		t.Fatalf("Cupid-Field %q", r.header.Get("Cupid-Field"))
	}

	// Bob is close enough: they are matched.
	bob := e.createJSON("bob", 1540)
	e.wait(0) // the pool takes Bob in and steps at 5 s
	e.wait(2 * time.Second)
	r = e.post("GetTicket", `{"id":"`+alice+`"}`).ok(t)
	if r.str("ticket.state") != "TICKET_STATE_MATCHED" || r.str("ticket.matchId") == "" || r.str("ticket.match.id") != r.str("ticket.matchId") {
		t.Fatalf("matched ticket: %s", r.raw)
	}
	if teams := r.list("ticket.match.teams"); len(teams) != 2 {
		t.Fatalf("match teams: %s", r.raw)
	}
	players := fmt.Sprint(r.path("ticket.match.teams.0.playerIds"), r.path("ticket.match.teams.1.playerIds"))
	if !strings.Contains(players, "alice") || !strings.Contains(players, "bob") {
		t.Fatalf("match players %s", players)
	}
	// They matched as soon as Bob arrived, before the clock moved again.
	if r.str("ticket.waited") != "5s" || r.path("ticket.why") != nil {
		t.Fatalf("a matched ticket waited until its match and has no why: %s", r.raw)
	}
	// Stats: one pool formed one match; the idle squad queue shows empty.
	r = e.post("QueueStats", `{}`).ok(t)
	if len(r.list("pools")) != 2 || r.str("pools.0.queue") != "duel" || r.str("pools.0.matchesFormed") != "1" ||
		r.str("pools.1.queue") != "squad" || r.path("pools.1.waiting") != nil || r.path("pools.0.rulesetVersion") != 1.0 {
		t.Fatalf("stats: %s", r.raw)
	}
	if q, ok := r.path("pools.0.meanQuality").(float64); !ok || q <= 0 || q > 1 {
		t.Fatalf("mean quality: %s", r.raw)
	}
	r = e.post("QueueStats", `{"queue":"squad"}`).ok(t)
	if len(r.list("pools")) != 1 || r.str("pools.0.queue") != "squad" {
		t.Fatalf("squad stats: %s", r.raw)
	}
	e.wait(time.Hour)
	if r = e.post("GetTicket", `{"id":"`+alice+`"}`).ok(t); r.str("ticket.waited") != "5s" {
		t.Fatalf("a matched ticket's wait should not grow: %s", r.raw)
	}

	// Carol cancels; a second cancel is refused; an unknown one is not found.
	carol := e.createJSON("carol", 100)
	e.wait(3 * time.Second)
	r = e.post("CancelTicket", `{"id":"`+carol+`"}`).ok(t)
	if r.str("ticket.state") != "TICKET_STATE_CANCELLED" || r.str("ticket.reason") != "" || r.str("ticket.waited") != "3s" {
		t.Fatalf("cancelled: %s", r.raw)
	}
	e.post("CancelTicket", `{"id":"`+carol+`"}`).refused(t, connect.CodeFailedPrecondition, "already cancelled")
	e.post("CancelTicket", `{"id":"nope"}`).refused(t, connect.CodeNotFound, `"nope"`)
	e.post("CancelTicket", `{}`).refused(t, connect.CodeInvalidArgument, "id: required")
	e.post("GetTicket", `{}`).refused(t, connect.CodeInvalidArgument, "id: required")

	// Dave waits out his time to live.
	dave := e.createJSON("dave", 4000)
	e.wait(ttl)
	r = e.post("GetTicket", `{"id":"`+dave+`"}`).ok(t)
	if r.str("ticket.state") != "TICKET_STATE_EXPIRED" || r.str("ticket.waited") != "60s" {
		t.Fatalf("expired: %s", r.raw)
	}

	// Lists, oldest first, by queue and state.
	r = e.post("ListTickets", `{"queue":"duel"}`).ok(t)
	if ids := ticketIDs(r, "tickets"); ids != strings.Join([]string{alice, bob, carol, dave}, ",") {
		t.Fatalf("list: %s, want alice, bob, carol, dave", ids)
	}
	r = e.post("ListTickets", `{"queue":"duel","state":"TICKET_STATE_MATCHED"}`).ok(t)
	if ids := ticketIDs(r, "tickets"); ids != alice+","+bob {
		t.Fatalf("matched list: %s", r.raw)
	}
	r = e.post("ListTickets", `{"state":3}`).ok(t)
	if ids := ticketIDs(r, "tickets"); ids != carol {
		t.Fatalf("cancelled list: %s", r.raw)
	}
	r = e.post("ListTickets", `{"queue":"duel","limit":1}`).ok(t)
	if ids := ticketIDs(r, "tickets"); ids != alice {
		t.Fatalf("limit 1: %s", r.raw)
	}
	if r = e.post("ListTickets", `{"queue":"squad"}`).ok(t); strings.TrimSpace(r.raw) != "{}" {
		t.Fatalf("empty list: %s", r.raw)
	}
	e.post("ListTickets", `{"queue":"nope"}`).refused(t, connect.CodeNotFound, "queue: ")
	e.post("ListTickets", `{"state":99}`).refused(t, connect.CodeInvalidArgument, "state: ", "99")
	e.post("ListTickets", `{"limit":-1}`).refused(t, connect.CodeInvalidArgument, "limit: ")
	e.post("ListTickets", `{"limit":1001}`).refused(t, connect.CodeInvalidArgument, "limit: ", "1000")

	e.post("QueueStats", `{"queue":"nope"}`).refused(t, connect.CodeNotFound, "queue: ", `"nope"`)
}

// ticketIDs joins the ids of a list of tickets.
func ticketIDs(r reply, path string) string {
	var ids []string
	for i := range r.list(path) {
		ids = append(ids, r.str(fmt.Sprintf("%s.%d.id", path, i)))
	}
	return strings.Join(ids, ",")
}

func TestStatsCountWaitingPoolsAndOldestWait(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.post("CreateTicket", `{"queue":"squad","players":[{"id":"a"},{"id":"b"}],"customKey":"night"}`).ok(t)
	e.wait(4 * time.Second)
	e.post("CreateTicket", `{"queue":"squad","players":[{"id":"c"}],"customKey":"night"}`).ok(t)
	e.wait(time.Second)
	r := e.post("QueueStats", `{"queue":"squad"}`).ok(t)
	if len(r.list("pools")) != 1 || r.str("pools.0.customKey") != "night" || r.str("pools.0.waiting") != "2" ||
		r.str("pools.0.playersWaiting") != "3" || r.str("pools.0.oldestWait") != "5s" {
		t.Fatalf("stats: %s", r.raw)
	}
}

func TestBadRequestsAreInvalidArgumentNever500(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, c := range []struct {
		method, body string
		field        string // in the message, when the server chose it
	}{
		{"CreateTicket", `not json`, ""},
		{"CreateTicket", `{"queue":`, ""},
		{"CreateTicket", `[]`, ""},
		{"CreateTicket", `{"queue":5}`, ""},
		{"CreateTicket", `{"queue":"duel","players":"alice"}`, ""},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1e999}}]}`, ""},
		{"CreateTicket", `{"queue":"duel","latencies":{"eu":"fast"}}`, ""},
		{"CreateTicket", `{"queue":"duel","replace":"yes"}`, ""},
		{"CreateTicket", "\xff\xfe", ""},
		{"CreateTicket", ``, ""},
		{"CreateTicket", `{}`, "queue: required"},
		{"CreateTicket", `{"queue":"duel"}`, "players: "},
		{"CreateTicket", `{"queue":"duel","players":[{"id":""}]}`, "players[0].id: required"},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":null}}]}`, "players[0].attributes.mmr: "},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":{"x":1}}}]}`, "players[0].attributes.mmr: "},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1,"tags":["a",1]}}]}`, "players[0].attributes.tags[1]: lists may hold only strings"},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1}}],"attributes":{"t":[true]}}`, "attributes.t[0]: "},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":"high"}}]}`, "players[0].attributes.mmr"},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a"}]}`, "players[0].attributes.mmr"},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1}},{"id":"a","attributes":{"mmr":1}}]}`, "players[1].id: "},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1}}],"latencies":{"eu":-5}}`, "latencies.eu: "},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a","attributes":{"mmr":1}}],"version":"` + strings.Repeat("v", 129) + `"}`, "version: "},
		{"CreateTickets", `{"tickets":{}}`, ""},
		{"CreateTickets", `{"tickets":[1]}`, ""},
		{"GetTicket", `{"id":5}`, ""},
		{"GetTicket", `{"id":"`, ""},
		{"CancelTicket", `{"id":[]}`, ""},
		{"ListTickets", `{"limit":"many"}`, ""},
		{"ListTickets", `{"limit":1.5}`, ""},
		{"QueueStats", `{"queue":{}}`, ""},
		{"WatchTicket", `{"id":"x"}`, ""}, // a stream, not a unary call: refused, never a crash
	} {
		t.Run(c.method+" "+c.body, func(t *testing.T) {
			r := e.with(t).post(c.method, c.body)
			if r.status >= 500 {
				t.Fatalf("status %d: %s", r.status, r.raw)
			}
			if c.method == "WatchTicket" {
				if r.status == http.StatusOK {
					t.Fatalf("a unary JSON call to a stream answered 200: %s", r.raw)
				}
				return
			}
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", r.status, r.raw)
			}
			r.refused(t, connect.CodeInvalidArgument, c.field)
		})
	}
	t.Run("misspelled state", func(t *testing.T) {
		e := e.with(t)
		e.post("ListTickets", `{"state":"TICKET_STATE_WAITNG"}`).refused(t, connect.CodeInvalidArgument, "state")
	})
	// An unknown queue is not found, naming the queue and the real ones.
	e.post("CreateTicket", `{"queue":"nope","players":[{"id":"a"}]}`).refused(t, connect.CodeNotFound, `queue: no queue "nope"`, "duel, squad")
	// A ticket refused is not stored.
	if r := e.post("ListTickets", `{}`).ok(t); strings.TrimSpace(r.raw) != "{}" {
		t.Fatalf("refused tickets were stored: %s", r.raw)
	}
}

// TestNaNOverProtobuf sends what JSON cannot: NaN and ±Inf in a binary
// protobuf request, over gRPC.
func TestNaNOverProtobuf(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.clients()["grpc"]
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := c.CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{
			Queue: "duel", Players: []*cupidv1.Player{player("a", 1), player("b", v)},
		}))
		ce := wantConnectErr(t, err, connect.CodeInvalidArgument, "players[1].attributes.mmr")
		if !strings.Contains(ce.Message(), "finite") {
			t.Fatalf("message %q", ce.Message())
		}
	}
}

func TestDuplicatePlayerAndReplace(t *testing.T) {
	e := newEnv(t, envOptions{})
	old := e.createJSON("alice", 1500)
	body := `{"queue":"duel","players":[{"id":"alice","attributes":{"mmr":1700}}]}`
	r := e.post("CreateTicket", body)
	r.refused(t, connect.CodeAlreadyExists, "players[0].id: ", `"alice"`, old, "replace")
	if r.status != http.StatusConflict || r.header.Get("Cupid-Field") != "players[0].id" {
		t.Fatalf("status %d Cupid-Field %q", r.status, r.header.Get("Cupid-Field"))
	}
	// Another queue is another matter.
	e.post("CreateTicket", `{"queue":"squad","players":[{"id":"alice"}]}`).ok(t)

	e.wait(time.Second)
	r = e.post("CreateTicket", strings.Replace(body, "}]}", `}],"replace":true}`, 1)).ok(t)
	repl := r.str("ticket.id")
	if repl == old || r.str("ticket.state") != "TICKET_STATE_WAITING" || r.path("ticket.players.0.attributes.mmr") != 1700.0 {
		t.Fatalf("replacement: %s", r.raw)
	}
	r = e.post("GetTicket", `{"id":"`+old+`"}`).ok(t)
	if r.str("ticket.state") != "TICKET_STATE_CANCELLED" || r.str("ticket.reason") != "replaced by ticket "+repl || r.str("ticket.waited") != "1s" {
		t.Fatalf("the replaced ticket: %s", r.raw)
	}
	// Only the replacement waits in duel; the squad ticket is untouched.
	r = e.post("ListTickets", `{"state":"TICKET_STATE_WAITING"}`).ok(t)
	if len(r.list("tickets")) != 2 || ticketIDs(r, "tickets") == "" || !strings.Contains(ticketIDs(r, "tickets"), repl) {
		t.Fatalf("waiting: %s", r.raw)
	}
	r = e.post("QueueStats", `{"queue":"duel"}`).ok(t)
	if r.str("pools.0.waiting") != "1" {
		t.Fatalf("the old ticket is still in its pool: %s", r.raw)
	}
}

func TestClientVersionSplitsPoolsOverJSON(t *testing.T) {
	e := newEnv(t, envOptions{})
	create := func(p, cv string) string {
		r := e.post("CreateTicket", `{"queue":"duel","players":[{"id":"`+p+`","attributes":{"mmr":1500}}],"attributes":{"client_version":"`+cv+`"}}`).ok(t)
		if r.str("ticket.version") != cv || r.str("ticket.attributes.client_version") != cv {
			t.Fatalf("client_version %s: %s", cv, r.raw)
		}
		return r.str("ticket.id")
	}
	a := create("a", "1.0")
	b := create("b", "2.0")
	e.wait(time.Second)
	for _, id := range []string{a, b} {
		if r := e.post("GetTicket", `{"id":"`+id+`"}`).ok(t); r.str("ticket.state") != "TICKET_STATE_WAITING" {
			t.Fatalf("tickets of two client versions met: %s", r.raw)
		}
	}
	r := e.post("QueueStats", `{"queue":"duel"}`).ok(t)
	if len(r.list("pools")) != 2 || r.str("pools.0.version") != "1.0" || r.str("pools.1.version") != "2.0" {
		t.Fatalf("pools: %s", r.raw)
	}
	create("c", "1.0")
	e.wait(time.Second)
	if r := e.post("GetTicket", `{"id":"`+a+`"}`).ok(t); r.str("ticket.state") != "TICKET_STATE_MATCHED" {
		t.Fatalf("tickets of one client version did not meet: %s", r.raw)
	}
}

// bulkResult is one result of CreateTickets as JSON.
type bulkResult struct{ id, state, code, msg, field string }

func bulk(t *testing.T, r reply) []bulkResult {
	t.Helper()
	var out []bulkResult
	for i := range r.list("results") {
		p := fmt.Sprintf("results.%d.", i)
		out = append(out, bulkResult{r.str(p + "ticket.id"), r.str(p + "ticket.state"), r.str(p + "errorCode"), r.str(p + "error"), r.str(p + "errorField")})
	}
	return out
}

func TestCreateTicketsResultsInOrder(t *testing.T) {
	e := newEnv(t, envOptions{})
	zed := e.createJSON("zed", 3000)
	r := e.post("CreateTickets", `{"tickets":[
		{"queue":"duel","players":[{"id":"p0","attributes":{"mmr":1000}}]},
		{"queue":"duel","players":[{"id":"p1","attributes":{"mmr":1000,"tags":["a",2]}}]},
		{"queue":"nope","players":[{"id":"p2"}]},
		{"queue":"duel","players":[{"id":"p3","attributes":{"mmr":3000}}],"requestId":"bulk-3"},
		{"queue":"squad","players":[{"id":"p4"},{"id":"p4"}]},
		{"queue":"duel","players":[{"id":"zed","attributes":{"mmr":3000}}]},
		{"queue":"duel","players":[{"id":"p0","attributes":{"mmr":5000}}]},
		{"queue":"duel","players":[{"id":"p7","attributes":{"mmr":1e300}}],"latencies":{"eu":70000}},
		{"queue":"squad","players":[{"id":"p8"}]}
	]}`).ok(t)
	res := bulk(t, r)
	if len(res) != 9 {
		t.Fatalf("%d results, want 9: %s", len(res), r.raw)
	}
	want := []struct{ code, field, mention string }{
		{},
		{"invalid_argument", "tickets[1].players[0].attributes.tags[1]", "only strings"},
		{"not_found", "tickets[2].queue", `"nope"`},
		{},
		{"invalid_argument", "tickets[4].players[1].id", `"p4"`},
		{"already_exists", "tickets[5].players[0].id", zed},
		// p0 is in tickets[0] of this very call.
		{"already_exists", "tickets[6].players[0].id", res[0].id},
		{"invalid_argument", "tickets[7].latencies.eu", "70000"},
		{},
	}
	for i, w := range want {
		g := res[i]
		if w.code == "" {
			if g.id == "" || g.state != "TICKET_STATE_WAITING" || g.code != "" || g.msg != "" || g.field != "" {
				t.Errorf("result %d: %+v, want a waiting ticket", i, g)
			}
			continue
		}
		if g.id != "" || g.code != w.code || g.field != w.field || !strings.HasPrefix(g.msg, w.field+": ") || !strings.Contains(g.msg, w.mention) {
			t.Errorf("result %d: %+v, want %s on %s mentioning %s", i, g, w.code, w.field, w.mention)
		}
	}
	// Results came in request order: the players are where they were.
	for _, i := range []int{0, 3, 8} {
		if got := r.str(fmt.Sprintf("results.%d.ticket.players.0.id", i)); got != fmt.Sprintf("p%d", i) {
			t.Errorf("result %d is the ticket of %s", i, got)
		}
	}
	// A call whose every ticket is refused stores nothing and answers each.
	r2 := e.post("CreateTickets", `{"tickets":[{"queue":""},{"queue":"duel","players":[{"id":"q","attributes":{"mmr":"x"}}]}]}`).ok(t)
	if all := bulk(t, r2); len(all) != 2 || all[0].field != "tickets[0].queue" || all[1].code != "invalid_argument" ||
		!strings.HasPrefix(all[1].field, "tickets[1].players[0]") {
		t.Fatalf("all refused: %s", r2.raw)
	}
	// An idempotent retry in a bulk call says it existed.
	r = e.post("CreateTickets", `{"tickets":[{"queue":"duel","players":[{"id":"p3","attributes":{"mmr":3000}}],"requestId":"bulk-3"}]}`).ok(t)
	if r.str("results.0.ticket.id") != res[3].id || r.path("results.0.existed") != true {
		t.Fatalf("retry: %s", r.raw)
	}
	// p3 and zed are close in mmr: they matched; the refused tickets were not stored.
	e.wait(time.Second)
	if r := e.post("GetTicket", `{"id":"`+zed+`"}`).ok(t); r.str("ticket.state") != "TICKET_STATE_MATCHED" {
		t.Fatalf("zed: %s", r.raw)
	}
	if r := e.post("ListTickets", `{}`).ok(t); len(r.list("tickets")) != 4 {
		t.Fatalf("stored tickets: %s", r.raw)
	}
}

func TestCreateTicketsCountLimits(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, body := range []string{`{}`, `{"tickets":[]}`} {
		r := e.post("CreateTickets", body)
		r.refused(t, connect.CodeInvalidArgument, "tickets: ", "at least one")
		if r.header.Get("Cupid-Field") != "tickets" {
			t.Fatalf("Cupid-Field %q", r.header.Get("Cupid-Field"))
		}
	}
	many := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"tickets":[`)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"queue":"squad","players":[{"id":"p%d"}]}`, i)
		}
		b.WriteString("]}")
		return b.String()
	}
	r := e.post("CreateTickets", many(MaxBulkTickets+1))
	r.refused(t, connect.CodeInvalidArgument, "tickets: ", "1000", "1001")
	if r.header.Get("Cupid-Field") != "tickets" {
		t.Fatalf("Cupid-Field %q", r.header.Get("Cupid-Field"))
	}
	if r := e.post("ListTickets", `{}`).ok(t); strings.TrimSpace(r.raw) != "{}" {
		t.Fatal("a refused bulk call stored tickets")
	}
	r = e.post("CreateTickets", many(MaxBulkTickets)).ok(t)
	res := bulk(t, r)
	if len(res) != MaxBulkTickets {
		t.Fatalf("%d results", len(res))
	}
	for i, g := range res {
		if g.id == "" || g.code != "" {
			t.Fatalf("result %d: %+v", i, g)
		}
	}
	for _, i := range []int{0, 1, 500, 999} {
		if got := r.str(fmt.Sprintf("results.%d.ticket.players.0.id", i)); got != fmt.Sprintf("p%d", i) {
			t.Fatalf("result %d is the ticket of %s", i, got)
		}
	}
	if r := e.post("ListTickets", `{"queue":"squad","limit":1000}`).ok(t); len(r.list("tickets")) != MaxBulkTickets {
		t.Fatalf("stored %d tickets", len(r.list("tickets")))
	}
}

func TestStoreFailuresAnswerUnavailable(t *testing.T) {
	e := newEnv(t, envOptions{})
	alice := e.createJSON("alice", 1500)
	disk := errors.New("disk full at /secret/path")

	e.store.Fail("CreateTickets", disk)
	r := e.post("CreateTicket", `{"queue":"duel","players":[{"id":"bob","attributes":{"mmr":4000}}]}`)
	r.refused(t, connect.CodeUnavailable, "try again")
	if r.status != http.StatusServiceUnavailable {
		t.Fatalf("status %d", r.status)
	}
	r = e.post("CreateTickets", `{"tickets":[
		{"queue":"duel","players":[{"id":"bob","attributes":{"mmr":4000}}]},
		{"queue":"duel","players":[{"id":"carol"}]},
		{"queue":"duel","players":[{"id":"dave","attributes":{"mmr":4000}}]}]}`).ok(t)
	res := bulk(t, r)
	want := []bulkResult{
		{code: "unavailable", field: "tickets[0]"},
		{code: "invalid_argument", field: "tickets[1].players[0].attributes.mmr"},
		{code: "unavailable", field: "tickets[2]"},
	}
	if len(res) != len(want) {
		t.Fatalf("results: %s", r.raw)
	}
	for i, w := range want {
		if g := res[i]; g.id != "" || g.code != w.code || g.field != w.field || !strings.HasPrefix(g.msg, w.field+": ") {
			t.Errorf("result %d: %+v, want %s on %s", i, g, w.code, w.field)
		}
	}
	e.store.Fail("CreateTickets", nil)
	bob := e.createJSON("bob", 4000)

	e.store.Fail("FinishTicket", disk)
	r = e.post("CancelTicket", `{"id":"`+bob+`"}`)
	r.refused(t, connect.CodeUnavailable)
	if r.status != http.StatusServiceUnavailable {
		t.Fatalf("status %d", r.status)
	}
	e.store.Fail("FinishTicket", nil)
	if r := e.post("GetTicket", `{"id":"`+bob+`"}`).ok(t); r.str("ticket.state") != "TICKET_STATE_WAITING" {
		t.Fatalf("a failed cancel changed the ticket: %s", r.raw)
	}
	e.post("CancelTicket", `{"id":"`+bob+`"}`).ok(t)

	for _, c := range []struct{ op, method, body string }{
		{"Ticket", "GetTicket", `{"id":"` + alice + `"}`},
		{"Ticket", "CancelTicket", `{"id":"` + alice + `"}`},
		{"Tickets", "ListTickets", `{}`},
	} {
		e.store.Fail(c.op, disk)
		if c.method == "CancelTicket" {
			e.store.Fail("FinishTicket", disk)
		}
		e.post(c.method, c.body).refused(t, connect.CodeUnavailable)
		e.store.Fail(c.op, nil)
		e.store.Fail("FinishTicket", nil)
	}
	// A matched ticket whose match cannot be read.
	e.createJSON("erin", 1510)
	e.wait(time.Second)
	e.store.Fail("Match", disk)
	e.post("GetTicket", `{"id":"`+alice+`"}`).refused(t, connect.CodeUnavailable)
	e.store.Fail("Match", nil)
	if r := e.post("GetTicket", `{"id":"`+alice+`"}`).ok(t); r.str("ticket.state") != "TICKET_STATE_MATCHED" {
		t.Fatalf("alice: %s", r.raw)
	}
}

// TestCreateUnderEveryProtocol sends the same ticket over gRPC, gRPC-Web
// and Connect with protobuf and JSON codecs.
func TestCreateUnderEveryProtocol(t *testing.T) {
	e := newEnv(t, envOptions{})
	clients := e.clients()
	clients["connect-proto"] = cupidv1connect.NewTicketServiceClient(http.DefaultClient, e.url)
	i := 0
	for name, c := range clients {
		i++
		t.Run(name, func(t *testing.T) {
			e := e.with(t)
			tk := e.create(c, "duel", &cupidv1.Player{Id: name, Attributes: map[string]*structpb.Value{
				"mmr": structpb.NewNumberValue(float64(1000 * i)), "tags": list(structpb.NewStringValue("x")),
			}})
			res, err := c.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: tk.GetId()}))
			if err != nil {
				t.Fatal(err)
			}
			got := res.Msg.GetTicket()
			if got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING || got.GetPlayers()[0].GetId() != name ||
				got.GetPlayers()[0].GetAttributes()["tags"].GetListValue().GetValues()[0].GetStringValue() != "x" {
				t.Fatalf("ticket %v", got)
			}
			_, err = c.CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{player(name, 1)}}))
			wantConnectErr(t, err, connect.CodeAlreadyExists, "players[0].id")
		})
	}
}
