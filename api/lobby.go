package api

import (
	"context"
	"log/slog"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/lobby"
	"github.com/cupid-match/cupid/service/lobbysvc"
)

// registerLobbies mounts cupid.v1.LobbyService.
func registerLobbies(mux *http.ServeMux, svc *lobbysvc.Service, log *slog.Logger, opts []connect.HandlerOption) {
	mux.Handle(cupidv1connect.NewLobbyServiceHandler(&lobbyHandler{svc: svc, log: log}, opts...))
}

// lobbyHandler serves cupid.v1.LobbyService over the lobby service: it
// converts and calls; the rules (who is host, who may join) are the lobby
// package's, and who may act as whom is permissions' (lobby_permissions.go).
type lobbyHandler struct {
	svc *lobbysvc.Service
	log *slog.Logger
}

var _ cupidv1connect.LobbyServiceHandler = (*lobbyHandler)(nil)

func (h *lobbyHandler) reply(ctx context.Context, v *lobbysvc.View, err error) (*connect.Response[cupidv1.LobbyResponse], error) {
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.LobbyResponse{Lobby: lobbyOut(ctx, v)}), nil
}

func (h *lobbyHandler) CreateLobby(ctx context.Context, req *connect.Request[cupidv1.CreateLobbyRequest]) (*connect.Response[cupidv1.LobbyResponse], error) {
	attrs, err := attributesIn("attributes", req.Msg.GetAttributes())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	st, err := settingsOfLobby(req.Msg.GetSettings())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	v, err := h.svc.CreateLobby(ctx, lobbysvc.NewLobby{Host: req.Msg.GetPlayer(), HostAttributes: attrs, Settings: st})
	if e, ok := err.(*cupid.Error); ok && e.Field == "host" {
		err = &cupid.Error{Code: e.Code, Field: "player", Message: e.Message}
	}
	return h.reply(ctx, v, err)
}

func settingsOfLobby(s *cupidv1.LobbySettings) (lobby.Settings, error) {
	if s == nil {
		return lobby.Settings{}, cupid.Invalid("settings", "required")
	}
	out := lobby.Settings{Name: s.GetName(), Queue: s.GetQueue(), Teams: int(s.GetTeams()), TeamSize: int(s.GetTeamSize()), Attributes: s.GetAttributes(), FillFromQueue: s.GetFillFromQueue()}
	switch s.GetVisibility() {
	case cupidv1.LobbyVisibility_LOBBY_VISIBILITY_UNSPECIFIED, cupidv1.LobbyVisibility_LOBBY_VISIBILITY_PUBLIC:
		out.Visibility = lobby.Public
	case cupidv1.LobbyVisibility_LOBBY_VISIBILITY_PRIVATE:
		out.Visibility = lobby.Private
	default:
		return out, cupid.Invalid("settings.visibility", "unknown visibility %d", s.GetVisibility())
	}
	return out, nil
}

func (h *lobbyHandler) GetLobby(ctx context.Context, req *connect.Request[cupidv1.GetLobbyRequest]) (*connect.Response[cupidv1.LobbyResponse], error) {
	v, err := h.svc.GetLobby(ctx, req.Msg.GetLobbyId())
	return h.reply(ctx, v, err)
}

func (h *lobbyHandler) ListLobbies(ctx context.Context, req *connect.Request[cupidv1.ListLobbiesRequest]) (*connect.Response[cupidv1.ListLobbiesResponse], error) {
	m := req.Msg
	f := lobby.Filter{Queue: m.GetQueue(), Attributes: m.GetAttributes(), MinFree: int(m.GetMinFreeSeats()), IncludeLocked: m.GetIncludeLocked()}
	p, err := h.svc.ListLobbies(ctx, f, m.GetCursor(), int(m.GetPageSize()))
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.ListLobbiesResponse{NextCursor: p.Next, Lobbies: make([]*cupidv1.Lobby, len(p.Lobbies))}
	for i, v := range p.Lobbies {
		out.Lobbies[i] = lobbyOut(ctx, v)
	}
	return connect.NewResponse(out), nil
}

// teamIn is a request's team: lobby.AnyTeam when absent.
func teamIn(t *int32) int {
	if t == nil {
		return lobby.AnyTeam
	}
	if *t < 0 {
		return -2 // refused by the lobby as out of range, naming "team"
	}
	return int(*t)
}

func (h *lobbyHandler) JoinLobby(ctx context.Context, req *connect.Request[cupidv1.JoinLobbyRequest]) (*connect.Response[cupidv1.LobbyResponse], error) {
	m := req.Msg
	attrs, err := attributesIn("attributes", m.GetAttributes())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	v, err := h.svc.Join(ctx, m.GetLobbyId(), m.GetCode(), m.GetPlayer(), attrs, teamIn(m.Team))
	return h.reply(ctx, v, err)
}

func (h *lobbyHandler) LeaveLobby(ctx context.Context, req *connect.Request[cupidv1.LobbyPlayerRequest]) (*connect.Response[cupidv1.LobbyResponse], error) {
	v, err := h.svc.Leave(ctx, req.Msg.GetLobbyId(), req.Msg.GetPlayer())
	return h.reply(ctx, v, err)
}

func (h *lobbyHandler) SetTeam(ctx context.Context, req *connect.Request[cupidv1.SetTeamRequest]) (*connect.Response[cupidv1.LobbyResponse], error) {
	v, err := h.svc.SetTeam(ctx, req.Msg.GetLobbyId(), req.Msg.GetPlayer(), teamIn(req.Msg.Team))
	return h.reply(ctx, v, err)
}

