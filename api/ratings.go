package api

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/rating"
	"github.com/cupid-match/cupid/service/ratingsvc"
)

// The rating service's rules: results and low-priority marks are the
// backend's (a server key with the tickets scope, as the hand-off of
// matches is); a player may read his own ratings and history.
func init() {
	own := func(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
		id := m.(interface{ GetPlayerId() string }).GetPlayerId()
		if id != p {
			return denied("the token's player %s may read only his own ratings, not %s", p, quoteEmpty(id))
		}
		return nil
	}
	rules[cupidv1connect.RatingServiceReportResultProcedure] = rule{scope: ScopeTickets}
	rules[cupidv1connect.RatingServiceGetPlayerRatingsProcedure] = rule{scope: ScopeTickets, player: own}
	rules[cupidv1connect.RatingServiceListRatingHistoryProcedure] = rule{scope: ScopeTickets, player: own}
	rules[cupidv1connect.RatingServiceSetLowPriorityProcedure] = rule{scope: ScopeTickets}
	rules[cupidv1connect.RatingServiceClearLowPriorityProcedure] = rule{scope: ScopeTickets}
}

func registerRatings(mux *http.ServeMux, svc *ratingsvc.Service, log *slog.Logger, opts []connect.HandlerOption) {
	mux.Handle(cupidv1connect.NewRatingServiceHandler(&ratings{svc: svc, log: log}, opts...))
}

// ratings serves cupid.v1.RatingService over the ratings service.
type ratings struct {
	svc *ratingsvc.Service
	log *slog.Logger
}

var _ cupidv1connect.RatingServiceHandler = (*ratings)(nil)

func (h *ratings) ReportResult(ctx context.Context, req *connect.Request[cupidv1.ReportResultRequest]) (*connect.Response[cupidv1.ReportResultResponse], error) {
	m := req.Msg
	rep := ratingsvc.Report{MatchID: m.GetMatchId(), TeamScores: m.GetTeamScores(), PlayerScores: m.GetPlayerScores(), Leavers: m.GetLeavers()}
	for _, p := range m.GetTeamPlaces() {
		rep.TeamPlaces = append(rep.TeamPlaces, int(p))
	}
	if len(m.GetPlayerPlaces()) > 0 {
		rep.PlayerPlaces = map[string]int{}
		for k, v := range m.GetPlayerPlaces() {
			rep.PlayerPlaces[k] = int(v)
		}
	}
	out, repeated, err := h.svc.ReportResult(ctx, rep)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	resp := &cupidv1.ReportResultResponse{Rating: out.Rating, Repeated: repeated}
	for _, c := range out.Players {
		resp.Changes = append(resp.Changes, changeOut(c, out.MatchID, out.At, 0))
	}
	return connect.NewResponse(resp), nil
}

func changeOut(c ratingsvc.PlayerChange, matchID string, at time.Time, seq int64) *cupidv1.RatingChange {
	out := &cupidv1.RatingChange{
		PlayerId: c.Player, Team: int32(c.Team), Place: int32(c.Place), Score: c.Score, Expected: c.Expected, Leaver: c.Leaver,
		Before: c.Before, After: c.After, Pending: int32(c.Pending), LeagueBefore: c.LeagueBefore, LeagueAfter: c.LeagueAfter,
		Flags: flagsOut(c.Flags), MatchId: matchID, Seq: seq, At: timestamppb.New(at),
	}
	return out
}

func flagsOut(f rating.Flags) *cupidv1.FairPlayFlags {
	return &cupidv1.FairPlayFlags{Tanking: f.Tanking, Smurf: f.Smurf, Ease: f.Ease, Why: f.Why}
}

func (h *ratings) GetPlayerRatings(ctx context.Context, req *connect.Request[cupidv1.GetPlayerRatingsRequest]) (*connect.Response[cupidv1.GetPlayerRatingsResponse], error) {
	v, err := h.svc.GetPlayerRatings(ctx, req.Msg.GetPlayerId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	resp := &cupidv1.GetPlayerRatingsResponse{PlayerId: v.Player, LowPriority: lowPriorityOut(v.LowPriority)}
	for _, r := range v.Ratings {
		pr := &cupidv1.PlayerRating{
			Rating: r.Rating, Value: r.Value, League: r.League, Division: int32(r.Division),
			Games: int32(r.Games), Wins: int32(r.Wins), Losses: int32(r.Losses), Draws: int32(r.Draws), Leaves: int32(r.Leaves),
			Flags: flagsOut(r.Flags), Matchmaking: h.svc.Matchmaking(&r),
		}
		if r.Skill != nil {
			pr.Mu, pr.Sigma = r.Skill.Mu, r.Skill.Sigma
		}
		if r.Glicko != nil {
			pr.GlickoRating, pr.GlickoDeviation, pr.GlickoVolatility = r.Glicko.R, r.Glicko.RD, r.Glicko.Sigma
		}
		resp.Ratings = append(resp.Ratings, pr)
	}
	return connect.NewResponse(resp), nil
}

func lowPriorityOut(lp *ratingsvc.LowPriority) *cupidv1.LowPriority {
	if lp == nil {
		return nil
	}
	out := &cupidv1.LowPriority{Games: int32(lp.Games), Reason: lp.Reason, SetAt: timestamppb.New(lp.SetAt)}
	if !lp.Until.IsZero() {
		out.Until = timestamppb.New(lp.Until)
	}
	return out
}

func (h *ratings) ListRatingHistory(ctx context.Context, req *connect.Request[cupidv1.ListRatingHistoryRequest]) (*connect.Response[cupidv1.ListRatingHistoryResponse], error) {
	m := req.Msg
	es, err := h.svc.History(ctx, m.GetRating(), m.GetPlayerId(), m.GetBeforeSeq(), int(m.GetLimit()))
	if err != nil {
		return nil, connectError(h.log, err)
	}
	resp := &cupidv1.ListRatingHistoryResponse{}
	for _, e := range es {
		resp.Changes = append(resp.Changes, changeOut(e.Change, e.MatchID, e.At, e.Seq))
	}
	return connect.NewResponse(resp), nil
}

// MaxLowPriorityDuration bounds a low-priority mark by time: a year is
// longer than any rule breaker's sentence, and a mark's end must stay a
// time the stores and clients can write (ten thousand years is not).
const MaxLowPriorityDuration = 366 * 24 * time.Hour

func (h *ratings) SetLowPriority(ctx context.Context, req *connect.Request[cupidv1.SetLowPriorityRequest]) (*connect.Response[cupidv1.SetLowPriorityResponse], error) {
	m := req.Msg
	d := m.GetDuration()
	if d != nil {
		if err := d.CheckValid(); err != nil {
			return nil, connectError(h.log, cupid.Invalid("duration", "%v", err))
		}
		if d.AsDuration() > MaxLowPriorityDuration {
			return nil, connectError(h.log, cupid.Invalid("duration", "at most %s (366 days), got %s", MaxLowPriorityDuration, d.AsDuration()))
		}
	}
	lp, err := h.svc.SetLowPriority(ctx, m.GetPlayerId(), d.AsDuration(), int(m.GetGames()), m.GetReason())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.SetLowPriorityResponse{LowPriority: lowPriorityOut(lp)}), nil
}

func (h *ratings) ClearLowPriority(ctx context.Context, req *connect.Request[cupidv1.ClearLowPriorityRequest]) (*connect.Response[cupidv1.ClearLowPriorityResponse], error) {
	if err := h.svc.ClearLowPriority(ctx, req.Msg.GetPlayerId()); err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.ClearLowPriorityResponse{}), nil
}
