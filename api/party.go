package api

import (
	"context"
	"log/slog"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/party"
	"github.com/cupid-match/cupid/service/partysvc"
)

// registerParties serves cupid.v1.PartyService and the party WebSocket.
func registerParties(mux *http.ServeMux, svc *partysvc.Service, log *slog.Logger, opts []connect.HandlerOption, allowed origins, w *watchLimiter) {
	h := &partyHandler{svc: svc, log: log, origins: allowed, watchers: w}
	mux.Handle(cupidv1connect.NewPartyServiceHandler(h, opts...))
	mux.HandleFunc("GET /v1/parties/{id}/ws", h.watchSocket)
}

// partyHandler converts and calls the party service; every rule is the
// party package's, every check of who may act is permissions' and the
// service's.
type partyHandler struct {
	svc      *partysvc.Service
	log      *slog.Logger
	origins  origins
	watchers *watchLimiter
}

var _ cupidv1connect.PartyServiceHandler = (*partyHandler)(nil)

// reply converts a service answer.
func (h *partyHandler) reply(p *party.Party, err error) (*connect.Response[cupidv1.PartyResponse], error) {
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.PartyResponse{Party: partyOut(p)}), nil
}

// memberIn reads a member's own values.
func memberIn(player string, attrs map[string]*structpb.Value, lat map[string]int32) (party.Member, error) {
	a, err := attributesIn("attributes", attrs)
	if err != nil {
		return party.Member{}, err
	}
	return party.Member{ID: player, Attributes: a, Latencies: lat}, nil
}

