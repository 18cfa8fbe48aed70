package api

import (
	"strings"
	"testing"

	"connectrpc.com/connect"
)

// OpponentService over JSON with the real opponent service: models in,
// an attacker's query out, reservations confirmed and released, and bad
// input refused naming the field the caller sent (the finder's own
// field names renamed after the request's).

func TestOpponentsOverJSON(t *testing.T) {
	e := newSvcEnv(t, svcOptions{})
	o := func(method, body string) reply {
		t.Helper()
		return e.rpc("OpponentService/"+method, "", body).ok(t)
	}
	r := o("UpdatePlayer", `{"finder":"raid","playerId":"def1","model":{"mmr":1510,"labels":{"arena":"forest"},"attributes":{"power":7}}}`)
	if r.str("outcome") == "" || r.num("inserted") != 1 || r.path("stored") == true {
		t.Fatalf("update: %s", r.raw)
	}
	// The id may come in the model instead.
	o("UpdatePlayer", `{"finder":"raid","model":{"id":"def2","mmr":1520,"labels":{"arena":"desert"}}}`)
	// Entries: one model in two buckets is refused by this finder (one
	// entry a player), naming the field the caller used.
	msg := e.rpc("OpponentService/UpdatePlayer", "", `{"finder":"raid","playerId":"def3","model":{"mmr":100,"extraMmrs":[2000]}}`).refused(t, connect.CodeInvalidArgument)
	if !strings.HasPrefix(msg, "model.extra_mmrs") {
		t.Fatalf("two entries for a one-entry finder: %q", msg)
	}

	r = o("FinderStats", `{"finder":"raid","includeBuckets":true}`)
	if r.num("players") != 2 || len(r.list("bucketFill")) != 2 || r.str("finder") != "raid" {
		t.Fatalf("stats: %s", r.raw)
	}

	// The attacker in the forest is offered the forest's defender, with
	// his model, and holds him.
	r = o("FindOpponent", `{"finder":"raid","attacker":{"id":"att","mmr":1500,"labels":{"arena":"forest"}},"returnModel":true,"reserve":true}`)
	if r.str("result") != "OPPONENT_RESULT_SUCCESS" || r.str("playerId") != "def1" || r.str("model.id") != "def1" ||
		r.str("model.labels.arena") != "forest" || r.num("model.attributes.power") != 7 || r.str("reservation.defenderId") != "def1" {
		t.Fatalf("find: %s", r.raw)
	}
	res := r.str("reservation.id")
	// Held: a second attacker is not offered him.
	if r := o("FindOpponent", `{"finder":"raid","attacker":{"id":"att2","mmr":1500,"labels":{"arena":"forest"}},"excludedIds":["def2"]}`); r.str("playerId") == "def1" {
		t.Fatalf("a held defender was offered again: %s", r.raw)
	}
	// Only the holder confirms.
	e.rpc("OpponentService/ConfirmAttack", "", `{"finder":"raid","reservationId":"`+res+`","attackerId":"att2"}`).refused(t, connect.CodePermissionDenied, "attacker_id", "held for attacker att")
	if r := o("ConfirmAttack", `{"finder":"raid","reservationId":"`+res+`","attackerId":"att"}`); r.str("reservation.id") != res || r.str("reservation.attackerId") != "att" {
		t.Fatalf("confirm: %s", r.raw)
	}

	r = o("FindOpponent", `{"finder":"raid","attacker":{"id":"att","mmr":1500,"labels":{"arena":"desert"}},"reserve":true}`)
	if r.str("playerId") != "def2" {
		t.Fatalf("find in the desert: %s", r.raw)
	}
	if r := o("ReleaseReservation", `{"finder":"raid","reservationId":"`+r.str("reservation.id")+`","attackerId":"att"}`); r.str("reservation.defenderId") != "def2" {
		t.Fatalf("release: %s", r.raw)
	}

	if r := o("SetPlayerOnline", `{"finder":"raid","playerId":"def2","online":true}`); r.path("online") != true {
		t.Fatalf("online: %s", r.raw)
	}
	if r := o("RemovePlayer", `{"finder":"raid","playerId":"def2"}`); r.num("removed") != 1 {
		t.Fatalf("remove: %s", r.raw)
	}
	if r := o("Rebalance", `{"finder":"raid"}`); r.path("buckets") == nil {
		t.Fatalf("rebalance: %s", r.raw)
	}
	r = o("FinderStats", `{"finder":"raid"}`)
	if r.num("queries") < 3 || r.num("confirmed") != 1 || r.num("released") != 1 || r.num("online") != 1 || len(r.list("bucketFill")) != 0 {
		t.Fatalf("stats after the calls: %s", r.raw)
	}
}

