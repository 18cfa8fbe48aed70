package api

import (
	"net/http"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Who may call what, through the real handler with auth on: every case
// calls a procedure as one kind of caller and checks the answer; a
// refused call must change nothing, which each test reads back.

// access is one call and the answer it must get: allowed (code empty) or
// refused with code, the message mentioning want.
type access struct {
	name, proc, cred, body string
	code                   connect.Code
	want                   string
}

func (e *env) check(t *testing.T, cases []access) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.with(t).rpc(c.proc, c.cred, c.body)
			if c.code == 0 {
				r.ok(t)
				return
			}
			r.refused(t, c.code, c.want)
		})
	}
}

func TestPairingPermissions(t *testing.T) {
	e := newSvcEnv(t, svcOptions{auth: true})
	ann, bob := playerToken(t, "ann"), playerToken(t, "bob")
	e.rpc("PairingService/CreateEvent", keyEvents, `{"id":"fri","settings":{"rooms":1,"roundSeconds":600,"countdownSeconds":600}}`).ok(t)
	e.rpc("PairingService/Join", keyEvents, `{"eventId":"fri","participant":"bob"}`).ok(t)
	const denied = connect.CodePermissionDenied
	e.check(t, []access{
		{"no credential", "PairingService/ListEvents", "", `{}`, connect.CodeUnauthenticated, "server key or player token"},
		{"a player lists events", "PairingService/ListEvents", ann, `{}`, 0, ""},
		{"a player creates an event", "PairingService/CreateEvent", ann, `{"id":"mine","settings":{"rooms":1}}`, denied, "CreateEvent needs a server key with the events scope"},
		{"a tickets key creates an event", "PairingService/CreateEvent", keyTickets, `{"id":"mine","settings":{"rooms":1}}`, denied, "needs the events scope; server key backend has tickets"},
		{"a player reads the met-graph", "PairingService/MetGraph", ann, `{"eventId":"fri"}`, denied, "events scope"},
		{"a player starts a round", "PairingService/StartRound", ann, `{"eventId":"fri"}`, denied, "events scope"},
		{"a player reads the rounds", "PairingService/GetRounds", ann, `{"eventId":"fri"}`, denied, "events scope"},
		{"a player records a meeting", "PairingService/RecordMeeting", ann, `{"eventId":"fri","a":"ann","b":"bob"}`, denied, "events scope"},
		{"a player deletes the event", "PairingService/DeleteEvent", ann, `{"id":"fri"}`, denied, "events scope"},
		{"ann joins as herself", "PairingService/Join", ann, `{"eventId":"fri","participant":"ann"}`, 0, ""},
		{"ann joins as cid", "PairingService/Join", ann, `{"eventId":"fri","participant":"cid"}`, denied, "only as himself, not as participant cid"},
		{"ann joins as nobody", "PairingService/Join", ann, `{"eventId":"fri"}`, denied, "(none given)"},
		{"ann takes bob out of the lobby", "PairingService/Leave", ann, `{"eventId":"fri","participant":"bob"}`, denied, "participant bob"},
		{"ann clears bob's record", "PairingService/ClearRecord", ann, `{"eventId":"fri","participant":"bob"}`, denied, "participant bob"},
		{"ann puts cid on her never list", "PairingService/AddNever", ann, `{"eventId":"fri","participant":"ann","other":"cid"}`, 0, ""},
		{"ann puts herself on bob's never list", "PairingService/AddNever", ann, `{"eventId":"fri","participant":"bob","other":"ann"}`, denied, "participant bob"},
		{"ann reads bob's never list", "PairingService/GetNeverList", ann, `{"eventId":"fri","participant":"bob"}`, denied, "participant bob"},
		{"ann forgets for bob", "PairingService/ForgetMeeting", ann, `{"eventId":"fri","participant":"bob","other":"ann"}`, denied, "participant bob"},
		{"ann answers for bob", "PairingService/Answer", ann, `{"eventId":"fri","participant":"bob","other":"ann","yes":true}`, denied, "participant bob"},
		{"ann reads bob's matches", "PairingService/GetMatches", ann, `{"eventId":"fri","participant":"bob"}`, denied, "participant bob"},
		{"ann extends bob's date", "PairingService/ExtendDate", ann, `{"eventId":"fri","participant":"bob"}`, denied, "participant bob"},
		{"bob reads his own never list", "PairingService/GetNeverList", bob, `{"eventId":"fri","participant":"bob"}`, 0, ""},
		{"an admin key reads anything", "PairingService/GetNeverList", keyAdmin, `{"eventId":"fri","participant":"ann"}`, 0, ""},
	})
	// What the refusals would have changed did not change.
	r := e.rpc("PairingService/GetEvent", keyEvents, `{"id":"fri"}`).ok(t)
	if got := strings.Join(strs(r, "event.participants"), ","); got != "ann,bob" {
		t.Fatalf("participants %q, want ann,bob", got)
	}
	if r := e.rpc("PairingService/GetNeverList", keyEvents, `{"eventId":"fri","participant":"bob"}`).ok(t); len(r.list("never")) != 0 {
		t.Fatalf("bob's never list: %s", r.raw)
	}
	e.rpc("PairingService/GetEvent", keyEvents, `{"id":"mine"}`).refused(t, connect.CodeNotFound)

	// The event's WebSocket: a player watches only as himself, a key
	// needs the events scope.
	for _, c := range []struct {
		name, cred, query string
		status            int
	}{
		{"ann as bob", ann, "?participant=bob", http.StatusForbidden},
		{"ann as the organiser", ann, "", http.StatusForbidden},
		{"a tickets key", keyTickets, "", http.StatusForbidden},
		{"no credential", "", "", http.StatusUnauthorized},
	} {
		req, _ := http.NewRequest(http.MethodGet, e.url+"/v1/events/fri/ws"+c.query, nil)
		if c.cred != "" {
			req.Header.Set("Authorization", "Bearer "+c.cred)
		}
		if r := e.do(req); r.status != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, r.status, c.status, r.raw)
		}
	}
}

