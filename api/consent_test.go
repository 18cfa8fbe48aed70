package api

import (
	"testing"

	"connectrpc.com/connect"
)

// The attack of issue #23: a player token queues a stranger with itself.
// Before the consent rule the ticket was created, and once it matched the
// victim's own tickets elsewhere were cancelled and he sat in a match he
// never asked for. A player token now names only himself; a group queues
// through a party (partysvc), and a server key may still queue any group.
func TestConsentRule(t *testing.T) {
	e := newSvcEnv(t, svcOptions{auth: true})
	mallory := playerToken(t, "mallory")
	const denied = connect.CodePermissionDenied
	e.check(t, []access{
		{"mallory queues the victim with herself", "TicketService/CreateTicket", mallory,
			`{"queue":"squad","players":[{"id":"mallory"},{"id":"victim"}]}`, denied, "players[1].id"},
		{"the refusal says how to queue together", "TicketService/CreateTicket", mallory,
			`{"queue":"squad","players":[{"id":"victim"},{"id":"mallory"}]}`, denied, "queues it (PartyService)"},
		{"mallory queues the victim alone", "TicketService/CreateTicket", mallory,
			`{"queue":"duel","players":[{"id":"victim","attributes":{"mmr":1500}}]}`, denied, "players[0].id"},
		{"in bulk", "TicketService/CreateTickets", mallory,
			`{"tickets":[{"queue":"duel","players":[{"id":"mallory","attributes":{"mmr":1500}}]},{"queue":"squad","players":[{"id":"mallory"},{"id":"victim"}]}]}`,
			denied, "tickets[1].players[1].id"},
		{"mallory queues herself", "TicketService/CreateTicket", mallory,
			`{"queue":"duel","players":[{"id":"mallory","attributes":{"mmr":1500}}]}`, 0, ""},
		{"a server key queues any group", "TicketService/CreateTicket", keyTickets,
			`{"queue":"squad","players":[{"id":"ann"},{"id":"bob"}]}`, 0, ""},
	})
	// Nothing of the refused calls was stored: the victim has no ticket.
	r := e.rpc("TicketService/ListTickets", keyAdmin, `{}`).ok(t)
	for _, tk := range r.list("tickets") {
		for _, p := range tk.(map[string]any)["players"].([]any) {
			if p.(map[string]any)["id"] == "victim" {
				t.Fatalf("a ticket names the victim: %s", r.raw)
			}
		}
	}
}
