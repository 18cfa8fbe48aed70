package client

import (
	"context"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// AcceptOffer has a waiting ticket accept one of the offers its
// explanation lists (GetTicket's why.offers, by id): the ticket is changed
// as the offer says and keeps its id and its age. It returns the ticket as
// it now is and the offer as accepted; an offer that no longer holds is
// refused with failed_precondition (read the ticket again for its current
// offers).
func (c *Client) AcceptOffer(ctx context.Context, ticketID, offerID string) (*cupidv1.Ticket, *cupidv1.Offer, error) {
	res, err := c.Tickets.AcceptOffer(ctx, connect.NewRequest(&cupidv1.AcceptOfferRequest{Id: ticketID, OfferId: offerID}))
	if err != nil {
		return nil, nil, err
	}
	return res.Msg.GetTicket(), res.Msg.GetOffer(), nil
}
