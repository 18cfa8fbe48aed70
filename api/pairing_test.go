package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// PairingService over JSON, as docs/pairing.md's curl examples call it:
// an event from creation to deletion through every procedure, each
// answer checked against what the call should have changed.

func strs(r reply, p string) []string {
	var out []string
	for _, v := range r.list(p) {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// edges lists a met-graph's edges as "from>to", sorted.
func edges(r reply) []string {
	var out []string
	for _, v := range r.list("edges") {
		m := v.(map[string]any)
		out = append(out, m["from"].(string)+">"+m["to"].(string))
	}
	slices.Sort(out)
	return out
}

func TestPairingEventOverJSON(t *testing.T) {
	e := newSvcEnv(t, svcOptions{})
	p := func(method, body string) reply {
		t.Helper()
		return e.rpc("PairingService/"+method, "", body).ok(t)
	}
	r := p("CreateEvent", `{"id":"friday","name":"Friday speed dating","settings":{"rooms":2,"roundSeconds":300,"countdownSeconds":30,"minLobby":2,"extensionSeconds":60}}`)
	if r.str("event.id") != "friday" || r.str("event.phase") != "idle" || r.num("event.settings.roundSeconds") != 300 ||
		r.num("event.settings.countdownSeconds") != 30 || r.num("event.settings.minLobby") != 2 || r.num("event.settings.extensionSeconds") != 60 {
		t.Fatalf("create: %s", r.raw)
	}
	// A duration given in milliseconds reads back in milliseconds.
	r = p("CreateEvent", `{"id":"quick","name":"Quick","settings":{"rooms":1,"roundMillis":1500,"countdownMillis":250}}`)
	if r.num("event.settings.roundMillis") != 1500 || r.num("event.settings.countdownMillis") != 250 || r.path("event.settings.roundSeconds") != nil {
		t.Fatalf("create in milliseconds: %s", r.raw)
	}

	for _, who := range []string{"ann", "bob", "cid"} {
		if r := p("Join", `{"eventId":"friday","participant":"`+who+`"}`); r.str("state") != "away" {
			t.Fatalf("join %s: %s", who, r.raw)
		}
	}
	for _, who := range []string{"ann", "bob"} {
		if r := p("EnterLobby", `{"eventId":"friday","participant":"`+who+`"}`); r.str("state") != "lobby" {
			t.Fatalf("enter lobby %s: %s", who, r.raw)
		}
	}
	r = p("GetEvent", `{"id":"friday"}`)
	if r.num("event.participantCount") != 3 || r.num("event.lobbyCount") != 2 || !slices.Equal(strs(r, "event.lobby"), []string{"ann", "bob"}) {
		t.Fatalf("get: %s", r.raw)
	}

	// The organiser starts the round at once: ann and bob share a room.
	p("StartRound", `{"eventId":"friday"}`)
	r = p("GetEvent", `{"id":"friday"}`)
	pairs := r.list("event.pairs")
	if r.str("event.phase") != "round" || r.num("event.round") != 1 || len(pairs) != 1 {
		t.Fatalf("after StartRound: %s", r.raw)
	}
	pair := pairs[0].(map[string]any)
	if got := []string{pair["a"].(string), pair["b"].(string)}; !slices.Contains(got, "ann") || !slices.Contains(got, "bob") {
		t.Fatalf("pair %v", pair)
	}
	if r := p("MetGraph", `{"eventId":"friday"}`); !slices.Equal(edges(r), []string{"ann>bob", "bob>ann"}) || r.num("round") != 1 {
		t.Fatalf("met-graph after the round: %s", r.raw)
	}
	r = p("GetRounds", `{"eventId":"friday"}`)
	if len(r.list("rounds")) != 1 || r.num("rounds.0.round") != 1 || len(r.list("rounds.0.rooms")) != 1 || r.path("more") == true {
		t.Fatalf("rounds: %s", r.raw)
	}
	// Both ask for more time: their date runs past the round's end.
	p("ExtendDate", `{"eventId":"friday","participant":"ann"}`)
	if r := p("ExtendDate", `{"eventId":"friday","participant":"bob"}`); r.str("state") != "room" || r.str("partner") != "ann" || r.num("room") != 1 {
		t.Fatalf("extend: %s", r.raw)
	}
	if r := p("GetEvent", `{"id":"friday"}`); r.str("event.pairs.0.until") == "" || r.str("event.deadline") == "" {
		t.Fatalf("an extended date has no end: %s", r.raw)
	}
	p("EndRound", `{"eventId":"friday"}`)

	// Both would meet again: told at the reveal, listed from then on.
	p("Answer", `{"eventId":"friday","participant":"ann","other":"bob","yes":true}`)
	p("Answer", `{"eventId":"friday","participant":"bob","other":"ann","yes":true}`)
	e.rpc("PairingService/GetMatches", "", `{"eventId":"friday","participant":"ann"}`).refused(t, connect.CodeFailedPrecondition, "reveal")
	if r := p("RevealMatches", `{"eventId":"friday"}`); r.path("event.revealed") != true {
		t.Fatalf("reveal: %s", r.raw)
	}
	if r := p("GetMatches", `{"eventId":"friday","participant":"ann"}`); !slices.Equal(strs(r, "matches"), []string{"bob"}) {
		t.Fatalf("matches after the reveal: %s", r.raw)
	}

	// A never list is the participant's own.
	if r := p("AddNever", `{"eventId":"friday","participant":"ann","other":"cid"}`); !slices.Equal(strs(r, "never"), []string{"cid"}) {
		t.Fatalf("add never: %s", r.raw)
	}
	if r := p("GetNeverList", `{"eventId":"friday","participant":"ann"}`); !slices.Equal(strs(r, "never"), []string{"cid"}) {
		t.Fatalf("never list: %s", r.raw)
	}
	if r := p("RemoveNever", `{"eventId":"friday","participant":"ann","other":"cid"}`); len(r.list("never")) != 0 {
		t.Fatalf("remove never: %s", r.raw)
	}

	// Records: forgetting one person is one's own side only; the
	// organiser's records go both ways.
	p("ForgetMeeting", `{"eventId":"friday","participant":"ann","other":"bob"}`)
	if r := p("MetGraph", `{"eventId":"friday"}`); !slices.Equal(edges(r), []string{"bob>ann"}) {
		t.Fatalf("met-graph after ann forgot bob: %s", r.raw)
	}
	p("RecordMeeting", `{"eventId":"friday","a":"ann","b":"cid"}`)
	p("ImportHistory", `{"eventId":"friday","entries":[{"from":"cid","to":"bob"}]}`)
	if r := p("MetGraph", `{"eventId":"friday"}`); !slices.Equal(edges(r), []string{"ann>cid", "bob>ann", "cid>ann", "cid>bob"}) {
		t.Fatalf("met-graph after records: %s", r.raw)
	}
	p("ClearRecord", `{"eventId":"friday","participant":"cid"}`)
	if r := p("MetGraph", `{"eventId":"friday"}`); !slices.Equal(edges(r), []string{"ann>cid", "bob>ann"}) {
		t.Fatalf("met-graph after cid cleared: %s", r.raw)
	}

	// Settings change what they are given and keep the rest.
	r = p("UpdateSettings", `{"eventId":"friday","settings":{"rooms":3,"trios":true}}`)
	if r.num("event.settings.rooms") != 3 || r.num("event.settings.roundSeconds") != 300 || r.path("event.settings.trios") != true {
		t.Fatalf("update settings: %s", r.raw)
	}
	if r := p("PauseEvent", `{"eventId":"friday"}`); r.path("event.paused") != true {
		t.Fatalf("pause: %s", r.raw)
	}
	if r := p("ResumeEvent", `{"eventId":"friday"}`); r.path("event.paused") == true {
		t.Fatalf("resume: %s", r.raw)
	}

	if r := p("LeaveLobby", `{"eventId":"friday","participant":"ann"}`); r.str("state") != "away" {
		t.Fatalf("leave lobby: %s", r.raw)
	}
	if r := p("Leave", `{"eventId":"friday","participant":"ann"}`); r.str("state") != "gone" {
		t.Fatalf("leave: %s", r.raw)
	}

	// The list leaves the people out.
	r = p("ListEvents", `{}`)
	if len(r.list("events")) != 2 || r.path("events.0.participants") != nil {
		t.Fatalf("list: %s", r.raw)
	}
	p("DeleteEvent", `{"id":"quick"}`)
	e.rpc("PairingService/GetEvent", "", `{"id":"quick"}`).refused(t, connect.CodeNotFound, "quick")
	if r := p("ListEvents", `{}`); len(r.list("events")) != 1 {
		t.Fatalf("list after delete: %s", r.raw)
	}
}

// Bad settings are refused naming the field, and no event is created or
// changed.
func TestPairingRefusesBadInputNamingTheField(t *testing.T) {
	e := newSvcEnv(t, svcOptions{})
	for _, c := range []struct {
		name, settings, field string
	}{
		{"no settings", ``, "settings"},
		{"no rooms", `"settings":{}`, "settings.rooms"},
		{"negative rooms", `"settings":{"rooms":-1}`, "settings.rooms"},
		{"too many rooms", `"settings":{"rooms":50001}`, "settings.rooms"},
		{"negative round", `"settings":{"rooms":1,"roundSeconds":-1}`, "settings.round_seconds"},
		{"negative round millis", `"settings":{"rooms":1,"roundMillis":-1}`, "settings.round_millis"},
		{"seconds and millis", `"settings":{"rooms":1,"roundSeconds":1,"roundMillis":5}`, "settings.round_millis"},
		{"round over a day", `"settings":{"rooms":1,"roundSeconds":86401}`, "settings.round_seconds"},
		{"countdown over an hour", `"settings":{"rooms":1,"countdownMillis":3600001}`, "settings.countdown_millis"},
		{"lobby of one", `"settings":{"rooms":1,"minLobby":1}`, "settings.min_lobby"},
		{"negative minimum date", `"settings":{"rooms":1,"minDateSeconds":-5}`, "settings.min_date_seconds"},
		{"extension over a day", `"settings":{"rooms":1,"extensionSeconds":90000}`, "settings.extension_seconds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"id":"bad"` + map[bool]string{true: "", false: "," + c.settings}[c.settings == ""] + `}`
			msg := e.rpc("PairingService/CreateEvent", "", body).refused(t, connect.CodeInvalidArgument)
			if !strings.HasPrefix(msg, c.field+": ") {
				t.Fatalf("message %q does not start with the field %s", msg, c.field)
			}
			e.rpc("PairingService/GetEvent", "", `{"id":"bad"}`).refused(t, connect.CodeNotFound)
		})
	}

	e.rpc("PairingService/CreateEvent", "", `{"id":"ok","settings":{"rooms":2,"roundSeconds":60}}`).ok(t)
	for _, c := range []struct {
		name, body, field string
	}{
		{"no settings", `{"eventId":"ok"}`, "settings"},
		{"too many rooms", `{"eventId":"ok","settings":{"rooms":50001}}`, "settings.rooms"},
		{"negative countdown", `{"eventId":"ok","settings":{"countdownSeconds":-1}}`, "settings.countdown_seconds"},
		{"negative round", `{"eventId":"ok","settings":{"roundSeconds":-1}}`, "settings.round_seconds"},
		{"lobby of one", `{"eventId":"ok","settings":{"minLobby":1}}`, "settings.min_lobby"},
		{"negative extension", `{"eventId":"ok","settings":{"extensionSeconds":-1}}`, "settings.extension_seconds"},
	} {
		t.Run("update "+c.name, func(t *testing.T) {
			msg := e.rpc("PairingService/UpdateSettings", "", c.body).refused(t, connect.CodeInvalidArgument)
			if !strings.HasPrefix(msg, c.field+": ") {
				t.Fatalf("message %q does not start with the field %s", msg, c.field)
			}
			r := e.rpc("PairingService/GetEvent", "", `{"id":"ok"}`).ok(t)
			if r.num("event.settings.rooms") != 2 || r.num("event.settings.roundSeconds") != 60 {
				t.Fatalf("a refused update changed the event: %s", r.raw)
			}
		})
	}

	// A group is given only on Join.
	e.rpc("PairingService/Join", "", `{"eventId":"ok","participant":"ann"}`).ok(t)
	e.rpc("PairingService/EnterLobby", "", `{"eventId":"ok","participant":"ann","group":"x"}`).refused(t, connect.CodeInvalidArgument, "group")
	if r := e.rpc("PairingService/GetEvent", "", `{"id":"ok"}`).ok(t); r.num("event.lobbyCount") != 0 {
		t.Fatalf("a refused EnterLobby changed the lobby: %s", r.raw)
	}
	// An import past the limit is refused whole.
	var b strings.Builder
	b.WriteString(`{"eventId":"ok","entries":[`)
	for i := range 10_001 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"from":"a","to":"b"}`)
	}
	b.WriteString(`]}`)
	e.rpc("PairingService/ImportHistory", "", b.String()).refused(t, connect.CodeResourceExhausted, "entries", "10000")
	if r := e.rpc("PairingService/MetGraph", "", `{"eventId":"ok"}`).ok(t); len(r.list("edges")) != 0 {
		t.Fatalf("a refused import changed the records: %s", r.raw)
	}
	e.rpc("PairingService/MetGraph", "", `{"eventId":"nope"}`).refused(t, connect.CodeNotFound, "nope")
	e.rpc("PairingService/GetRounds", "", `{"eventId":"nope"}`).refused(t, connect.CodeNotFound, "nope")
	e.rpc("PairingService/GetNeverList", "", `{"eventId":"nope","participant":"ann"}`).refused(t, connect.CodeNotFound, "nope")
	e.rpc("PairingService/GetMatches", "", `{"eventId":"nope","participant":"ann"}`).refused(t, connect.CodeNotFound, "nope")
	e.rpc("PairingService/Answer", "", `{"eventId":"nope","participant":"ann","other":"bob","yes":true}`).refused(t, connect.CodeNotFound, "nope")
	e.rpc("PairingService/AddNever", "", `{"eventId":"nope","participant":"ann","other":"bob"}`).refused(t, connect.CodeNotFound, "nope")
	e.rpc("PairingService/DeleteEvent", "", `{"id":"nope"}`).refused(t, connect.CodeNotFound, "nope")
	e.rpc("PairingService/StartRound", "", `{"eventId":"nope"}`).refused(t, connect.CodeNotFound, "nope")

	// The WebSocket refuses bad parameters with a plain HTTP error before
	// the upgrade.
	for _, c := range []struct {
		query  string
		status int
		field  string
	}{
		{"?after_seq=x", http.StatusBadRequest, "after_seq"},
		{"?after_seq=-1", http.StatusBadRequest, "after_seq"},
		{"?participant=ann&after_seq=0", http.StatusBadRequest, "after_seq"},
		{"?participant=" + strings.Repeat("a", 300), http.StatusBadRequest, "participant"},
	} {
		r := e.get("/v1/events/ok/ws" + c.query)
		if r.status != c.status || !strings.Contains(r.str("message"), c.field) {
			t.Errorf("ws%s: %d %s, want %d naming %s", c.query, r.status, r.raw, c.status, c.field)
		}
	}
	if r := e.get("/v1/events/nope/ws"); r.status != http.StatusNotFound {
		t.Errorf("ws of an unknown event: %d %s", r.status, r.raw)
	}
}

// A participant's watch starts with "watching", carries what happens to
// him and ends cleanly with the event's deletion; the organiser's watch
// replays the recorded rounds after after_seq. The WebSocket carries the
// same notifications and closes normally after the last.
func TestPairingWatch(t *testing.T) {
	e := newSvcEnv(t, svcOptions{})
	e.rpc("PairingService/CreateEvent", "", `{"id":"mixer","settings":{"rooms":1,"roundSeconds":600,"countdownSeconds":600}}`).ok(t)
	for _, who := range []string{"ann", "bob"} {
		e.rpc("PairingService/Join", "", `{"eventId":"mixer","participant":"`+who+`"}`).ok(t)
		e.rpc("PairingService/EnterLobby", "", `{"eventId":"mixer","participant":"`+who+`"}`).ok(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	c := cupidv1connect.NewPairingServiceClient(e.h2c, e.url, connect.WithGRPC())
	ann, err := c.WatchEvent(ctx, connect.NewRequest(&cupidv1.WatchEventRequest{EventId: "mixer", Participant: "ann"}))
	if err != nil {
		t.Fatal(err)
	}
	defer ann.Close()
	next := func(s *connect.ServerStreamForClient[cupidv1.PairingNotification], kind string) *cupidv1.PairingNotification {
		t.Helper()
		for s.Receive() {
			if n := s.Msg(); n.GetKind() == kind {
				return n
			}
		}
		t.Fatalf("the stream ended (%v) before a %s notification", s.Err(), kind)
		return nil
	}
	if n := next(ann, "watching"); n.GetState() != "lobby" {
		t.Fatalf("watching: %v", n)
	}
	sock := e.eventSocket(t, "mixer", "?participant=bob")
	if n := readNotification(t, sock); n["kind"] != "watching" || n["state"] != "lobby" {
		t.Fatalf("socket's first message: %v", n)
	}
	e.rpc("PairingService/StartRound", "", `{"eventId":"mixer"}`).ok(t)
	if n := next(ann, "paired"); n.GetPartner() != "bob" || n.GetRound() != 1 {
		t.Fatalf("paired: %v", n)
	}
	for {
		n := readNotification(t, sock)
		if n["kind"] == "paired" {
			if n["partner"] != "ann" {
				t.Fatalf("bob's pairing: %v", n)
			}
			break
		}
	}
	e.rpc("PairingService/EndRound", "", `{"eventId":"mixer"}`).ok(t)

	// The organiser, reconnecting after seq 0, is sent round 1's record.
	org, err := c.WatchEvent(ctx, connect.NewRequest(&cupidv1.WatchEventRequest{EventId: "mixer", AfterSeq: new(int32)}))
	if err != nil {
		t.Fatal(err)
	}
	defer org.Close()
	next(org, "watching")
	if n := next(org, "round_recorded"); n.GetRecord().GetRound() != 1 || len(n.GetRecord().GetRooms()) != 1 {
		t.Fatalf("replayed round: %v", n)
	}
	neg := int32(-1)
	bad, err := c.WatchEvent(ctx, connect.NewRequest(&cupidv1.WatchEventRequest{EventId: "mixer", AfterSeq: &neg}))
	if err == nil {
		for bad.Receive() {
		}
		err = bad.Err()
	}
	wantConnectErr(t, err, connect.CodeInvalidArgument, "after_seq")

	e.rpc("PairingService/DeleteEvent", "", `{"id":"mixer"}`).ok(t)
	next(ann, "event_deleted")
	if ann.Receive() || ann.Err() != nil {
		t.Fatalf("after event_deleted: %v %v", ann.Msg(), ann.Err())
	}
	for {
		n := readNotification(t, sock)
		if n["kind"] == "event_deleted" {
			break
		}
	}
	_, _, err = sock.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("the socket ended with %v, want a normal close", err)
	}
}

func (e *env) eventSocket(t *testing.T, id, query string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.url, "http")+"/v1/events/"+id+"/ws"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func readNotification(t *testing.T, c *websocket.Conn) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var n map[string]any
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	return n
}
