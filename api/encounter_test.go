package api

import (
	"fmt"
	"strings"
	"testing"

	"connectrpc.com/connect"
)

// TestEncounterPermissions: a player acts only for himself, never learns
// who blocked him, and cannot ask who blocked whom; backends check pairs
// and record meetings; only an admin erases.
func TestEncounterPermissions(t *testing.T) {
	e := newSvcEnv(t, svcOptions{auth: true})
	ann, bob := playerToken(t, "ann"), playerToken(t, "bob")
	const denied = connect.CodePermissionDenied
	e.check(t, []access{
		{"ann blocks bob", "EncounterService/Block", ann, `{"playerId":"ann","otherId":"bob"}`, 0, ""},
		{"ann blocks for bob", "EncounterService/Block", ann, `{"playerId":"bob","otherId":"ann"}`, denied, "may act only for himself, not for bob"},
		{"ann reads bob's blocks", "EncounterService/ListBlocks", ann, `{"playerId":"bob"}`, denied, "not for bob"},
		{"ann reads bob's history", "EncounterService/ListEncounters", ann, `{"playerId":"bob"}`, denied, "not for bob"},
		{"ann avoids for bob", "EncounterService/Avoid", ann, `{"playerId":"bob","otherId":"cid"}`, denied, "not for bob"},
		{"a player checks a pair", "EncounterService/CheckPlayers", bob, `{"playerIds":["ann","bob"]}`, denied, "a player token may not call it"},
		{"a player records a meeting", "EncounterService/RecordEncounter", ann, `{"mode":"queue","place":"q","ref":"m","teams":[{"playerIds":["ann"]},{"playerIds":["bob"]}]}`, denied, "a player token may not call it"},
		{"a player erases himself", "EncounterService/Erase", ann, `{"playerId":"ann"}`, denied, ""},
		{"a tickets key erases", "EncounterService/Erase", keyTickets, `{"playerId":"ann"}`, denied, "admin"},
		{"an events key blocks", "EncounterService/Block", keyEvents, `{"playerId":"ann","otherId":"cid"}`, denied, "tickets scope"},
		{"a backend blocks for a player", "EncounterService/Block", keyTickets, `{"playerId":"cid","otherId":"ann"}`, 0, ""},
	})
	// bob, blocked by ann (and ann by cid), sees nothing of it.
	if r := e.rpc("EncounterService/ListBlocks", bob, `{"playerId":"bob"}`).ok(t); len(r.list("entries")) != 0 {
		t.Errorf("bob sees blocks: %s", r.raw)
	}
	r := e.rpc("EncounterService/ListBlocks", ann, `{"playerId":"ann"}`).ok(t)
	if l := r.list("entries"); len(l) != 1 || r.str("entries.0.otherId") != "bob" {
		t.Errorf("ann's blocks: %s", r.raw)
	}
	r = e.rpc("EncounterService/CheckPlayers", keyTickets, `{"playerIds":["bob","dan","ann"]}`).ok(t)
	if r.path("blocked") != true || strings.Join(strs(r, "pair"), ",") != "bob,ann" {
		t.Errorf("check: %s", r.raw)
	}
	e.rpc("EncounterService/Erase", keyAdmin, `{"playerId":"ann"}`).ok(t)
	if r := e.rpc("EncounterService/ListBlocks", ann, `{"playerId":"ann"}`).ok(t); len(r.list("entries")) != 0 {
		t.Errorf("ann's blocks after the erase: %s", r.raw)
	}
	// cid's block of ann stays.
	if r := e.rpc("EncounterService/CheckPlayers", keyTickets, `{"playerIds":["ann","cid"]}`).ok(t); r.path("blocked") != true {
		t.Errorf("the erase lifted cid's block: %s", r.raw)
	}
}

