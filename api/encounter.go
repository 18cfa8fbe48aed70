package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/service/encountersvc"
)

// The encounter service's rules: a player acts on his own history and
// lists only; what says who blocked whom (CheckPlayers) and what writes
// history (RecordEncounter) are a backend's, with the tickets scope; an
// erasure is an operator's (admin).
func init() {
	own := func(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		id := m.(interface{ GetPlayerId() string }).GetPlayerId()
		if id != p {
			return denied("the token's player %s may act only for himself, not for %s", p, quoteEmpty(id))
		}
		return nil
	}
	for _, proc := range []string{
		cupidv1connect.EncounterServiceListEncountersProcedure,
		cupidv1connect.EncounterServiceBlockProcedure, cupidv1connect.EncounterServiceUnblockProcedure,
		cupidv1connect.EncounterServiceListBlocksProcedure,
		cupidv1connect.EncounterServiceAvoidProcedure, cupidv1connect.EncounterServiceUnavoidProcedure,
		cupidv1connect.EncounterServiceListAvoidsProcedure,
		cupidv1connect.EncounterServiceRevengeProcedure,
		cupidv1connect.EncounterServiceRequestRematchProcedure,
		cupidv1connect.EncounterServiceAnswerRematchProcedure,
		cupidv1connect.EncounterServiceGetRematchProcedure,
		cupidv1connect.EncounterServiceReportPlayerProcedure,
	} {
		rules[proc] = rule{scope: ScopeTickets, player: own}
	}
	rules[cupidv1connect.EncounterServiceCheckPlayersProcedure] = rule{scope: ScopeTickets}
	rules[cupidv1connect.EncounterServiceRecordEncounterProcedure] = rule{scope: ScopeTickets}
	rules[cupidv1connect.EncounterServiceEraseProcedure] = rule{scope: ScopeAdmin}
	rules[cupidv1connect.EncounterServiceListReportsProcedure] = rule{scope: ScopeAdmin}
}

// maxCheckPlayers bounds the players of one CheckPlayers call (a match's).
const maxCheckPlayers = encounter.MaxMeetingPlayers

// defaultRevenge is how far back Revenge looks when the caller does not
// say (Clash of Clans' 12 hours).
const defaultRevenge = 12 * time.Hour

func registerEncounters(mux *http.ServeMux, svc *encountersvc.Service, log *slog.Logger, now func() time.Time, opts []connect.HandlerOption) {
	if now == nil {
		now = time.Now
	}
	mux.Handle(cupidv1connect.NewEncounterServiceHandler(&encounters{svc: svc, log: log, now: now}, opts...))
}

// encounters serves cupid.v1.EncounterService over the encounter service.
type encounters struct {
	svc *encountersvc.Service
	log *slog.Logger
	now func() time.Time
}

var _ cupidv1connect.EncounterServiceHandler = (*encounters)(nil)

func (h *encounters) ListEncounters(ctx context.Context, req *connect.Request[cupidv1.ListEncountersRequest]) (*connect.Response[cupidv1.ListEncountersResponse], error) {
	if req.Msg.GetLimit() < 0 {
		return nil, connectError(h.log, cupid.Invalid("limit", "must not be negative"))
	}
	hist, err := h.svc.History(ctx, req.Msg.GetPlayerId(), int(req.Msg.GetLimit()))
	if err != nil {
		return nil, connectError(h.log, err)
	}
	resp := &cupidv1.ListEncountersResponse{}
	for _, e := range hist {
		resp.Encounters = append(resp.Encounters, &cupidv1.Encounter{
			OtherId: e.Other, Mode: e.Mode, Side: e.Side, Place: e.Place, Ref: e.Ref, At: timestamppb.New(e.At), Outcome: e.Outcome,
		})
	}
	return connect.NewResponse(resp), nil
}

func entryOut(e cupid.ListEntry) *cupidv1.ListEntry {
	w := e.Weight
	if e.Kind == encounter.KindBlock {
		w = 0
	}
	return &cupidv1.ListEntry{OtherId: e.Other, Weight: w, At: timestamppb.New(e.At)}
}

func (h *encounters) put(ctx context.Context, player, kind, other string, weight float64) (*cupidv1.ListEntry, error) {
	e, err := h.svc.Put(ctx, player, kind, other, weight)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return entryOut(e), nil
}