func TestOpponentsRefuseBadInputNamingTheField(t *testing.T) {
	e := newSvcEnv(t, svcOptions{})
	for _, c := range []struct {
		name, method, body, field string
	}{
		{"model id not the player's", "UpdatePlayer", `{"finder":"raid","playerId":"a","model":{"id":"b","mmr":1}}`, "model.id"},
		{"entries and mmr", "UpdatePlayer", `{"finder":"raid","playerId":"a","model":{"mmr":1,"entries":[{"mmr":2}]}}`, "model.entries"},
		{"a label also an attribute", "UpdatePlayer", `{"finder":"raid","playerId":"a","model":{"labels":{"arena":"x"},"attributes":{"arena":"y"}}}`, "model.attributes.arena"},
		{"a label also an attribute in an entry", "UpdatePlayer", `{"finder":"raid","playerId":"a","model":{"entries":[{"labels":{"arena":"x"},"attributes":{"arena":"y"}}]}}`, "model.entries[0].attributes.arena"},
		{"an undeclared attribute", "UpdatePlayer", `{"finder":"raid","playerId":"a","model":{"mmr":5,"attributes":{"colour":"red"}}}`, "model.attributes.colour"},
		{"a label of the wrong type", "UpdatePlayer", `{"finder":"raid","playerId":"a","model":{"mmr":5,"labels":{"arena":3}}}`, "model.labels.arena"},
		{"no player", "UpdatePlayer", `{"finder":"raid","model":{"mmr":5}}`, "player_id"},
		{"a NaN mmr in an entry", "UpdatePlayer", `{"finder":"raid","playerId":"a","model":{"entries":[{"mmr":"NaN"}]}}`, "model.entries[0].mmr"},
		{"an unknown finder", "UpdatePlayer", `{"finder":"nope","playerId":"a","model":{"mmr":5}}`, "finder"},
		{"no attacker", "FindOpponent", `{"finder":"raid"}`, "attacker"},
		{"an attacker with two MMRs", "FindOpponent", `{"finder":"raid","attacker":{"id":"a","extraMmrs":[1]}}`, "attacker.extra_mmrs"},
		{"an attacker with entries", "FindOpponent", `{"finder":"raid","attacker":{"id":"a","entries":[{"mmr":1}]}}`, "attacker.entries"},
		{"an attacker's label twice", "FindOpponent", `{"finder":"raid","attacker":{"id":"a","labels":{"arena":"x"},"attributes":{"arena":"x"}}}`, "attacker.attributes.arena"},
		{"an attacker's NaN mmr", "FindOpponent", `{"finder":"raid","attacker":{"id":"a","mmr":"NaN"}}`, "attacker.mmr"},
		{"an attacker's undeclared attribute", "FindOpponent", `{"finder":"raid","attacker":{"id":"a","mmr":1,"attributes":{"colour":"red"}}}`, "attacker.attributes.colour"},
		{"too many excluded ids", "FindOpponent", `{"finder":"raid","attacker":{"id":"a","mmr":1},"excludedIds":["x"` + strings.Repeat(`,"x"`, 1024) + `]}`, "excluded_ids"},
		{"an unknown finder's stats", "FinderStats", `{"finder":"nope"}`, "finder"},
		{"an unknown finder's rebalance", "Rebalance", `{"finder":"nope"}`, "finder"},
		{"an unknown finder's remove", "RemovePlayer", `{"finder":"nope","playerId":"a"}`, "finder"},
		{"an unknown reservation", "ConfirmAttack", `{"finder":"raid","reservationId":"r1","attackerId":"a"}`, "reservation_id"},
		{"release an unknown reservation", "ReleaseReservation", `{"finder":"raid","reservationId":"r1","attackerId":"a"}`, "reservation_id"},
		{"online without a player", "SetPlayerOnline", `{"finder":"raid","online":true}`, "player_id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.with(t).rpc("OpponentService/"+c.method, "", c.body)
			if r.status == 200 || r.status >= 500 {
				t.Fatalf("status %d: %s", r.status, r.raw)
			}
			if msg := r.str("message"); !strings.HasPrefix(msg, c.field+": ") && !strings.HasPrefix(msg, c.field+" ") {
				t.Fatalf("message %q does not start with the field %s (%s)", msg, c.field, r.raw)
			}
		})
	}
	// Nothing the refusals carried reached the cache.
	if r := e.rpc("OpponentService/FinderStats", "", `{"finder":"raid"}`).ok(t); r.num("players") != 0 {
		t.Fatalf("refused updates changed the cache: %s", r.raw)
	}
}

