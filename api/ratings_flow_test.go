package api

import (
	"testing"

	"connectrpc.com/connect"
)

// RatingService over JSON with the real ratings service: a played duel's
// result rates its players once, their ratings and history read back,
// and low-priority marks are set and cleared; with auth on, a player
// reads only his own.

func TestRatingsOverJSON(t *testing.T) {
	e := newSvcEnv(t, svcOptions{})
	rate := func(method, body string) reply {
		t.Helper()
		return e.rpc("RatingService/"+method, "", body).ok(t)
	}
	id := e.formMatch("duel", "", "alice", "bob")
	result := `{"matchId":"` + id + `","teamPlaces":[1,2]}`
	// A match not played yet has no result.
	e.rpc("RatingService/ReportResult", "", result).refused(t, connect.CodeFailedPrecondition, "match_id", "played")
	e.rpc("MatchService/AssignMatch", "", `{"id":"`+id+`","assignment":{"server":"gs:1"}}`).ok(t)

	r := rate("ReportResult", result)
	if r.str("rating") != duelRating || len(r.list("changes")) != 2 || r.path("repeated") == true {
		t.Fatalf("report: %s", r.raw)
	}
	byPlayer := map[string]map[string]any{}
	for _, c := range r.list("changes") {
		m := c.(map[string]any)
		byPlayer[m["playerId"].(string)] = m
	}
	// The conservative value of a new player is 0, which JSON leaves out.
	a, b := reply{body: byPlayer["alice"]}, reply{body: byPlayer["bob"]}
	if a.body == nil || b.body == nil || a.num("after") <= a.num("before") || b.num("after") >= b.num("before") || a.str("matchId") != id {
		t.Fatalf("the winner did not gain and the loser lose: %s", r.raw)
	}
	// The same report again is answered with the first outcome; another
	// one is refused.
	if r := rate("ReportResult", result); r.path("repeated") != true || len(r.list("changes")) != 2 {
		t.Fatalf("the report again: %s", r.raw)
	}
	e.rpc("RatingService/ReportResult", "", `{"matchId":"`+id+`","teamPlaces":[2,1]}`).refused(t, connect.CodeFailedPrecondition)
	e.rpc("RatingService/ReportResult", "", `{"matchId":"nope","teamPlaces":[1,2]}`).refused(t, connect.CodeNotFound, "match_id")
	e.rpc("RatingService/ReportResult", "", `{"teamPlaces":[1,2]}`).refused(t, connect.CodeInvalidArgument, "match_id")

	r = rate("GetPlayerRatings", `{"playerId":"alice"}`)
	if r.str("playerId") != "alice" || len(r.list("ratings")) != 1 || r.str("ratings.0.rating") != duelRating ||
		r.num("ratings.0.wins") != 1 || r.num("ratings.0.games") != 1 || r.num("ratings.0.sigma") <= 0 || r.path("lowPriority") != nil {
		t.Fatalf("alice's ratings: %s", r.raw)
	}
	r = rate("ListRatingHistory", `{"playerId":"bob","rating":"`+duelRating+`"}`)
	if len(r.list("changes")) != 1 || r.str("changes.0.matchId") != id || r.num("changes.0.seq") <= 0 {
		t.Fatalf("bob's history: %s", r.raw)
	}

	r = rate("SetLowPriority", `{"playerId":"bob","games":3,"duration":"3600s","reason":"left early"}`)
	if r.num("lowPriority.games") != 3 || r.str("lowPriority.reason") != "left early" || r.str("lowPriority.until") == "" {
		t.Fatalf("set low priority: %s", r.raw)
	}
	if r := rate("GetPlayerRatings", `{"playerId":"bob"}`); r.num("lowPriority.games") != 3 {
		t.Fatalf("bob's mark: %s", r.raw)
	}
	e.rpc("RatingService/SetLowPriority", "", `{"playerId":"bob","duration":"-5s"}`).refused(t, connect.CodeInvalidArgument, "duration")
	if r := rate("GetPlayerRatings", `{"playerId":"bob"}`); r.num("lowPriority.games") != 3 || r.str("lowPriority.reason") != "left early" {
		t.Fatalf("a refused mark changed bob's: %s", r.raw)
	}
	rate("ClearLowPriority", `{"playerId":"bob"}`)
	if r := rate("GetPlayerRatings", `{"playerId":"bob"}`); r.path("lowPriority") != nil {
		t.Fatalf("bob's mark after clearing: %s", r.raw)
	}
}

func TestRatingsPermissionsOverHTTP(t *testing.T) {
	e := newSvcEnv(t, svcOptions{auth: true})
	bob := playerToken(t, "bob")
	const denied = connect.CodePermissionDenied
	e.check(t, []access{
		{"bob reads his ratings", "RatingService/GetPlayerRatings", bob, `{"playerId":"bob"}`, 0, ""},
		{"bob reads alice's", "RatingService/GetPlayerRatings", bob, `{"playerId":"alice"}`, denied, "only his own ratings, not alice"},
		{"bob reads his history", "RatingService/ListRatingHistory", bob, `{"playerId":"bob","rating":"duel-rating"}`, 0, ""},
		{"bob reads alice's history", "RatingService/ListRatingHistory", bob, `{"playerId":"alice","rating":"duel-rating"}`, denied, "alice"},
		{"bob clears his mark", "RatingService/ClearLowPriority", bob, `{"playerId":"bob"}`, denied, "needs a server key"},
		{"bob reports a result", "RatingService/ReportResult", bob, `{"matchId":"m"}`, denied, "needs a server key"},
		{"an events key marks bob", "RatingService/SetLowPriority", keyEvents, `{"playerId":"bob","games":1}`, denied, "tickets scope"},
		{"the backend marks bob", "RatingService/SetLowPriority", keyTickets, `{"playerId":"bob","games":2}`, 0, ""},
	})
	if r := e.rpc("RatingService/GetPlayerRatings", bob, `{"playerId":"bob"}`).ok(t); r.num("lowPriority.games") != 2 {
		t.Fatalf("bob's mark: %s", r.raw)
	}
}
