package api

import (
	"context"
	"log/slog"
	"time"

	"connectrpc.com/connect"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/matchmaker"
)

// tickets serves cupid.v1.TicketService over the matchmaker.
type tickets struct {
	mm  *matchmaker.Service
	log *slog.Logger
	now func() time.Time
}

var _ cupidv1connect.TicketServiceHandler = (*tickets)(nil)

func (h *tickets) CreateTicket(ctx context.Context, req *connect.Request[cupidv1.CreateTicketRequest]) (*connect.Response[cupidv1.CreateTicketResponse], error) {
	t, err := ticketIn(req.Msg)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	stored, existed, err := h.mm.CreateTicket(ctx, t)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.CreateTicketResponse{
		Ticket:  ticketOut(stored, nil, nil, h.now()),
		Existed: existed,
	}), nil
}

func (h *tickets) GetTicket(ctx context.Context, req *connect.Request[cupidv1.GetTicketRequest]) (*connect.Response[cupidv1.GetTicketResponse], error) {
	v, err := h.mm.GetTicket(ctx, req.Msg.GetId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.GetTicketResponse{Ticket: ticketOut(v.Ticket, v.Match, v.Why, h.now())}), nil
}

func (h *tickets) CancelTicket(ctx context.Context, req *connect.Request[cupidv1.CancelTicketRequest]) (*connect.Response[cupidv1.CancelTicketResponse], error) {
	t, err := h.mm.CancelTicket(ctx, req.Msg.GetId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.CancelTicketResponse{Ticket: ticketOut(t, nil, nil, h.now())}), nil
}

func (h *tickets) ListTickets(ctx context.Context, req *connect.Request[cupidv1.ListTicketsRequest]) (*connect.Response[cupidv1.ListTicketsResponse], error) {
	state, ok := stateIn[req.Msg.GetState()]
	if !ok {
		return nil, connectError(h.log, cupid.Invalid("state", "unknown state %d", req.Msg.GetState()))
	}
	ts, err := h.mm.ListTickets(ctx, cupid.TicketFilter{Queue: req.Msg.GetQueue(), State: state, Limit: int(req.Msg.GetLimit())})
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.ListTicketsResponse{}
	now := h.now()
	for _, t := range ts {
		out.Tickets = append(out.Tickets, ticketOut(t, nil, nil, now))
	}
	return connect.NewResponse(out), nil
}

func (h *tickets) QueueStats(ctx context.Context, req *connect.Request[cupidv1.QueueStatsRequest]) (*connect.Response[cupidv1.QueueStatsResponse], error) {
	st, err := h.mm.Stats(ctx, req.Msg.GetQueue())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.QueueStatsResponse{}
	for _, p := range st {
		out.Pools = append(out.Pools, poolStatsOut(p))
	}
	return connect.NewResponse(out), nil
}

func (h *tickets) WatchTicket(ctx context.Context, req *connect.Request[cupidv1.WatchTicketRequest], stream *connect.ServerStream[cupidv1.TicketEvent]) error {
	err := h.mm.Watch(ctx, req.Msg.GetId(), req.Msg.GetAfterSeq(), func(ev cupid.Event) error {
		return stream.Send(eventOut(ev))
	})
	return connectError(h.log, err)
}
