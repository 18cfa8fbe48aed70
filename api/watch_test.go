package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// A watch blocks until the server sends; these bound a test that would
// otherwise hang on a missing event. No test sleeps: events arrive when the
// service decides, and decisions wait on the test's clock and Wake.
const watchTimeout = 20 * time.Second

// watcher reads one WatchTicket stream.
type watcher struct {
	t      *testing.T
	stream *connect.ServerStreamForClient[cupidv1.TicketEvent]
}

func watch(t *testing.T, c cupidv1connect.TicketServiceClient, id string, after int64) *watcher {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	t.Cleanup(cancel)
	stream, err := c.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: id, AfterSeq: after}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Close() })
	return &watcher{t: t, stream: stream}
}

// next returns the next event, failing when the stream ends.
func (w *watcher) next(kind string) *cupidv1.TicketEvent {
	w.t.Helper()
	if !w.stream.Receive() {
		w.t.Fatalf("the stream ended (%v), want a %s event", w.stream.Err(), kind)
	}
	ev := w.stream.Msg()
	if ev.GetKind() != kind {
		w.t.Fatalf("event %v, want %s", ev, kind)
	}
	return ev
}

// end fails unless the stream ends cleanly now.
func (w *watcher) end() {
	w.t.Helper()
	if w.stream.Receive() {
		w.t.Fatalf("an event after the final one: %v", w.stream.Msg())
	}
	if err := w.stream.Err(); err != nil {
		w.t.Fatalf("the stream ended with %v, want a clean end", err)
	}
}

// sortedNames keeps the protocols' subtests in one order, so each gets
// its own players and skill band.
func sortedNames(m map[string]cupidv1connect.TicketServiceClient) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestWatchTicketStream(t *testing.T) {
	e := newEnv(t, envOptions{})
	clients := e.clients()
	for i, name := range sortedNames(clients) {
		c := clients[name]
		mmr := float64(5000 * (i + 1)) // no two protocols' players meet
		t.Run(name, func(t *testing.T) {
			e := e.with(t)
			a := e.create(c, "duel", player(name+"-a", mmr))
			w := watch(t, c, a.GetId(), 0)
			created := w.next("created")
			if created.GetTicketId() != a.GetId() || created.GetSeq() <= 0 || !created.GetAt().AsTime().Equal(a.GetCreatedAt().AsTime()) {
				t.Fatalf("created event %v", created)
			}
			b := e.create(c, "duel", player(name+"-b", mmr+10))
			e.wait(time.Second)
			matched := w.next("matched")
			if matched.GetSeq() <= created.GetSeq() || matched.GetTicketId() != a.GetId() || matched.GetReason() != "" {
				t.Fatalf("matched event %v after %v", matched, created)
			}
			m := matched.GetMatch()
			if m.GetId() == "" || len(m.GetTeams()) != 2 || m.GetQuality().GetScore() <= 0 {
				t.Fatalf("match %v", m)
			}
			var tickets []string
			for _, team := range m.GetTeams() {
				tickets = append(tickets, team.GetTicketIds()...)
			}
			sort.Strings(tickets)
			want := []string{a.GetId(), b.GetId()}
			sort.Strings(want)
			if strings.Join(tickets, ",") != strings.Join(want, ",") {
				t.Fatalf("match tickets %v, want %v", tickets, want)
			}
			w.end()

			// A watcher that saw the end, or asks from past it, gets the
			// final event at once; one that saw only the start gets the rest.
			for _, after := range []int64{matched.GetSeq(), matched.GetSeq() + 1, matched.GetSeq() + 1000} {
				w := watch(t, c, a.GetId(), after)
				if ev := w.next("matched"); ev.GetSeq() != matched.GetSeq() || ev.GetMatch().GetId() != m.GetId() {
					t.Fatalf("after_seq %d: %v", after, ev)
				}
				w.end()
			}
			w = watch(t, c, a.GetId(), created.GetSeq())
			w.next("matched")
			w.end()
			w = watch(t, c, a.GetId(), 0)
			w.next("created")
			w.next("matched")
			w.end()
		})
	}
}

