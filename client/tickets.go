package client

import (
	"context"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// GetTicket returns a ticket: its state, its match once matched, and,
// while it waits, why (from the pool that holds it).
func (c *Client) GetTicket(ctx context.Context, id string) (*cupidv1.Ticket, error) {
	res, err := c.Tickets.GetTicket(ctx, connect.NewRequest(&cupidv1.GetTicketRequest{Id: id}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetTicket(), nil
}

// ListTickets returns a queue's tickets in a state (any state when
// TICKET_STATE_UNSPECIFIED), at most limit (100 when 0, 1,000 at most).
func (c *Client) ListTickets(ctx context.Context, queue string, state cupidv1.TicketState, limit int) ([]*cupidv1.Ticket, error) {
	res, err := c.Tickets.ListTickets(ctx, connect.NewRequest(&cupidv1.ListTicketsRequest{Queue: queue, State: state, Limit: int32(limit)}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetTickets(), nil
}

// QueueStats describes the pools of a queue (of every queue when queue is
// empty): waiting tickets and players, the oldest wait, matches formed.
func (c *Client) QueueStats(ctx context.Context, queue string) ([]*cupidv1.PoolStats, error) {
	res, err := c.Tickets.QueueStats(ctx, connect.NewRequest(&cupidv1.QueueStatsRequest{Queue: queue}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetPools(), nil
}

// ListMatches returns a queue's matches in a state (any when
// MATCH_STATE_UNSPECIFIED), at most limit (100 when 0, 1,000 at most).
func (c *Client) ListMatches(ctx context.Context, queue string, state cupidv1.MatchState, limit int) ([]*cupidv1.MatchRecord, error) {
	res, err := c.Matches.ListMatches(ctx, connect.NewRequest(&cupidv1.ListMatchesRequest{Queue: queue, State: state, Limit: int32(limit)}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatches(), nil
}
