package client

import (
	"context"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// AcceptMatch answers a pending match's ready check for a player: accept,
// or decline. With a player token playerID may be empty (the token's
// player answers). The same answer twice is harmless; a changed answer,
// or one to a match no longer pending, is refused with
// failed_precondition.
func (c *Client) AcceptMatch(ctx context.Context, matchID, playerID string, accept bool) (*cupidv1.MatchRecord, error) {
	res, err := c.Matches.AcceptMatch(ctx, connect.NewRequest(&cupidv1.AcceptMatchRequest{Id: matchID, PlayerId: playerID, Accept: accept}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatch(), nil
}

// WatchReadyCheck follows a player's ticket in a queue with a ready check,
// as Watch does, and answers each proposal for him: fn hears every event
// first; on "proposed", decide says whether he accepts the match (a game
// shows its "match found" dialog here), and the answer is sent. It returns
// when the ticket is matched (everyone accepted), cancelled or expired;
// after a "requeued" (someone else declined, or did not answer in time)
// it waits for the next proposal. An answer the server refuses because the
// match is no longer pending (the deadline passed meanwhile) is not an
// error: the next event says what became of the ticket.
func (c *Client) WatchReadyCheck(ctx context.Context, ticketID, playerID string, afterSeq int64,
	decide func(ctx context.Context, m *cupidv1.Match) (bool, error), fn func(*cupidv1.TicketEvent) error) error {
	return c.Watch(ctx, ticketID, afterSeq, func(ev *cupidv1.TicketEvent) error {
		if err := fn(ev); err != nil {
			return err
		}
		if ev.GetKind() != "proposed" {
			return nil
		}
		accept, err := decide(ctx, ev.GetMatch())
		if err != nil {
			return err
		}
		_, err = c.AcceptMatch(ctx, ev.GetMatch().GetId(), playerID, accept)
		if connect.CodeOf(err) == connect.CodeFailedPrecondition {
			return nil // too late: the match was released; the watch says how
		}
		return err
	})
}
