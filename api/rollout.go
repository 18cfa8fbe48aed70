package api

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/rollout"
	"github.com/cupid-match/cupid/service/ticketsvc/canary"
)

// rollouts serves cupid.v1.RolloutService: shadows and canaries
// (docs/rollouts.md). It converts and calls the ticket service's
// roll-outs (package canary), which decide.
type rollouts struct {
	ro  *canary.Service
	log *slog.Logger
}

var _ cupidv1connect.RolloutServiceHandler = (*rollouts)(nil)

func registerRollouts(mux *http.ServeMux, ro *canary.Service, log *slog.Logger, opts []connect.HandlerOption) {
	mux.Handle(cupidv1connect.NewRolloutServiceHandler(&rollouts{ro: ro, log: log}, opts...))
}

func (h *rollouts) StartShadow(ctx context.Context, req *connect.Request[cupidv1.StartShadowRequest]) (*connect.Response[cupidv1.StartShadowResponse], error) {
	m := req.Msg
	rep, err := h.ro.StartShadow(ctx, canary.ShadowOptions{Queue: m.GetQueue(), Ruleset: []byte(m.GetRuleset()),
		SkillAttribute: m.GetSkillAttribute(), Reason: m.GetReason()})
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.StartShadowResponse{Report: shadowReportPB(rep)}), nil
}

func (h *rollouts) StopShadow(ctx context.Context, req *connect.Request[cupidv1.StopShadowRequest]) (*connect.Response[cupidv1.StopShadowResponse], error) {
	if err := h.ro.StopShadow(ctx, req.Msg.GetQueue(), req.Msg.GetReason()); err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.StopShadowResponse{}), nil
}

func (h *rollouts) ShadowReport(ctx context.Context, req *connect.Request[cupidv1.ShadowReportRequest]) (*connect.Response[cupidv1.ShadowReportResponse], error) {
	rep, err := h.ro.ShadowReport(ctx, req.Msg.GetQueue())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.ShadowReportResponse{Report: shadowReportPB(rep)}), nil
}

func (h *rollouts) StartCanary(ctx context.Context, req *connect.Request[cupidv1.StartCanaryRequest]) (*connect.Response[cupidv1.StartCanaryResponse], error) {
	m := req.Msg
	o := canary.CanaryOptions{Queue: m.GetQueue(), Ruleset: []byte(m.GetRuleset()), Share: m.GetShare(), Reason: m.GetReason()}
	if g := m.GetGuard(); g != nil {
		w := g.GetWindowSeconds()
		if !(w >= 0 && w <= rollout.MaxWindow.Seconds()) || math.IsNaN(w) {
			return nil, connectError(h.log, cupid.Invalid("guard.window_seconds", "must be between 1 and %v seconds, got %v", rollout.MaxWindow.Seconds(), w))
		}
		o.Guard = rollout.Guard{WaitMargin: g.GetWaitMargin(), QualityMargin: g.GetQualityMargin(),
			Window: time.Duration(w * float64(time.Second)), MinSamples: int(g.GetMinSamples())}
	}
	st, err := h.ro.StartCanary(ctx, o)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.StartCanaryResponse{Status: canaryPB(st)}), nil
}

func (h *rollouts) CanaryStatus(ctx context.Context, req *connect.Request[cupidv1.CanaryStatusRequest]) (*connect.Response[cupidv1.CanaryStatusResponse], error) {
	st, err := h.ro.CanaryStatus(ctx, req.Msg.GetQueue())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.CanaryStatusResponse{Status: canaryPB(st)}), nil
}

func (h *rollouts) PromoteCanary(ctx context.Context, req *connect.Request[cupidv1.PromoteCanaryRequest]) (*connect.Response[cupidv1.PromoteCanaryResponse], error) {
	st, err := h.ro.PromoteCanary(ctx, req.Msg.GetQueue(), req.Msg.GetReason())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.PromoteCanaryResponse{Status: canaryPB(st)}), nil
}

func (h *rollouts) RollbackCanary(ctx context.Context, req *connect.Request[cupidv1.RollbackCanaryRequest]) (*connect.Response[cupidv1.RollbackCanaryResponse], error) {
	st, err := h.ro.RollbackCanary(ctx, req.Msg.GetQueue(), req.Msg.GetReason())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.RollbackCanaryResponse{Status: canaryPB(st)}), nil
}

func shadowReportPB(r *canary.ShadowReport) *cupidv1.ShadowReport {
	out := &cupidv1.ShadowReport{Queue: r.Queue, Ruleset: r.Ruleset, Started: timestamppb.New(r.Started), WindowSeconds: r.WindowSeconds}
	for _, k := range r.Keys {
		out.Keys = append(out.Keys, &cupidv1.ShadowKey{Key: k.Key, Live: sidePB(k.Live), Shadow: sidePB(k.Shadow)})
	}
	return out
}

func sidePB(f canary.SideFigures) *cupidv1.SideFigures {
	out := &cupidv1.SideFigures{Matches: int32(f.Matches), WaitSamples: int32(f.Wait.Samples),
		WaitP50Seconds: f.Wait.P50, WaitP90Seconds: f.Wait.P90, WaitP99Seconds: f.Wait.P99, MeanQuality: f.Quality.Mean,
		SkillGap: spreadPB(f.SkillGap), PingMs: spreadPB(f.PingMS),
		Expired: int32(f.Expired), TakenByLive: int32(f.TakenByLive), Refused: int32(f.Refused)}
	if len(f.Quality.Parts) > 0 {
		out.QualityParts = map[string]float64{}
		for _, p := range f.Quality.Parts {
			out.QualityParts[p.Name] = p.Mean
		}
	}
	return out
}

func spreadPB(s rollout.Summary) *cupidv1.Spread {
	return &cupidv1.Spread{Count: int32(s.Count), Mean: s.Mean, P50: s.P50, P90: s.P90, P99: s.P99}
}

func canaryPB(s *canary.CanaryStatus) *cupidv1.CanaryStatus {
	out := &cupidv1.CanaryStatus{Queue: s.Queue, Ruleset: s.Ruleset, Share: s.Share, Started: timestamppb.New(s.Started),
		State: s.State, Reason: s.Reason, Live: figuresPB(s.Live), Canary: figuresPB(s.Canary),
		Guard: &cupidv1.CanaryGuard{WaitMargin: s.Guard.WaitMargin, QualityMargin: s.Guard.QualityMargin,
			WindowSeconds: s.Guard.Window.Seconds(), MinSamples: int32(s.Guard.MinSamples)}}
	if !s.Decided.IsZero() {
		out.Decided = timestamppb.New(s.Decided)
	}
	return out
}

func figuresPB(f rollout.Figures) *cupidv1.CanaryFigures {
	return &cupidv1.CanaryFigures{Samples: int32(f.Samples), Matches: int32(f.Matches), WaitP50Seconds: f.WaitP50,
		WaitP90Seconds: f.WaitP90, WaitP99Seconds: f.WaitP99, MeanQuality: f.MeanQuality}
}