func (h *encounters) list(ctx context.Context, player, kind string) ([]*cupidv1.ListEntry, error) {
	es, err := h.svc.List(ctx, player, kind)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := []*cupidv1.ListEntry{}
	for _, e := range es {
		out = append(out, entryOut(e))
	}
	return out, nil
}

func (h *encounters) Block(ctx context.Context, req *connect.Request[cupidv1.BlockRequest]) (*connect.Response[cupidv1.BlockResponse], error) {
	e, err := h.put(ctx, req.Msg.GetPlayerId(), encounter.KindBlock, req.Msg.GetOtherId(), 0)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cupidv1.BlockResponse{Entry: e}), nil
}

func (h *encounters) Unblock(ctx context.Context, req *connect.Request[cupidv1.UnblockRequest]) (*connect.Response[cupidv1.UnblockResponse], error) {
	if err := h.svc.Remove(ctx, req.Msg.GetPlayerId(), encounter.KindBlock, req.Msg.GetOtherId()); err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.UnblockResponse{}), nil
}

func (h *encounters) ListBlocks(ctx context.Context, req *connect.Request[cupidv1.ListBlocksRequest]) (*connect.Response[cupidv1.ListBlocksResponse], error) {
	es, err := h.list(ctx, req.Msg.GetPlayerId(), encounter.KindBlock)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cupidv1.ListBlocksResponse{Entries: es}), nil
}

func (h *encounters) Avoid(ctx context.Context, req *connect.Request[cupidv1.AvoidRequest]) (*connect.Response[cupidv1.AvoidResponse], error) {
	e, err := h.put(ctx, req.Msg.GetPlayerId(), encounter.KindAvoid, req.Msg.GetOtherId(), req.Msg.GetWeight())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cupidv1.AvoidResponse{Entry: e}), nil
}

func (h *encounters) Unavoid(ctx context.Context, req *connect.Request[cupidv1.UnavoidRequest]) (*connect.Response[cupidv1.UnavoidResponse], error) {
	if err := h.svc.Remove(ctx, req.Msg.GetPlayerId(), encounter.KindAvoid, req.Msg.GetOtherId()); err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.UnavoidResponse{}), nil
}

func (h *encounters) ListAvoids(ctx context.Context, req *connect.Request[cupidv1.ListAvoidsRequest]) (*connect.Response[cupidv1.ListAvoidsResponse], error) {
	es, err := h.list(ctx, req.Msg.GetPlayerId(), encounter.KindAvoid)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cupidv1.ListAvoidsResponse{Entries: es}), nil
}

func (h *encounters) CheckPlayers(ctx context.Context, req *connect.Request[cupidv1.CheckPlayersRequest]) (*connect.Response[cupidv1.CheckPlayersResponse], error) {
	ids := req.Msg.GetPlayerIds()
	if len(ids) > maxCheckPlayers {
		return nil, connectError(h.log, cupid.Invalid("player_ids", "at most %d players, got %d", maxCheckPlayers, len(ids)))
	}
	for i, id := range ids {
		if err := encounter.CheckID(fmt.Sprintf("player_ids[%d]", i), id); err != nil {
			return nil, connectError(h.log, err)
		}
	}
	a, b, blocked, err := h.svc.Blocked(ctx, ids)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	resp := &cupidv1.CheckPlayersResponse{Blocked: blocked}
	if blocked {
		resp.Pair = []string{a, b}
	}
	return connect.NewResponse(resp), nil
}

func (h *encounters) RecordEncounter(ctx context.Context, req *connect.Request[cupidv1.RecordEncounterRequest]) (*connect.Response[cupidv1.RecordEncounterResponse], error) {
	m := req.Msg
	if len(m.GetTeams()) > encounter.MaxMeetingPlayers {
		return nil, connectError(h.log, cupid.Invalid("teams", "at most %d teams", encounter.MaxMeetingPlayers))
	}
	meeting := encounter.Meeting{Mode: m.GetMode(), Place: m.GetPlace(), Ref: m.GetRef(), At: h.now().UTC(), Outcomes: m.GetOutcomes()}
	if m.At != nil {
		if err := m.At.CheckValid(); err != nil {
			return nil, connectError(h.log, cupid.Invalid("at", "not a valid time"))
		}
		meeting.At = m.At.AsTime()
	}
	n := 0
	for _, t := range m.GetTeams() {
		meeting.Teams = append(meeting.Teams, t.GetPlayerIds())
		n += len(t.GetPlayerIds())
	}
	if err := h.svc.Record(ctx, meeting); err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.RecordEncounterResponse{Encounters: int32(n * max(n-1, 0))}), nil
}