// TestEncounterBadInput: every refusal names its field and changes
// nothing; the lists' limit holds.
func TestEncounterBadInput(t *testing.T) {
	e := newSvcEnv(t, svcOptions{})
	long := strings.Repeat("x", 200)
	for _, c := range []struct{ proc, body, field string }{
		{"EncounterService/Block", `{"playerId":"ann"}`, "other_id"},
		{"EncounterService/Block", `{"playerId":"ann","otherId":"ann"}`, "other_id"},
		{"EncounterService/Block", `{"otherId":"bob"}`, "player_id"},
		{"EncounterService/Block", `{"playerId":"ann","otherId":"` + long + `"}`, "other_id"},
		{"EncounterService/Avoid", `{"playerId":"ann","otherId":"bob","weight":2}`, "weight"},
		{"EncounterService/Avoid", `{"playerId":"ann","otherId":"bob","weight":-0.5}`, "weight"},
		{"EncounterService/ListEncounters", `{"playerId":"ann","limit":-1}`, "limit"},
		{"EncounterService/ListEncounters", `{}`, "player_id"},
		{"EncounterService/CheckPlayers", `{"playerIds":["ann",""]}`, "player_ids[1]"},
		{"EncounterService/RecordEncounter", `{"mode":"duel","place":"q","ref":"m"}`, "mode"},
		{"EncounterService/RecordEncounter", `{"mode":"queue","place":"q","ref":"m","teams":[{"playerIds":["a"]},{"playerIds":["a"]}]}`, "teams[1][0]"},
		{"EncounterService/RecordEncounter", `{"mode":"opponent","place":"raid","ref":"x","teams":[{"playerIds":["a","b"]}]}`, "teams"},
		{"EncounterService/Revenge", `{"playerId":"ann","within":"-5s"}`, "within"},
		{"EncounterService/Revenge", `{"playerId":"ann","within":"100000h"}`, "within"},
	} {
		t.Run(c.proc+" "+c.field, func(t *testing.T) {
			e.with(t).rpc(c.proc, "", c.body).refused(t, connect.CodeInvalidArgument, c.field)
		})
	}
	if r := e.rpc("EncounterService/ListAvoids", "", `{"playerId":"ann"}`).ok(t); len(r.list("entries")) != 0 {
		t.Errorf("a refused avoid was stored: %s", r.raw)
	}
	for i := range 64 {
		e.rpc("EncounterService/Block", "", fmt.Sprintf(`{"playerId":"ann","otherId":"p%d"}`, i)).ok(t)
	}
	e.rpc("EncounterService/Block", "", `{"playerId":"ann","otherId":"p64"}`).refused(t, connect.CodeResourceExhausted, "at most 64")
	e.rpc("EncounterService/Block", "", `{"playerId":"ann","otherId":"p3"}`).ok(t) // again: no growth, no error
}

// TestEncounterHistoryAndRevenge: a recorded meeting shows in both
// players' histories; an attack makes its attacker a revenge target of
// the defender only.
func TestEncounterHistoryAndRevenge(t *testing.T) {
	e := newSvcEnv(t, svcOptions{})
	r := e.rpc("EncounterService/RecordEncounter", "", `{"mode":"queue","place":"duel","ref":"m1","teams":[{"playerIds":["ann"]},{"playerIds":["bob"]}],"outcomes":{"ann":"win"}}`).ok(t)
	if r.num("encounters") != 2 {
		t.Errorf("record: %s", r.raw)
	}
	e.rpc("EncounterService/RecordEncounter", "", `{"mode":"opponent","place":"raid","ref":"a1","teams":[{"playerIds":["bob"]},{"playerIds":["ann"]}]}`).ok(t)
	r = e.rpc("EncounterService/ListEncounters", "", `{"playerId":"ann"}`).ok(t)
	if l := r.list("encounters"); len(l) != 2 {
		t.Fatalf("ann's history: %s", r.raw)
	}
	got := map[string]string{}
	for i := range 2 {
		got[r.str(fmt.Sprintf("encounters.%d.mode", i))] = r.str(fmt.Sprintf("encounters.%d.side", i)) + "/" + r.str(fmt.Sprintf("encounters.%d.outcome", i))
	}
	if got["queue"] != "opponent/win" || got["opponent"] != "defender/" {
		t.Errorf("ann's history: %v", got)
	}
	if r := e.rpc("EncounterService/Revenge", "", `{"playerId":"ann"}`).ok(t); strings.Join(strs(r, "playerIds"), ",") != "bob" {
		t.Errorf("ann's revenge: %s", r.raw)
	}
	if r := e.rpc("EncounterService/Revenge", "", `{"playerId":"bob"}`).ok(t); len(strs(r, "playerIds")) != 0 {
		t.Errorf("bob's revenge (he attacked): %s", r.raw)
	}
}