func TestWatchEndsWithCancelExpiryAndReason(t *testing.T) {
	e := newEnv(t, envOptions{})
	c := e.clients()["grpc"]

	// Cancelled by its owner: no reason.
	a := e.create(c, "duel", player("a", 1000))
	w := watch(t, c, a.GetId(), 0)
	w.next("created")
	if _, err := c.CancelTicket(context.Background(), connect.NewRequest(&cupidv1.CancelTicketRequest{Id: a.GetId()})); err != nil {
		t.Fatal(err)
	}
	if ev := w.next("cancelled"); ev.GetReason() != "" || ev.GetMatch() != nil {
		t.Fatalf("cancel event %v", ev)
	}
	w.end()

	// Replaced: cancelled, with the reason.
	b := e.create(c, "duel", player("b", 2000))
	w = watch(t, c, b.GetId(), 0)
	w.next("created")
	res, err := c.CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{
		Queue: "duel", Players: []*cupidv1.Player{player("b", 2100)}, Replace: true,
	}))
	if err != nil {
		t.Fatal(err)
	}
	if ev := w.next("cancelled"); ev.GetReason() != "replaced by ticket "+res.Msg.GetTicket().GetId() {
		t.Fatalf("replaced event %v", ev)
	}
	w.end()

	// Expired when its time to live has passed.
	d := e.create(c, "duel", player("d", 9000))
	w = watch(t, c, d.GetId(), 0)
	w.next("created")
	e.wait(ttl)
	if ev := w.next("expired"); !ev.GetAt().AsTime().Equal(epoch.Add(ttl)) {
		t.Fatalf("expiry event %v", ev)
	}
	w.end()
}

func TestWatchRefusals(t *testing.T) {
	e := newEnv(t, envOptions{})
	for name, c := range e.clients() {
		t.Run(name, func(t *testing.T) {
			for _, r := range []struct {
				id    string
				after int64
				code  connect.Code
				field string
			}{
				{"nope", 0, connect.CodeNotFound, "id"},
				{"nope", 5, connect.CodeNotFound, "id"},
				{"", 0, connect.CodeInvalidArgument, "id"},
				{"x", -1, connect.CodeInvalidArgument, "after_seq"},
			} {
				w := watch(t, c, r.id, r.after)
				if w.stream.Receive() {
					t.Fatalf("%q after %d: an event %v", r.id, r.after, w.stream.Msg())
				}
				wantConnectErr(t, w.stream.Err(), r.code, r.field)
			}
		})
	}
}

// TestWatchReplaysFromTheStore watches through a second service over the
// same store, as after a restart: the hub knows nothing, so the history
// comes from the store.
func TestWatchReplaysFromTheStore(t *testing.T) {
	first := newEnv(t, envOptions{})
	c := first.client()
	a := first.create(c, "duel", player("a", 1500))
	first.create(c, "duel", player("b", 1510))
	first.wait(time.Second)
	first.svc.Close()

	e := newEnv(t, envOptions{store: first.store})
	c = e.client()
	w := watch(t, c, a.GetId(), 0)
	created := w.next("created")
	matched := w.next("matched")
	w.end()
	w = watch(t, c, a.GetId(), matched.GetSeq()+7)
	w.next("matched")
	w.end()
	w = watch(t, c, a.GetId(), created.GetSeq())
	w.next("matched")
	w.end()

	e.store.Fail("Events", errTest)
	w = watch(t, c, a.GetId(), 0)
	if w.stream.Receive() {
		t.Fatalf("an event from a failing store: %v", w.stream.Msg())
	}
	wantConnectErr(t, w.stream.Err(), connect.CodeUnavailable, "")
}

var errTest = &testError{"disk gone"}

