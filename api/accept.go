package api

import (
	"context"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// The ready check's answers (MatchService.AcceptMatch). Who answers is a
// permission (permissions.go: a player token only for its own player);
// everything else — unknown match, player not in it, answer changed — is
// the service's.

// AcceptMatch records a player's answer to a pending match. A player token
// that names no player answers for its own.
func (h *matches) AcceptMatch(ctx context.Context, req *connect.Request[cupidv1.AcceptMatchRequest]) (*connect.Response[cupidv1.AcceptMatchResponse], error) {
	player := req.Msg.GetPlayerId()
	if c := CallerFrom(ctx); player == "" && c != nil && c.Key == nil {
		player = c.Player
	}
	out, err := h.handoff.AcceptMatch(ctx, req.Msg.GetId(), player, req.Msg.GetAccept())
	if err != nil {
		return nil, h.fail(err)
	}
	return connect.NewResponse(&cupidv1.AcceptMatchResponse{Match: matchRecordOut(out.Match)}), nil
}

// answersOut fills a match record's answers and the count of acceptances.
func answersOut(r *cupid.MatchRecord, out *cupidv1.MatchRecord) {
	for _, a := range r.Answers {
		out.Answers = append(out.Answers, &cupidv1.MatchAnswer{PlayerId: a.PlayerID, Accept: a.Accept, At: timestamppb.New(a.At)})
		if a.Accept {
			out.Accepted++
		}
	}
}

// acceptByOut sets a match's ready-check deadline when it has one.
func acceptByOut(m *cupid.Match, out *cupidv1.Match) {
	if !m.AcceptBy.IsZero() {
		out.AcceptBy = timestamppb.New(m.AcceptBy)
	}
}

// mayAnswer lets a player token answer only for its own player.
func mayAnswer(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
	if id := m.(*cupidv1.AcceptMatchRequest).GetPlayerId(); id != "" && id != p {
		return denied("the token's player %s may answer only for himself, not for %s", p, id)
	}
	return nil
}
