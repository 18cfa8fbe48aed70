package main

import (
	"context"
	"strings"
	"testing"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// TestValueBeyondTheRulesMaxIsRefused: the demo's duel reads mmr with max
// 3000; a ticket with mmr 5000 is refused at create, naming the field and
// the max, and nothing is stored.
func TestValueBeyondTheRulesMaxIsRefused(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := s.connectClient()
	ctx := context.Background()
	_, err := c.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{
		Queue: "duel", Players: []*cupidv1.Player{player("huge", 5000)},
	}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "players[0].attributes.mmr: 5000 is above the rule's max 3000") {
		t.Fatalf("err %v, want invalid_argument naming players[0].attributes.mmr and the max", err)
	}
	list, err := c.ListTickets(ctx, connect.NewRequest(&cupidv1.ListTicketsRequest{Queue: "duel"}))
	if err != nil || len(list.Msg.GetTickets()) != 0 {
		t.Fatalf("stored: %v %v", list, err)
	}
	if _, err := c.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{
		Queue: "duel", Players: []*cupidv1.Player{player("top", 3000)},
	})); err != nil {
		t.Fatalf("mmr at the max: %v", err)
	}
}
