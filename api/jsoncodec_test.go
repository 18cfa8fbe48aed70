package api

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// TestUnknownJSONFieldsAreRefused: a field the schema does not have, a
// misspelled enum name and a value of the wrong type are refused with
// invalid_argument naming the field by its path, where Connect's own codec
// dropped the first two without a word.
func TestUnknownJSONFieldsAreRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	const player = `"players":[{"id":"a","attributes":{"mmr":1500}}]`
	for _, c := range []struct {
		method, body string
		mention      []string
	}{
		{"CreateTicket", `{"queue":"duel",` + player + `,"latency":{"eu":30}}`, []string{"latency: unknown field; did you mean latencies?"}},
		{"CreateTicket", `{"queue":"duel",` + player + `,"latencies":{"eu":"fast"}}`, []string{`latencies.eu: must be a whole number, got "fast"`}},
		{"CreateTicket", `{"queue":"duel",` + player + `,"latencies":{"eu":30,"us":1.5}}`, []string{"latencies.us: must be a whole number, got 1.5"}},
		{"CreateTicket", `{"queue":"duel","players":[{"id":"a","atributes":{"mmr":1500}}]}`, []string{"players[0].atributes: unknown field; did you mean attributes?"}},
		{"CreateTicket", `{"queue":"duel",` + player + `,"replace":"yes"}`, []string{`replace: must be true or false, got "yes"`}},
		{"CreateTickets", `{"tickets":[{"queue":"duel",` + player + `},{"queue":"duel","request":"x"}]}`, []string{"tickets[1].request: unknown field; did you mean request_id?"}},
		{"ListTickets", `{"state":"TICKET_STATE_WAITNG"}`, []string{`state: must be one of `, "TICKET_STATE_WAITING", `got "TICKET_STATE_WAITNG"`}},
		{"GetTicket", `{"ticket_id":"x"}`, []string{"ticket_id: unknown field"}},
		{"GetTicket", `{"id":"x",`, []string{"invalid JSON"}},
	} {
		t.Run(c.body, func(t *testing.T) {
			r := e.with(t).post(c.method, c.body)
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", r.status, r.raw)
			}
			r.refused(t, connect.CodeInvalidArgument, c.mention...)
		})
	}
	// Nothing of those was stored.
	if r := e.post("ListTickets", `{}`).ok(t); r.raw != "{}" && r.raw != "{}\n" {
		t.Fatalf("refused tickets were stored: %s", r.raw)
	}
	// Both spellings of a known field still work, and so does a client of
	// the Connect protocol with JSON.
	e.post("CreateTicket", `{"queue":"duel","players":[{"id":"b","attributes":{"mmr":1500}}],"request_id":"r1"}`).ok(t)
	e.post("CreateTicket", `{"queue":"duel","players":[{"id":"c","attributes":{"mmr":9000}}],"requestId":"r2"}`).ok(t)
	if _, err := e.client().ListTickets(context.Background(), connect.NewRequest(&cupidv1.ListTicketsRequest{State: cupidv1.TicketState_TICKET_STATE_WAITING})); err != nil {
		t.Fatal(err)
	}
}

func TestJSONPathAt(t *testing.T) {
	doc := `{"a": [1, {"b\"c": "x", "d": [true, null]}], "e": {"f": 2}}`
	for _, c := range []struct {
		at   string
		want string
	}{
		{`"a"`, "a"}, {`1`, "a[0]"}, {`"b\"c"`, `a[1].b"c`}, {`"x"`, `a[1].b"c`}, {`true`, "a[1].d[0]"},
		{`null`, "a[1].d[1]"}, {`"f"`, "e.f"}, {`2`, "e.f"},
	} {
		off := -1
		for i := range len(doc) - len(c.at) + 1 {
			if doc[i:i+len(c.at)] == c.at {
				off = i
				break
			}
		}
		if got := renderPath(jsonPathAt([]byte(doc), off)); got != c.want {
			t.Errorf("at %s: %q, want %q", c.at, got, c.want)
		}
	}
	if p := jsonPathAt([]byte(`{"a":`), 99); p != nil {
		t.Errorf("past the end: %v", p)
	}
	if got := offsetOf([]byte("{\n \"ü\": 1, \"x\": 2}"), 2, 10); got != 12 {
		t.Errorf("offsetOf counts characters: %d, want 12", got)
	}
}