func (h *encounters) Revenge(ctx context.Context, req *connect.Request[cupidv1.RevengeRequest]) (*connect.Response[cupidv1.RevengeResponse], error) {
	within := defaultRevenge
	if d := req.Msg.GetWithin(); d != nil {
		if err := d.CheckValid(); err != nil || d.AsDuration() <= 0 || d.AsDuration() > h.svc.Window().Horizon {
			return nil, connectError(h.log, cupid.Invalid("within", "must be more than 0 and at most the history's horizon (%s)", h.svc.Window().Horizon))
		}
		within = d.AsDuration()
	}
	ids, err := h.svc.Revenge(ctx, req.Msg.GetPlayerId(), within, cupid.MaxListItems)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.RevengeResponse{PlayerIds: ids}), nil
}

func (h *encounters) Erase(ctx context.Context, req *connect.Request[cupidv1.EraseRequest]) (*connect.Response[cupidv1.EraseResponse], error) {
	if err := h.svc.Erase(ctx, req.Msg.GetPlayerId()); err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.EraseResponse{}), nil
}

func rematchOut(v encountersvc.RematchView) *cupidv1.RematchResponse {
	return &cupidv1.RematchResponse{Rematch: &cupidv1.Rematch{
		Id: v.ID, PlayerIds: v.Players[:], Queue: v.Place, Ref: v.Ref, State: v.State,
		ExpiresAt: timestamppb.New(v.ExpiresAt), MatchId: v.MatchID,
	}}
}

func (h *encounters) RequestRematch(ctx context.Context, req *connect.Request[cupidv1.RequestRematchRequest]) (*connect.Response[cupidv1.RematchResponse], error) {
	v, err := h.svc.RequestRematch(ctx, req.Msg.GetPlayerId(), req.Msg.GetOtherId(), req.Msg.GetRef())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(rematchOut(v)), nil
}

func (h *encounters) AnswerRematch(ctx context.Context, req *connect.Request[cupidv1.AnswerRematchRequest]) (*connect.Response[cupidv1.RematchResponse], error) {
	v, err := h.svc.AnswerRematch(ctx, req.Msg.GetPlayerId(), req.Msg.GetRematchId(), req.Msg.GetAccept())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(rematchOut(v)), nil
}

func (h *encounters) GetRematch(ctx context.Context, req *connect.Request[cupidv1.GetRematchRequest]) (*connect.Response[cupidv1.RematchResponse], error) {
	v, err := h.svc.GetRematch(ctx, req.Msg.GetPlayerId(), req.Msg.GetRematchId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(rematchOut(v)), nil
}

func reportOut(r encounter.Report) *cupidv1.PlayerReport {
	return &cupidv1.PlayerReport{ReporterId: r.Reporter, PlayerId: r.Player, Ref: r.Ref, Reason: r.Reason, Note: r.Note, At: timestamppb.New(r.At)}
}

func (h *encounters) ReportPlayer(ctx context.Context, req *connect.Request[cupidv1.ReportPlayerRequest]) (*connect.Response[cupidv1.ReportPlayerResponse], error) {
	m := req.Msg
	r, err := h.svc.ReportPlayer(ctx, m.GetPlayerId(), m.GetOtherId(), m.GetRef(), m.GetReason(), m.GetNote())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.ReportPlayerResponse{Report: reportOut(r)}), nil
}

func (h *encounters) ListReports(ctx context.Context, req *connect.Request[cupidv1.ListReportsRequest]) (*connect.Response[cupidv1.ListReportsResponse], error) {
	rs, err := h.svc.Reports(ctx, req.Msg.GetPlayerId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.ListReportsResponse{}
	for _, r := range rs {
		out.Reports = append(out.Reports, reportOut(r))
	}
	return connect.NewResponse(out), nil
}