// TestEveryProcedureRefusesTheWrongCaller calls every unary procedure of
// the API through the handler as each wrong kind of caller: nobody, a
// server key of another scope, a player token where only keys may call.
// An admin key passes every rule (the call may still fail on its empty
// request). The streams are authorized by the same rules, tested in
// streams_auth_test.go.
func TestEveryProcedureRefusesTheWrongCaller(t *testing.T) {
	e := newSvcEnv(t, svcOptions{auth: true})
	player := playerToken(t, "ann")
	keyOf := map[Scope]string{ScopeTickets: keyTickets, ScopeEvents: keyEvents, ScopeOpponents: keyOpponents}
	n := 0
	protoregistry.GlobalFiles.RangeFilesByPackage("cupid.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := 0; i < fd.Services().Len(); i++ {
			s := fd.Services().Get(i)
			for j := 0; j < s.Methods().Len(); j++ {
				m := s.Methods().Get(j)
				if m.IsStreamingServer() || m.IsStreamingClient() {
					continue
				}
				proc := string(s.Name()) + "/" + string(m.Name())
				r := rules["/"+string(s.FullName())+"/"+string(m.Name())]
				n++
				t.Run(proc, func(t *testing.T) {
					e := e.with(t)
					e.rpc(proc, "", `{}`).refused(t, connect.CodeUnauthenticated)
					if got := e.rpc(proc, keyAdmin, `{}`); got.status == 401 || got.status == 403 {
						t.Fatalf("an admin key was refused: %s", got.raw)
					}
					if r.anyone {
						return
					}
					for scope, key := range keyOf {
						if scope != r.scope {
							e.rpc(proc, key, `{}`).refused(t, connect.CodePermissionDenied, "needs the "+string(r.scope)+" scope")
						}
					}
					if r.player == nil {
						e.rpc(proc, player, `{}`).refused(t, connect.CodePermissionDenied, "a player token may not call it")
					}
				})
			}
		}
		return true
	})
	if n < 50 {
		t.Fatalf("only %d unary procedures found", n)
	}
}