type testError struct{ s string }

func (e *testError) Error() string { return e.s }

// wsEvent is a TicketEvent as the WebSocket sends it: Connect's JSON.
type wsEvent struct {
	Seq      string `json:"seq"`
	TicketID string `json:"ticketId"`
	Kind     string `json:"kind"`
	At       string `json:"at"`
	Reason   string `json:"reason"`
	Match    *struct {
		ID    string `json:"id"`
		Teams []struct {
			PlayerIDs []string `json:"playerIds"`
		} `json:"teams"`
	} `json:"match"`
}

func (e *env) socket(t *testing.T, id string, query string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	u := strings.Replace(e.url, "http", "ws", 1) + "/v1/tickets/" + id + "/ws" + query
	ws, res, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		t.Fatalf("dial %s: %v (status %d)", u, err, status)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

func readEvent(t *testing.T, ws *websocket.Conn, kind string) wsEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	typ, b, err := ws.Read(ctx)
	if err != nil {
		t.Fatalf("read, want a %s event: %v", kind, err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("a %v message", typ)
	}
	var ev wsEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if ev.Kind != kind {
		t.Fatalf("event %s, want %s", b, kind)
	}
	return ev
}

func wantNormalClose(t *testing.T, ws *websocket.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	_, b, err := ws.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("after the final event: %q, %v; want a normal close", b, err)
	}
}

func TestWatchSocket(t *testing.T) {
	e := newEnv(t, envOptions{})
	alice := e.createJSON("alice", 1500)
	ws := e.socket(t, alice, "")
	created := readEvent(t, ws, "created")
	if created.TicketID != alice || created.Seq == "" || created.At != "2026-01-02T03:04:05Z" {
		t.Fatalf("created %+v", created)
	}
	e.createJSON("bob", 1520)
	e.wait(time.Second)
	matched := readEvent(t, ws, "matched")
	seq, _ := strconv.ParseInt(matched.Seq, 10, 64)
	first, _ := strconv.ParseInt(created.Seq, 10, 64)
	if matched.Match == nil || matched.Match.ID == "" || len(matched.Match.Teams) != 2 || first <= 0 || seq <= first {
		t.Fatalf("matched %+v after %+v", matched, created)
	}
	wantNormalClose(t, ws)

	for _, after := range []int64{seq, seq + 1, seq + 1000} {
		ws := e.socket(t, alice, "?after_seq="+strconv.FormatInt(after, 10))
		if ev := readEvent(t, ws, "matched"); ev.Seq != matched.Seq || ev.Match == nil || ev.Match.ID != matched.Match.ID {
			t.Fatalf("after_seq %d: %+v", after, ev)
		}
		wantNormalClose(t, ws)
	}
	ws = e.socket(t, alice, "?after_seq="+created.Seq)
	readEvent(t, ws, "matched")
	wantNormalClose(t, ws)

	// A replaced ticket's socket says why it ended.
	carol := e.createJSON("carol", 9000)
	ws = e.socket(t, carol, "?after_seq=0")
	readEvent(t, ws, "created")
	r := e.post("CreateTicket", `{"queue":"duel","replace":true,"players":[{"id":"carol","attributes":{"mmr":9100}}]}`).ok(t)
	if ev := readEvent(t, ws, "cancelled"); ev.Reason != "replaced by ticket "+r.str("ticket.id") {
		t.Fatalf("cancelled %+v", ev)
	}
	wantNormalClose(t, ws)
}

