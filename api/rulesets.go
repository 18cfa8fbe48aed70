package api

import (
	"context"
	"log/slog"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/importer"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/ticketsvc/replace"
)

// rulesets serves cupid.v1.RulesetService.
type rulesets struct {
	rs  *replace.Service
	log *slog.Logger
}

var _ cupidv1connect.RulesetServiceHandler = (*rulesets)(nil)

func (h *rulesets) ValidateRuleset(_ context.Context, req *connect.Request[cupidv1.ValidateRulesetRequest]) (*connect.Response[cupidv1.ValidateRulesetResponse], error) {
	probs := h.rs.Validate([]byte(req.Msg.GetRuleset()))
	out := &cupidv1.ValidateRulesetResponse{Valid: len(probs) == 0}
	for _, p := range probs {
		out.Problems = append(out.Problems, &cupidv1.RulesetProblem{
			Path: p.Path, Line: int32(p.Line), Column: int32(p.Column), Message: p.Message,
		})
	}
	return connect.NewResponse(out), nil
}

func (h *rulesets) GetRuleset(_ context.Context, req *connect.Request[cupidv1.GetRulesetRequest]) (*connect.Response[cupidv1.GetRulesetResponse], error) {
	src, version, err := h.rs.Ruleset(req.Msg.GetQueue())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.GetRulesetResponse{Queue: req.Msg.GetQueue(), Ruleset: string(src), Version: int32(version)}), nil
}

func (h *rulesets) PutRuleset(ctx context.Context, req *connect.Request[cupidv1.PutRulesetRequest]) (*connect.Response[cupidv1.PutRulesetResponse], error) {
	v, err := h.rs.Put(ctx, req.Msg.GetQueue(), []byte(req.Msg.GetRuleset()), int(req.Msg.GetExpectedVersion()), "api")
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.PutRulesetResponse{Version: int32(v)}), nil
}

func (h *rulesets) ImportRuleset(_ context.Context, req *connect.Request[cupidv1.ImportRulesetRequest]) (*connect.Response[cupidv1.ImportRulesetResponse], error) {
	src := req.Msg.GetSource()
	if len(src) > ruleset.MaxSourceBytes {
		return nil, connectError(h.log, cupid.Invalid("source", "%d bytes, more than the limit of %d", len(src), ruleset.MaxSourceBytes))
	}
	if src == "" {
		return nil, connectError(h.log, cupid.Invalid("source", "required: the file to import"))
	}
	res, err := importer.Import(req.Msg.GetFrom(), []byte(src))
	if err != nil {
		return nil, connectError(h.log, cupid.Invalid("from", "%v", err))
	}
	out := &cupidv1.ImportRulesetResponse{
		Outcome: res.Report.Outcome().String(),
		Ruleset: string(res.Ruleset),
		Queues:  string(res.Config),
		Refused: res.Report.Refused,
		Report:  res.Report.Text("source"),
	}
	for _, e := range res.Report.Entries {
		out.Entries = append(out.Entries, &cupidv1.ImportEntry{
			Line: int32(e.Line), Source: e.Source, Became: e.Became, Status: string(e.Status), Why: e.Why,
		})
	}
	return connect.NewResponse(out), nil
}