func (h *partyHandler) CreateParty(ctx context.Context, req *connect.Request[cupidv1.CreatePartyRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	m, err := memberIn(req.Msg.GetPlayer(), req.Msg.GetAttributes(), req.Msg.GetLatencies())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return h.reply(h.svc.Create(ctx, m))
}

func (h *partyHandler) GetParty(ctx context.Context, req *connect.Request[cupidv1.GetPartyRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	if req.Msg.GetPartyId() == "" {
		return h.reply(h.svc.PartyOf(ctx, req.Msg.GetPlayer()))
	}
	return h.reply(h.svc.Get(ctx, req.Msg.GetPartyId(), req.Msg.GetPlayer()))
}

func (h *partyHandler) Invite(ctx context.Context, req *connect.Request[cupidv1.InviteRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	return h.reply(h.svc.Invite(ctx, req.Msg.GetPartyId(), req.Msg.GetPlayer(), req.Msg.GetInvitee()))
}

func (h *partyHandler) ListInvites(ctx context.Context, req *connect.Request[cupidv1.ListInvitesRequest]) (*connect.Response[cupidv1.ListInvitesResponse], error) {
	invites, err := h.svc.Invites(ctx, req.Msg.GetPlayer())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.ListInvitesResponse{}
	for _, i := range invites {
		out.Invites = append(out.Invites, &cupidv1.PartyInvite{Player: i.Player, InvitedBy: i.By, ExpiresAt: timestamppb.New(i.ExpiresAt), PartyId: i.PartyID, Leader: i.Leader})
	}
	return connect.NewResponse(out), nil
}

func (h *partyHandler) AnswerInvite(ctx context.Context, req *connect.Request[cupidv1.AnswerInviteRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	m, err := memberIn(req.Msg.GetPlayer(), req.Msg.GetAttributes(), req.Msg.GetLatencies())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return h.reply(h.svc.Answer(ctx, req.Msg.GetPartyId(), m, req.Msg.GetAccept()))
}

func (h *partyHandler) JoinByCode(ctx context.Context, req *connect.Request[cupidv1.JoinByCodeRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	m, err := memberIn(req.Msg.GetPlayer(), req.Msg.GetAttributes(), req.Msg.GetLatencies())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return h.reply(h.svc.JoinByCode(ctx, req.Msg.GetCode(), m))
}

func (h *partyHandler) Leave(ctx context.Context, req *connect.Request[cupidv1.PartyMemberRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	return h.reply(h.svc.Leave(ctx, req.Msg.GetPartyId(), req.Msg.GetPlayer()))
}

func (h *partyHandler) Remove(ctx context.Context, req *connect.Request[cupidv1.RemoveRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	return h.reply(h.svc.Remove(ctx, req.Msg.GetPartyId(), req.Msg.GetPlayer(), req.Msg.GetMember()))
}

func (h *partyHandler) HandOver(ctx context.Context, req *connect.Request[cupidv1.HandOverRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	return h.reply(h.svc.HandOver(ctx, req.Msg.GetPartyId(), req.Msg.GetPlayer(), req.Msg.GetTo()))
}

func (h *partyHandler) SetReady(ctx context.Context, req *connect.Request[cupidv1.SetPartyReadyRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	return h.reply(h.svc.SetReady(ctx, req.Msg.GetPartyId(), req.Msg.GetPlayer(), req.Msg.GetReady()))
}

func (h *partyHandler) SetMember(ctx context.Context, req *connect.Request[cupidv1.SetMemberRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	m, err := memberIn(req.Msg.GetPlayer(), req.Msg.GetAttributes(), req.Msg.GetLatencies())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return h.reply(h.svc.SetMember(ctx, req.Msg.GetPartyId(), m))
}

func (h *partyHandler) Queue(ctx context.Context, req *connect.Request[cupidv1.QueuePartyRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	return h.reply(h.svc.Queue(ctx, req.Msg.GetPartyId(), req.Msg.GetPlayer(), req.Msg.GetQueue()))
}

func (h *partyHandler) CancelQueue(ctx context.Context, req *connect.Request[cupidv1.PartyMemberRequest]) (*connect.Response[cupidv1.PartyResponse], error) {
	return h.reply(h.svc.CancelQueue(ctx, req.Msg.GetPartyId(), req.Msg.GetPlayer()))
}

func (h *partyHandler) WatchParty(ctx context.Context, req *connect.Request[cupidv1.WatchPartyRequest], stream *connect.ServerStream[cupidv1.PartyEvent]) error {
	id := req.Msg.GetPartyId()
	release, err := h.watchers.acquire("party/" + id)
	if err != nil {
		return connectError(h.log, err)
	}
	defer release()
	err = h.svc.Watch(ctx, id, req.Msg.GetPlayer(), req.Msg.GetAfterSeq(), func(ev party.Event) error {
		return stream.Send(partyEventOut(id, ev))
	})
	return connectError(h.log, err)
}

// watchSocket serves GET /v1/parties/{id}/ws?player=P&after_seq=N: the
// events of WatchParty as JSON text messages (the Connect JSON form of
// PartyEvent). The server closes the socket normally when the party ends
// or the player leaves it; on any other close the client reconnects with
// the last seq it saw.
func (h *partyHandler) watchSocket(w http.ResponseWriter, r *http.Request) {
	id, player := r.PathValue("id"), r.URL.Query().Get("player")
	after, err := afterSeqParam(r)
	if err != nil {
		httpError(w, err)
		return
	}
	// Fail before the upgrade when the party or the player is wrong, so the
	// client gets a plain HTTP error it can read.
	if _, err := h.svc.Get(r.Context(), id, player); err != nil {
		httpError(w, err)
		return
	}
	release, err := h.watchers.acquire("party/" + id)
	if err != nil {
		httpError(w, err)
		return
	}
	defer release()
	c, ctx, ok := acceptSocket(w, r, h.origins)
	if !ok {
		return
	}
	err = h.svc.Watch(ctx, id, player, after, func(ev party.Event) error { return sendJSON(ctx, c, partyEventOut(id, ev)) })
	closeWatch(c, err, "the party ended for this player")
}

func partyOut(p *party.Party) *cupidv1.Party {
	if p == nil {
		return nil
	}
	out := &cupidv1.Party{
		Id: p.ID, Leader: p.Leader, Code: p.Code, Phase: string(p.Phase), Queue: p.Queue,
		TicketId: p.TicketID, MatchId: p.MatchID, Seq: p.Seq, CreatedAt: timestamppb.New(p.CreatedAt),
	}
	for _, m := range p.Members {
		out.Members = append(out.Members, &cupidv1.PartyMember{
			Id: m.ID, Attributes: attributesOut(m.Attributes), Latencies: m.Latencies, Ready: m.Ready, JoinedAt: timestamppb.New(m.JoinedAt),
		})
	}
	for _, i := range p.Invites {
		out.Invites = append(out.Invites, &cupidv1.PartyInvite{Player: i.Player, InvitedBy: i.By, ExpiresAt: timestamppb.New(i.ExpiresAt)})
	}
	return out
}

func partyEventOut(id string, ev party.Event) *cupidv1.PartyEvent {
	return &cupidv1.PartyEvent{
		Seq: ev.Seq, PartyId: id, Kind: string(ev.Kind), At: timestamppb.New(ev.At), Player: ev.Player, By: ev.By,
		Ready: ev.Ready, Queue: ev.Queue, TicketId: ev.TicketID, MatchId: ev.MatchID,
		Assignment: assignmentOut(ev.Assignment), Reason: ev.Reason,
	}
}
