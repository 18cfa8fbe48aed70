package api

import (
	"strings"
	"testing"

	"connectrpc.com/connect"
)

// CancelTickets as README.md documents it: up to 1,000 ids, one result
// per id in request order, the cancelled ticket or the refusal naming
// ids[i]; a call past the limit is refused whole.
func TestCancelTicketsResultsInOrder(t *testing.T) {
	e := newEnv(t, envOptions{})
	a, b := e.createJSON("alice", 1000), e.createJSON("bob", 3000)
	e.post("CancelTicket", `{"id":"`+b+`"}`).ok(t)
	r := e.post("CancelTickets", `{"ids":["`+a+`","nope","`+b+`"]}`).ok(t)
	res := bulk(t, r)
	if len(res) != 3 {
		t.Fatalf("%d results: %s", len(res), r.raw)
	}
	if res[0].id != a || res[0].state != "TICKET_STATE_CANCELLED" || res[0].code != "" {
		t.Errorf("result 0: %+v, want alice's ticket cancelled", res[0])
	}
	for i, w := range []struct {
		code, field string
	}{1: {"not_found", "ids[1]"}, 2: {"failed_precondition", "ids[2]"}} {
		if i == 0 {
			continue
		}
		if g := res[i]; g.id != "" || g.code != w.code || g.field != w.field || !strings.HasPrefix(g.msg, w.field+": ") {
			t.Errorf("result %d: %+v, want %s naming %s", i, g, w.code, w.field)
		}
	}
	if r := e.post("GetTicket", `{"id":"`+a+`"}`).ok(t); r.str("ticket.state") != "TICKET_STATE_CANCELLED" {
		t.Fatalf("alice's ticket: %s", r.raw)
	}

	c := e.createJSON("carol", 1500)
	for _, body := range []string{`{}`, `{"ids":[]}`, `{"ids":["` + c + `"` + strings.Repeat(`,"x"`, MaxBulkTickets) + `]}`} {
		e.post("CancelTickets", body).refused(t, connect.CodeInvalidArgument, "ids: ")
	}
	if r := e.post("GetTicket", `{"id":"`+c+`"}`).ok(t); r.str("ticket.state") != "TICKET_STATE_WAITING" {
		t.Fatalf("a refused call cancelled carol's ticket: %s", r.raw)
	}
	e.post("ListTickets", `{"state":99}`).refused(t, connect.CodeInvalidArgument, "state")
}
