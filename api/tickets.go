package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"connectrpc.com/connect"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// tickets serves cupid.v1.TicketService over the ticketsvc.
type tickets struct {
	mm  *ticketsvc.Service
	log *slog.Logger
	now func() time.Time
	// watchers caps the open watches (limits.go).
	watchers *watchLimiter
}

var _ cupidv1connect.TicketServiceHandler = (*tickets)(nil)

func (h *tickets) CreateTicket(ctx context.Context, req *connect.Request[cupidv1.CreateTicketRequest]) (*connect.Response[cupidv1.CreateTicketResponse], error) {
	t, err := ticketIn(req.Msg)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	stored, existed, err := h.mm.CreateTicket(ctx, t, req.Msg.GetReplace())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.CreateTicketResponse{
		Ticket:  ticketOut(stored, nil, h.now()),
		Existed: existed,
	}), nil
}

// MaxBulkTickets bounds one CreateTickets call.
const MaxBulkTickets = 1000

func (h *tickets) CreateTickets(ctx context.Context, req *connect.Request[cupidv1.CreateTicketsRequest]) (*connect.Response[cupidv1.CreateTicketsResponse], error) {
	in := req.Msg.GetTickets()
	switch {
	case len(in) == 0:
		return nil, connectError(h.log, cupid.Invalid("tickets", "required: at least one ticket"))
	case len(in) > MaxBulkTickets:
		return nil, connectError(h.log, cupid.Invalid("tickets", "at most %d tickets per call, got %d", MaxBulkTickets, len(in)))
	}
	// Tickets that fail conversion are not sent; the others keep their
	// positions in the results.
	bad := make([]error, len(in))
	var idx []int
	var send []ticketsvc.NewTicket
	for i, r := range in {
		t, err := ticketIn(r)
		if err != nil {
			bad[i] = err
			continue
		}
		idx = append(idx, i)
		send = append(send, ticketsvc.NewTicket{Ticket: t, Replace: r.GetReplace()})
	}
	res := make([]ticketsvc.Created, len(in))
	for i, c := range h.mm.CreateTickets(ctx, send) {
		res[idx[i]] = c
	}
	out := &cupidv1.CreateTicketsResponse{Results: make([]*cupidv1.CreateTicketResult, len(in))}
	now := h.now()
	for i := range in {
		r := &cupidv1.CreateTicketResult{}
		err := bad[i]
		if err == nil {
			err = res[i].Err
		}
		if err != nil {
			r.ErrorCode, r.Error, r.ErrorField = h.bulkError(fmt.Sprintf("tickets[%d]", i), err)
		} else {
			r.Ticket, r.Existed = ticketOut(res[i].Ticket, nil, now), res[i].Existed
		}
		out.Results[i] = r
	}
	return connect.NewResponse(out), nil
}

// bulkError is one refused item of a bulk call as its result carries it:
// the Connect code name, the message and the field, placed under the
// item's own path (tickets[3], ids[3]).
func (h *tickets) bulkError(item string, err error) (code, msg, field string) {
	err = cupid.Within(item, err)
	ce := connectError(h.log, err).(*connect.Error)
	var e *cupid.Error
	if errors.As(err, &e) {
		field = e.Field
	}
	return ce.Code().String(), ce.Message(), field
}

func (h *tickets) CancelTickets(ctx context.Context, req *connect.Request[cupidv1.CancelTicketsRequest]) (*connect.Response[cupidv1.CancelTicketsResponse], error) {
	ids := req.Msg.GetIds()
	switch {
	case len(ids) == 0:
		return nil, connectError(h.log, cupid.Invalid("ids", "required: at least one ticket id"))
	case len(ids) > MaxBulkTickets:
		return nil, connectError(h.log, cupid.Invalid("ids", "at most %d tickets per call, got %d", MaxBulkTickets, len(ids)))
	}
	out := &cupidv1.CancelTicketsResponse{Results: make([]*cupidv1.CancelTicketResult, len(ids))}
	now := h.now()
	for i, c := range h.mm.CancelTickets(ctx, ids) {
		r := &cupidv1.CancelTicketResult{}
		if c.Err != nil {
			// The service names a ticket's id "id"; in this call the id
			// is the item itself, ids[i].
			r.ErrorCode, r.Error, r.ErrorField = h.bulkError(fmt.Sprintf("ids[%d]", i), renameField(c.Err, idIsItem))
		} else {
			r.Ticket = ticketOut(c.Ticket, nil, now)
		}
		out.Results[i] = r
	}
	return connect.NewResponse(out), nil
}

func (h *tickets) GetTicket(ctx context.Context, req *connect.Request[cupidv1.GetTicketRequest]) (*connect.Response[cupidv1.GetTicketResponse], error) {
	v, err := h.mm.GetTicket(ctx, req.Msg.GetId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := ticketOut(v.Ticket, v.Match, h.now())
	out.Why = whyOut(v)
	out.Estimate = estimateOut(v.Estimate)
	return connect.NewResponse(&cupidv1.GetTicketResponse{Ticket: out}), nil
}

func (h *tickets) CancelTicket(ctx context.Context, req *connect.Request[cupidv1.CancelTicketRequest]) (*connect.Response[cupidv1.CancelTicketResponse], error) {
	t, err := h.mm.CancelTicket(ctx, req.Msg.GetId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.CancelTicketResponse{Ticket: ticketOut(t, nil, h.now())}), nil
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
		out.Tickets = append(out.Tickets, ticketOut(t, nil, now))
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
	release, err := h.watchers.acquire(req.Msg.GetId())
	if err != nil {
		return connectError(h.log, err)
	}
	defer release()
	err = h.mm.Watch(ctx, req.Msg.GetId(), req.Msg.GetAfterSeq(), func(ev cupid.Event) error {
		return stream.Send(eventOut(ev))
	})
	return connectError(h.log, err)
}

// idIsItem renames the service's "id" to the item of a bulk call about
// ids, whose path (ids[i]) names it already.
func idIsItem(field string) string {
	if field == "id" {
		return ""
	}
	return field
}
