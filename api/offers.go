package api

import (
	"context"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// AcceptOffer has a waiting ticket accept one of its offers; a player may
// accept offers for his own tickets only (permissions.go).
func (h *tickets) AcceptOffer(ctx context.Context, req *connect.Request[cupidv1.AcceptOfferRequest]) (*connect.Response[cupidv1.AcceptOfferResponse], error) {
	t, offer, err := h.mm.AcceptOffer(ctx, req.Msg.GetId(), req.Msg.GetOfferId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.AcceptOfferResponse{Ticket: ticketOut(t, nil, h.now()), Offer: offerOut(offer)}), nil
}

// offerOut is an engine offer on the wire.
func offerOut(o *ticketsvc.Offer) *cupidv1.Offer {
	if o == nil {
		return nil
	}
	out := &cupidv1.Offer{Id: o.ID, Text: o.Text, Region: o.Region, ExtraMs: o.Extra,
		Candidates: int64(o.Adds), Players: int64(o.Players), FormsMatch: o.Forms, Option: o.Option, Value: o.Value}
	if !o.Reached.IsZero() {
		out.Reached = timestamppb.New(o.Reached)
	}
	return out
}
