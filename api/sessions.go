package api

import (
	"context"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// The game-session procedures of MatchService: a backend opens and closes
// backfill, reports leavers and ends sessions. Each answers with the
// session as stored after the change.

// sessionOut fills a match's session part.
func sessionOut(m *cupid.Match, out *cupidv1.Match) {
	for _, n := range m.Seats {
		out.Seats = append(out.Seats, int32(n))
	}
	out.Backfill = m.Backfill
	for _, l := range m.Left {
		out.Left = append(out.Left, &cupidv1.Leaver{PlayerId: l.PlayerID, Team: int32(l.Team), At: timestamppb.New(l.At), Replaced: l.Replaced})
	}
}

func (h *matches) OpenBackfill(ctx context.Context, req *connect.Request[cupidv1.OpenBackfillRequest]) (*connect.Response[cupidv1.OpenBackfillResponse], error) {
	r, err := h.mm.OpenBackfill(ctx, req.Msg.GetId(), nil)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.OpenBackfillResponse{Match: matchRecordOut(r)}), nil
}

func (h *matches) CloseBackfill(ctx context.Context, req *connect.Request[cupidv1.CloseBackfillRequest]) (*connect.Response[cupidv1.CloseBackfillResponse], error) {
	r, err := h.mm.CloseBackfill(ctx, req.Msg.GetId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.CloseBackfillResponse{Match: matchRecordOut(r)}), nil
}

func (h *matches) ReportLeavers(ctx context.Context, req *connect.Request[cupidv1.ReportLeaversRequest]) (*connect.Response[cupidv1.ReportLeaversResponse], error) {
	r, err := h.mm.ReportLeavers(ctx, req.Msg.GetId(), req.Msg.GetPlayerIds())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.ReportLeaversResponse{Match: matchRecordOut(r)}), nil
}

func (h *matches) EndSession(ctx context.Context, req *connect.Request[cupidv1.EndSessionRequest]) (*connect.Response[cupidv1.EndSessionResponse], error) {
	r, err := h.mm.EndSession(ctx, req.Msg.GetId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.EndSessionResponse{Match: matchRecordOut(r)}), nil
}