func TestWatchSocketRefusals(t *testing.T) {
	e := newEnv(t, envOptions{})
	alice := e.createJSON("alice", 1500)
	for _, c := range []struct {
		path   string
		status int
		code   connect.Code
		msg    string
	}{
		{"/v1/tickets/nope/ws", http.StatusNotFound, connect.CodeNotFound, `id: no ticket "nope"`},
		{"/v1/tickets/" + alice + "/ws?after_seq=-1", http.StatusBadRequest, connect.CodeInvalidArgument, "after_seq: "},
		{"/v1/tickets/" + alice + "/ws?after_seq=abc", http.StatusBadRequest, connect.CodeInvalidArgument, `"abc"`},
		{"/v1/tickets/" + alice + "/ws?after_seq=99999999999999999999", http.StatusBadRequest, connect.CodeInvalidArgument, "after_seq: "},
	} {
		r := e.get(c.path)
		if r.status != c.status {
			t.Fatalf("%s: status %d, want %d: %s", c.path, r.status, c.status, r.raw)
		}
		r.refused(t, c.code, c.msg)
	}
	// The refusals come before the upgrade, so a WebSocket client reads them.
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	_, res, err := websocket.Dial(ctx, strings.Replace(e.url, "http", "ws", 1)+"/v1/tickets/nope/ws", nil)
	if err == nil || res == nil || res.StatusCode != http.StatusNotFound {
		t.Fatalf("dial an unknown ticket: %v, %v", res, err)
	}
	// A plain GET of an existing ticket's socket is not an upgrade.
	if r := e.get("/v1/tickets/" + alice + "/ws"); r.status == http.StatusOK || r.status >= 500 {
		t.Fatalf("GET without an upgrade: %d %s", r.status, r.raw)
	}
	// A page of another origin may not open the socket unless allowed.
	_, res, err = websocket.Dial(ctx, strings.Replace(e.url, "http", "ws", 1)+"/v1/tickets/"+alice+"/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://evil.example"}}})
	if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
		t.Fatalf("dial from another origin: %v, %v", res, err)
	}
	// A store that cannot say whether the ticket exists: unavailable.
	e.store.Fail("Ticket", errTest)
	r := e.get("/v1/tickets/" + alice + "/ws")
	if r.status != http.StatusServiceUnavailable {
		t.Fatalf("failing store: %d %s", r.status, r.raw)
	}
	r.refused(t, connect.CodeUnavailable)
}

// TestWatchSocketClosesTryAgainLaterOnFailure: when the watch fails after
// the upgrade (here the store cannot replay the history), the socket closes
// with 1013 "try again later" and the error's message as the reason, so the
// client reconnects.
func TestWatchSocketClosesTryAgainLaterOnFailure(t *testing.T) {
	first := newEnv(t, envOptions{})
	alice := first.createJSON("alice", 1500)
	first.svc.Close()
	e := newEnv(t, envOptions{store: first.store}) // the hub knows nothing: replay from the store

	read := func(t *testing.T) websocket.CloseError {
		t.Helper()
		ws := e.socket(t, alice, "")
		ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
		defer cancel()
		_, b, err := ws.Read(ctx)
		var ce websocket.CloseError
		if !errors.As(err, &ce) {
			t.Fatalf("read %q, %v; want a close", b, err)
		}
		return ce
	}
	e.store.Fail("Events", errTest)
	ce := read(t)
	// The store's own words stay in the server's log, not the client's.
	if ce.Code != websocket.StatusTryAgainLater || strings.Contains(ce.Reason, "disk gone") || !strings.Contains(ce.Reason, "try again") {
		t.Fatalf("close %v", ce)
	}

	t.Run("long reason", func(t *testing.T) {
		// A store error long enough to be cut, of two-byte runes.
		e.store.Fail("Events", &testError{"x" + strings.Repeat("é", 100)})
		ce := read(t)
		if ce.Code != websocket.StatusTryAgainLater || len(ce.Reason) > 123 {
			t.Fatalf("close %v", ce)
		}
		if !utf8.ValidString(ce.Reason) {
			t.Fatalf("api/ws.go truncate cut the close reason at 100 bytes, inside a UTF-8 sequence: the reason %q is not valid UTF-8, which RFC 6455 forbids (browsers fail the connection, 1006 instead of 1013)", ce.Reason)
		}
	})
}
