package api

import (
	"testing"

	"connectrpc.com/connect"
)

// TestLobbyPermissions: a player token acts in lobbies only as himself;
// host-only calls by another member are refused by the lobby's rules; a
// private lobby's code is shown to its members and to keys, not to other
// players; bad input names its field.
func TestLobbyPermissions(t *testing.T) {
	e := newSvcEnv(t, svcOptions{auth: true})
	ann, bob, cat := playerToken(t, "ann"), playerToken(t, "bob"), playerToken(t, "cat")

	e.rpc("LobbyService/CreateLobby", ann, `{"player":"bob","settings":{"queue":"duel","teams":2,"teamSize":1}}`).
		refused(t, connect.CodePermissionDenied, "only as himself")
	e.rpc("LobbyService/CreateLobby", keyEvents, `{"player":"bob","settings":{"queue":"duel","teams":2,"teamSize":1}}`).
		refused(t, connect.CodePermissionDenied, "tickets scope")
	r := e.rpc("LobbyService/CreateLobby", ann, `{"player":"ann","settings":{"queue":"duel","teams":2,"teamSize":1,"visibility":"LOBBY_VISIBILITY_PRIVATE"}}`).ok(t)
	id, code := r.str("lobby.id"), r.str("lobby.code")
	if id == "" || len(code) != 6 {
		t.Fatalf("created: %s", r.raw)
	}
	if got := e.rpc("LobbyService/GetLobby", cat, `{"lobbyId":"`+id+`"}`).ok(t); got.str("lobby.code") != "" {
		t.Fatalf("a stranger sees the private lobby's code: %s", got.raw)
	}
	if got := e.rpc("LobbyService/GetLobby", keyTickets, `{"lobbyId":"`+id+`"}`).ok(t); got.str("lobby.code") != code {
		t.Fatalf("a key does not see the code: %s", got.raw)
	}
	e.rpc("LobbyService/JoinLobby", bob, `{"lobbyId":"`+id+`","player":"bob"}`).refused(t, connect.CodePermissionDenied, "private")
	e.rpc("LobbyService/JoinLobby", bob, `{"code":"`+code+`","player":"bob"}`).ok(t)
	if got := e.rpc("LobbyService/GetLobby", bob, `{"lobbyId":"`+id+`"}`).ok(t); got.str("lobby.code") != code {
		t.Fatalf("a member does not see the code: %s", got.raw)
	}
	e.rpc("LobbyService/Kick", bob, `{"lobbyId":"`+id+`","player":"bob","target":"ann"}`).refused(t, connect.CodePermissionDenied, "only the host (ann)")
	e.rpc("LobbyService/Kick", bob, `{"lobbyId":"`+id+`","player":"ann","target":"bob"}`).refused(t, connect.CodePermissionDenied, "only as himself")
	e.rpc("LobbyService/Start", ann, `{"lobbyId":"`+id+`","player":"ann"}`).refused(t, connect.CodeFailedPrecondition, "not ready")

	for _, c := range []struct{ body, field string }{
		{`{"player":"cat","settings":{"queue":"duel","teams":0,"teamSize":1}}`, "settings.teams"},
		{`{"player":"cat","settings":{"queue":"duel","teams":2,"teamSize":1000}}`, "settings.team_size"},
		{`{"player":"cat","settings":{"queue":"nope","teams":2,"teamSize":1}}`, "settings.queue"},
		{`{"player":"cat"}`, "settings"},
		{`{"player":"cat","settings":{"queue":"duel","teams":2,"teamSize":1},"attributes":{"mmr":"x\u0000"}}`, "attributes.mmr"},
	} {
		got := e.rpc("LobbyService/CreateLobby", cat, c.body)
		if got.status == 200 || got.header.Get("Cupid-Field") != c.field {
			t.Errorf("%s: %d field %q, want %q: %s", c.body, got.status, got.header.Get("Cupid-Field"), c.field, got.raw)
		}
	}
	e.rpc("LobbyService/ListLobbies", cat, `{"pageSize":500}`).refused(t, connect.CodeInvalidArgument, "at most 200")
	e.rpc("LobbyService/JoinLobby", cat, `{"lobbyId":"`+id+`","player":"cat","team":-5}`).refused(t, connect.CodePermissionDenied)
}