func (h *lobbyHandler) SetReady(ctx context.Context, req *connect.Request[cupidv1.SetReadyRequest]) (*connect.Response[cupidv1.LobbyResponse], error) {
	v, err := h.svc.SetReady(ctx, req.Msg.GetLobbyId(), req.Msg.GetPlayer(), req.Msg.GetReady())
	return h.reply(ctx, v, err)
}

func (h *lobbyHandler) Kick(ctx context.Context, req *connect.Request[cupidv1.LobbyTargetRequest]) (*connect.Response[cupidv1.LobbyResponse], error) {
	v, err := h.svc.Kick(ctx, req.Msg.GetLobbyId(), req.Msg.GetPlayer(), req.Msg.GetTarget())
	return h.reply(ctx, v, err)
}

func (h *lobbyHandler) Lock(ctx context.Context, req *connect.Request[cupidv1.LockRequest]) (*connect.Response[cupidv1.LobbyResponse], error) {
	v, err := h.svc.SetLocked(ctx, req.Msg.GetLobbyId(), req.Msg.GetPlayer(), req.Msg.GetLocked())
	return h.reply(ctx, v, err)
}

func (h *lobbyHandler) HandOverHost(ctx context.Context, req *connect.Request[cupidv1.LobbyTargetRequest]) (*connect.Response[cupidv1.LobbyResponse], error) {
	v, err := h.svc.HandOver(ctx, req.Msg.GetLobbyId(), req.Msg.GetPlayer(), req.Msg.GetTarget())
	return h.reply(ctx, v, err)
}

func (h *lobbyHandler) CloseLobby(ctx context.Context, req *connect.Request[cupidv1.LobbyPlayerRequest]) (*connect.Response[cupidv1.LobbyResponse], error) {
	v, err := h.svc.CloseLobby(ctx, req.Msg.GetLobbyId(), req.Msg.GetPlayer())
	return h.reply(ctx, v, err)
}

func (h *lobbyHandler) Start(ctx context.Context, req *connect.Request[cupidv1.LobbyPlayerRequest]) (*connect.Response[cupidv1.StartLobbyResponse], error) {
	v, rec, err := h.svc.StartLobby(ctx, req.Msg.GetLobbyId(), req.Msg.GetPlayer())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.StartLobbyResponse{Lobby: lobbyOut(ctx, v), Match: matchOut(rec.Match)}), nil
}

func (h *lobbyHandler) WatchLobby(ctx context.Context, req *connect.Request[cupidv1.WatchLobbyRequest], stream *connect.ServerStream[cupidv1.LobbyEvent]) error {
	err := h.svc.Watch(ctx, req.Msg.GetLobbyId(), req.Msg.GetAfterSeq(), func(ev lobby.Event, v *lobbysvc.View) error {
		return stream.Send(&cupidv1.LobbyEvent{
			Seq: ev.Seq, Kind: string(ev.Kind), At: timestamppb.New(ev.At), Player: ev.Player, Team: int32(ev.Team),
			MatchId: ev.MatchID, Reason: ev.Reason, Lobby: lobbyOut(ctx, v),
		})
	})
	return connectError(h.log, err)
}

var lobbyStates = map[lobby.State]cupidv1.LobbyState{
	lobby.Open: cupidv1.LobbyState_LOBBY_STATE_OPEN, lobby.Starting: cupidv1.LobbyState_LOBBY_STATE_STARTING,
	lobby.Started: cupidv1.LobbyState_LOBBY_STATE_STARTED, lobby.Closed: cupidv1.LobbyState_LOBBY_STATE_CLOSED,
}

// lobbyOut converts a lobby for the caller: a private lobby's code is left
// out for a player token whose player is not in it.
func lobbyOut(ctx context.Context, v *lobbysvc.View) *cupidv1.Lobby {
	if v == nil {
		return nil
	}
	vis := cupidv1.LobbyVisibility_LOBBY_VISIBILITY_PUBLIC
	if v.Visibility == lobby.Private {
		vis = cupidv1.LobbyVisibility_LOBBY_VISIBILITY_PRIVATE
	}
	out := &cupidv1.Lobby{
		Id: v.ID, Code: v.Code, Host: v.Host, Locked: v.Locked, State: lobbyStates[v.State], FreeSeats: int32(v.Free),
		CreatedAt: timestamppb.New(v.CreatedAt), UpdatedAt: timestamppb.New(v.UpdatedAt), MatchId: v.MatchID, Reason: v.Reason, Seq: v.Seq,
		Settings: &cupidv1.LobbySettings{Name: v.Name, Queue: v.Queue, Teams: int32(v.Teams), TeamSize: int32(v.TeamSize), Visibility: vis, Attributes: v.Attributes, FillFromQueue: v.FillFromQueue},
	}
	for _, m := range v.Members {
		out.Members = append(out.Members, &cupidv1.LobbyMember{Id: m.ID, Team: int32(m.Team), Ready: m.Ready, JoinedAt: timestamppb.New(m.JoinedAt)})
	}
	if c := CallerFrom(ctx); c != nil && c.Key == nil && v.Visibility == lobby.Private {
		if _, i := v.Member(c.Player); i < 0 {
			out.Code = ""
		}
	}
	return out
}