func TestOpponentPermissions(t *testing.T) {
	e := newSvcEnv(t, svcOptions{auth: true})
	ann := playerToken(t, "ann")
	const denied = connect.CodePermissionDenied
	e.check(t, []access{
		{"a key updates any model", "OpponentService/UpdatePlayer", keyOpponents, `{"finder":"raid","playerId":"bob","model":{"mmr":1500,"labels":{"arena":"forest"}}}`, 0, ""},
		{"an events key updates", "OpponentService/UpdatePlayer", keyEvents, `{"finder":"raid","playerId":"bob","model":{"mmr":1}}`, denied, "needs the opponents scope"},
		{"ann updates her model where players may", "OpponentService/UpdatePlayer", ann, `{"finder":"open-finder","playerId":"ann","model":{"mmr":1500}}`, 0, ""},
		{"ann updates her model by model.id", "OpponentService/UpdatePlayer", ann, `{"finder":"open-finder","model":{"id":"ann","mmr":1600}}`, 0, ""},
		{"ann updates bob's model", "OpponentService/UpdatePlayer", ann, `{"finder":"open-finder","playerId":"bob","model":{"mmr":1}}`, denied, "only his own model, not bob"},
		{"ann updates where players may not", "OpponentService/UpdatePlayer", ann, `{"finder":"raid","playerId":"ann","model":{"mmr":1}}`, denied, "players_may_update"},
		{"ann attacks as herself", "OpponentService/FindOpponent", ann, `{"finder":"raid","attacker":{"id":"ann","mmr":1500,"labels":{"arena":"forest"}},"reserve":true}`, 0, ""},
		{"ann attacks as bob", "OpponentService/FindOpponent", ann, `{"finder":"raid","attacker":{"id":"bob","mmr":1500}}`, denied, "attacker.id bob"},
		{"ann confirms bob's reservation", "OpponentService/ConfirmAttack", ann, `{"finder":"raid","reservationId":"x","attackerId":"bob"}`, denied, "attacker_id bob"},
		{"ann releases bob's reservation", "OpponentService/ReleaseReservation", ann, `{"finder":"raid","reservationId":"x","attackerId":"bob"}`, denied, "attacker_id bob"},
		{"ann goes online where players may", "OpponentService/SetPlayerOnline", ann, `{"finder":"open-finder","playerId":"ann","online":true}`, 0, ""},
		{"ann sets bob online", "OpponentService/SetPlayerOnline", ann, `{"finder":"open-finder","playerId":"bob","online":true}`, denied, "not bob's"},
		{"ann goes online where players may not", "OpponentService/SetPlayerOnline", ann, `{"finder":"raid","playerId":"ann","online":true}`, denied, "players_may_update"},
		{"ann removes a player", "OpponentService/RemovePlayer", ann, `{"finder":"raid","playerId":"bob"}`, denied, "needs a server key with the opponents scope"},
		{"ann reads the stats", "OpponentService/FinderStats", ann, `{"finder":"raid"}`, denied, "opponents scope"},
		{"ann rebalances", "OpponentService/Rebalance", ann, `{"finder":"raid"}`, denied, "opponents scope"},
	})
	// Bob's model is as the key left it: ann's refused update did not
	// reach it, and he was offered (and is held) once.
	r := e.rpc("OpponentService/FinderStats", keyOpponents, `{"finder":"raid"}`).ok(t)
	if r.num("players") != 1 || r.num("reserved") != 1 {
		t.Fatalf("raid after the calls: %s", r.raw)
	}
	if r := e.rpc("OpponentService/FinderStats", keyOpponents, `{"finder":"open-finder"}`).ok(t); r.num("players") != 1 || r.num("online") != 1 {
		t.Fatalf("open-finder after the calls: %s", r.raw)
	}
}
