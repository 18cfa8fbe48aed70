package api

import (
	"context"
	"fmt"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"
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
	if m.BackfillOptions != nil {
		out.BackfillOptions = make(map[string]*structpb.ListValue, len(m.BackfillOptions))
		for name, vals := range m.BackfillOptions {
			l := &structpb.ListValue{Values: make([]*structpb.Value, len(vals))}
			for i, v := range vals {
				l.Values[i] = structpb.NewStringValue(v)
			}
			out.BackfillOptions[name] = l
		}
	}
	for _, l := range m.Left {
		out.Left = append(out.Left, &cupidv1.Leaver{PlayerId: l.PlayerID, Team: int32(l.Team), At: timestamppb.New(l.At), Replaced: l.Replaced})
	}
}

func (h *matches) OpenBackfill(ctx context.Context, req *connect.Request[cupidv1.OpenBackfillRequest]) (*connect.Response[cupidv1.OpenBackfillResponse], error) {
	options, err := optionsIn(req.Msg.GetMatchOptions())
	if err != nil {
		return nil, h.fail(err)
	}
	teams, err := backfillTeamsIn(req.Msg.GetTeams())
	if err != nil {
		return nil, h.fail(err)
	}
	r, err := h.handoff.OpenBackfillWithTeams(ctx, req.Msg.GetId(), options, teams)
	if err != nil {
		return nil, h.fail(err)
	}
	return connect.NewResponse(&cupidv1.OpenBackfillResponse{Match: matchRecordOut(r)}), nil
}

// backfillTeamsIn turns a game server's view of its session's teams into
// the domain's; nil when none was given.
func backfillTeamsIn(in []*cupidv1.BackfillTeam) ([][]cupid.Player, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([][]cupid.Player, len(in))
	for i, team := range in {
		out[i] = []cupid.Player{}
		for j, p := range team.GetPlayers() {
			attrs, err := attributesIn(fmt.Sprintf("teams[%d].players[%d].attributes", i, j), p.GetAttributes())
			if err != nil {
				return nil, err
			}
			out[i] = append(out[i], cupid.Player{ID: p.GetId(), Attributes: attrs})
		}
	}
	return out, nil
}

func (h *matches) CloseBackfill(ctx context.Context, req *connect.Request[cupidv1.CloseBackfillRequest]) (*connect.Response[cupidv1.CloseBackfillResponse], error) {
	r, err := h.handoff.CloseBackfill(ctx, req.Msg.GetId())
	if err != nil {
		return nil, h.fail(err)
	}
	return connect.NewResponse(&cupidv1.CloseBackfillResponse{Match: matchRecordOut(r)}), nil
}

func (h *matches) ReportLeavers(ctx context.Context, req *connect.Request[cupidv1.ReportLeaversRequest]) (*connect.Response[cupidv1.ReportLeaversResponse], error) {
	r, err := h.handoff.ReportLeavers(ctx, req.Msg.GetId(), req.Msg.GetPlayerIds())
	if err != nil {
		return nil, h.fail(err)
	}
	return connect.NewResponse(&cupidv1.ReportLeaversResponse{Match: matchRecordOut(r)}), nil
}

func (h *matches) EndSession(ctx context.Context, req *connect.Request[cupidv1.EndSessionRequest]) (*connect.Response[cupidv1.EndSessionResponse], error) {
	r, err := h.handoff.EndSession(ctx, req.Msg.GetId())
	if err != nil {
		return nil, h.fail(err)
	}
	return connect.NewResponse(&cupidv1.EndSessionResponse{Match: matchRecordOut(r)}), nil
}

// optionsIn reads a session's match options: each a list of strings. None
// given is nil (the session keeps the options it has).
func optionsIn(in map[string]*structpb.ListValue) (map[string][]string, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string][]string, len(in))
	for _, name := range cupid.SortedKeys(in) {
		vals := []string{}
		for i, v := range in[name].GetValues() {
			sv, ok := v.GetKind().(*structpb.Value_StringValue)
			if !ok {
				return nil, cupid.Invalid(fmt.Sprintf("match_options.%s[%d]", name, i), "must be a string")
			}
			vals = append(vals, sv.StringValue)
		}
		out[name] = vals
	}
	return out, nil
}
